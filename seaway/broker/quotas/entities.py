"""Quota entities and keys, checked as Kafka's controller checks them
(``ClientQuotaControlManager``) and matched by DescribeClientQuotas filters as Kafka's
``ClientQuotasImage.describe`` matches them.

An entity maps entity types (``user``, ``client-id``) to a name, or to None for the type's
``<default>``; here it is the sorted tuple of those pairs, so that it can key a dict.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from seaway.config import Type
from seaway.protocol.errors import ErrorCode, KafkaError

__all__ = [
    "CLIENT_ID",
    "CONSUMER_BYTE_RATE",
    "PRODUCER_BYTE_RATE",
    "QUOTA_KEYS",
    "USER",
    "Entity",
    "Filter",
    "entity",
    "entity_from_text",
    "entity_problem",
    "entity_text",
    "parse_filter",
    "quota_user",
    "shown",
    "value_problem",
]

USER = "user"
CLIENT_ID = "client-id"
IP = "ip"

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
# Kafka's QuotaConfig.userAndClientQuotaConfigs(): the keys a user or client-id may have
QUOTA_KEYS = {
    PRODUCER_BYTE_RATE: Type.LONG,
    CONSUMER_BYTE_RATE: Type.LONG,
    "request_percentage": Type.DOUBLE,
    "controller_mutation_rate": Type.DOUBLE,
}
_LONG_MAX = float(2**63 - 1)

Entity = tuple[tuple[str, str | None], ...]  # sorted (entity type, name; None: <default>)
Problem = tuple[ErrorCode, str]

_MATCH_EXACT, _MATCH_DEFAULT, _MATCH_SPECIFIED = 0, 1, 2


def entity(pairs: Iterable[tuple[str, str | None]]) -> Entity:
    """The entity of (type, name) pairs; a type given twice keeps its last name, as Kafka's
    request parsing does."""
    return tuple(sorted(dict(pairs).items()))


def quota_user(principal: str) -> str:
    """The user name quotas know a principal by: ``alice`` for ``User:alice``."""
    return principal.partition(":")[2]


def entity_text(e: Entity) -> str:
    """The entity as the metadata store keeps it: ``{"client-id": null, "user": "alice"}``."""
    return json.dumps(dict(e), sort_keys=True)


def entity_from_text(text: str) -> Entity:
    return entity(json.loads(text).items())


def shown(e: Entity) -> str:
    """The entity as Kafka's messages print it: ``ClientQuotaEntity(entries={user=alice})``."""
    entries = ", ".join(f"{t}={n if n is not None else 'null'}" for t, n in e)
    return f"ClientQuotaEntity(entries={{{entries}}})"


def entity_problem(e: Entity) -> Problem | None:
    """Why the entity cannot take quotas (Kafka's ``validateEntity`` and its entity-type
    combinations), or None."""
    if not e:
        return ErrorCode.invalid_request, "Invalid empty client quota entity"
    for entity_type, name in e:
        if entity_type not in (USER, CLIENT_ID, IP):
            return ErrorCode.invalid_request, f"Unhandled client quota entity type: {entity_type}"
        if name == "":
            return ErrorCode.invalid_request, f"Empty {entity_type} not supported"
    types = {t for t, _ in e}
    if IP in types and len(types) > 1:
        return (
            ErrorCode.invalid_request,
            "Invalid quota entity combination, IP entity shouldnot be combined with User or "
            "ClientId",
        )
    if IP in types:
        return (
            ErrorCode.invalid_request,
            "Seaway keeps no ip quotas (connection_creation_rate): set quotas on user and "
            "client-id entities",
        )
    return None


def value_problem(key: str, value: float) -> Problem | None:
    """Why ``key`` cannot be set to ``value`` (Kafka's ``validateQuotaKeyValue``), or None."""
    key_type = QUOTA_KEYS.get(key)
    if key_type is None:
        return ErrorCode.invalid_request, f"Invalid configuration key {key}"
    if value <= 0.0:
        return ErrorCode.invalid_request, f"Quota {key} must be greater than 0"
    if key_type is Type.LONG:
        if value > _LONG_MAX:
            return ErrorCode.invalid_request, f"Proposed value for {key} is too large for a LONG."
        if abs(value % 1.0) > 1e-6:
            return ErrorCode.invalid_request, f"{key} cannot be a fractional value."
    return None


class Filter:
    """A DescribeClientQuotas filter: names some types must have (None: the default), types
    that must be there with any name, and whether the entity may have other types."""

    def __init__(self, exact: Mapping[str, str | None], present: set[str], strict: bool) -> None:
        self.exact = dict(exact)
        self.present = present
        self.strict = strict

    def matches(self, e: Entity) -> bool:
        names = dict(e)
        if self.strict and len(names) != len(self.exact) + len(self.present):
            return False
        return all(t in names and names[t] == n for t, n in self.exact.items()) and all(
            t in names for t in self.present
        )


def parse_filter(components: Iterable[tuple[str, int, str | None]], strict: bool) -> Filter:
    """The filter of ``(entity type, match type, match)`` components; a bad one raises
    :class:`KafkaError` with Kafka's code and message."""
    exact: dict[str, str | None] = {}
    present: set[str] = set()
    for entity_type, match_type, match in components:
        if not entity_type:
            raise KafkaError(ErrorCode.invalid_request, "Invalid empty entity type.")
        if entity_type in exact or entity_type in present:
            raise KafkaError(
                ErrorCode.invalid_request,
                f"Entity type {entity_type} cannot appear more than once in the filter.",
            )
        if entity_type not in (USER, CLIENT_ID, IP):
            raise KafkaError(
                ErrorCode.unsupported_version, f"Unsupported entity type {entity_type}"
            )
        if match_type == _MATCH_EXACT:
            if match is None:
                raise KafkaError(
                    ErrorCode.invalid_request,
                    "Request specified MATCH_TYPE_EXACT, but set match string to null.",
                )
            exact[entity_type] = match
        elif match_type in (_MATCH_DEFAULT, _MATCH_SPECIFIED):
            if match is not None:
                which = "DEFAULT" if match_type == _MATCH_DEFAULT else "SPECIFIED"
                raise KafkaError(
                    ErrorCode.invalid_request,
                    f"Request specified MATCH_TYPE_{which}, but also specified a match string.",
                )
            if match_type == _MATCH_DEFAULT:
                exact[entity_type] = None
            else:
                present.add(entity_type)
        else:
            raise KafkaError(ErrorCode.invalid_request, f"Unknown match type {match_type}")
    types = {*exact, *present}
    if IP in types and len(types) > 1:
        raise KafkaError(
            ErrorCode.invalid_request,
            "Invalid entity filter component combination. IP filter component should not be "
            "used with user or clientId filter component.",
        )
    return Filter(exact, present, strict)
