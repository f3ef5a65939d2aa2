"""The schemas every Debezium connector's change events share (``Envelope``,
``AbstractSourceInfoStructMaker``, ``TableSchemaBuilder``) and the topic names they are built
from.

A data topic is ``<prefix>.<db or schema>.<table>``; its key is ``<topic>.Key`` (the primary
key columns, each required; no key for a table without one), its rows ``<topic>.Value`` and
its value the ``<topic>.Envelope`` (version 2): ``before``, ``after``, ``source``,
``transaction``, ``op``, ``ts_ms``, ``ts_us``, ``ts_ns``. ``source`` is
``io.debezium.connector.<connector>.Source``: the common fields, then the connector's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api.data import Schema, SchemaBuilder, Struct

__all__ = [
    "ENVELOPE_VERSION",
    "SNAPSHOT_ALLOWED",
    "TableSchema",
    "data_topic",
    "envelope_schema",
    "source_schema",
    "table_schemas",
]

ENVELOPE_VERSION: Final = 2
SNAPSHOT_ALLOWED: Final = (
    "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")


def data_topic(prefix: str, first: str, table: str) -> str:
    """``<prefix>.<first>.<table>`` (*first*: the database or schema), characters outside
    ``[A-Za-z0-9._-]`` replaced by ``_``."""
    return _UNSAFE.sub("_", f"{prefix}.{first}.{table}")[:249]


def source_schema(connector: str, fields: Iterable[tuple[str, Schema]]) -> Schema:
    """``io.debezium.connector.<connector>.Source``: the common fields (``version``,
    ``connector``, ``name``, ``ts_ms``, ``snapshot``, ``db``, ``sequence``, ``ts_us``,
    ``ts_ns``), then the connector's *fields*."""
    optional_string = SchemaBuilder.string().optional().build()
    optional_int64 = SchemaBuilder.int64().optional().build()
    snapshot = (
        SchemaBuilder.string().optional().name("io.debezium.data.Enum").version(1)
        .parameter("allowed", SNAPSHOT_ALLOWED).default_value("false").build()
    )  # fmt: skip
    builder = SchemaBuilder.struct().name(f"io.debezium.connector.{connector}.Source").version(1)
    for name, schema in (
        ("version", Schema.STRING_SCHEMA), ("connector", Schema.STRING_SCHEMA),
        ("name", Schema.STRING_SCHEMA), ("ts_ms", Schema.INT64_SCHEMA), ("snapshot", snapshot),
        ("db", Schema.STRING_SCHEMA), ("sequence", optional_string), ("ts_us", optional_int64),
        ("ts_ns", optional_int64), *fields,
    ):  # fmt: skip
        builder.field(name, schema)
    return builder.build()


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


def table_schemas(
    topic: str,
    row: Iterable[tuple[str, Schema]],
    key: Iterable[tuple[str, Schema]],
    source: Schema,
) -> tuple[Schema | None, Schema, Schema]:
    """A table's key schema (None without *key* columns), row schema and envelope, from its
    columns' (name, schema) and its key columns' (name, required schema)."""
    row_builder = SchemaBuilder.struct().name(f"{topic}.Value").optional()
    for name, schema in row:
        row_builder.field(name, schema)
    key_fields = list(key)
    key_schema = None
    if key_fields:
        key_builder = SchemaBuilder.struct().name(f"{topic}.Key")
        for name, schema in key_fields:
            key_builder.field(name, schema)
        key_schema = key_builder.build()
    row_schema = row_builder.build()
    return key_schema, row_schema, envelope_schema(topic, row_schema, source)


@dataclass(frozen=True, kw_only=True)
class TableSchema:
    """A captured table's topic, key and value schemas and its columns' converters."""

    topic: str
    key_schema: Schema | None
    row_schema: Schema
    envelope: Schema
    converters: tuple[tuple[str, Callable[[Any], Any]], ...]

    def row(self, values: Mapping[str, Any]) -> Struct:
        """The row struct of *values* (column name -> value as read, None for null). Each
        converter makes its column's value for its field's schema (the converters are in
        field order), so the struct takes them unvalidated (:meth:`Struct.of_values`)."""
        return Struct.of_values(
            self.row_schema,
            [None if (v := values.get(name)) is None else convert(v)
             for name, convert in self.converters],
        )  # fmt: skip

    def key(self, row: Struct) -> Struct | None:
        """The key struct of a row, or None for a table without a primary key."""
        if self.key_schema is None:
            return None
        return Struct.of_values(self.key_schema, [row.get(f.name) for f in self.key_schema.fields])
