"""The JDBC source connector against SQLite: modes, planning and replay, Confluent's offsets,
and clear errors."""

from __future__ import annotations

import datetime as dt
import decimal
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.config.plugins import CONNECTORS, load_class
from seaway.connect.api import ConnectError, partition_key
from seaway.connectors.jdbc import JdbcSourceConnector, JdbcSourceTask
from seaway.connectors.jdbc.source import JdbcBulkSourceTask

TABLE = """CREATE TABLE login (
    id INTEGER PRIMARY KEY, username VARCHAR(30) NOT NULL, login_time DATETIME NOT NULL,
    amount DECIMAL(10, 2), note TEXT)"""


def _db(tmp_path: Path, rows: list[tuple[Any, ...]]) -> str:
    path = tmp_path / "test.db"
    with sqlite3.connect(path) as db:
        db.execute(TABLE)
        db.execute("CREATE TABLE other (id INTEGER PRIMARY KEY)")
        db.executemany("INSERT INTO login VALUES (?, ?, ?, ?, ?)", rows)
    return f"jdbc:sqlite:{path}"


def _insert(url: str, *rows: tuple[Any, ...]) -> None:
    with sqlite3.connect(url.removeprefix("jdbc:sqlite:")) as db:
        db.executemany("INSERT INTO login VALUES (?, ?, ?, ?, ?)", rows)


def _rows(n: int, start: int = 1, at: str = "2026-11-20 10:00:00") -> list[tuple[Any, ...]]:
    return [(i, f"user{i}", at, "12.50", None) for i in range(start, start + n)]


def _task(url: str, **props: str) -> JdbcSourceTask:
    config = {"connection.url": url, "topic.prefix": "sqlite.", "poll.interval.ms": "0",
              "table.whitelist": "login", **props}  # fmt: skip
    connector = JdbcSourceConnector()
    connector.start(config)
    (task_config,) = connector.task_configs(1)
    task = connector.task_class()()
    task.start(task_config)
    return task


def _drain(
    task: JdbcSourceTask, offsets: dict[str, Any] | None = None
) -> tuple[list[Any], dict[str, Any]]:
    """Plan and read until nothing is new: (records, offsets reached, updated in place)."""
    offsets = {} if offsets is None else offsets
    records: list[Any] = []
    while planned := task.plan(offsets):
        for key, end in planned.items():
            partition = task.sources[key].partition
            records += list(task.read(partition, offsets.get(key), end))
            offsets[key] = end
    return records, offsets


def test_plugin_names() -> None:
    for name in (
        "JdbcSourceConnector",
        "JdbcSource",
        "io.confluent.connect.jdbc.JdbcSourceConnector",
    ):
        assert load_class(name, CONNECTORS) is JdbcSourceConnector


def test_incrementing_mode_in_batches_with_confluents_offsets(tmp_path: Path) -> None:
    url = _db(tmp_path, _rows(250))
    task = _task(url, mode="incrementing", **{"incrementing.column.name": "id",
                                                "batch.max.rows": "100"})  # fmt: skip
    key = partition_key({"protocol": "1", "table": "login"})
    assert task.plan({}) == {key: {"incrementing": 100}}
    records, offsets = _drain(task)
    assert [r.value.get("id") for r in records] == list(range(1, 251))
    assert offsets == {key: {"incrementing": 250}}
    first = records[0]
    assert first.topic == "sqlite.login" and first.key is None
    assert first.source_partition == {"protocol": "1", "table": "login"}
    assert first.source_offset == {"incrementing": 1}
    assert first.value.schema.name == "login"
    assert first.value.get("amount") == decimal.Decimal("12.50")
    assert first.value.get("login_time") == dt.datetime(2026, 11, 20, 10, tzinfo=dt.UTC)
    assert first.value.schema.field("note").schema.is_optional
    assert not first.value.schema.field("username").schema.is_optional
    _insert(url, *_rows(3, start=251))
    assert [r.value.get("id") for r in _drain(task, offsets)[0]] == [251, 252, 253]


def test_a_range_reads_the_same_rows_again(tmp_path: Path) -> None:
    url = _db(tmp_path, _rows(30))
    task = _task(url, mode="incrementing", **{"incrementing.column.name": "id"})
    ((key, end),) = task.plan({}).items()
    partition = task.sources[key].partition
    first = [(r.value.get("id"), r.source_offset) for r in task.read(partition, None, end)]
    again = [(r.value.get("id"), r.source_offset) for r in task.read(partition, None, end)]
    assert first == again and len(first) == 30


