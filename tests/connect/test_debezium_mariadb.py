"""Debezium's MariaDB connector on a real Connect worker against a real MariaDB with its binlog
on: the snapshot then the binlog (inserts, updates with before/after, deletes and their
tombstones, a primary key change) with Debezium's keys and envelopes, a column added and one
dropped and a table created mid-stream, heartbeats, a restart during the snapshot, ``kill -9``
of the worker mid-stream with 5,000 inserts in flight (nothing lost, nothing doubled under
exactly-once), the offsets in Debezium's format through the REST API, bad configs through
``config/validate``, and the schema history in a file across a restart."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest

from tests.connect.debezium_helpers import (
    CUSTOMERS_ROW_FIELDS,
    ENVELOPE_FIELDS,
    TopicTail,
    kill_mid_snapshot,
    topic_messages,
)
from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for
from tests.databases import MariaDbServer

CLASS = "io.debezium.connector.mariadb.MariaDbConnector"
FILE_HISTORY = "io.debezium.storage.file.history.FileSchemaHistory"
BURST_FIRST = 1_000_000  # the ids of the inserts in flight at a kill


@pytest.fixture(scope="module")
def server() -> Iterator[MariaDbServer]:
    """One MariaDB of this module with the binlog as CDC needs it."""
    with MariaDbServer(binlog=True) as db:
        yield db


def _config(server: MariaDbServer, bootstrap: str, prefix: str, db: str) -> dict[str, Any]:
    return {
        "connector.class": CLASS, "database.hostname": "127.0.0.1",
        "database.port": server.port, "database.user": "root",
        "database.server.id": random.randint(1000, 2**31), "topic.prefix": prefix,
        "database.include.list": db, "poll.interval.ms": 200,
        "schema.history.internal.kafka.bootstrap.servers": bootstrap,
        "schema.history.internal.kafka.topic": f"{prefix}.history",
    }  # fmt: skip


def _database(server: MariaDbServer, prefix: str) -> str:
    db = prefix.replace("-", "_").replace(".", "_")[-60:]
    server.create_database(db)
    return db


def _execute(server: MariaDbServer, db: str, *statements: str) -> None:
    with server.connect(db) as connection, connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def test_snapshot_then_binlog_with_ddl(
    tmp_path: Path, bootstrap: str, topic_name: str, server: MariaDbServer
) -> None:
    prefix = topic_name
    db = _database(server, prefix)
    _execute(server, db,
             "CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(50) NOT NULL, "
             "balance DECIMAL(10,2), updated_at DATETIME(3))",
             "INSERT INTO customers VALUES (1001, 'sally@example.org', 1000.00, "
             "'2026-01-01 00:00:00'), (1002, 'george@example.org', NULL, NULL)")  # fmt: skip
    topic = f"{prefix}.{db}.customers"
    _create_topic(bootstrap, topic)
    with WorkerProcess(distributed_props(bootstrap, topic_name), tmp_path / "w") as worker:
        rest = worker.rest
        assert rest is not None
        bad = {**_config(server, bootstrap, prefix, db), "snapshot.mode": "schema_only",
               "time.precision.mode": "adaptive", "table.include.list": f"{db}.a",
               "table.exclude.list": f"{db}.b", "topic.prefix": "bad prefix"}  # fmt: skip
        del bad["database.server.id"]
        body = rest.ok("PUT", f"/connector-plugins/{CLASS}/config/validate", bad)
        errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"]}
        assert body["error_count"] == 6, {k: v for k, v in errors.items() if v}  # name too
        assert "no_data" in errors["snapshot.mode"][0]
        assert "The 'adaptive' time.precision.mode is no longer supported" in (
            errors["time.precision.mode"][0])  # fmt: skip
        assert "table.include.list" in errors["table.exclude.list"][0]
        assert "invalid format" in errors["topic.prefix"][0]
        assert errors["database.server.id"] == [
            'Missing required configuration "database.server.id" which has no default value.'
        ]

        heartbeats = f"__debezium-heartbeat.{prefix}"
        _create_topic(bootstrap, heartbeats)
        config = {**_config(server, bootstrap, prefix, db), "heartbeat.interval.ms": 1000}
        rest.ok("POST", "/connectors", {"name": "cdc", "config": config})
        wait_for("the snapshot", lambda: len(topic_messages(bootstrap, topic)) >= 2)
        _execute(server, db,
                 "UPDATE customers SET balance = 1234.50, updated_at = '2026-01-02 09:30:00.123' "
                 "WHERE id = 1001",
                 "INSERT INTO customers VALUES (1003, 'edward@example.org', 1.5, NULL)",
                 "DELETE FROM customers WHERE id = 1002",
                 "ALTER TABLE customers ADD COLUMN country VARCHAR(2) NULL",
                 "INSERT INTO customers VALUES (1004, 'anne@example.org', 0, NULL, 'NL')",
                 )  # fmt: skip
        messages = wait_for("the changes", lambda: (m := topic_messages(bootstrap, topic))
                            and len(m) >= 7 and m)  # fmt: skip
        keys = [k["payload"]["id"] for k, _ in messages]
        assert keys == [1001, 1002, 1001, 1003, 1002, 1002, 1004]
        ops = [v and v["payload"]["op"] for _, v in messages]
        assert ops == ["r", "r", "u", "c", "d", None, "c"]

        key, value = messages[2]
        id_field = {"type": "int32", "optional": False, "field": "id"}
        assert key["schema"] == {"type": "struct", "optional": False, "name": f"{topic}.Key",
                                 "fields": [id_field]}  # fmt: skip
        schema = value["schema"]
        assert (schema["name"], schema["version"]) == (f"{topic}.Envelope", 2)
        assert [f["field"] for f in schema["fields"]] == ENVELOPE_FIELDS
        row = schema["fields"][0]
        assert row["name"] == f"{topic}.Value" and row["optional"] is True
        assert row["fields"] == CUSTOMERS_ROW_FIELDS
        assert schema["fields"][2]["name"] == "io.debezium.connector.mariadb.Source"
        payload = value["payload"]
        assert payload["before"] == {"id": 1001, "email": "sally@example.org", "balance": "AYag",
                                     "updated_at": 1767225600000}  # fmt: skip
        assert payload["after"] == {"id": 1001, "email": "sally@example.org", "balance": "AeI6",
                                    "updated_at": 1767346200123}  # fmt: skip
        source = payload["source"]
        assert {
            k: source[k]
            for k in ("connector", "name", "snapshot", "db", "table", "row", "server_id")
        } == {
            "connector": "mariadb",
            "name": prefix,
            "snapshot": "false",
            "db": db,
            "table": "customers",
            "row": 0,
            "server_id": 1,
        }
        assert source["file"].startswith("mariadb-bin.") and source["pos"] > 0
        assert source["gtid"].startswith("0-1-")
        assert payload["transaction"] is None
        snapshot_sources = [v["payload"]["source"] for _, v in messages[:2]]
        assert [s["snapshot"] for s in snapshot_sources] == ["first", "last"]
        deleted = messages[4][1]["payload"]
        assert deleted["before"]["id"] == 1002 and deleted["after"] is None
        assert messages[5] == ({"schema": key["schema"], "payload": {"id": 1002}}, None)
        # the column added mid-stream is in the schema of the rows after it, not before
        added = messages[6][1]
        assert [f["field"] for f in added["schema"]["fields"][1]["fields"]][-1] == "country"
        assert added["payload"]["after"]["country"] == "NL"
        assert "country" not in messages[3][1]["payload"]["after"]
        changes = [v["payload"] for _, v in topic_messages(bootstrap, prefix)]
        assert changes[-1]["ddl"].startswith("ALTER TABLE customers ADD COLUMN country")
        assert changes[-1]["tableChanges"][0]["type"] == "ALTER"

        stored = wait_for("the offsets of the changes", lambda: _change_offsets(rest))
        assert stored[0]["partition"] == {"server": prefix}
        offset = stored[0]["offset"]
        # a change's offset is its transaction's start with the events and rows emitted of
        # it; a heartbeat's (every second here, once the changes are out) the position after
        after_commit = {"file", "pos", "gtids", "server_id", "ts_sec"}
        assert set(offset) in (after_commit, after_commit | {"event", "row"}), offset
        assert offset["gtids"].startswith("0-1-") and offset.get("row", 1) == 1

        # a primary key changed, a column dropped, a table created
        _create_topic(bootstrap, f"{prefix}.{db}.orders")
        _execute(server, db,
                 "UPDATE customers SET id = 2003 WHERE id = 1003",
                 "ALTER TABLE customers DROP COLUMN balance",
                 "INSERT INTO customers VALUES (1005, 'kim@example.org', NULL, 'DE')",
                 "CREATE TABLE orders (id INT PRIMARY KEY, customer INT NOT NULL)",
                 "INSERT INTO orders VALUES (1, 1005)")  # fmt: skip
        with TopicTail(bootstrap, topic) as tail:
            later = wait_for("the key change", lambda: len(tail.read()) >= 11 and tail.messages)
        assert [(k["payload"]["id"], v and v["payload"]["op"]) for k, v, _ in later[7:]] == [
            (1003, "d"), (1003, None), (2003, "c"), (1005, "c")]  # fmt: skip
        assert later[7][2] == {"__debezium.newkey": {"id": 2003}}
        assert later[9][2] == {"__debezium.oldkey": {"id": 1003}}
        assert later[7][1]["payload"]["before"]["email"] == "edward@example.org"
        assert later[9][1]["payload"]["after"]["email"] == "edward@example.org"
        dropped = later[10][1]
        assert [f["field"] for f in dropped["schema"]["fields"][1]["fields"]] == [
            "id", "email", "updated_at", "country"]  # fmt: skip
        assert dropped["payload"]["after"] == {"id": 1005, "email": "kim@example.org",
                                               "updated_at": None, "country": "DE"}  # fmt: skip
        orders = wait_for("the new table's row",
                          lambda: topic_messages(bootstrap, f"{prefix}.{db}.orders"))  # fmt: skip
        assert [(k["payload"], v["payload"]["op"], v["payload"]["after"]) for k, v in orders] == [
            ({"id": 1}, "c", {"id": 1, "customer": 1005})]  # fmt: skip
        ddl = [v["payload"]["ddl"] for _, v in topic_messages(bootstrap, prefix)][-2:]
        assert ddl[0].startswith("ALTER TABLE customers DROP COLUMN balance")
        assert ddl[1].startswith("CREATE TABLE orders")
        # heartbeats carry the position while nothing changes
        beats = wait_for("a heartbeat", lambda: topic_messages(bootstrap, heartbeats))
        key, value = beats[-1]
        assert key == {"schema": {"type": "struct", "fields": [
            {"type": "string", "optional": False, "field": "serverName"}], "optional": False,
            "name": "io.debezium.connector.common.ServerNameKey", "version": 1},
            "payload": {"serverName": prefix}}  # fmt: skip
        assert value["schema"]["name"] == "io.debezium.connector.common.Heartbeat"
        assert value["payload"]["ts_ms"] > 1_700_000_000_000


@pytest.mark.parametrize("exactly_once", [False, True], ids=["at-least-once", "exactly-once"])
def test_kill_9_mid_stream(
    tmp_path: Path, bootstrap: str, topic_name: str, server: MariaDbServer, exactly_once: bool
) -> None:
    prefix = topic_name
    db = _database(server, prefix)
    _execute(server, db, "CREATE TABLE items (id INT PRIMARY KEY, n INT)",
             "INSERT INTO items VALUES (0, 0)")  # fmt: skip
    topic = f"{prefix}.{db}.items"
    _create_topic(bootstrap, topic)
    extra: dict[str, Any] = {"exactly.once.source.support": "enabled"} if exactly_once else {}
    # the restarted worker rejoins the group soon after the killed one is dropped from it
    extra.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 1000,
                  "scheduled.rebalance.max.delay.ms": 0})  # fmt: skip
    props = distributed_props(bootstrap, topic_name, **extra)
    isolation = "read_committed" if exactly_once else "read_uncommitted"
    written = [0]  # ids 1..written[0] are committed
    stop = threading.Event()
    burst = range(BURST_FIRST, BURST_FIRST + 5000)

    def write() -> None:  # transactions of three rows, until told to stop
        with server.connect(db) as connection, connection.cursor() as cursor:
            while not stop.is_set():
                first = written[0] + 1
                cursor.execute("BEGIN")
                cursor.executemany("INSERT INTO items VALUES (%s, %s)",
                                   [(i, i) for i in range(first, first + 3)])  # fmt: skip
                cursor.execute("COMMIT")
                written[0] = first + 2
                time.sleep(0.03)

    tail = TopicTail(bootstrap, topic, isolation)
    ids = lambda: [k["payload"]["id"] for k, v, _ in tail.read() if v]  # noqa: E731
    worker = WorkerProcess(props, tmp_path / "w").start()
    writer = threading.Thread(target=write)
    try:
        assert worker.rest is not None
        config = {**_config(server, bootstrap, prefix, db), "max.batch.size": 100}
        worker.rest.ok("POST", "/connectors", {"name": "cdc", "config": config})
        wait_for("the snapshot", lambda: ids() == [0])
        writer.start()
        wait_for("changes flowing", lambda: len(ids()) > 30, timeout=60)
        # 5,000 more inserts, in transactions of 100, committed in one go: in flight at the kill
        with server.connect(db) as connection, connection.cursor() as cursor:
            for first in range(burst.start, burst.stop, 100):
                cursor.execute("BEGIN")
                cursor.executemany("INSERT INTO items VALUES (%s, %s)",
                                   [(i, i) for i in range(first, first + 100)])  # fmt: skip
                cursor.execute("COMMIT")
        worker.kill()  # while the changes go on
        time.sleep(0.5)
    finally:
        stop.set()
        worker.kill()
    if writer.is_alive():
        writer.join()
    expected = set(range(written[0] + 1)) | set(burst)
    with WorkerProcess(props, tmp_path / "w2") as restarted:
        missing: set[int] = set()

        def every_change() -> list[int] | None:
            seen = ids()
            missing.clear()
            missing.update(expected - set(seen))
            return None if missing else seen

        try:
            seen = wait_for("every change", every_change, timeout=120)
        except AssertionError as error:
            raise AssertionError(f"{error}; missing {sorted(missing)[:20]}") from None
        finally:
            tail.__exit__(None, None, None)
        print(f"{len(seen) - len(set(seen))} duplicates of {len(expected)} changes")
        if exactly_once:
            assert sorted(seen) == sorted(expected)  # each exactly once
        assert restarted.rest is not None
        _, body = restarted.rest.get("/connectors/cdc/status")
        assert body["tasks"][0]["state"] == "RUNNING", body


def test_restart_during_the_snapshot(
    tmp_path: Path, bootstrap: str, topic_name: str, server: MariaDbServer
) -> None:
    """A worker killed mid-snapshot: the restarted task takes the snapshot again (Debezium's
    offset still says ``snapshot``), with what changed meanwhile, then streams from there."""
    prefix = topic_name
    db = _database(server, prefix)
    rows = 8_000
    _execute(server, db, "CREATE TABLE big (id INT PRIMARY KEY, n INT)")
    with server.connect(db) as connection, connection.cursor() as cursor:
        for first in range(0, rows, 2000):
            cursor.executemany("INSERT INTO big VALUES (%s, %s)",
                               [(i, i) for i in range(first, first + 2000)])  # fmt: skip
        connection.commit()
    topic = f"{prefix}.{db}.big"
    _create_topic(bootstrap, topic)
    props = distributed_props(bootstrap, topic_name, **{"session.timeout.ms": 6000,
                              "heartbeat.interval.ms": 1000,
                              "scheduled.rebalance.max.delay.ms": 0})  # fmt: skip
    config = {**_config(server, bootstrap, prefix, db), "max.batch.size": 400}
    with TopicTail(bootstrap, topic) as tail:
        first_run = kill_mid_snapshot(props, tmp_path / "w", config, tail, rows)
        _execute(server, db, "UPDATE big SET n = -1 WHERE id = 0",
                 f"INSERT INTO big VALUES ({rows}, {rows})")  # fmt: skip
        with WorkerProcess(props, tmp_path / "w2") as restarted:
            assert restarted.rest is not None
            wanted = set(range(rows + 1))
            wait_for("the snapshot again", lambda: wanted <= {k["payload"]["id"]
                     for k, _, _ in tail.read()[first_run:]}, timeout=180)  # fmt: skip
            _execute(server, db, "INSERT INTO big VALUES (-5, -5)")
            wait_for("streaming after it", lambda: tail.read()[-1][0]["payload"]["id"] == -5)
        messages = tail.read()
    second = [v["payload"] for _, v, _ in messages[first_run:] if v]
    assert [p["source"]["snapshot"] for p in second[:1]] == ["first"]
    assert [p["op"] for p in second[:-1]] == ["r"] * (len(second) - 1)
    assert second[-2]["source"]["snapshot"] == "last"
    assert {p["after"]["id"]: p["after"]["n"] for p in second[:-1]}[0] == -1  # read anew
    assert (second[-1]["op"], second[-1]["after"]) == ("c", {"id": -5, "n": -5})
    assert len(second) == rows + 2  # the second snapshot whole, once, then the insert


def _change_offsets(rest: Rest) -> Any:
    """The connector ``cdc``'s stored offsets once they are a change's (they carry the
    server id): until the next flush (every second) they may still be the snapshot's."""
    status, body = rest.get("/connectors/cdc/offsets")
    stored = status == 200 and body["offsets"]
    return stored and "server_id" in stored[0]["offset"] and stored


