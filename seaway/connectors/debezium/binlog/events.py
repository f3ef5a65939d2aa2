"""The binlog connectors' records: the ``source`` struct of a binlog event or snapshot row,
and schema change events on the ``<prefix>`` topic. The change records with their tombstones
are built by :class:`seaway.connectors.debezium.events.EventMaker`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from seaway.connect.api import SourceRecord, Struct
from seaway.connectors.debezium import events
from seaway.connectors.debezium.binlog.config import Settings
from seaway.connectors.debezium.binlog.history import TableChange
from seaway.connectors.debezium.binlog.schemas import (
    schema_change_key_schema,
    schema_change_value_schema,
    source_schema,
    table_change_schema,
)

__all__ = ["EventMaker", "SourceInfo"]


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


class EventMaker(events.EventMaker[SourceInfo]):
    """Builds a binlog connector's records."""

    settings: Settings

    def __init__(self, settings: Settings, connector: str) -> None:
        super().__init__(settings, connector, source_schema(connector))
        self.change_key_schema = schema_change_key_schema(connector)
        self.change_value_schema = schema_change_value_schema(connector, self.source_schema)
        self._change_schema = table_change_schema()

    def source(self, info: SourceInfo) -> Struct:
        """The ``source`` struct."""
        return self.source_struct(
            ts_ms=info.ts_ms, ts_us=info.ts_ms * 1000, snapshot=info.snapshot, db=info.db,
            fields=(("table", info.table), ("server_id", info.server_id), ("gtid", info.gtid),
                    ("file", info.file), ("pos", info.pos), ("row", info.row),
                    ("thread", info.thread)),
        )  # fmt: skip

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
