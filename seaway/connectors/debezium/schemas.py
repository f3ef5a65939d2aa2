"""The schemas of Debezium's change events (``Envelope``, ``SchemaFactory``,
``TableSchemaBuilder``) and the topic names they are built from.

A data topic is ``<prefix>.<db>.<table>``; its key is ``<topic>.Key`` (the primary key
columns, each required; no key for a table without one), its rows ``<topic>.Value`` and its
value the ``<topic>.Envelope`` (version 2): ``before``, ``after``, ``source``, ``transaction``,
``op``, ``ts_ms``, ``ts_us``, ``ts_ns``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connectors.debezium.column_types import Convert, column_schema, converter
from seaway.connectors.debezium.config import Settings
from seaway.connectors.debezium.filters import Filters
from seaway.connectors.debezium.tables import Table

__all__ = [
    "ENVELOPE_VERSION",
    "SNAPSHOT_ALLOWED",
    "TableSchema",
    "data_topic",
    "envelope_schema",
    "schema_change_key_schema",
    "schema_change_value_schema",
    "source_schema",
    "table_change_schema",
]

ENVELOPE_VERSION: Final = 2
SNAPSHOT_ALLOWED: Final = (
    "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")


def data_topic(prefix: str, db: str, table: str) -> str:
    """``<prefix>.<db>.<table>``, characters outside ``[A-Za-z0-9._-]`` replaced by ``_``."""
    return _UNSAFE.sub("_", f"{prefix}.{db}.{table}")[:249]


def source_schema(connector: str) -> Schema:
    """``io.debezium.connector.<connector>.Source``: the common fields, then the binlog's."""
    optional_string = SchemaBuilder.string().optional().build()
    optional_int64 = SchemaBuilder.int64().optional().build()
    snapshot = (
        SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
        .parameter("allowed", SNAPSHOT_ALLOWED).default_value("false").build()
    )  # fmt: skip
    return (
        SchemaBuilder.struct().name(f"io.debezium.connector.{connector}.Source").version(1)
        .field("version", Schema.STRING_SCHEMA)
        .field("connector", Schema.STRING_SCHEMA)
        .field("name", Schema.STRING_SCHEMA)
        .field("ts_ms", Schema.INT64_SCHEMA)
        .field("snapshot", snapshot)
        .field("db", Schema.STRING_SCHEMA)
        .field("sequence", optional_string)
        .field("ts_us", optional_int64)
        .field("ts_ns", optional_int64)
        .field("table", optional_string)
        .field("server_id", Schema.INT64_SCHEMA)
        .field("gtid", optional_string)
        .field("file", Schema.STRING_SCHEMA)
        .field("pos", Schema.INT64_SCHEMA)
        .field("row", Schema.INT32_SCHEMA)
        .field("thread", optional_int64)
        .field("query", optional_string)
        .build()
    )  # fmt: skip


def _transaction_schema() -> Schema:
    return (
        SchemaBuilder.struct().optional().name("event.block").version(1)
        .field("id", Schema.STRING_SCHEMA)
        .field("total_order", Schema.INT64_SCHEMA)
        .field("data_collection_order", Schema.INT64_SCHEMA)
        .build()
    )  # fmt: skip


def envelope_schema(topic: str, row: Schema, source: Schema) -> Schema:
    """``<topic>.Envelope`` version 2 around the optional row schema *row*."""
    optional_int64 = SchemaBuilder.int64().optional().build()
    return (
        SchemaBuilder.struct().name(f"{topic}.Envelope").version(ENVELOPE_VERSION)
        .field("before", row)
        .field("after", row)
        .field("source", source)
        .field("transaction", _transaction_schema())
        .field("op", Schema.STRING_SCHEMA)
        .field("ts_ms", optional_int64)
        .field("ts_us", optional_int64)
        .field("ts_ns", optional_int64)
        .build()
    )  # fmt: skip


