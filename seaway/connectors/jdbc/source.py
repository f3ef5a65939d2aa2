"""The JDBC source connector (Confluent's ``JdbcSourceConnector``): tables or a query into
topics, in ``bulk``, ``incrementing``, ``timestamp`` or ``timestamp+incrementing`` mode.

Each table (or the query) is a source partition with Confluent's keys and offsets, so the
offsets REST API shows what Confluent's connector would store:

* partition ``{"protocol": "1", "table": "<table>"}``, or ``{"query": "query"}``;
* offset ``{"incrementing": id}``, ``{"timestamp": ms, "timestamp_nanos": ns}`` or all
  three in ``timestamp+incrementing`` mode.

Every row is a record on ``<topic.prefix><table>`` (``<topic.prefix>`` for a query) with no
key and a Struct value named after the table, one optional field per nullable column.

**Replayable.** Outside ``bulk`` mode the task is a
:class:`~seaway.connect.api.replay.ReplayableSourceTask`: :meth:`JdbcSourceTask.plan` (on
the driver) asks the database for the position of the ``batch.max.rows``-th new row
(timestamps only up to the database's clock minus ``timestamp.delay.interval.ms``, so rows
committed late with an earlier timestamp are not passed by); :meth:`JdbcSourceTask.read`
(on an executor) selects exactly the rows between the two positions. The same range gives
the same rows, which makes the connector exactly-once with ``exactly.once.source.support``.
``bulk`` mode reads whole tables every ``poll.interval.ms`` and has no offsets, as in
Confluent's connector.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from typing import Any, Final

from seaway import __version__
from seaway.config import ConfigDef, ConfigException
from seaway.connect.api import (
    ConnectError,
    ExactlyOnceSupport,
    PartitionKey,
    SourceConnector,
    SourceOffset,
    SourcePartition,
    SourceRecord,
    SourceTask,
    Task,
    partition_key,
)
from seaway.connect.api.data import SchemaBuilder, Struct
from seaway.connect.api.replay import ReplayableSourceTask
from seaway.connectors.jdbc import config as c
from seaway.connectors.jdbc.dialect import Column, SqliteDialect, dialect_for

__all__ = ["JdbcBulkSourceTask", "JdbcSourceConnector", "JdbcSourceTask"]

log = logging.getLogger(__name__)

_QUERY_PARTITION: Final = {"query": "query"}


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
    include = set(values[c.TABLE_INCLUDE] or values[c.TABLE_WHITELIST] or ())
    exclude = set(values[c.TABLE_EXCLUDE] or values[c.TABLE_BLACKLIST] or ())
    if include and exclude:
        raise ConfigException("Set a table include list or an exclude list, not both")
    return [t for t in tables if (not include or t in include) and t not in exclude]


class JdbcSourceConnector(SourceConnector):
    """Copies tables (or a query's rows) from a database into Kafka topics."""

    def __init__(self) -> None:
        super().__init__()
        self.props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return c.CONFIG_DEF

    def start(self, props: dict[str, str]) -> None:
        self.props = dict(props)
        _settings(props)

    def task_class(self) -> type[Task]:
        mode = str(_settings(self.props)[c.MODE])
        return JdbcBulkSourceTask if mode == c.BULK else JdbcSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        values = _settings(self.props)
        if values[c.QUERY]:
            return [{**self.props, c.TABLES: "[]"}]
        dialect = dialect_for(values[c.CONNECTION_URL], values[c.NUMERIC_MAPPING])
        connection = dialect.connect()
        try:
            tables = _included(dialect.tables(connection), values)
        finally:
            connection.close()
        if not tables:
            log.warning("No tables to read for connector %s", self.props.get("name"))
            return []
        groups = min(max_tasks, len(tables))
        return [{**self.props, c.TABLES: json.dumps(tables[i::groups])} for i in range(groups)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        mode = str(props.get(c.MODE, "")).lower()
        return ExactlyOnceSupport.SUPPORTED if mode and mode != c.BULK else (
            ExactlyOnceSupport.UNSUPPORTED)  # fmt: skip


class _Source:
    """One table (or the query) a task reads."""

    def __init__(self, task: _JdbcTask, table: str | None) -> None:
        dialect, connection = task.dialect, task.connection
        self.table = table
        self.select = task.values[c.QUERY] or f"SELECT * FROM {dialect.quote(table or '')}"
        self.columns: list[Column] = dialect.columns(connection, table, self.select)
        name = table or "query"
        builder = SchemaBuilder.struct().name(name)
        for column in self.columns:
            builder.field(column.name, column.schema)
        self.schema = builder.build()
        prefix = task.values[c.TOPIC_PREFIX]
        self.topic = prefix if table is None else f"{prefix}{table}"
        self.partition: SourcePartition = (
            dict(_QUERY_PARTITION) if table is None
            else {"protocol": "1", "table": dialect.qualified(table)}
        )  # fmt: skip
        self.key = partition_key(self.partition)
        self.next_poll = 0.0

    def record(self, row: tuple[Any, ...], offset: SourceOffset | None) -> SourceRecord:
        value = Struct(self.schema)
        for column, item in zip(self.columns, row, strict=True):
            value.put(column.name, None if item is None else column.convert(item))
        return SourceRecord(
            source_partition=self.partition, source_offset=offset, topic=self.topic,
            value_schema=self.schema, value=value,
        )  # fmt: skip


class _JdbcTask:
    """What both task kinds share: settings, the connection, the sources."""

    values: dict[str, Any]
    dialect: SqliteDialect
    connection: Any
    sources: dict[PartitionKey, _Source]

    def _open(self, props: Mapping[str, str]) -> None:
        self.values = _settings(props)
        self.dialect = dialect_for(self.values[c.CONNECTION_URL], self.values[c.NUMERIC_MAPPING])
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


class JdbcSourceTask(_JdbcTask, ReplayableSourceTask):
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
            for column in wanted:
                nullable = self.dialect.not_null(self.connection, source.table, column)
                if nullable is None:
                    raise ConnectError(f"Table {source.table} has no column {column}, which "
                                       f"mode={self.mode} needs")  # fmt: skip
                if not nullable:
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

    def _after(self, offset: SourceOffset | None) -> tuple[str, list[Any]]:
        """``(condition, params)``: rows after *offset* (all rows when None)."""
        q = self.dialect.quote
        if offset is None:
            initial = self.values[c.TIMESTAMP_INITIAL]
            if self.mode == c.INCREMENTING or initial is None:
                return "1 = 1", []
            if initial == -1:
                initial = self.dialect.now_millis(self.connection)
            offset = {"timestamp": initial - 1, "timestamp_nanos": 0, "incrementing": -1}
        if self.mode == c.INCREMENTING:
            return f"{q(self.incrementing)} > ?", [offset["incrementing"]]
        stamp = self.dialect.timestamp_param(int(offset["timestamp"]))
        if self.mode == c.TIMESTAMP:
            return f"{self._ts()} > ?", [stamp]
        return (f"({self._ts()} > ? OR ({self._ts()} = ? AND {q(self.incrementing)} > ?))",
                [stamp, stamp, offset["incrementing"]])  # fmt: skip

    def _up_to(self, offset: SourceOffset) -> tuple[str, list[Any]]:
        """``(condition, params)``: rows up to and including *offset*."""
        q = self.dialect.quote
        if self.mode == c.INCREMENTING:
            return f"{q(self.incrementing)} <= ?", [offset["incrementing"]]
        stamp = self.dialect.timestamp_param(int(offset["timestamp"]))
        if self.mode == c.TIMESTAMP:
            return f"{self._ts()} <= ?", [stamp]
        return (f"({self._ts()} < ? OR ({self._ts()} = ? AND {q(self.incrementing)} <= ?))",
                [stamp, stamp, offset["incrementing"]])  # fmt: skip

    def _order(self) -> str:
        q = self.dialect.quote
        keys = {
            c.INCREMENTING: [q(self.incrementing)],
            c.TIMESTAMP: [self._ts()],
            c.TIMESTAMP_INCREMENTING: [self._ts(), q(self.incrementing)],
        }[self.mode]
        return ", ".join(keys)  # fmt: skip

    def _offset(self, row: Mapping[str, Any], stamp: Any) -> SourceOffset:
        offset: dict[str, Any] = {}
        if self.mode != c.INCREMENTING:
            millis = self.dialect.timestamp_millis(stamp)
            offset["timestamp"] = millis
            offset["timestamp_nanos"] = (millis % 1000) * 1_000_000
        if self.mode != c.TIMESTAMP:
            offset["incrementing"] = int(row[self.incrementing])
        return offset

    # --- replayable batches -----------------------------------------------------------------

    def plan(
        self, start_offsets: Mapping[PartitionKey, SourceOffset]
    ) -> dict[PartitionKey, SourceOffset]:
        now = time.monotonic()
        ends: dict[PartitionKey, SourceOffset] = {}
        for key, source in self.sources.items():
            if now < source.next_poll:
                continue
            source.next_poll = now + self.values[c.POLL_INTERVAL] / 1000
            end = self._plan_one(source, start_offsets.get(key))
            if end is not None:
                ends[key] = end
        return ends

    def _plan_one(self, source: _Source, start: SourceOffset | None) -> SourceOffset | None:
        after, params = self._after(start)
        where = [after]
        if self.mode != c.INCREMENTING:
            bound = self.dialect.now_millis(self.connection) - self.values[c.TIMESTAMP_DELAY]
            where.append(f"{self._ts()} < ?")
            params.append(self.dialect.timestamp_param(bound))
        rows = list(self._rows(source, where, params, self.values[c.BATCH_MAX_ROWS]))
        return rows[-1][1] if rows else None

    def read(
        self, partition: SourcePartition, start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceRecord]:  # fmt: skip
        source = self.sources[partition_key(partition)]
        after, params = self._after(start_offset)
        up_to, more = self._up_to(end_offset)
        for values, offset in self._rows(source, [after, up_to], params + more):
            yield source.record(values, offset)

    def _rows(
        self, source: _Source, where: list[str], params: list[Any], limit: int | None = None
    ) -> Iterator[tuple[tuple[Any, ...], SourceOffset]]:
        """The source's rows matching *where*, in the mode's order, with their offsets."""
        stamp = self._ts() if self.timestamps else "NULL"
        sql = (f"SELECT *, {stamp} AS __seaway_ts FROM ({source.select}) "
               f"WHERE {' AND '.join(where)} ORDER BY {self._order()}")  # fmt: skip
        if limit is not None:
            sql += f" LIMIT {limit}"
        cursor = self.connection.execute(sql, params)
        names = [d[0] for d in cursor.description]
        width = len(source.columns)
        for raw in cursor:
            row = dict(zip(names, raw, strict=True))
            yield tuple(raw[:width]), self._offset(row, row["__seaway_ts"])


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
            for row in self.connection.execute(source.select):
                records.append(source.record(tuple(row), None))
        return records or None
