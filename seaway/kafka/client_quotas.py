"""DescribeClientQuotas (48) and AlterClientQuotas (49) with the batch client, against any
Kafka (confluent-kafka's AdminClient has no client-quota calls).

An entity is a tuple of ``(entity type, name)`` pairs, a name of None standing for the type's
default (``<default>``); the types are Kafka's: :data:`USER`, :data:`CLIENT_ID`, :data:`IP`.
Results keep the order the broker sent them in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from seaway.kafka.cluster import KafkaCluster
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested

__all__ = [
    "CLIENT_ID",
    "IP",
    "USER",
    "Alteration",
    "Component",
    "Entity",
    "alter_client_quotas",
    "describe_client_quotas",
]

USER: Final = "user"
CLIENT_ID: Final = "client-id"
IP: Final = "ip"

_EXACT, _DEFAULT, _SPECIFIED = 0, 1, 2

Entity = tuple[tuple[str, str | None], ...]
# an entity and its changes: key -> new value, None removes the key
Alteration = tuple[Entity, Sequence[tuple[str, float | None]]]


@dataclass(frozen=True)
class Component:
    """One filter component, as Kafka's ``ClientQuotaFilterComponent``."""

    entity_type: str
    match_type: int
    match: str | None = None

    @classmethod
    def of_entity(cls, entity_type: str, name: str) -> Component:
        """Entities whose *entity_type* is named *name*."""
        return cls(entity_type, _EXACT, name)

    @classmethod
    def of_default(cls, entity_type: str) -> Component:
        """Entities with *entity_type*'s default."""
        return cls(entity_type, _DEFAULT)

    @classmethod
    def of_type(cls, entity_type: str) -> Component:
        """Entities with any name (or the default) for *entity_type*."""
        return cls(entity_type, _SPECIFIED)


def describe_client_quotas(
    cluster: KafkaCluster, components: Iterable[Component], strict: bool = False
) -> list[tuple[Entity, list[tuple[str, float]]]]:
    """The entities the filter matches (``strict``: those with no other entity types) and
    their quota values; :class:`KafkaError` with the broker's code and message if it refuses."""
    wanted = list(components)

    def call() -> Any:
        connection = cluster.any_connection()
        cls = connection.request_class(ApiKey.DESCRIBE_CLIENT_QUOTAS, 0, 1)
        component_cls = nested(cls, "ComponentData")
        request = make(cls, strict=strict, components=tuple(
            make(component_cls, entity_type=c.entity_type, match_type=c.match_type,
                 match=c.match) for c in wanted))  # fmt: skip
        response = connection.request(request)
        if response.error_code != ErrorCode.none:
            raise KafkaError(ErrorCode(response.error_code), response.error_message)
        return response

    response = cluster.retrying(call, "DescribeClientQuotas")
    return [
        (
            tuple((str(e.entity_type), _name(e.entity_name)) for e in entry.entity),
            [(str(v.key), float(v.value)) for v in entry.values],
        )
        for entry in response.entries or ()
    ]


def alter_client_quotas(
    cluster: KafkaCluster, alterations: Sequence[Alteration], validate_only: bool = False
) -> list[tuple[Entity, KafkaError | None]]:
    """Set and remove quota values; each entity's outcome (None: applied, or valid with
    ``validate_only``), as the broker answered."""

    def call() -> Any:
        connection = cluster.any_connection()
        cls = connection.request_class(ApiKey.ALTER_CLIENT_QUOTAS, 0, 1)
        entry_cls, entity_cls, op_cls = (
            nested(cls, n) for n in ("EntryData", "EntityData", "OpData")
        )
        entries = tuple(
            make(
                entry_cls,
                entity=tuple(make(entity_cls, entity_type=t, entity_name=n) for t, n in entity),
                ops=tuple(
                    make(op_cls, key=k, value=0.0 if v is None else v, remove=v is None)
                    for k, v in ops
                ),
            )
            for entity, ops in alterations
        )
        return connection.request(make(cls, entries=entries, validate_only=validate_only))

    response = cluster.retrying(call, "AlterClientQuotas")
    return [
        (
            tuple((str(e.entity_type), _name(e.entity_name)) for e in entry.entity),
            None
            if entry.error_code == ErrorCode.none
            else KafkaError(ErrorCode(entry.error_code), entry.error_message),
        )
        for entry in response.entries
    ]


def _name(value: Any) -> str | None:
    return None if value is None else str(value)
