"""The JDBC sink against SQLite, MariaDB and PostgreSQL: the insert modes and primary-key
modes, tables created and evolved from the records' schemas, deletes from tombstones, one
transaction per put, retries and the errant record reporter."""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from seaway.config import ConfigException
from seaway.config.plugins import CONNECTORS, load_class
from seaway.connect.api import (
    ConnectError,
    ErrantRecordReporter,
    RetriableError,
    Schema,
    SinkRecord,
)
from seaway.connect.api.batches import SinkBatch
from seaway.connect.api.data import SchemaBuilder, Struct
from seaway.connect.api.data.arrow import structs_to_table
from seaway.connect.api.data.logical import Decimal, Timestamp
from seaway.connect.runtime.queries.sink import _TaskContext
from seaway.connectors.jdbc import JdbcSinkConnector, JdbcSinkTask

KEY = SchemaBuilder.struct().name("key").field("id", Schema.INT32_SCHEMA).build()
V1 = (
    SchemaBuilder.struct().name("login")
    .field("username", Schema.STRING_SCHEMA)
    .field("amount", Decimal.builder(2).optional().build())
    .field("login_time", Timestamp.builder().optional().build())
    .build()
)  # fmt: skip
V2 = (
    SchemaBuilder.struct().name("login")
    .field("username", Schema.STRING_SCHEMA)
    .field("amount", Decimal.builder(2).optional().build())
    .field("login_time", Timestamp.builder().optional().build())
    .field("country", SchemaBuilder.string().optional().build())
    .build()
)  # fmt: skip
AT = dt.datetime(2026, 11, 20, 10, 0, 1, 250000, tzinfo=dt.UTC)


class _Database:
    """A fresh database on one server kind, with its URL and a query helper."""

    def __init__(self, kind: str, server: Any, tmp_path: Path) -> None:
        self.kind, self.server = kind, server
        if kind == "sqlite":
            self.path = tmp_path / "sink.db"
            self.url = f"jdbc:sqlite:{self.path}"
        else:
            self.name = f"s{uuid.uuid4().hex[:8]}"
            server.create_database(self.name)
            self.url = server.url(self.name)

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        if self.kind == "sqlite":
            with sqlite3.connect(self.path) as connection:
                return connection.execute(sql).fetchall()
        with self.server.connect(self.name) as connection:
            cursor = connection.cursor()
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()]

    def columns(self, table: str) -> list[str]:
        if self.kind == "sqlite":
            return [row[1] for row in self.query(f"PRAGMA table_info({table})")]
        schema = "current_schema()" if self.kind == "postgres" else "DATABASE()"
        return [row[0] for row in self.query(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            f"{schema} AND table_name = '{table}' ORDER BY ordinal_position")]  # fmt: skip


