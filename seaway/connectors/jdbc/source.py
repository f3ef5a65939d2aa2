"""The JDBC source connector (Confluent's ``JdbcSourceConnector``): tables or a query into
topics, in ``bulk``, ``incrementing``, ``timestamp`` or ``timestamp+incrementing`` mode.

Each table (or the query) is a source partition with Confluent's keys and offsets, so the
offsets REST API shows what Confluent's connector would store:

* partition ``{"protocol": "1", "table": "<db or schema>.<table>"}``, or
  ``{"query": "query"}``;
* offset ``{"incrementing": id}``, ``{"timestamp_nanos": ns, "timestamp": ms}`` or all
  three in ``timestamp+incrementing`` mode, in the key order Java's HashMap writes.

Every row is a record on ``<topic.prefix><table>`` (``<topic.prefix>`` for a query) with no
key and a Struct value named after the table (unnamed for a query), one optional field per
nullable column. The connector checks for new or dropped tables every
``table.poll.interval.ms`` and reassigns the tables to tasks when the list changes.

**Replayable.** Outside ``bulk`` mode the task is a
:class:`~seaway.connect.api.replay.ReplayableSourceTask`: :meth:`JdbcSourceTask.plan` (on
the driver) asks the database for the position of the ``batch.max.rows``-th new row
(timestamps only up to the database's clock minus ``timestamp.delay.interval.ms``, so rows
committed late with an earlier timestamp are not passed by); :meth:`JdbcSourceTask.read`
(on an executor) selects exactly the rows between the two positions. The same range gives
the same rows, which makes the connector exactly-once with ``exactly.once.source.support``.
:meth:`JdbcSourceTask.read_batches` gives the same rows as Arrow columns (the batch
contract). ``bulk`` mode reads whole tables every ``poll.interval.ms`` and has no offsets, as in
Confluent's connector.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import logging
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any, Final

import pyarrow as pa

from seaway import __version__
from seaway.config import ConfigDef, ConfigException
from seaway.connect.api import (
    ConnectError,
    ExactlyOnceSupport,
    PartitionKey,
    RecordSchemas,
    SourceConnector,
    SourceOffset,
    SourcePartition,
    SourceRecord,
    SourceTask,
    Task,
    partition_key,
)
from seaway.connect.api.batches import BatchSourceTask, SourceBatch
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.data.arrow import arrow_type
from seaway.connectors.jdbc import config as c
from seaway.connectors.jdbc.dialects import Column, Dialect, dialect_from_config
from seaway.java.hash_map import hash_map_order, string_hash

__all__ = ["JdbcBulkSourceTask", "JdbcSourceConnector", "JdbcSourceTask"]

log = logging.getLogger(__name__)

_QUERY_PARTITION: Final = {"query": "query"}
_BATCH_ROWS: Final = 10_000
"""Rows per batch of :meth:`JdbcSourceTask.read_batches`."""


def _settings(props: Mapping[str, str]) -> dict[str, Any]:
    values = c.CONFIG_DEF.parse({k: v for k, v in props.items() if k in c.CONFIG_DEF})
    mode = str(values[c.MODE]).lower()
    if mode not in c.MODES:
        raise ConfigException(
            f"Invalid value {values[c.MODE]} for configuration mode: set mode to one of "
            f"{', '.join(c.MODES)}"
        )
    if mode in (c.INCREMENTING, c.TIMESTAMP_INCREMENTING) and not values[c.INCREMENTING_COLUMN]:
        raise ConfigException(f"mode={mode} needs incrementing.column.name")
    if mode in (c.TIMESTAMP, c.TIMESTAMP_INCREMENTING) and not values[c.TIMESTAMP_COLUMN]:
        raise ConfigException(f"mode={mode} needs timestamp.column.name")
    values[c.MODE] = mode
    return values


def _included(tables: list[str], values: Mapping[str, Any]) -> list[str]:
    """The tables the filters keep; a name in a filter matches the qualified or bare name."""
    include = set(values[c.TABLE_INCLUDE] or values[c.TABLE_WHITELIST] or ())
    exclude = set(values[c.TABLE_EXCLUDE] or values[c.TABLE_BLACKLIST] or ())
    if include and exclude:
        raise ConfigException("Set a table include list or an exclude list, not both")

    def named(table: str, names: set[str]) -> bool:
        return table in names or Dialect.simple_name(table) in names

    kept = [t for t in tables if (not include or named(t, include)) and not named(t, exclude)]
    seen: dict[str, str] = {}
    for table in kept:  # topics are named after the bare name: two would write one topic
        other = seen.setdefault(Dialect.simple_name(table), table)
        if other != table:
            raise ConnectError(
                f"Tables {other} and {table} have the same name and would write to the same "
                "topic: leave one out with table.whitelist or table.blacklist"
            )
    return kept


def _tables(values: Mapping[str, Any]) -> list[str]:
    """The database's tables the connector reads (connects to find out)."""
    dialect = dialect_from_config(values)
    connection = dialect.connect()
    try:
        return _included(dialect.tables(connection), values)
    finally:
        connection.close()


