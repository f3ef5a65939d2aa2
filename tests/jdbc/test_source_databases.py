"""The JDBC source against real MariaDB and PostgreSQL servers: Connector/J's and pgjdbc's
type mappings, qualified table names in Confluent's offsets, microsecond timestamps, new
tables picked up, and the errors a user meets first."""

from __future__ import annotations

import datetime as dt
import decimal
import threading
import time
import uuid
from typing import Any

import pytest

from seaway.connect.api import ConnectError, ConnectorContext, Schema, partition_key
from seaway.connect.api.batches import SourceBatch
from seaway.connect.api.data.arrow import connect_values
from seaway.connect.converters import JsonConverter
from seaway.connectors.jdbc import JdbcSourceConnector, JdbcSourceTask

MARIADB_TABLE = """CREATE TABLE kinds (
    id INT AUTO_INCREMENT PRIMARY KEY, tiny TINYINT, flag TINYINT(1), small SMALLINT,
    usmall SMALLINT UNSIGNED, big BIGINT NOT NULL, real_ FLOAT, dbl DOUBLE,
    amount DECIMAL(10, 2), name VARCHAR(30) NOT NULL, body TEXT, raw VARBINARY(8),
    day DATE, at TIME, changed DATETIME(6) NOT NULL, js JSON)"""
POSTGRES_TABLE = """CREATE TABLE kinds (
    id SERIAL PRIMARY KEY, tiny SMALLINT, flag BOOLEAN, small SMALLINT, usmall INTEGER,
    big BIGINT NOT NULL, real_ REAL, dbl DOUBLE PRECISION, amount NUMERIC(10, 2),
    name VARCHAR(30) NOT NULL, body TEXT, raw BYTEA, day DATE, at TIME,
    changed TIMESTAMP(6) NOT NULL, js JSONB)"""
ROW = ("7", True, "3", "65535", "9000000000", "1.5", "2.25", "12.50", "'ann'", "'long text'",
       "X'0102'", "'2026-11-20'", "'10:11:12'")  # fmt: skip


@pytest.fixture(params=["mariadb", "postgres"])
def database(request: pytest.FixtureRequest) -> tuple[Any, str]:
    """(server, a new database's name) on each server kind."""
    server = request.getfixturevalue(request.param)
    name = f"t{uuid.uuid4().hex[:8]}"
    server.create_database(name)
    return server, name


def _execute(database: tuple[Any, str], *statements: str) -> None:
    server, name = database
    with server.connect(name) as connection:
        cursor = connection.cursor()
        for statement in statements:
            cursor.execute(statement)


def _is_postgres(database: tuple[Any, str]) -> bool:
    return type(database[0]).__name__ == "PostgresServer"


def _insert(database: tuple[Any, str], first_id: int, count: int, changed: str) -> None:
    values = list(ROW)
    if _is_postgres(database):
        values[1], values[10] = "true", "'\\x0102'::bytea"
    else:
        values[1] = "1"
    rows = ", ".join(
        f"({i}, {', '.join(values)}, '{changed}', '{{\"k\": {i}}}')"
        for i in range(first_id, first_id + count)
    )
    _execute(database, f"INSERT INTO kinds VALUES {rows}")


def _task(database: tuple[Any, str], **props: str) -> tuple[JdbcSourceConnector, JdbcSourceTask]:
    server, name = database
    config = {"connection.url": server.url(name), "topic.prefix": "db.",
              "poll.interval.ms": "0", "table.poll.interval.ms": "0", **props}  # fmt: skip
    connector = JdbcSourceConnector()
    connector.start(config)
    (task_config,) = connector.task_configs(1)
    task = connector.task_class()()
    task.start(task_config)
    return connector, task


def _drain(task: JdbcSourceTask, offsets: dict[Any, Any]) -> list[Any]:
    records: list[Any] = []
    while planned := task.plan(offsets):
        for key, end in planned.items():
            records += list(task.read(task.sources[key].partition, offsets.get(key), end))
            offsets[key] = end
    return records