def table_change_schema() -> Schema:
    """``io.debezium.connector.schema.Change``: one ``tableChanges`` element as a struct."""
    optional_string = SchemaBuilder.string().optional().build()
    optional_int32 = SchemaBuilder.int32().optional().build()
    optional_bool = SchemaBuilder.boolean().optional().build()
    strings = SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build()
    column = (
        SchemaBuilder.struct().name("io.debezium.connector.schema.Column")
        .field("name", Schema.STRING_SCHEMA)
        .field("jdbcType", Schema.INT32_SCHEMA)
        .field("nativeType", optional_int32)
        .field("typeName", Schema.STRING_SCHEMA)
        .field("typeExpression", optional_string)
        .field("charsetName", optional_string)
        .field("length", optional_int32)
        .field("scale", optional_int32)
        .field("position", Schema.INT32_SCHEMA)
        .field("optional", optional_bool)
        .field("autoIncremented", optional_bool)
        .field("generated", optional_bool)
        .field("comment", optional_string)
        .field("defaultValueExpression", optional_string)
        .field("enumValues", strings)
        .build()
    )  # fmt: skip
    table = (
        SchemaBuilder.struct().name("io.debezium.connector.schema.Table")
        .field("defaultCharsetName", optional_string)
        .field("primaryKeyColumnNames", strings)
        .field("columns", SchemaBuilder.array(column).build())
        .field("comment", optional_string)
        .build()
    )  # fmt: skip
    return (
        SchemaBuilder.struct().name("io.debezium.connector.schema.Change")
        .field("type", Schema.STRING_SCHEMA)
        .field("id", Schema.STRING_SCHEMA)
        .field("table", table)
        .build()
    )  # fmt: skip


def schema_change_key_schema(connector: str) -> Schema:
    """``io.debezium.connector.<connector>.SchemaChangeKey`` {``databaseName``}."""
    return (
        SchemaBuilder.struct().name(f"io.debezium.connector.{connector}.SchemaChangeKey")
        .version(1).field("databaseName", Schema.STRING_SCHEMA).build()
    )  # fmt: skip


def schema_change_value_schema(connector: str, source: Schema) -> Schema:
    """``io.debezium.connector.<connector>.SchemaChangeValue``."""
    optional_string = SchemaBuilder.string().optional().build()
    return (
        SchemaBuilder.struct().name(f"io.debezium.connector.{connector}.SchemaChangeValue")
        .version(1)
        .field("source", source)
        .field("ts_ms", Schema.INT64_SCHEMA)
        .field("databaseName", optional_string)
        .field("schemaName", optional_string)
        .field("ddl", optional_string)
        .field("tableChanges", SchemaBuilder.array(table_change_schema()).build())
        .build()
    )  # fmt: skip


@dataclass(frozen=True)
class TableSchema:
    """A captured table's topic, key and value schemas and its columns' converters."""

    table: Table
    topic: str
    key_schema: Schema | None
    row_schema: Schema
    envelope: Schema
    converters: tuple[tuple[str, Convert], ...]

    @classmethod
    def of(cls, table: Table, settings: Settings, filters: Filters, source: Schema) -> TableSchema:
        """The schemas of *table*'s events (columns the column filters drop left out)."""
        db, name = table.id
        kept = table.only(c.name for c in table.columns if filters.column(db, name, c.name))
        topic = data_topic(settings.topic_prefix, db, name)
        modes = (settings.decimal_mode, settings.time_precision_mode, settings.bigint_unsigned_mode)
        schemas = {c.name: column_schema(c, *modes) for c in kept.columns}
        row = SchemaBuilder.struct().name(f"{topic}.Value").optional()
        for column in kept.columns:
            row.field(column.name, schemas[column.name])
        key_schema = None
        if kept.primary_key:
            key = SchemaBuilder.struct().name(f"{topic}.Key")
            for name_ in kept.primary_key:
                column = kept.column(name_)
                key.field(name_, column_schema(_required(column), *modes))
            key_schema = key.build()
        row_schema = row.build()
        converters = tuple((c.name, converter(c, schemas[c.name])) for c in kept.columns)
        return cls(
            kept,
            topic,
            key_schema,
            row_schema,
            envelope_schema(topic, row_schema, source),
            converters,
        )

    def row(self, values: Mapping[str, Any]) -> Struct:
        """The row struct of *values* (column name -> driver value)."""
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
        for field in self.key_schema.fields:
            key.put(field.name, row.get(field.name))
        return key


def _required(column: Any) -> Any:
    from dataclasses import replace

    return replace(column, optional=False)