def _purge_binary_logs(server: MariaDbServer, db: str) -> bool:
    """Purge every binlog but the newest; whether they are gone. The server keeps a file a
    binlog reader still has open (the stopped task's connection may take a moment to close
    on a busy machine), so the caller tries again."""
    with server.connect(db) as connection, connection.cursor() as cursor:
        cursor.execute("SHOW BINARY LOGS")
        newest = cursor.fetchall()[-1][0]
        try:
            cursor.execute(f"PURGE BINARY LOGS TO '{newest}'")
        except pymysql.err.OperationalError:  # "A purgeable log is in use"
            return False
        cursor.execute("SHOW BINARY LOGS")
        return [row[0] for row in cursor.fetchall()] == [newest]


def test_purged_binlog_fails_or_snapshots_when_needed(
    tmp_path: Path, bootstrap: str, topic_name: str, server: MariaDbServer
) -> None:
    """A connector stopped while the binlog it stopped in is purged: Debezium's error at the
    restart, and with ``snapshot.mode=when_needed`` a snapshot again, then the binlog."""
    prefix = topic_name
    db = _database(server, prefix)
    _execute(server, db, "CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)")
    topic = f"{prefix}.{db}.t"
    _create_topic(bootstrap, topic)
    with WorkerProcess(distributed_props(bootstrap, topic_name), tmp_path / "w") as worker, \
            TopicTail(bootstrap, topic) as tail:  # fmt: skip
        rest = worker.rest
        assert rest is not None
        config = _config(server, bootstrap, prefix, db)
        rest.ok("POST", "/connectors", {"name": "cdc", "config": config})
        wait_for("the snapshot", lambda: len(tail.read()) == 1)
        _execute(server, db, "INSERT INTO t VALUES (2)")  # a change (not in the snapshot)
        wait_for("the insert", lambda: len(tail.read()) == 2)
        # stopped before the insert's offset is stored, it could take the snapshot again
        wait_for("the insert's offset", lambda: _change_offsets(rest))
        rest.ok("PUT", "/connectors/cdc/stop")
        wait_for("the stopped connector", lambda: rest.get("/connectors/cdc/status")[1][
            "connector"]["state"] == "STOPPED")  # fmt: skip
        _execute(server, db, "FLUSH BINARY LOGS", "INSERT INTO t VALUES (3)", "FLUSH BINARY LOGS")
        wait_for("the older binlogs purged", lambda: _purge_binary_logs(server, db))
        rest.ok("PUT", "/connectors/cdc/resume")

        def task_trace() -> str | None:
            tasks = rest.get("/connectors/cdc/status")[1]["tasks"]
            return tasks and tasks[0]["state"] == "FAILED" and tasks[0]["trace"]

        trace = wait_for("the task to fail", task_trace, timeout=60)
        assert trace.startswith("[seaway-task 0] Task cdc-0 failed: seaway.connect.api.errors."
                                "ConnectError: The connector is trying to read change stream "
                                "starting at {")  # fmt: skip
        assert "file=mariadb-bin.0" in trace
        assert "no longer available on the server" in trace
        assert "snapshot mode when needed" in trace
        assert len(tail.read()) == 2  # nothing read past the gap

        rest.ok("PUT", "/connectors/cdc/config", {**config, "snapshot.mode": "when_needed"})
        changes = lambda: [(k["payload"]["id"], v["payload"]["op"])  # noqa: E731
                           for k, v, _ in tail.read()[2:]]  # fmt: skip
        wait_for("the snapshot again", lambda: changes() == [(1, "r"), (2, "r"), (3, "r")])
        _execute(server, db, "INSERT INTO t VALUES (4)")
        wait_for("then the binlog", lambda: changes()[3:] == [(4, "c")])


