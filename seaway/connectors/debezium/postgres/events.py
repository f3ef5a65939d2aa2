"""The PostgreSQL connector's schemas and records: ``io.debezium.connector.postgresql.Source``
(``PostgresSourceInfoStructMaker``: the common fields, then ``schema``, ``table``, ``txId``,
``lsn``, ``xmin``, ``origin``, ``origin_lsn``), a table's ``<topic>.Key``/``.Value``/
``.Envelope`` schemas, and the change records with their tombstones.

The common source fields, the envelope, the key and row building and the change records with
their tombstones are shared with the binlog connectors (:mod:`seaway.connectors.debezium.schemas`
and :mod:`~seaway.connectors.debezium.events`); PostgreSQL's own fields and column model are
here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connectors.debezium import events, schemas
from seaway.connectors.debezium.postgres.config import Settings
from seaway.connectors.debezium.postgres.database import Filters, read_table
from seaway.connectors.debezium.postgres.types import Column, column_schema, converter
from seaway.connectors.debezium.schemas import data_topic, table_schemas

__all__ = ["CONNECTOR", "EventMaker", "PgSourceInfo", "TableSchema", "source_schema"]

CONNECTOR: Final = "postgresql"


def source_schema() -> Schema:
    """``io.debezium.connector.postgresql.Source``: the common fields, then PostgreSQL's."""
    optional_string = SchemaBuilder.string().optional().build()
    optional_int64 = SchemaBuilder.int64().optional().build()
    return schemas.source_schema(CONNECTOR, (
        ("schema", Schema.STRING_SCHEMA), ("table", Schema.STRING_SCHEMA),
        ("txId", optional_int64), ("lsn", optional_int64), ("xmin", optional_int64),
        ("origin", optional_string), ("origin_lsn", optional_int64),
    ))  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class TableSchema(schemas.TableSchema):
    """A captured table's schemas, with its name and captured columns."""

    schema_name: str
    table_name: str
    columns: tuple[Column, ...]  # the captured columns (column filters applied)
    key_columns: tuple[str, ...]

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
        row = {c.name: column_schema(c, *modes) for c in columns}
        by_name = {c.name: c for c in columns}
        key_columns = tuple(n for n in primary_key if n in by_name)
        key = [(n, column_schema(Column(**{**by_name[n].__dict__, "optional": False}), *modes))
               for n in key_columns]  # fmt: skip
        key_schema, row_schema, envelope = table_schemas(topic, row.items(), key, source)
        converters = tuple((c.name, converter(c, row[c.name])) for c in columns)
        return cls(topic=topic, key_schema=key_schema, row_schema=row_schema, envelope=envelope,
                   converters=converters, schema_name=schema_name, table_name=table_name,
                   columns=columns, key_columns=key_columns)  # fmt: skip

    @classmethod
    def read(
        cls,
        connection: Any,
        settings: Settings,
        filters: Filters,
        schema_name: str,
        table_name: str,
        source: Schema,
    ) -> TableSchema | None:
        """The table's schemas as the catalog has them now, its columns filtered by
        ``column.include.list``/``column.exclude.list``; None if the table is gone."""
        info = read_table(connection, schema_name, table_name)
        if info is None:
            return None
        columns = tuple(c for c in info.columns if filters.column(schema_name, table_name, c.name))
        return cls.of(settings, schema_name, table_name, columns, info.primary_key, source)


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


class EventMaker(events.EventMaker[PgSourceInfo]):
    """Builds the connector's records."""

    settings: Settings

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, CONNECTOR, source_schema())

    def source(self, info: PgSourceInfo) -> Struct:
        """The ``source`` struct."""
        sequence = json.dumps(
            [None if info.last_commit_lsn is None else str(info.last_commit_lsn),
             None if info.lsn is None else str(info.lsn)],
            separators=(",", ":"),
        )  # fmt: skip
        return self.source_struct(
            ts_ms=info.ts_ms, ts_us=info.ts_us if info.ts_us is not None else info.ts_ms * 1000,
            snapshot=info.snapshot, db=self.settings.dbname, sequence=sequence,
            fields=(("schema", info.schema), ("table", info.table), ("txId", info.tx_id),
                    ("lsn", info.lsn)),
        )  # fmt: skip