@pytest.fixture(params=["sqlite", "mariadb", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> _Database:
    server = None if request.param == "sqlite" else request.getfixturevalue(request.param)
    return _Database(request.param, server, tmp_path)


Put = Callable[[JdbcSinkTask, list[SinkRecord]], None]


def _sink_batches(records: list[SinkRecord]) -> Iterator[SinkBatch]:
    """*records* as the runtime hands them to a batch task: runs of one key and value
    schema as columns (a null value as a null row)."""

    def schemas(record: SinkRecord) -> tuple[Schema | None, Schema | None]:
        return record.key_schema, record.value_schema

    def column(schema: Schema | None, values: list[Any]) -> pa.Array:
        if schema is None:
            return pa.nulls(len(values))
        present = [v for v in values if v is not None]
        table = structs_to_table(schema, present).to_struct_array().combine_chunks()
        rows, count = [], 0
        for value in values:
            rows.append(None if value is None else count)
            count += value is not None
        return table.take(pa.array(rows, pa.int64()))

    for (key_schema, value_schema), run in itertools.groupby(records, key=schemas):
        group = list(run)
        offsets = pa.array([r.kafka_offset for r in group], pa.int64())
        columns = [offsets, pa.nulls(len(group), pa.int64()),
                   column(key_schema, [r.key for r in group]),
                   column(value_schema, [r.value for r in group])]  # fmt: skip
        names = ["offset", "timestamp", "key", "value"]
        batch = pa.RecordBatch.from_arrays(columns, names=names)
        yield SinkBatch("login", 0, batch, key_schema, value_schema)


def _put_columns(task: JdbcSinkTask, records: list[SinkRecord]) -> None:
    """put_batch() of each batch; one of values without tombstones never goes record by
    record (through put())."""

    def no_records(records: Any) -> None:
        raise AssertionError("put_batch() went record by record")

    for batch in _sink_batches(records):
        if not batch.records.column("value").null_count:
            task.put = no_records  # type: ignore[method-assign]
        try:
            task.put_batch(batch)
        finally:
            vars(task).pop("put", None)


@pytest.fixture(params=["put", "put_batch"])
def put(request: pytest.FixtureRequest) -> Put:
    """How records reach the task: ``put()``, or as columns through ``put_batch()``."""
    return JdbcSinkTask.put if request.param == "put" else _put_columns


class _Reporter(ErrantRecordReporter):
    def __init__(self) -> None:
        self.reported: list[tuple[SinkRecord, BaseException]] = []

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self.reported.append((record, error))
        done: Future[None] = Future()
        done.set_result(None)
        return done


def _task(database: _Database, reporter: ErrantRecordReporter | None = None,
          **props: str) -> JdbcSinkTask:  # fmt: skip
    config = {"connection.url": database.url, "topics": "login", **props}
    connector = JdbcSinkConnector()
    connector.start(config)
    (task_config,) = connector.task_configs(1)
    task = JdbcSinkTask()
    task.initialize(_TaskContext({}, reporter))  # the runtime's context, as on Spark
    task.start(task_config)
    return task


def _record(offset: int, id_: int, name: str | None, schema: Schema = V1,
            **extra: Any) -> SinkRecord:  # fmt: skip
    key = Struct(KEY).put("id", id_)
    value = None
    if name is not None:
        value = Struct(schema).put("username", name).put("amount", decimal.Decimal("12.50"))
        value.put("login_time", AT)
        for field, item in extra.items():
            value.put(field, item)
    return SinkRecord(
        topic="login", kafka_partition=0, kafka_offset=offset, key_schema=KEY, key=key,
        value_schema=None if value is None else schema, value=value,
    )  # fmt: skip


def test_plugin_names() -> None:
    for name in ("JdbcSinkConnector", "JdbcSink", "io.confluent.connect.jdbc.JdbcSinkConnector"):
        assert load_class(name, CONNECTORS) is JdbcSinkConnector


def test_upsert_creates_evolves_and_replays_idempotently(database: _Database, put: Put) -> None:
    task = _task(database, **{"insert.mode": "upsert", "pk.mode": "record_key",
                              "auto.create": "true", "auto.evolve": "true",
                              "delete.enabled": "true"})  # fmt: skip
    try:
        batch = [_record(0, 1, "gwenshap"), _record(1, 2, "tpalino")]
        put(task, batch)
        put(task, batch)  # a replay after a failure: each row stays once
        assert database.columns("login") == ["id", "username", "amount", "login_time"]
        rows = database.query("SELECT id, username, amount, login_time FROM login ORDER BY id")
        assert [(r[0], r[1]) for r in rows] == [(1, "gwenshap"), (2, "tpalino")]
        assert decimal.Decimal(str(rows[0][2])) == decimal.Decimal("12.50")
        stamp = rows[0][3]
        if isinstance(stamp, str):
            stamp = dt.datetime.fromisoformat(stamp)
        assert stamp.replace(tzinfo=None) == dt.datetime(2026, 11, 20, 10, 0, 1, 250000)

        # A new optional field: ALTER TABLE ... ADD; an update of row 1 in the same put.
        put(task, [_record(2, 3, "ewen", V2, country="NL"), _record(3, 1, "gwen", V2)])
        assert database.columns("login") == ["id", "username", "amount", "login_time",
                                              "country"]  # fmt: skip
        rows = database.query("SELECT id, username, country FROM login ORDER BY id")
        assert rows == [(1, "gwen", None), (2, "tpalino", None), (3, "ewen", "NL")]

        put(task, [_record(4, 2, None)])  # a tombstone deletes its row
        assert [r[0] for r in database.query("SELECT id FROM login ORDER BY id")] == [1, 3]
    finally:
        task.stop()


def test_an_upsert_batch_with_a_key_twice_keeps_its_last_row(database: _Database, put: Put) -> None:
    """As the statements one by one would (PostgreSQL's batches go through COPY and one
    INSERT ... SELECT, which may touch a row once)."""
    task = _task(database, **{"insert.mode": "upsert", "pk.mode": "record_key",
                              "auto.create": "true"})  # fmt: skip
    try:
        put(task, [_record(0, 1, "first"), _record(1, 2, "two"), _record(2, 1, "last")])
        put(task, [_record(3, 2, "again"), _record(4, 2, "twice")])
        rows = database.query("SELECT id, username FROM login ORDER BY id")
        assert rows == [(1, "last"), (2, "twice")]
    finally:
        task.stop()


def test_kafka_coordinates_and_update_mode(database: _Database, put: Put) -> None:
    task = _task(database, **{"pk.mode": "kafka", "auto.create": "true",
                              "table.name.format": "audit_${topic}"})  # fmt: skip
    try:
        put(task, [_record(7, 1, "gwenshap"), _record(8, 2, "tpalino")])
        rows = database.query("SELECT __connect_topic, __connect_partition, __connect_offset, "
                              "username FROM audit_login ORDER BY 3")  # fmt: skip
        assert rows == [("login", 0, 7, "gwenshap"), ("login", 0, 8, "tpalino")]
    finally:
        task.stop()
    task = _task(database, **{"insert.mode": "update", "pk.mode": "record_value",
                              "pk.fields": "username", "table.name.format": "audit_${topic}",
                              "fields.whitelist": "amount"})  # fmt: skip
    try:
        value = _record(9, 1, "tpalino").value.put("amount", decimal.Decimal("99.99"))
        put(task, [SinkRecord(topic="login", kafka_partition=0, kafka_offset=9,
                             value_schema=V1, value=value)])  # fmt: skip
        rows = database.query("SELECT username, amount FROM audit_login ORDER BY 1")
        assert [(r[0], decimal.Decimal(str(r[1]))) for r in rows] == [
            ("gwenshap", decimal.Decimal("12.50")),
            ("tpalino", decimal.Decimal("99.99")),
        ]
    finally:
        task.stop()


def test_one_transaction_per_put_retries_then_reports(database: _Database, put: Put) -> None:
    reporter = _Reporter()
    task = _task(database, reporter, **{"pk.mode": "record_key", "auto.create": "true",
                                        "max.retries": "1"})  # fmt: skip
    try:
        put(task, [_record(0, 1, "gwenshap")])
        batch = [_record(1, 2, "tpalino"), _record(2, 1, "again"), _record(3, 3, "ewen")]
        with pytest.raises(RetriableError):
            put(task, batch)  # the duplicate key fails the whole transaction
        assert database.query("SELECT id FROM login ORDER BY id") == [(1,)]
        put(task, batch)  # retries used up: record by record, the bad one reported
        assert [r.kafka_offset for r, _ in reporter.reported] == [2]
        assert database.query("SELECT id FROM login ORDER BY id") == [(1,), (2,), (3,)]
    finally:
        task.stop()
    task = _task(database, **{"pk.mode": "record_key", "max.retries": "0"})
    try:
        with pytest.raises(ConnectError, match="Write of 1 records failed"):
            put(task, [_record(5, 1, "again")])
    finally:
        task.stop()


def test_clear_errors(database: _Database, put: Put) -> None:
    def check(props: Mapping[str, str], records: list[SinkRecord], match: str) -> None:
        task = _task(database, **props)
        try:
            with pytest.raises(ConnectError, match=match):
                put(task, records)
        finally:
            task.stop()

    check({}, [_record(0, 1, "a")], "Table login is missing and auto-creation is disabled")
    check({"auto.create": "true"}, [_record(0, 1, "a"), _record(1, 2, "b", V2)],
          r"Table login is missing fields \(country\) and auto-evolution is disabled")  # fmt: skip
    required = (SchemaBuilder.struct().name("login").field("username", Schema.STRING_SCHEMA)
                .field("age", Schema.INT32_SCHEMA).build())  # fmt: skip
    strict = SinkRecord(topic="login", kafka_partition=0, kafka_offset=3, value_schema=required,
                        value=Struct(required).put("username", "x").put("age", 3))  # fmt: skip
    not_optional = "Cannot ALTER TABLE login to add missing field age, as the field is not optional"
    check({"auto.evolve": "true"}, [strict], not_optional)
    check({"insert.mode": "upsert"}, [_record(0, 1, "a")],
          "UPSERT mode requires key field names to be known")  # fmt: skip
    check({"auto.create": "true"}, [_record(0, 1, None)],
          r"'delete.enabled=false' and 'pk.mode=none'.*with a null value")  # fmt: skip
    with pytest.raises(ConfigException, match="Primary key mode must be 'record_key'"):
        JdbcSinkConnector().start({"connection.url": database.url, "topics": "login",
                                   "delete.enabled": "true"})  # fmt: skip