class JdbcSourceConnector(SourceConnector):
    """Copies tables (or a query's rows) from a database into Kafka topics."""

    def __init__(self) -> None:
        super().__init__()
        self.props: dict[str, str] = {}
        self.tables: list[str] = []
        self._stopping = threading.Event()
        self._monitor: threading.Thread | None = None

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return c.CONFIG_DEF

    def start(self, props: dict[str, str]) -> None:
        """Check the settings and the connection (a connector that cannot reach its database
        fails here, as Confluent's does), list the tables and watch for new ones."""
        self.props = dict(props)
        values = _settings(props)
        if values[c.QUERY]:
            dialect_from_config(values).connect().close()
            return
        self.tables = _tables(values)
        interval = values[c.TABLE_POLL_INTERVAL] / 1000
        if interval > 0:
            self._stopping.clear()
            self._monitor = threading.Thread(
                target=self._watch_tables, args=(values, interval), daemon=True,
                name=f"jdbc-table-monitor-{props.get('name', '')}",
            )  # fmt: skip
            self._monitor.start()

    def _watch_tables(self, values: Mapping[str, Any], interval: float) -> None:
        """Confluent's TableMonitorThread: a changed table list reconfigures the tasks."""
        while not self._stopping.wait(interval):
            try:
                tables = _tables(values)
            except Exception as error:
                log.warning("Could not list the tables of %s: %s", self.props.get("name"), error)
                continue
            if tables != self.tables:
                log.info("Tables of %s changed: %s -> %s", self.props.get("name"), self.tables,
                         tables)  # fmt: skip
                self.tables = tables
                if self.context is not None:
                    self.context.request_task_reconfiguration()

    def task_class(self) -> type[Task]:
        mode = str(_settings(self.props)[c.MODE])
        return JdbcBulkSourceTask if mode == c.BULK else JdbcSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        values = _settings(self.props)
        if values[c.QUERY]:
            return [{**self.props, c.TABLES: "[]"}]
        tables = list(self.tables)
        if not tables:
            log.warning("No tables to read for connector %s", self.props.get("name"))
            return []
        # Contiguous chunks, the first ones a table longer (Kafka's groupPartitions).
        groups = min(max_tasks, len(tables))
        size, longer = divmod(len(tables), groups)
        configs, start = [], 0
        for group in range(groups):
            end = start + size + (1 if group < longer else 0)
            configs.append({**self.props, c.TABLES: json.dumps(tables[start:end])})
            start = end
        return configs

    def record_schemas(self) -> RecordSchemas | None:
        """One table's (or the query's) value schema; None for several tables, whose
        records have one schema each."""
        values = _settings(self.props)
        tables: list[str | None] = [None] if values[c.QUERY] else list(self.tables)
        if len(tables) != 1:
            return None
        dialect = dialect_from_config(values)
        connection = dialect.connect()
        try:
            _, schema = _columns(dialect, connection, tables[0], values[c.QUERY])
        finally:
            connection.close()
        return RecordSchemas(key=None, value=schema)

    def stop(self) -> None:
        self._stopping.set()
        if self._monitor is not None:
            self._monitor.join(10)
            self._monitor = None

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        mode = str(props.get(c.MODE, "")).lower()
        return ExactlyOnceSupport.SUPPORTED if mode and mode != c.BULK else (
            ExactlyOnceSupport.UNSUPPORTED)  # fmt: skip


def _columns(
    dialect: Dialect, connection: Any, table: str | None, query: str
) -> tuple[list[Column], Schema]:
    """The columns of *table* (or of the *query*'s rows) and the value schema they make."""
    columns: list[Column] = dialect.columns(connection, table, query)
    builder = SchemaBuilder.struct()
    if table is not None:
        builder.name(dialect.simple_name(table))
    for column in columns:
        builder.field(column.name, column.schema)
    return columns, builder.build()