def test_types_offsets_and_microseconds(database: tuple[Any, str]) -> None:
    postgres = _is_postgres(database)
    _execute(database, POSTGRES_TABLE if postgres else MARIADB_TABLE)
    _insert(database, 1, 3, "2026-11-20 10:00:00.123456")
    _insert(database, 4, 2, "2026-11-20 10:00:01")
    connector, task = _task(database, mode="timestamp+incrementing", **{
        "timestamp.column.name": "changed", "incrementing.column.name": "id",
        "batch.max.rows": "2"})  # fmt: skip
    try:
        qualified = f"{'public' if postgres else database[1]}.kinds"
        assert connector.tables == [qualified]
        offsets: dict[Any, Any] = {}
        records = _drain(task, offsets)
        assert [r.value.get("id") for r in records] == [1, 2, 3, 4, 5]
        first = records[0]
        assert first.topic == "db.kinds"
        assert first.source_partition == {"protocol": "1", "table": qualified}
        # Confluent's offset keys in Java's HashMap order, nanos of the second kept.
        assert list(first.source_offset.items()) == [
            ("timestamp_nanos", 123456000),
            ("incrementing", 1),
            ("timestamp", 1795168800123),
        ]
        assert offsets == {partition_key({"protocol": "1", "table": qualified}): {
            "timestamp_nanos": 0, "incrementing": 5, "timestamp": 1795168801000}}  # fmt: skip
        schema = first.value.schema
        assert schema.name == "kinds"
        types = {f.name: (f.schema.type.name, f.schema.name) for f in schema.fields}
        assert types == {
            "id": ("INT32", None),
            "tiny": ("INT16" if postgres else "INT8", None),
            "flag": ("BOOLEAN" if postgres else "INT8", None),
            "small": ("INT16", None),
            "usmall": ("INT32", None),  # SMALLINT UNSIGNED needs 32 bits, as in Connector/J
            "big": ("INT64", None),
            "real_": ("FLOAT32", None),
            "dbl": ("FLOAT64", None),
            "amount": ("BYTES", "org.apache.kafka.connect.data.Decimal"),
            "name": ("STRING", None),
            "body": ("STRING", None),
            "raw": ("BYTES", None),
            "day": ("INT32", "org.apache.kafka.connect.data.Date"),
            "at": ("INT32", "org.apache.kafka.connect.data.Time"),
            "changed": ("INT64", "org.apache.kafka.connect.data.Timestamp"),
            "js": ("STRING", None),
        }
        assert schema.field("amount").schema.parameters == {
            "scale": "2", "connect.decimal.precision": "10"}  # fmt: skip
        assert not schema.field("big").schema.is_optional
        assert schema.field("body").schema.is_optional
        value = first.value
        assert value.get("amount") == decimal.Decimal("12.50")
        assert value.get("usmall") == 65535 and value.get("big") == 9000000000
        assert value.get("flag") in (True, 1)
        assert value.get("raw") == b"\x01\x02"
        assert value.get("day") == dt.date(2026, 11, 20)
        assert value.get("at") == dt.time(10, 11, 12)
        assert value.get("changed") == dt.datetime(2026, 11, 20, 10, 0, 0, 123456, dt.UTC)
        assert value.get("js").replace(" ", "") == '{"k":1}'
        _insert(database, 6, 1, "2026-11-20 10:00:01")  # same timestamp, higher id
        assert [r.value.get("id") for r in _drain(task, offsets)] == [6]
    finally:
        task.stop()
        connector.stop()


def _as_json(items: list[Any], columns_used: list[bool]) -> list[bytes | None]:
    """JsonConverter's bytes of each record, whole columns where it takes them (as the
    runtime converts a batch) and record by record where it does not."""
    json = JsonConverter()
    json.configure({}, is_key=False)
    out: list[bytes | None] = []
    for item in items:
        if isinstance(item, SourceBatch):
            values = item.records.column("value")
            column = json.from_connect_column(item.topic, item.value_schema, values)
            columns_used.append(column is not None)
            if column is not None:
                out += column.to_pylist()
                continue
            out += [json.from_connect_data(item.topic, item.value_schema, v)
                    for v in connect_values(item.value_schema, values)]  # fmt: skip
        else:
            out.append(json.from_connect_data(item.topic, item.value_schema, item.value))
    return out


@pytest.mark.parametrize("floats", [True, False], ids=["with floats", "without"])
def test_batches_are_the_records_in_columns(database: tuple[Any, str], floats: bool) -> None:
    """read_batches() gives what read() gives, byte for byte once JsonConverter wrote it;
    without float columns (which Java prints its own way) the column path writes them."""
    postgres = _is_postgres(database)
    _execute(database, POSTGRES_TABLE if postgres else MARIADB_TABLE)
    _insert(database, 1, 3, "2026-11-20 10:00:00.123456")
    text, before_1970 = "'quote \" and backslash \\\\'", "'1969-12-31 23:59:59.9995'"
    _execute(database, "INSERT INTO kinds (id, big, name, changed) "
                       f"VALUES (4, -1, {text}, {before_1970})")  # fmt: skip
    if not floats:
        _execute(database, *(f"ALTER TABLE kinds DROP COLUMN {c}" for c in ("real_", "dbl")))
    connector, task = _task(database, mode="incrementing", **{"incrementing.column.name": "id"})
    try:
        planned = task.plan({})
        ((key, end),) = planned.items()
        partition = task.sources[key].partition
        records = list(task.read(partition, None, end))
        items = list(task.read_batches(partition, None, end))
        assert [type(i) for i in items] == [SourceBatch]
        columns_used: list[bool] = []
        assert _as_json(items, columns_used) == _as_json(records, []) and len(records) == 4
        assert columns_used == [not floats]
    finally:
        task.stop()
        connector.stop()


