"""The PostgreSQL connector's schemas and records: ``io.debezium.connector.postgresql.Source``
(``PostgresSourceInfoStructMaker``: the common fields, then ``schema``, ``table``, ``txId``,
``lsn``, ``xmin``, ``origin``, ``origin_lsn``), a table's ``<topic>.Key``/``.Value``/
``.Envelope`` schemas, and the change records with their tombstones.

The envelope (:func:`~seaway.connectors.debezium.schemas.envelope_schema`), the ``snapshot``
enum and ``source.version`` are shared with the binlog connectors; the source schema and the
table schema differ (the binlog's are built around its ``Table`` model and binlog fields), so
they live here.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api import SourceRecord
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connectors.debezium.events import DEBEZIUM_VERSION
from seaway.connectors.debezium.postgres.config import Settings
from seaway.connectors.debezium.postgres.offsets import partition
from seaway.connectors.debezium.postgres.types import Column, Convert, column_schema, converter
from seaway.connectors.debezium.schemas import SNAPSHOT_ALLOWED, envelope_schema

__all__ = ["CONNECTOR", "EventMaker", "PgSourceInfo", "TableSchema", "data_topic", "source_schema"]

CONNECTOR: Final = "postgresql"
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")


def data_topic(prefix: str, schema: str, table: str) -> str:
    """``<prefix>.<schema>.<table>``, characters outside ``[A-Za-z0-9._-]`` replaced by ``_``."""
    return _UNSAFE.sub("_", f"{prefix}.{schema}.{table}")[:249]


def source_schema() -> Schema:
    """``io.debezium.connector.postgresql.Source``."""
    optional_string = SchemaBuilder.string().optional().build()
    optional_int64 = SchemaBuilder.int64().optional().build()
    snapshot = (
        SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
        .parameter("allowed", SNAPSHOT_ALLOWED).default_value("false").build()
    )  # fmt: skip
    return (
        SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source").version(1)
        .field("version", Schema.STRING_SCHEMA)
        .field("connector", Schema.STRING_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.INT64_SCHEMA)
        .field("snapshot", snapshot)
        .field("db", Schema.STRING_SCHEMA)
        .field("sequence", optional_string)
        .field("ts_us", optional_int64)
        .field("ts_ns", optional_int64)
        .field("schema", Schema.STRING_SCHEMA)
        .field("table", Schema.STRING_SCHEMA)
        .field("txId", optional_int64)
        .field("lsn", optional_int64)
        .field("xmin", optional_int64)
        .field("origin", optional_string)
        .field("origin_lsn", optional_int64)
        .build()
    )  # fmt: skip


@dataclass(frozen=True)
class TableSchema:
    """A captured table's topic, key and value schemas and its columns' converters."""

    schema_name: str
    table_name: str
    topic: str
    columns: tuple[Column, ...]  # the captured columns (column filters applied)
    key_columns: tuple[str, ...]
    key_schema: Schema | None
    row_schema: Schema
    envelope: Schema
    converters: tuple[tuple[str, Convert], ...]

    @classmethod
    def of(
        cls,
        settings: Settings,
        schema_name: str,
        table_name: str,
        columns: tuple[Column, ...],
        primary_key: tuple[str, ...],
        source: Schema,
    ) -> TableSchema:
        topic = data_topic(settings.topic_prefix, schema_name, table_name)
        modes = (settings.decimal_mode, settings.time_precision_mode)
        schemas = {c.name: column_schema(c, *modes) for c in columns}
        row = SchemaBuilder.struct().name(f"{topic}.Value").optional()
        for column in columns:
            row.field(column.name, schemas[column.name])
        by_name = {c.name: c for c in columns}
        key_columns = tuple(n for n in primary_key if n in by_name)
        key_schema = None
        if key_columns:
            key = SchemaBuilder.struct().name(f"{topic}.Key")
            for name in key_columns:
                required = Column(**{**by_name[name].__dict__, "optional": False})
                key.field(name, column_schema(required, *modes))
            key_schema = key.build()
        row_schema = row.build()
        converters = tuple((c.name, converter(c, schemas[c.name])) for c in columns)
        envelope = envelope_schema(topic, row_schema, source)
        return cls(schema_name, table_name, topic, columns, key_columns, key_schema,
                   row_schema, envelope, converters)  # fmt: skip

    def row(self, values: dict[str, Any]) -> Struct:
        """The row struct of *values* (column name -> text, None for null)."""
        struct = Struct(self.row_schema)
        for name, convert in self.converters:
            value = values.get(name)
            struct.put(name, None if value is None else convert(value))
        return struct

    def key(self, row: Struct) -> Struct | None:
        """The key struct of a row, or None for a table without a primary key."""
        if self.key_schema is None:
            return None
        key = Struct(self.key_schema)
        for name in self.key_columns:
            key.put(name, row.get(name))
        return key


@dataclass(frozen=True)
class PgSourceInfo:
    """The ``source`` fields of one event."""

    schema: str
    table: str
    ts_ms: int
    lsn: int | None
    tx_id: int | None
    last_commit_lsn: int | None = None
    ts_us: int | None = None
    snapshot: str | None = None  # None: not a snapshot row (JSON shows the default "false")


class EventMaker:
    """Builds the connector's records."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.partition = partition(settings.topic_prefix)
        self.source_schema = source_schema()

    def source(self, info: PgSourceInfo) -> Struct:
        """The ``source`` struct."""
        ts_us = info.ts_us if info.ts_us is not None else info.ts_ms * 1000
        sequence = json.dumps(
            [None if info.last_commit_lsn is None else str(info.last_commit_lsn),
             None if info.lsn is None else str(info.lsn)],
            separators=(",", ":"),
        )  # fmt: skip
        s = Struct(self.source_schema)
        for name, value in (
            ("version", DEBEZIUM_VERSION), ("connector", CONNECTOR),
            ("name", self.settings.topic_prefix), ("ts_ms", info.ts_ms),
            ("snapshot", info.snapshot), ("db", self.settings.dbname), ("sequence", sequence),
            ("ts_us", ts_us), ("ts_ns", ts_us * 1000), ("schema", info.schema),
            ("table", info.table), ("txId", info.tx_id), ("lsn", info.lsn),
        ):  # fmt: skip
            s.put(name, value)
        return s

    def change(
        self,
        schema: TableSchema,
        op: str,
        before: Struct | None,
        after: Struct | None,
        info: PgSourceInfo,
        offset: dict[str, Any],
        key_row: Struct | None = None,
    ) -> list[SourceRecord]:
        """The records of one row change: the envelope, and a tombstone after a delete.
        *key_row* gives the key when neither *after* nor *before* has it."""
        now_ns = time.time_ns()
        envelope = Struct(schema.envelope)
        envelope.put("before", before)
        envelope.put("after", after)
        envelope.put("source", self.source(info))
        envelope.put("op", op)
        envelope.put("ts_ms", now_ns // 1_000_000)
        envelope.put("ts_us", now_ns // 1000)
        envelope.put("ts_ns", now_ns)
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
