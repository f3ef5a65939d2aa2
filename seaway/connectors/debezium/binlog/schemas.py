"""The binlog connectors' schemas: ``io.debezium.connector.<connector>.Source`` (the common
fields, then the binlog's), a table's ``<topic>.Key``/``.Value``/``.Envelope`` built from its
model, and the schema change events' ``SchemaChangeKey``/``SchemaChangeValue``. What every
connector shares is in :mod:`seaway.connectors.debezium.schemas`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from seaway.connect.api.data import Schema, SchemaBuilder
from seaway.connectors.debezium import schemas
from seaway.connectors.debezium.binlog.column_types import column_schema, converter
from seaway.connectors.debezium.binlog.config import Settings
from seaway.connectors.debezium.binlog.tables import Table
from seaway.connectors.debezium.filters import Filters
from seaway.connectors.debezium.schemas import data_topic, table_schemas

__all__ = [
    "TableSchema",
    "schema_change_key_schema",
    "schema_change_value_schema",
    "source_schema",
    "table_change_schema",
]


def source_schema(connector: str) -> Schema:
    """``io.debezium.connector.<connector>.Source``: the common fields, then the binlog's."""
    optional_string = SchemaBuilder.string().optional().build()
    optional_int64 = SchemaBuilder.int64().optional().build()
    return schemas.source_schema(connector, (
        ("table", optional_string), ("server_id", Schema.INT64_SCHEMA), ("gtid", optional_string),
        ("file", Schema.STRING_SCHEMA), ("pos", Schema.INT64_SCHEMA), ("row", Schema.INT32_SCHEMA),
        ("thread", optional_int64), ("query", optional_string),
    ))  # fmt: skip


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


@dataclass(frozen=True, kw_only=True)
class TableSchema(schemas.TableSchema):
    """A captured table's schemas, with its model (the columns the filters keep)."""

    table: Table

    @classmethod
    def of(cls, table: Table, settings: Settings, filters: Filters, source: Schema) -> TableSchema:
        """The schemas of *table*'s events (columns the column filters drop left out)."""
        db, name = table.id
        kept = table.only(c.name for c in table.columns if filters.column(db, name, c.name))
        topic = data_topic(settings.topic_prefix, db, name)
        modes = (settings.decimal_mode, settings.time_precision_mode, settings.bigint_unsigned_mode)
        row = {c.name: column_schema(c, *modes) for c in kept.columns}
        key = [(n, column_schema(replace(kept.column(n), optional=False), *modes))
               for n in kept.primary_key]  # fmt: skip
        key_schema, row_schema, envelope = table_schemas(topic, row.items(), key, source)
        converters = tuple((c.name, converter(c, row[c.name])) for c in kept.columns)
        return cls(table=kept, topic=topic, key_schema=key_schema, row_schema=row_schema,
                   envelope=envelope, converters=converters)  # fmt: skip
