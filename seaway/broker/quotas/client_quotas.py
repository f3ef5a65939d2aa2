"""The node's client quotas: values by entity, written through to the metadata store, and
the managers that enforce the byte rates.

AlterClientQuotas is checked entity by entity as Kafka's controller does: an entity with a
bad key or value changes nothing, the others apply together (or none with
``validate_only``). A removal needs no valid key; a key given twice for one entity, or an
entity given twice, is an error for that entity.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from seaway.broker.metadata import MetadataStore
from seaway.broker.quotas.entities import (
    CONSUMER_BYTE_RATE,
    PRODUCER_BYTE_RATE,
    Entity,
    Filter,
    entity_from_text,
    entity_problem,
    entity_text,
    shown,
    value_problem,
)
from seaway.broker.quotas.manager import ClientQuotaManager
from seaway.protocol.errors import ErrorCode

__all__ = ["Alteration", "ClientQuotas"]

Alteration = tuple[Entity, Sequence[tuple[str, float | None]]]  # ops: (key, value; None: remove)
Result = tuple[ErrorCode, str | None]
_OK: Result = (ErrorCode.none, None)


class ClientQuotas:
    """Quota values by entity (``quota.window.num`` samples of ``quota.window.size.seconds``
    for the rates); ``produce`` and ``fetch`` enforce the two byte rates."""

    def __init__(self, store: MetadataStore, samples: int, window_seconds: int) -> None:
        self._store = store
        self._values: dict[Entity, dict[str, float]] = {}
        for text, key, value in store.client_quotas():
            self._values.setdefault(entity_from_text(text), {})[key] = value
        self.produce = ClientQuotaManager(samples, window_seconds)
        self.fetch = ClientQuotaManager(samples, window_seconds)
        self._refresh()

    def _refresh(self) -> None:
        for manager, key in ((self.produce, PRODUCER_BYTE_RATE), (self.fetch, CONSUMER_BYTE_RATE)):
            manager.update({e: v[key] for e, v in self._values.items() if key in v})

    def describe(self, wanted: Filter) -> list[tuple[Entity, dict[str, float]]]:
        """The entities the filter matches, with their values."""
        return [(e, dict(v)) for e, v in self._values.items() if wanted.matches(e)]

    def alter(
        self, alterations: Iterable[Alteration], validate_only: bool
    ) -> list[tuple[Entity, ErrorCode, str | None]]:
        """Check each entity's changes, apply the valid ones (unless ``validate_only``) and
        return one result per distinct entity, in request order."""
        results: dict[Entity, Result] = {}
        changes: dict[Entity, dict[str, float | None]] = {}
        for entity, ops in alterations:
            wanted: dict[str, float | None] = {}
            for key, value in ops:
                if key in wanted:
                    message = f"Duplicate quota key {key} not updating quota for this entity"
                    results[entity] = (ErrorCode.invalid_request, f"{message} {shown(entity)}")
                wanted[key] = value
            if entity in results:
                results[entity] = (ErrorCode.invalid_request,
                                   f"Ignoring duplicate entity {shown(entity)}")  # fmt: skip
                continue
            problem = entity_problem(entity) or next(
                (p for k, v in wanted.items() if v is not None and (p := value_problem(k, v))),
                None,
            )
            results[entity] = problem or _OK
            if problem is None:
                current = self._values.get(entity, {})
                changes[entity] = {
                    k: v
                    for k, v in wanted.items()
                    if (k in current if v is None else current.get(k) != v)
                }
        if not validate_only:
            self._apply(changes)
        return [(e, code, message) for e, (code, message) in results.items()]

    def _apply(self, changes: dict[Entity, dict[str, float | None]]) -> None:
        upserts = [(entity_text(e), k, v) for e, ops in changes.items() for k, v in ops.items()
                   if v is not None]  # fmt: skip
        removals = [(entity_text(e), k) for e, ops in changes.items() for k, v in ops.items()
                    if v is None]  # fmt: skip
        if not upserts and not removals:
            return
        self._store.alter_client_quotas(upserts, removals)
        for e, ops in changes.items():
            values = self._values.setdefault(e, {})
            for k, v in ops.items():
                if v is None:
                    values.pop(k, None)
                else:
                    values[k] = v
            if not values:
                del self._values[e]
        self._refresh()