class _Context(ConnectorContext):
    def __init__(self) -> None:
        self.reconfigured = threading.Event()

    def request_task_reconfiguration(self) -> None:
        self.reconfigured.set()

    def raise_error(self, error: Exception) -> None:
        raise AssertionError(error)


def test_new_tables_are_picked_up(database: tuple[Any, str]) -> None:
    server, name = database
    _execute(database, "CREATE TABLE a (id INT PRIMARY KEY)")
    connector = JdbcSourceConnector()
    context = _Context()
    connector.initialize(context)
    connector.start({"connection.url": server.url(name), "topic.prefix": "db.",
                     "mode": "incrementing", "incrementing.column.name": "id",
                     "table.poll.interval.ms": "200"})  # fmt: skip
    try:
        assert [c["tables"] for c in connector.task_configs(4)] == [f'["{connector.tables[0]}"]']
        _execute(database, "CREATE TABLE b (id INT PRIMARY KEY)")
        assert context.reconfigured.wait(30)
        assert len(connector.task_configs(4)) == 2
    finally:
        connector.stop()


def test_a_wrong_user_fails_with_the_databases_message(database: tuple[Any, str]) -> None:
    server, name = database
    url = server.url(name).replace("user=root", "user=root;").replace(
        "user=postgres", "user=nobody")  # fmt: skip
    with pytest.raises(ConnectError) as failure:
        JdbcSourceConnector().start({"connection.url": url, "topic.prefix": "db.",
                                     "mode": "bulk", "connection.attempts": "1"})  # fmt: skip
    message = str(failure.value)
    if _is_postgres(database):
        assert 'role "nobody" does not exist' in message
    else:
        assert "Access denied for user 'root;'@'localhost' (using password: NO)" in message


def test_a_query_gives_an_unnamed_struct(database: tuple[Any, str]) -> None:
    _execute(database, "CREATE TABLE login (username VARCHAR(30), n INT)",
             "INSERT INTO login VALUES ('ann', 1), ('bob', 2)")  # fmt: skip
    connector, task = _task(database, mode="incrementing", query=(
        "SELECT * FROM (SELECT username, n FROM login WHERE username LIKE '%n%') AS q"),
        **{"incrementing.column.name": "n", "validate.non.null": "false"})  # fmt: skip
    try:
        records = _drain(task, {})
        assert [r.value.get("username") for r in records] == ["ann"]
    finally:
        task.stop()
        connector.stop()
    connector, bulk = _task(database, mode="bulk", query=(
        "SELECT username, '100%' AS share FROM login WHERE username LIKE 'b%'"))  # fmt: skip
    try:
        (record,) = bulk.poll() or []
        assert (record.value.get("username"), record.value.get("share")) == ("bob", "100%")
    finally:
        bulk.stop()
        connector.stop()
    connector, task = _task(database, mode="incrementing", query=(
        "SELECT * FROM (SELECT username, n FROM login WHERE username LIKE '%n%') AS q"),
        **{"incrementing.column.name": "n", "validate.non.null": "false"})  # fmt: skip
    try:
        records = _drain(task, {})
        assert records[0].topic == "db." and records[0].value.schema.name is None
        assert records[0].source_partition == {"query": "query"}
        assert isinstance(records[0].value.schema, Schema)
    finally:
        task.stop()
        connector.stop()


def test_timestamp_delay_waits_for_rows_committed_late(database: tuple[Any, str]) -> None:
    """A transaction that commits after a newer row was read is lost without a delay (as in
    Confluent's connector) and read with ``timestamp.delay.interval.ms`` covering it."""
    postgres = _is_postgres(database)
    ago = (lambda s: f"now() - interval '{s} second'") if postgres else (
        lambda s: f"NOW(3) - INTERVAL {s} SECOND")  # fmt: skip
    _execute(database, "CREATE TABLE events (id INT PRIMARY KEY, changed "
             f"{'TIMESTAMP(3)' if postgres else 'DATETIME(3)'} NOT NULL)")  # fmt: skip
    pairs = {delay: _task(database, mode="timestamp", **{"timestamp.column.name": "changed",
                                                          "timestamp.delay.interval.ms": delay})
             for delay in ("0", "1500")}  # fmt: skip
    tasks = {delay: task for delay, (_, task) in pairs.items()}
    try:
        offsets: dict[str, dict[Any, Any]] = {delay: {} for delay in tasks}
        _execute(database, f"INSERT INTO events VALUES (1, {ago(0.5)})")  # the newer row
        seen = {d: [r.value.get("id") for r in _drain(t, offsets[d])] for d, t in tasks.items()}
        assert seen == {"0": [1], "1500": []}
        _execute(database, f"INSERT INTO events VALUES (2, {ago(1)})")  # committed late
        time.sleep(1.6)
        seen = {d: [r.value.get("id") for r in _drain(t, offsets[d])] for d, t in tasks.items()}
        assert seen == {"0": [], "1500": [2, 1]}  # in timestamp order
    finally:
        for connector, task in pairs.values():
            task.stop()
            connector.stop()