def test_schema_history_in_a_file_across_a_restart(
    tmp_path: Path, bootstrap: str, topic_name: str, server: MariaDbServer
) -> None:
    """``schema.history.internal=...FileSchemaHistory``, no Kafka keys for it: the snapshot's
    table and a column added mid-stream go to the file, one record a line; a worker started
    anew recovers the table from the file and reads the inserts made since, with the column."""
    prefix = topic_name
    db = _database(server, prefix)
    _execute(server, db, "CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(50) NOT NULL)",
             "INSERT INTO customers VALUES (1, 'sally@example.org')")  # fmt: skip
    topic = f"{prefix}.{db}.customers"
    _create_topic(bootstrap, topic)
    history = tmp_path / "history" / "schema.dat"  # its folder is made by the connector
    config = {k: v for k, v in _config(server, bootstrap, prefix, db).items() if ".kafka." not in k}
    config.update({"schema.history.internal": FILE_HISTORY,
                   "schema.history.internal.file.filename": str(history)})  # fmt: skip
    props = distributed_props(bootstrap, topic_name)

    def lines() -> list[Any]:
        return [json.loads(line) for line in history.read_text(encoding="utf-8").splitlines()]

    with TopicTail(bootstrap, topic) as tail:
        with WorkerProcess(props, tmp_path / "w") as worker:
            rest = worker.rest
            assert rest is not None
            path = f"/connector-plugins/{CLASS}/config/validate"
            named = {**config, "name": "cdc"}  # a config without its name is an error too
            unset = {k: v for k, v in named.items() if not k.endswith(".filename")}
            configs = rest.ok("PUT", path, unset)["configs"]
            errors = {c["value"]["name"]: c["value"]["errors"] for c in configs}
            assert [k for k, v in errors.items() if v] == ["schema.history.internal.file.filename"]
            assert "set it to the history file's path" in errors[
                "schema.history.internal.file.filename"][0]  # fmt: skip
            body = rest.ok("PUT", path, {**named, "schema.history.internal": "Redis"})
            assert body["error_count"] == 1
            assert rest.ok("PUT", path, named)["error_count"] == 0

            rest.ok("POST", "/connectors", {"name": "cdc", "config": config})
            wait_for("the snapshot", lambda: len(tail.read()) == 1)
            assert [r["ddl"][:24] for r in lines()] == ["CREATE TABLE `customers`"]
            _execute(server, db, "ALTER TABLE customers ADD COLUMN country VARCHAR(2) NULL",
                     "INSERT INTO customers VALUES (2, 'george@example.org', 'NL')")  # fmt: skip
            wait_for("the insert", lambda: len(tail.read()) == 2)
            # stopped once the insert's offset (the first with rows) is stored rather than the
            # ALTER's, the restart reads nothing twice
            wait_for("the insert's offset", lambda: (stored := _change_offsets(rest))
                     and "row" in stored[0]["offset"])  # fmt: skip
        recorded = lines()
        assert [r["source"] for r in recorded] == [{"server": prefix}] * 2
        assert recorded[1]["ddl"] == "ALTER TABLE customers ADD COLUMN country VARCHAR(2) NULL"
        assert [c["name"] for c in recorded[1]["tableChanges"][0]["table"]["columns"]] == [
            "id", "email", "country"]  # fmt: skip
        before_restart = tail.read()[1][1]

        _execute(server, db, "INSERT INTO customers VALUES (3, 'edward@example.org', 'DE')")
        with WorkerProcess(props, tmp_path / "w2") as restarted:
            assert restarted.rest is not None
            wait_for("the insert made while stopped", lambda: len(tail.read()) == 3)
            _execute(server, db, "INSERT INTO customers VALUES (4, 'anne@example.org', 'FR')")
            wait_for("the insert after the restart", lambda: len(tail.read()) == 4)
            _, status = restarted.rest.get("/connectors/cdc/status")
            assert status["tasks"][0]["state"] == "RUNNING", status
        after = tail.read()[2:]
    assert [(k["payload"]["id"], v["payload"]["op"]) for k, v, _ in after] == [(3, "c"), (4, "c")]
    # the schema of the recovered model (email NOT NULL), as before the restart: not one made
    # from the binlog's own column metadata, as when the model lacks the row's columns
    assert [v["schema"] for _, v, _ in after] == [before_restart["schema"]] * 2
    assert before_restart["schema"]["fields"][1]["fields"][:3] == [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": False, "field": "email"},
        {"type": "string", "optional": True, "field": "country"}]  # fmt: skip
    assert [v["payload"]["after"]["country"] for _, v, _ in after] == ["DE", "FR"]
    assert lines() == recorded  # recovered from the file, not snapshotted again