def test_timestamp_mode_waits_for_the_delay_and_takes_late_rows(tmp_path: Path) -> None:
    now = dt.datetime.now(dt.UTC)
    old = (now - dt.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    url = _db(tmp_path, _rows(5, at=old))
    task = _task(url, mode="timestamp", **{"timestamp.column.name": "login_time",
                                             "timestamp.delay.interval.ms": "2000"})  # fmt: skip
    records, offsets = _drain(task)
    assert len(records) == 5
    (offset,) = offsets.values()
    assert list(offset) == ["timestamp_nanos", "timestamp"]  # as Java's HashMap writes them
    # A row stamped now is held back for the delay, then read.
    _insert(url, (6, "late", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
                  None, "n"))  # fmt: skip
    assert _drain(task, offsets)[0] == []
    time.sleep(2.2)
    assert [r.value.get("username") for r in _drain(task, offsets)[0]] == ["late"]


def test_timestamp_and_incrementing_orders_ties_by_id(tmp_path: Path) -> None:
    url = _db(tmp_path, _rows(7, at="2026-11-20 10:00:00"))
    task = _task(url, mode="timestamp+incrementing", **{
        "timestamp.column.name": "login_time", "incrementing.column.name": "id",
        "batch.max.rows": "3"})  # fmt: skip
    records, offsets = _drain(task)
    assert [r.value.get("id") for r in records] == list(range(1, 8))
    (offset,) = offsets.values()
    assert offset["incrementing"] == 7 and "timestamp" in offset


def test_bulk_mode_reads_the_whole_table_each_time(tmp_path: Path) -> None:
    url = _db(tmp_path, _rows(4))
    task = _task(url, mode="bulk", **{"poll.interval.ms": "100"})
    assert isinstance(task, JdbcBulkSourceTask)
    assert len(task.poll() or []) == 4
    time.sleep(0.15)
    assert len(task.poll() or []) == 4


def test_query_mode_has_one_task_and_the_prefix_as_topic(tmp_path: Path) -> None:
    url = _db(tmp_path, _rows(5))
    connector = JdbcSourceConnector()
    connector.start({"connection.url": url, "topic.prefix": "logins", "mode": "incrementing",
                     "incrementing.column.name": "id", "poll.interval.ms": "0",
                     "query": "SELECT id, username FROM login WHERE id > 2"})  # fmt: skip
    (config,) = connector.task_configs(4)
    task = connector.task_class()()
    task.start(config)
    records, _ = _drain(task)
    assert [r.value.get("id") for r in records] == [3, 4, 5]
    assert {r.topic for r in records} == {"logins"}
    assert records[0].source_partition == {"query": "query"}


def test_tables_spread_over_tasks_and_filters(tmp_path: Path) -> None:
    url = _db(tmp_path, [])
    connector = JdbcSourceConnector()
    connector.start({"connection.url": url, "topic.prefix": "p.", "mode": "bulk"})
    assert [c["tables"] for c in connector.task_configs(5)] == ['["login"]', '["other"]']
    with sqlite3.connect(url.removeprefix("jdbc:sqlite:")) as db:
        db.execute("CREATE TABLE third (id INTEGER PRIMARY KEY)")
    connector.start({"connection.url": url, "topic.prefix": "p.", "mode": "bulk"})
    assert [c["tables"] for c in connector.task_configs(2)] == [  # contiguous, as Kafka's
        '["login", "other"]', '["third"]']  # fmt: skip
    connector.start({"connection.url": url, "topic.prefix": "p.", "mode": "bulk",
                     "table.exclude.list": "other,third"})  # fmt: skip
    assert [c["tables"] for c in connector.task_configs(5)] == ['["login"]']


def test_clear_errors(tmp_path: Path) -> None:
    url = _db(tmp_path, [])
    with pytest.raises(ConfigException, match="mode"):
        JdbcSourceConnector().start({"connection.url": url, "topic.prefix": "p."})
    with pytest.raises(ConfigException, match=r"incrementing\.column\.name"):
        JdbcSourceConnector().start({"connection.url": url, "topic.prefix": "p.",
                                     "mode": "incrementing"})  # fmt: skip
    with pytest.raises(ConnectError, match="column note is nullable"):
        _task(
            url,
            mode="timestamp+incrementing",
            **{"timestamp.column.name": "login_time", "incrementing.column.name": "note"},
        )
    with pytest.raises(ConnectError, match=r"not supported: use jdbc:mysql://"):
        JdbcSourceConnector().start({"connection.url": "jdbc:oracle:thin:@db:1521/x",
                                     "topic.prefix": "o.", "mode": "bulk"})  # fmt: skip
    unreachable = socket.socket()  # a port nothing listens on
    unreachable.bind(("127.0.0.1", 0))
    port = unreachable.getsockname()[1]
    with pytest.raises(ConnectError, match=r"Cannot connect to jdbc:mysql://127.0.0.1:\d+/test\?"
                       r"user=root&password=\*\*\*\*: \(2003"):  # fmt: skip
        JdbcSourceConnector().start({
            "connection.url": f"jdbc:mysql://127.0.0.1:{port}/test?user=root&password=secret",
            "topic.prefix": "mysql.", "mode": "bulk", "connection.attempts": "1"})  # fmt: skip
    unreachable.close()
    with sqlite3.connect(url.removeprefix("jdbc:sqlite:")) as db:
        db.execute("CREATE TABLE odd (id INTEGER PRIMARY KEY, shape GEOMETRY)")
    with pytest.raises(ConnectError, match="Column shape has SQL type GEOMETRY"):
        _task(url, mode="bulk", **{"table.whitelist": "odd"})
