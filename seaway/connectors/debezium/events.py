"""Debezium's change events as Connect records, as every connector builds them: the
``source`` struct's common fields, the ``c``/``u``/``d``/``r``/``t`` envelope with its key,
the tombstone after a delete, and a primary key change as a delete and a create."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any, Final, Generic, TypeVar

from seaway.connect.api import SourceRecord
from seaway.connect.api.data import Schema, Struct
from seaway.connectors.debezium.config import Settings
from seaway.connectors.debezium.offsets import partition
from seaway.connectors.debezium.schemas import TableSchema

__all__ = ["DEBEZIUM_VERSION", "EventMaker"]

InfoT = TypeVar("InfoT")

DEBEZIUM_VERSION: Final = "3.6.1.Final"
"""``source.version``. Debezium writes its own release there and consumers read it to know the
event format (``ts_us``/``ts_ns``, the ``snapshot`` enum); Seaway writes the events of Debezium
3.6.1 byte for byte, so it names that release rather than Seaway's own version (which the
connector's ``version()`` reports on the REST API)."""


def _struct(schema: Schema, values: Mapping[str, Any]) -> Struct:
    """A struct of *schema* holding *values* by field name (unset fields null), unvalidated:
    the event builders make every value for its field (Connect's per-field validation cost
    more than the rest of an event; the connector tests check the events field by field)."""
    return Struct.of_values(schema, [values.get(f.name) for f in schema.fields])


class EventMaker(Generic[InfoT]):
    """Builds a connector's records; a connector's subclass makes the ``source`` struct of its
    *InfoT* (the source fields of one event) with :meth:`source_struct`."""

    def __init__(self, settings: Settings, connector: str, source_schema: Schema) -> None:
        self.settings = settings
        self.connector = connector
        self.partition = partition(settings.topic_prefix)
        self.source_schema = source_schema

    def source_struct(
        self,
        *,
        ts_ms: int,
        ts_us: int,
        snapshot: str | None,
        db: str,
        sequence: str | None = None,
        fields: Iterable[tuple[str, Any]] = (),
    ) -> Struct:
        """The ``source`` struct: the common fields (``ts_ns`` from *ts_us*), then the
        connector's *fields*. *snapshot* None: not a snapshot row (JSON shows ``"false"``)."""
        values = {
            "version": DEBEZIUM_VERSION, "connector": self.connector,
            "name": self.settings.topic_prefix, "ts_ms": ts_ms, "snapshot": snapshot, "db": db,
            "sequence": sequence, "ts_us": ts_us, "ts_ns": ts_us * 1000, **dict(fields),
        }  # fmt: skip
        return _struct(self.source_schema, values)

    def source(self, info: InfoT) -> Struct:
        """The ``source`` struct of *info*."""
        raise NotImplementedError

    def change(
        self,
        schema: TableSchema,
        op: str,
        before: Struct | None,
        after: Struct | None,
        info: InfoT,
        offset: dict[str, Any],
        key_row: Struct | None = None,
    ) -> list[SourceRecord]:
        """The records of one row change: the envelope, and a tombstone after a delete.
        The key is *key_row*'s, else *after*'s, else *before*'s."""
        now_ns = time.time_ns()
        envelope = _struct(schema.envelope, {
            "before": before, "after": after, "source": self.source(info), "op": op,
            "ts_ms": now_ns // 1_000_000, "ts_us": now_ns // 1000, "ts_ns": now_ns,
        })  # fmt: skip
        keyed = key_row if key_row is not None else (after if after is not None else before)
        key = schema.key(keyed) if keyed is not None else None
        records = [
            SourceRecord(
                source_partition=self.partition, source_offset=offset, topic=schema.topic,
                key_schema=schema.key_schema, key=key, value_schema=schema.envelope,
                value=envelope,
            )
        ]  # fmt: skip
        if op == "d" and self.settings.tombstones_on_delete:
            records.append(
                SourceRecord(
                    source_partition=self.partition, source_offset=offset, topic=schema.topic,
                    key_schema=schema.key_schema, key=key, value_schema=None, value=None,
                )
            )  # fmt: skip
        return records

    def key_change(
        self,
        schema: TableSchema,
        before: Struct,
        after: Struct,
        info: InfoT,
        offset: dict[str, Any],
    ) -> list[SourceRecord]:
        """An update that changed the primary key (``RelationalChangeRecordEmitter``): ``d``
        under the old key with header ``__debezium.newkey``, its tombstone, then ``c`` under
        the new key with header ``__debezium.oldkey``."""
        deleted = self.change(schema, "d", before, None, info, offset)
        deleted[0].headers.add("__debezium.newkey", schema.key(after), schema.key_schema)
        created = self.change(schema, "c", None, after, info, offset)
        created[0].headers.add("__debezium.oldkey", schema.key(before), schema.key_schema)
        return deleted + created
