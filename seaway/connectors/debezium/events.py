"""Debezium's change events as Connect records: ``c``/``u``/``d``/``r`` envelopes with their
keys, the tombstone after a delete, and schema change events on the ``<prefix>`` topic."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api import SourceRecord, Struct
from seaway.connectors.debezium.config import Settings
from seaway.connectors.debezium.history import TableChange
from seaway.connectors.debezium.position import partition
from seaway.connectors.debezium.schemas import (
    TableSchema,
    schema_change_key_schema,
    schema_change_value_schema,
    source_schema,
    table_change_schema,
)

__all__ = ["DEBEZIUM_VERSION", "EventMaker", "SourceInfo"]

DEBEZIUM_VERSION: Final = "3.6.1.Final"
"""``source.version``. Debezium writes its own release there and consumers read it to know the
event format (``ts_us``/``ts_ns``, the ``snapshot`` enum); Seaway writes the events of Debezium
3.6.1 byte for byte, so it names that release rather than Seaway's own version (which the
connector's ``version()`` reports on the REST API)."""


@dataclass(frozen=True)
class SourceInfo:
    """The binlog fields of ``source`` for one event or snapshot row."""

    db: str
    table: str | None
    ts_ms: int
    file: str
    pos: int
    row: int = 0
    server_id: int = 0
    gtid: str | None = None
    thread: int | None = None
    snapshot: str | None = None  # None: not a snapshot row (JSON shows the default "false")


class EventMaker:
    """Builds a connector's records."""

    def __init__(self, settings: Settings, connector: str) -> None:
        self.settings = settings
        self.connector = connector
        self.partition = partition(settings.topic_prefix)
        self.source_schema = source_schema(connector)
        self.change_key_schema = schema_change_key_schema(connector)
        self.change_value_schema = schema_change_value_schema(connector, self.source_schema)
        self._change_schema = table_change_schema()

    def source(self, info: SourceInfo) -> Struct:
        """The ``source`` struct."""
        s = Struct(self.source_schema)
        for name, value in (
            ("version", DEBEZIUM_VERSION), ("connector", self.connector),
            ("name", self.settings.topic_prefix), ("ts_ms", info.ts_ms),
            ("snapshot", info.snapshot), ("db", info.db), ("ts_us", info.ts_ms * 1000),
            ("ts_ns", info.ts_ms * 1_000_000), ("table", info.table),
            ("server_id", info.server_id), ("gtid", info.gtid), ("file", info.file),
            ("pos", info.pos), ("row", info.row), ("thread", info.thread),
        ):  # fmt: skip
            s.put(name, value)
        return s

    def change(
        self,
        schema: TableSchema,
        op: str,
        before: Struct | None,
        after: Struct | None,
        info: SourceInfo,
        offset: dict[str, Any],
    ) -> list[SourceRecord]:
        """The records of one row change: the envelope, and a tombstone after a delete."""
        now_ns = time.time_ns()
        envelope = Struct(schema.envelope)
        envelope.put("before", before)
        envelope.put("after", after)
        envelope.put("source", self.source(info))
        envelope.put("op", op)
        envelope.put("ts_ms", now_ns // 1_000_000)
        envelope.put("ts_us", now_ns // 1000)
        envelope.put("ts_ns", now_ns)
        key = schema.key(after if after is not None else before)  # type: ignore[arg-type]
        record = SourceRecord(
            source_partition=self.partition, source_offset=offset, topic=schema.topic,
            key_schema=schema.key_schema, key=key, value_schema=schema.envelope, value=envelope,
        )  # fmt: skip
        records = [record]
        if op == "d" and self.settings.tombstones_on_delete:
            records.append(
                SourceRecord(
                    source_partition=self.partition,
                    source_offset=offset,
                    topic=schema.topic,
                    key_schema=schema.key_schema,
                    key=key,
                    value_schema=None,
                    value=None,
                )
            )
        return records

    def schema_change(
        self,
        database: str,
        ddl: str,
        changes: tuple[TableChange, ...],
        info: SourceInfo,
        offset: dict[str, Any],
    ) -> SourceRecord:
        """The schema change event of one DDL statement."""
        key = Struct(self.change_key_schema).put("databaseName", database)
        value = Struct(self.change_value_schema)
        value.put("source", self.source(info))
        value.put("ts_ms", info.ts_ms)
        value.put("databaseName", database)
        value.put("schemaName", None)
        value.put("ddl", ddl)
        value.put("tableChanges", [self._change_struct(c) for c in changes])
        return SourceRecord(
            source_partition=self.partition, source_offset=offset,
            topic=self.settings.topic_prefix, kafka_partition=0,
            key_schema=self.change_key_schema, key=key,
            value_schema=self.change_value_schema, value=value,
        )  # fmt: skip

    def _change_struct(self, change: TableChange) -> Struct:
        data = change.json()
        table_schema: Any = self._change_schema.field("table").schema  # type: ignore[union-attr]
        column_schema: Any = table_schema.field("columns").schema.value_schema
        columns = []
        for column in data["table"]["columns"]:
            struct = Struct(column_schema)
            for field in column_schema.fields:
                value = column.get(field.name)
                struct.put(field.name, value if value != [] else None)
            columns.append(struct)
        table = Struct(table_schema)
        table.put("defaultCharsetName", data["table"]["defaultCharsetName"])
        table.put("primaryKeyColumnNames", data["table"]["primaryKeyColumnNames"])
        table.put("columns", columns)
        return (
            Struct(self._change_schema)
            .put("type", data["type"])
            .put("id", data["id"])
            .put("table", table)
        )
