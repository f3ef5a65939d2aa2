"""The JDBC sink connector (Confluent's ``JdbcSinkConnector``): records into database tables.

Each ``put()`` is one transaction: the records are cut into runs of consecutive records for
the same table, statement and columns (at most ``batch.size``), each run one batched
statement, and everything commits together or not at all. Before the transaction the
tables are checked against the records' schemas (``DbStructure``): a missing table is
created with ``auto.create``, a new optional field becomes ``ALTER TABLE ... ADD`` with
``auto.evolve``; columns are never dropped or changed.

* ``insert.mode``: ``insert``, ``upsert`` (``ON DUPLICATE KEY UPDATE`` / ``ON CONFLICT``:
  a replayed record leaves its row once) or ``update``.
* ``pk.mode``: ``none``; ``kafka`` (``__connect_topic``, ``__connect_partition``,
  ``__connect_offset``); ``record_key`` (a primitive key is the column ``pk.fields`` names,
  a struct key gives its fields); ``record_value`` (fields of the value).
* ``delete.enabled``: a tombstone deletes the row of its key (``pk.mode=record_key``).

A failed write is retried ``max.retries`` times (the runtime redelivers the batch, as
Kafka's worker does for ``RetriableException``), then written record by record to the
errant record reporter if there is one, else it fails the task.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from seaway import __version__
from seaway.config import ConfigException
from seaway.connect.api import (
    ConnectError,
    RetriableError,
    Schema,
    SinkRecord,
    Task,
)
from seaway.connect.api.batches import BatchSinkTask, SinkBatch
from seaway.connect.api.data import SchemaType
from seaway.connect.api.data.arrow import connect_values
from seaway.connectors.common import UniformSinkConnector
from seaway.connectors.jdbc import config as c
from seaway.connectors.jdbc.dialects import Dialect, dialect_from_config

__all__ = ["JdbcSinkConnector", "JdbcSinkTask"]

log = logging.getLogger(__name__)

_KAFKA_COLUMNS: Final = ("__connect_topic", "__connect_partition", "__connect_offset")
_KAFKA_SCHEMAS: Final = (Schema.STRING_SCHEMA, Schema.INT32_SCHEMA, Schema.INT64_SCHEMA)
_DELETE: Final = "delete"


def _sink_settings(props: Mapping[str, str]) -> dict[str, Any]:
    values = c.SINK_CONFIG_DEF.parse({k: v for k, v in props.items() if k in c.SINK_CONFIG_DEF})
    values[c.INSERT_MODE] = str(values[c.INSERT_MODE]).lower()
    values[c.PK_MODE] = str(values[c.PK_MODE]).lower()
    if values[c.DELETE_ENABLED] and values[c.PK_MODE] != "record_key":
        raise ConfigException(
            "Primary key mode must be 'record_key' when delete support is enabled"
        )
    if values[c.PK_MODE] == "kafka" and len(values[c.PK_FIELDS] or ()) not in (0, 3):
        raise ConfigException(
            "pk.mode=kafka needs pk.fields empty (__connect_topic, __connect_partition, "
            "__connect_offset) or three names for the topic, partition and offset columns"
        )
    return values


class JdbcSinkConnector(UniformSinkConnector):
    """Writes records into tables of a database."""

    config_def = c.SINK_CONFIG_DEF
    settings = staticmethod(_sink_settings)

    def task_class(self) -> type[Task]:
        return JdbcSinkTask


@dataclass(frozen=True)
class _Fields:
    """The columns records of one key and value schema write (Confluent's FieldsMetadata)."""

    keys: tuple[str, ...]
    others: tuple[str, ...]
    schemas: Mapping[str, Schema]


@dataclass
class _Run:
    """Consecutive records for one table and statement, written as one batch."""

    table: str
    operation: str  # insert, upsert, update or delete
    fields: _Fields
    records: list[SinkRecord]


class JdbcSinkTask(BatchSinkTask):
    """Writes each ``put()`` in one transaction, creating and evolving tables as allowed;
    ``put_batch()`` binds whole columns of a batch of one schema."""

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        self.values = _sink_settings(props)
        self.dialect: Dialect = dialect_from_config(self.values)
        self.connection: Any = self.dialect.connect()
        self.tables: dict[str, dict[str, bool]] = {}  # the known columns of each table
        self.fields: dict[tuple[Schema | None, Schema | None, bool], _Fields] = {}
        self.retries_left = int(self.values[c.MAX_RETRIES])

    def stop(self) -> None:
        connection, self.connection = getattr(self, "connection", None), None
        if connection is not None:
            connection.close()

    # --- put --------------------------------------------------------------------------------

    def put(self, records: Collection[SinkRecord]) -> None:
        if not records:
            return
        runs = list(self._runs(records))
        try:
            for run in runs:
                self._ensure_table(run)
            with self.dialect.transaction(self.connection):
                for run in runs:
                    self._write(run)
        except ConnectError:
            raise  # a record or table that cannot be written: retrying cannot help
        except Exception as error:
            self._failed(records, error)
            return
        self.retries_left = int(self.values[c.MAX_RETRIES])

    def put_batch(self, batch: SinkBatch) -> None:
        """What ``put(batch.sink_records())`` writes, its parameters made column by column:
        for batches of STRUCT values without tombstones (else record by record)."""
        records, n = batch.records, batch.records.num_rows
        value_schema = batch.value_schema
        if (not n or value_schema is None or value_schema.type is not SchemaType.STRUCT
                or records.column("value").null_count):  # fmt: skip
            self.put(batch.sink_records())
            return
        first = SinkBatch(batch.topic, batch.partition, records.slice(0, 1), batch.key_schema,
                          value_schema).sink_records()[0]  # fmt: skip
        run = _Run(
            str(self.values[c.TABLE_NAME_FORMAT]).replace("${topic}", batch.topic),
            self.values[c.INSERT_MODE], self._fields_of(first), [],
        )  # fmt: skip
        try:
            self._ensure_table(run)
            rows = self._batch_params(run, batch)
            with self.dialect.transaction(self.connection):
                if not self._copy(run, rows):
                    self._execute(run, rows)
        except ConnectError:
            raise
        except Exception as error:
            self._failed(batch.sink_records(), error)
            return
        self.retries_left = int(self.values[c.MAX_RETRIES])

    def _copy(self, run: _Run, rows: list[tuple[Any, ...]]) -> bool:
        """Inserts and upserts by the database's bulk load where it has one (``COPY``)."""
        if run.operation not in ("insert", "upsert"):
            return False
        fields = run.fields
        return self.dialect.copy_rows(self.connection, run.table, fields.keys, fields.others,
                                      rows, upsert=run.operation == "upsert")  # fmt: skip

    def _batch_params(self, run: _Run, batch: SinkBatch) -> list[tuple[Any, ...]]:
        """The statement's parameters of every record of *batch*, bound column by column."""
        fields, records = run.fields, batch.records
        pk_mode = self.values[c.PK_MODE]
        value, key = records.column("value"), records.column("key")

        def column(name: str) -> list[Any]:
            schema = fields.schemas[name]
            if pk_mode == "kafka" and name in fields.keys:
                kind = fields.keys.index(name)
                values: list[Any] = (
                    records.column("offset").to_pylist() if kind == 2
                    else [(batch.topic, batch.partition)[kind]] * records.num_rows
                )  # fmt: skip
            elif pk_mode == "record_key" and name in fields.keys:
                struct_key = batch.key_schema is not None and (
                    batch.key_schema.type is SchemaType.STRUCT)  # fmt: skip
                values = connect_values(schema, key.field(name) if struct_key else key)
            else:
                values = connect_values(schema, value.field(name))
            if schema.default_value is not None:  # Struct.get's default for a null
                values = [schema.default_value if v is None else v for v in values]
            return self.dialect.bind_column(schema, values)

        keys = [column(name) for name in fields.keys]
        others = [column(name) for name in fields.others]
        return list(zip(*(others + keys if run.operation == "update" else keys + others),
                        strict=True))  # fmt: skip

    def _failed(self, records: Collection[SinkRecord], error: Exception) -> None:
        """Retry the batch while retries are left, then report records one by one or fail."""
        log.warning("Write of %d records failed (%d retries left): %s", len(records),
                    self.retries_left, error)  # fmt: skip
        self._reconnect()
        if self.retries_left > 0:
            self.retries_left -= 1
            raise RetriableError(f"Write of {len(records)} records failed: {error}") from error
        self.retries_left = int(self.values[c.MAX_RETRIES])
        reporter = self.context.errant_record_reporter() if self.context is not None else None
        if reporter is None:
            raise ConnectError(f"Write of {len(records)} records failed: {error}") from error
        for record in records:
            try:
                run = next(self._runs([record]))
                self._ensure_table(run)
                with self.dialect.transaction(self.connection):
                    self._write(run)
            except Exception as one:
                reporter.report(record, one)

    def _reconnect(self) -> None:
        try:
            self.connection.close()
        except Exception:
            pass
        self.connection = self.dialect.connect()
        self.tables.clear()

    # --- records to statements --------------------------------------------------------------

    def _runs(self, records: Collection[SinkRecord]) -> Iterator[_Run]:
        batch_size = int(self.values[c.BATCH_SIZE]) or len(records)
        run: _Run | None = None
        for record in records:
            table = str(self.values[c.TABLE_NAME_FORMAT]).replace("${topic}", record.topic)
            fields = self._fields_of(record)
            operation = _DELETE if record.value is None else self.values[c.INSERT_MODE]
            same = run is not None and (run.table, run.operation, run.fields) == (
                table, operation, fields)  # fmt: skip
            if run is not None and same and len(run.records) < batch_size:
                run.records.append(record)
                continue
            if run is not None:
                yield run
            run = _Run(table, operation, fields, [record])
        if run is not None:
            yield run

    def _fields_of(self, record: SinkRecord) -> _Fields:
        tombstone = record.value is None
        cache_key = (record.key_schema, None if tombstone else record.value_schema, tombstone)
        found = self.fields.get(cache_key)
        if found is None:
            found = self.fields[cache_key] = self._new_fields(record)
        return found

    def _new_fields(self, record: SinkRecord) -> _Fields:
        values, pk_mode = self.values, self.values[c.PK_MODE]
        pk_fields = list(values[c.PK_FIELDS] or ())
        tombstone = record.value is None
        value_schema = None if tombstone else record.value_schema
        writable = value_schema is not None and value_schema.type is SchemaType.STRUCT
        if not writable and not (tombstone and values[c.DELETE_ENABLED]):
            kind = "null" if tombstone else type(record.value).__name__
            deletes = str(values[c.DELETE_ENABLED]).lower()
            raise ConnectError(
                f"The JDBC sink is configured with 'delete.enabled={deletes}'"
                f" and 'pk.mode={pk_mode}' and therefore requires records with a non-null "
                f"Struct value and non-null Struct schema, but found record at "
                f"(topic='{record.topic}',partition={record.kafka_partition},"
                f"offset={record.kafka_offset}) with a {kind} value and "
                f"{'null' if value_schema is None else value_schema.type.name} value "
                "schema: use a converter with schemas (JsonConverter with "
                "schemas.enable=true, AvroConverter)"
            )
        schemas: dict[str, Schema] = {}
        keys: list[str] = []
        if pk_mode == "kafka":
            keys = pk_fields or list(_KAFKA_COLUMNS)
            schemas.update(zip(keys, _KAFKA_SCHEMAS, strict=True))
        elif pk_mode == "record_key":
            keys = self._key_fields(record, pk_fields, schemas)
        elif pk_mode == "record_value" and value_schema is not None:
            names = [f.name for f in value_schema.fields]
            keys = pk_fields or names
            for name in keys:
                if name not in names:
                    raise ConnectError(f"pk.fields names {name}, which the value of "
                                       f"{record.topic} does not have: {names}")  # fmt: skip
        others: list[str] = []
        if value_schema is not None:
            whitelist = set(values[c.FIELDS_WHITELIST] or ())
            for field in value_schema.fields:
                if pk_mode == "record_value" and field.name in keys:
                    schemas[field.name] = field.schema
                elif not whitelist or field.name in whitelist:
                    others.append(field.name)
                    schemas[field.name] = field.schema
        if values[c.INSERT_MODE] in ("upsert", "update") and not keys:
            raise ConnectError(
                f"Write to table in {values[c.INSERT_MODE].upper()} mode requires key field "
                "names to be known, check the primary key configuration (pk.mode, pk.fields)"
            )
        others = [name for name in others if name not in keys]
        return _Fields(tuple(keys), tuple(others), schemas)

    @staticmethod
    def _key_fields(record: SinkRecord, pk_fields: list[str], schemas: dict[str, Schema]
                    ) -> list[str]:  # fmt: skip
        key_schema = record.key_schema
        if key_schema is None:
            raise ConnectError(
                f"pk.mode=record_key needs a key schema, and the records of {record.topic} have "
                "none: use a key converter with schemas (JsonConverter with "
                "key.converter.schemas.enable=true, AvroConverter)"
            )
        if key_schema.type is not SchemaType.STRUCT:
            if len(pk_fields) != 1:
                raise ConnectError(
                    "Need exactly one PK column defined since the key schema for records is a "
                    f"primitive type ({key_schema.type.name}), defined columns are: {pk_fields}: "
                    "set pk.fields to the column's name"
                )
            schemas[pk_fields[0]] = key_schema
            return pk_fields
        names = [f.name for f in key_schema.fields]
        for name in pk_fields:
            if name not in names:
                raise ConnectError(f"pk.fields names {name}, which the key of {record.topic} "
                                   f"does not have (its fields: {names})")  # fmt: skip
        keys = pk_fields or names
        for name in keys:
            field = key_schema.field(name)
            assert field is not None
            schemas[name] = field.schema
        return keys

    # --- tables -----------------------------------------------------------------------------

    def _ensure_table(self, run: _Run) -> None:
        """Create or evolve *run*'s table as its records need (Confluent's DbStructure)."""
        table, fields = run.table, run.fields
        columns = self.tables.get(table) or self.dialect.table_columns(self.connection, table)
        wanted = [(name, fields.schemas[name]) for name in (*fields.keys, *fields.others)]
        if columns is None:
            if not self.values[c.AUTO_CREATE]:
                raise ConnectError(f"Table {table} is missing and auto-creation is disabled: "
                                   "create it or set auto.create=true")  # fmt: skip
            self._ddl(table, self.dialect.create_sql(table, wanted, fields.keys))
            columns = self.dialect.table_columns(self.connection, table) or {}
        lower = {name.lower() for name in columns}
        missing = [(n, s) for n, s in wanted if n not in columns and n.lower() not in lower]
        if missing and run.operation != _DELETE:
            names = ", ".join(n for n, _ in missing)
            if not self.values[c.AUTO_EVOLVE]:
                raise ConnectError(f"Table {table} is missing fields ({names}) and "
                                   "auto-evolution is disabled: set auto.evolve=true")  # fmt: skip
            for name, schema in missing:
                if not schema.is_optional and schema.default_value is None:
                    raise ConnectError(
                        f"Cannot ALTER TABLE {table} to add missing field {name}, as the field "
                        "is not optional and does not have a default value"
                    )
            log.info("Adding columns %s to %s", names, table)
            self._ddl(table, self.dialect.alter_sql(table, missing))
            columns = self.dialect.table_columns(self.connection, table) or {}
        self.tables[table] = columns

    def _ddl(self, table: str, statements: list[str]) -> None:
        try:
            with self.dialect.transaction(self.connection):
                for statement in statements:
                    self.dialect.execute(self.connection, statement)
        except Exception as error:
            if self.dialect.table_columns(self.connection, table) is None:
                raise ConnectError(f"Could not create or alter {table}: {error}") from error
            log.info("%s changed meanwhile (another task?): %s", table, error)

    # --- writes -----------------------------------------------------------------------------

    def _write(self, run: _Run) -> None:
        self._execute(run, [self._params(run, record) for record in run.records])

    def _execute(self, run: _Run, rows: Sequence[Sequence[Any]]) -> None:
        """*run*'s statement over *rows* of parameters, ``batch.size`` at a time."""
        d, fields = self.dialect, run.fields
        if run.operation == _DELETE:
            sql = d.delete_sql(run.table, fields.keys)
        elif run.operation == "upsert":
            sql = d.upsert_sql(run.table, fields.keys, fields.others)
        elif run.operation == "update":
            sql = d.update_sql(run.table, fields.keys, fields.others)
        else:
            sql = d.insert_sql(run.table, fields.keys, fields.others)
        size = int(self.values[c.BATCH_SIZE]) or len(rows) or 1
        cursor = self.connection.cursor()
        try:
            for start in range(0, len(rows), size):
                cursor.executemany(sql, rows[start : start + size])
        finally:
            cursor.close()

    def _params(self, run: _Run, record: SinkRecord) -> list[Any]:
        fields, bind = run.fields, self.dialect.bind
        key_values = zip(fields.keys, self._key_values(record, fields), strict=True)
        keys = [bind(fields.schemas[k], v) for k, v in key_values]
        if run.operation == _DELETE:
            return keys
        value = record.value
        others = [bind(fields.schemas[name], value.get(name)) for name in fields.others]
        return others + keys if run.operation == "update" else keys + others

    def _key_values(self, record: SinkRecord, fields: _Fields) -> list[Any]:
        pk_mode = self.values[c.PK_MODE]
        if pk_mode == "kafka":
            return [record.topic, record.kafka_partition, record.kafka_offset]
        if pk_mode == "record_key":
            if record.key_schema is not None and record.key_schema.type is SchemaType.STRUCT:
                return [record.key.get(name) for name in fields.keys]
            return [record.key]
        if pk_mode == "record_value":
            return [record.value.get(name) for name in fields.keys]
        return []