class _Source:
    """One table (or the query) a task reads."""

    def __init__(self, task: _JdbcTask, table: str | None) -> None:
        dialect = task.dialect
        self.table = table
        self.query = task.values[c.QUERY]
        self.select = dialect.literal_sql(self.query) if self.query else (
            f"SELECT * FROM {dialect.quote_table(table or '')}")  # fmt: skip
        self.names: tuple[str, ...] | None = None  # the result's columns when last read
        self.refresh(task)
        prefix = task.values[c.TOPIC_PREFIX]
        self.topic = prefix if table is None else f"{prefix}{dialect.simple_name(table)}"
        self.partition: SourcePartition = (
            dict(_QUERY_PARTITION) if table is None else {"protocol": "1", "table": table}
        )  # fmt: skip
        self.key = partition_key(self.partition)
        self.next_poll = 0.0

    def refresh(self, task: _JdbcTask) -> None:
        """Read the columns and make the value schema (again, after the table changed)."""
        self.columns, self.schema = _columns(task.dialect, task.connection, self.table,
                                             self.query)  # fmt: skip

    def check_columns(self, task: _JdbcTask, cursor: Any, extra: int = 0) -> None:
        """Follow a change of the table's columns (e.g. ``ALTER TABLE ... ADD``), as
        Confluent's connector maps the schema of every result set anew."""
        names = tuple(d[0] for d in cursor.description[: len(cursor.description) - extra])
        if self.names is not None and names != self.names:
            log.info("The columns of %s changed: %s -> %s", self.table or "the query",
                     self.names, names)  # fmt: skip
            self.refresh(task)
        self.names = names

    def batch(self, rows: list[tuple[Any, ...]]) -> SourceBatch | None:
        """*rows* as one column of value structs; None if a value does not fit its column's
        Arrow type (the rows then go as records)."""
        arrays = []
        for column in self.columns:
            convert, index = column.convert, column.index
            values = [None if (v := row[index]) is None else convert(v) for row in rows]
            try:
                arrays.append(pa.array(values, arrow_type(column.schema)))
            except (pa.ArrowException, OverflowError, TypeError, ValueError):
                return None
        value_type = arrow_type(self.schema)
        fields = [value_type.field(i) for i in range(value_type.num_fields)]
        values = pa.StructArray.from_arrays(arrays, fields=fields)
        records = pa.RecordBatch.from_arrays([values], names=["value"])
        return SourceBatch(self.topic, records, self.schema)

    def record(self, row: tuple[Any, ...], offset: SourceOffset | None) -> SourceRecord:
        # Each column's converter makes a value of the column's schema.
        values = [None if (v := row[c.index]) is None else c.convert(v) for c in self.columns]
        value = Struct.of_values(self.schema, values)
        return SourceRecord(
            source_partition=self.partition, source_offset=offset, topic=self.topic,
            value_schema=self.schema, value=value,
        )  # fmt: skip


class _JdbcTask:
    """What both task kinds share: settings, the connection, the sources."""

    values: dict[str, Any]
    dialect: Dialect
    connection: Any
    sources: dict[PartitionKey, _Source]

    def _open(self, props: Mapping[str, str]) -> None:
        self.values = _settings(props)
        self.dialect = dialect_from_config(self.values)
        self.connection = self.dialect.connect()
        tables: list[str | None] = list(json.loads(props.get(c.TABLES) or "[]"))
        if self.values[c.QUERY]:
            tables = [None]
        self.sources = {}
        for table in tables:
            source = _Source(self, table)
            self.sources[source.key] = source

    def version(self) -> str:
        return __version__

    def stop(self) -> None:
        connection, self.connection = getattr(self, "connection", None), None
        if connection is not None:
            connection.close()


class JdbcSourceTask(_JdbcTask, BatchSourceTask):
    """Incrementing and timestamp modes: planned on the driver, replayed on executors."""

    def start(self, props: dict[str, str]) -> None:
        self._open(props)
        self.mode = self.values[c.MODE]
        self.incrementing = self.values[c.INCREMENTING_COLUMN]
        self.timestamps: list[str] = list(self.values[c.TIMESTAMP_COLUMN] or ())
        if self.values[c.VALIDATE_NON_NULL]:
            self._validate_non_null()

    def _validate_non_null(self) -> None:
        wanted = ([self.incrementing] if self.incrementing else []) + (
            self.timestamps if self.mode != c.INCREMENTING else [])  # fmt: skip
        for source in self.sources.values():
            if source.table is None:
                continue
            schemas = {column.name: column.schema for column in source.columns}
            for column in wanted:
                if column not in schemas:
                    raise ConnectError(f"Table {source.table} has no column {column}, which "
                                       f"mode={self.mode} needs")  # fmt: skip
                if schemas[column].is_optional:
                    raise ConnectError(
                        f"Cannot make incremental queries using {self.mode} mode on "
                        f"{source.table}: column {column} is nullable; make it NOT NULL or "
                        "set validate.non.null=false"
                    )

    def known_partitions(self) -> list[SourcePartition]:
        return [s.partition for s in self.sources.values()]

    # --- the SQL of the modes ---------------------------------------------------------------

    def _ts(self) -> str:
        expressions = [self.dialect.timestamp_expression(t) for t in self.timestamps]
        return expressions[0] if len(expressions) == 1 else f"COALESCE({', '.join(expressions)})"

    def _moment(self, offset: SourceOffset) -> dt.datetime:
        """An offset's timestamp with its nanoseconds (to the microsecond Python keeps)."""
        seconds = int(offset["timestamp"]) // 1000
        micros = int(offset.get("timestamp_nanos") or 0) // 1000
        return dt.datetime.fromtimestamp(seconds, dt.UTC) + dt.timedelta(microseconds=micros)

    def _after(self, offset: SourceOffset | None) -> tuple[str, list[Any]]:
        """``(condition, params)``: rows after *offset* (all rows when None)."""
        q, p = self.dialect.quote, self.dialect.placeholder
        if offset is None:
            initial = self.values[c.TIMESTAMP_INITIAL]
            if self.mode == c.INCREMENTING or initial is None:
                return "1 = 1", []
            if initial == -1:
                now = self.dialect.now(self.connection)
                initial = int(now.timestamp() * 1000)
            offset = {"timestamp": initial - 1, "timestamp_nanos": 0, "incrementing": -1}
        if self.mode == c.INCREMENTING:
            return f"{q(self.incrementing)} > {p}", [offset["incrementing"]]
        stamp = self.dialect.timestamp_param(self._moment(offset))
        if self.mode == c.TIMESTAMP:
            return f"{self._ts()} > {p}", [stamp]
        return (f"({self._ts()} > {p} OR ({self._ts()} = {p} AND {q(self.incrementing)} > {p}))",
                [stamp, stamp, offset["incrementing"]])  # fmt: skip

    def _up_to(self, offset: SourceOffset) -> tuple[str, list[Any]]:
        """``(condition, params)``: rows up to and including *offset*."""
        q, p = self.dialect.quote, self.dialect.placeholder
        if self.mode == c.INCREMENTING:
            return f"{q(self.incrementing)} <= {p}", [offset["incrementing"]]
        stamp = self.dialect.timestamp_param(self._moment(offset))
        if self.mode == c.TIMESTAMP:
            return f"{self._ts()} <= {p}", [stamp]
        return (f"({self._ts()} < {p} OR ({self._ts()} = {p} AND {q(self.incrementing)} <= {p}))",
                [stamp, stamp, offset["incrementing"]])  # fmt: skip

    def _order(self, descending: bool = False) -> str:
        q = self.dialect.quote
        keys = {
            c.INCREMENTING: [q(self.incrementing)],
            c.TIMESTAMP: [self._ts()],
            c.TIMESTAMP_INCREMENTING: [self._ts(), q(self.incrementing)],
        }[self.mode]
        return ", ".join(f"{k} DESC" if descending else k for k in keys)

    def _offset(self, incrementing: Any, stamp: Any) -> SourceOffset:
        """A row's offset as Confluent's ``TimestampIncrementingOffset.toMap`` builds it, keys
        in the order its ``new HashMap<>(3)`` iterates (its offsets are looked up by their
        serialized bytes)."""
        entries: list[tuple[str, Any]] = []
        if self.mode != c.TIMESTAMP:
            entries.append(("incrementing", int(incrementing)))
        if self.mode != c.INCREMENTING:
            moment = self.dialect.to_datetime(stamp)
            millis = int(moment.timestamp()) * 1000 + moment.microsecond // 1000
            entries += [("timestamp", millis), ("timestamp_nanos", moment.microsecond * 1000)]
        return dict(hash_map_order(entries, string_hash, initial_capacity=3))

    # --- replayable batches -----------------------------------------------------------------

    def plan(
        self, start_offsets: Mapping[PartitionKey, SourceOffset]
    ) -> dict[PartitionKey, SourceOffset]:
        now = time.monotonic()
        ends: dict[PartitionKey, SourceOffset] = {}
        for key, source in self.sources.items():
            if now < source.next_poll:
                continue
            end, full = self._plan_one(source, start_offsets.get(key))
            if not full:
                # Caught up: wait poll.interval.ms. A full batch means a backlog, read on at
                # once, as Confluent's task drains a result set before it waits.
                source.next_poll = now + self.values[c.POLL_INTERVAL] / 1000
            if end is not None:
                ends[key] = end
        return ends

    def _plan_one(
        self, source: _Source, start: SourceOffset | None
    ) -> tuple[SourceOffset | None, bool]:
        """The position of the ``batch.max.rows``-th new row (a full batch: True), else of
        the last new row; each asked of the database as one row."""
        after, params = self._after(start)
        where = [after]
        if self.mode != c.INCREMENTING:  # up to the database's clock minus the delay
            delay = dt.timedelta(milliseconds=self.values[c.TIMESTAMP_DELAY])
            bound = self.dialect.now(self.connection) - delay
            where.append(f"{self._ts()} < {self.dialect.placeholder}")
            params.append(self.dialect.timestamp_param(bound))
        limit = self.values[c.BATCH_MAX_ROWS]
        for raw in self._rows(source, where, params, limit=1, skip=limit - 1,
                              positions_only=True):  # fmt: skip
            return self._offset(raw[-2], raw[-1]), True
        for raw in self._rows(source, where, params, limit=1, positions_only=True, last=True):
            return self._offset(raw[-2], raw[-1]), False
        return None, False

    def read(
        self, partition: SourcePartition, start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceRecord]:  # fmt: skip
        source = self.sources[partition_key(partition)]
        for raw in self._range(source, start_offset, end_offset):
            yield source.record(raw, self._offset(raw[-2], raw[-1]))

    def read_batches(
        self, partition: SourcePartition, start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceBatch | SourceRecord]:  # fmt: skip
        """The rows of ``read()``, ``_BATCH_ROWS`` at a time as columns of the value struct
        (rows the columns cannot hold, such as a decimal beyond 38 digits, as records)."""
        source = self.sources[partition_key(partition)]
        rows = self._range(source, start_offset, end_offset)
        while chunk := list(itertools.islice(rows, _BATCH_ROWS)):
            batch = source.batch(chunk)
            if batch is not None:
                yield batch
                continue
            for raw in chunk:
                yield source.record(raw, self._offset(raw[-2], raw[-1]))

    def _range(
        self, source: _Source, start_offset: SourceOffset | None, end_offset: SourceOffset
    ) -> Iterator[tuple[Any, ...]]:
        after, params = self._after(start_offset)
        up_to, more = self._up_to(end_offset)
        return self._rows(source, [after, up_to], params + more)

    def _rows(
        self, source: _Source, where: list[str], params: list[Any], limit: int | None = None,
        skip: int = 0, positions_only: bool = False, last: bool = False,
    ) -> Iterator[tuple[Any, ...]]:  # fmt: skip
        """The source's rows matching *where*, in the mode's order (the last first with
        *last*), the first *skip* left out, each ending in its incrementing and timestamp
        values (with *positions_only*, rows of those alone: planning reads no data)."""
        stamp = self._ts() if self.timestamps else "NULL"
        incrementing = self.dialect.quote(self.incrementing) if self.incrementing else "NULL"
        sql = (f"SELECT {'' if positions_only else '*, '}{incrementing} AS __seaway_id, "
               f"{stamp} AS __seaway_ts FROM ({source.select}) AS __seaway_q "
               f"WHERE {' AND '.join(where)} ORDER BY {self._order(last)}")  # fmt: skip
        if limit is not None:
            sql += f" LIMIT {limit}" + (f" OFFSET {skip}" if skip else "")
        cursor = self.dialect.execute(self.connection, sql, params)
        if not positions_only:
            source.check_columns(self, cursor, extra=2)
        yield from cursor


class JdbcBulkSourceTask(_JdbcTask, SourceTask):
    """``bulk`` mode: every table whole, every ``poll.interval.ms``; no offsets."""

    def start(self, props: dict[str, str]) -> None:
        self._open(props)

    def poll(self) -> list[SourceRecord] | None:
        now = time.monotonic()
        due = [s for s in self.sources.values() if s.next_poll <= now]
        if not due:
            time.sleep(min(s.next_poll for s in self.sources.values()) - now)
            return None
        records: list[SourceRecord] = []
        for source in due:
            source.next_poll = now + self.values[c.POLL_INTERVAL] / 1000
            cursor = self.dialect.execute(self.connection, source.select)
            source.check_columns(self, cursor)
            for row in cursor:
                records.append(source.record(row, None))
        return records or None
