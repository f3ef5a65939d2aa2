"""Debezium's PostgreSQL connector on a real Connect worker against a real PostgreSQL with
``wal_level=logical``: the exported-snapshot rows then the slot (inserts, updates, deletes
and their tombstones, a primary key change) with Debezium's keys and envelopes, a column
dropped and a table created mid-stream, ``kill -9`` of the worker mid-stream with nothing
lost and a slot that never passed what Kafka held, a restart during the snapshot and a
``kill -9`` with 5,000 inserts in flight under exactly-once, the offsets in Debezium's format
through the REST API, and bad configs through ``config/validate``."""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seaway.connectors.debezium.postgres import pgoutput
from tests.connect.debezium_helpers import (
    CUSTOMERS_ROW_FIELDS,
    ENVELOPE_FIELDS,
    TopicTail,
    kill_mid_snapshot,
    topic_messages,
)
from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import WorkerProcess, distributed_props, wait_for
from tests.databases import PostgresServer

CLASS = "io.debezium.connector.postgresql.PostgresConnector"


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    """One PostgreSQL of this module with logical decoding on."""
    with PostgresServer(logical=True) as db:
        yield db


def _database(server: PostgresServer, prefix: str) -> str:
    name = prefix.replace("-", "_").replace(".", "_").lower()[-50:]
    server.create_database(name)
    return name


def _config(server: PostgresServer, prefix: str, db: str) -> dict[str, Any]:
    return {
        "connector.class": CLASS, "database.hostname": "127.0.0.1",
        "database.port": server.port, "database.user": "postgres", "database.dbname": db,
        "topic.prefix": prefix, "slot.name": f"s_{uuid.uuid4().hex[:12]}",
        "poll.interval.ms": 200,
    }  # fmt: skip


def _slot_flushed(server: PostgresServer, db: str, slot: str) -> str:
    with server.connect(db) as connection:
        row = connection.execute(
            "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = %s",
            (slot,),
        ).fetchone()
    return row[0]


def _ids_left_in_slot(server: PostgresServer, db: str, slot: str) -> set[int]:
    """The ids of the rows inserted in the changes the slot still holds (decoded with the
    connector's pgoutput decoder; peeked, so nothing is consumed)."""
    with server.connect(db) as connection:
        rows = connection.execute(
            "SELECT data FROM pg_logical_slot_peek_binary_changes(%s, NULL, NULL, "
            "'proto_version', '1', 'publication_names', 'dbz_publication')",
            (slot,),
        ).fetchall()
    ids = set()
    for (data,) in rows:
        message = pgoutput.decode(bytes(data))
        if isinstance(message, pgoutput.Insert):
            ids.add(int(str(message.new[0])))
    return ids


def test_snapshot_stream_kill_and_restart(
    tmp_path: Path, bootstrap: str, topic_name: str, server: PostgresServer
) -> None:
    prefix = topic_name
    db = _database(server, prefix)
    with server.connect(db) as connection:
        connection.execute(
            "CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(50) NOT NULL, "
            "balance NUMERIC(10,2), updated_at TIMESTAMP(3))"
        )
        connection.execute(
            "INSERT INTO customers VALUES (1001, 'sally@example.org', 1000.00, "
            "'2026-01-01 00:00:00'), (1002, 'george@example.org', NULL, NULL)"
        )
    topic = f"{prefix}.public.customers"
    _create_topic(bootstrap, topic)
    config = _config(server, prefix, db)
    slot = config["slot.name"]
    props = distributed_props(bootstrap, topic_name, **{
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true"})  # fmt: skip
    worker = WorkerProcess(props, tmp_path / "w").start()
    try:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "cdc", "config": config})
        wait_for("the snapshot", lambda: len(topic_messages(bootstrap, topic)) >= 2, timeout=45)
        with server.connect(db) as connection:
            connection.execute("UPDATE customers SET balance = 1234.50, updated_at = "
                               "'2026-01-02 09:30:00.123' WHERE id = 1001")  # fmt: skip
            connection.execute("INSERT INTO customers VALUES (1003, 'ed@example.org', 1.5, NULL)")
            connection.execute("DELETE FROM customers WHERE id = 1002")
        messages = wait_for("the changes", lambda: (m := topic_messages(bootstrap, topic))
                            and len(m) >= 6 and m, timeout=30)  # fmt: skip

        snapshot = [v["payload"] for _, v in messages[:2]]
        assert [p["op"] for p in snapshot] == ["r", "r"]
        assert [p["source"]["snapshot"] for p in snapshot] == ["first", "last"]
        key, value = messages[0]
        assert key == {"schema": {"type": "struct", "fields": [
            {"type": "int32", "optional": False, "field": "id"}], "optional": False,
            "name": f"{topic}.Key"}, "payload": {"id": 1001}}  # fmt: skip
        schema = value["schema"]
        assert schema["name"] == f"{topic}.Envelope" and schema["version"] == 2
        assert [f["field"] for f in schema["fields"]] == ENVELOPE_FIELDS
        row_fields = schema["fields"][1]["fields"]
        assert row_fields == CUSTOMERS_ROW_FIELDS
        source_schema = schema["fields"][2]
        assert source_schema["name"] == "io.debezium.connector.postgresql.Source"
        assert [f["field"] for f in source_schema["fields"]] == [
            "version",
            "connector",
            "name",
            "ts_ms",
            "snapshot",
            "db",
            "sequence",
            "ts_us",
            "ts_ns",
            "schema",
            "table",
            "txId",
            "lsn",
            "xmin",
            "origin",
            "origin_lsn",
        ]
        first = snapshot[0]
        assert first["after"] == {"id": 1001, "email": "sally@example.org",
                                  "balance": base64.b64encode((100000).to_bytes(3, "big")).decode(),
                                  "updated_at": 1767225600000}  # fmt: skip
        source = first["source"]
        assert (source["connector"], source["name"], source["db"], source["schema"],
                source["table"]) == ("postgresql", prefix, db, "public", "customers")  # fmt: skip
        assert source["version"] == "3.6.1.Final" and isinstance(source["lsn"], int)
        assert json.loads(source["sequence"]) == [None, str(source["lsn"])]

        update, insert, delete, tombstone = messages[2:6]
        assert update[1]["payload"]["op"] == "u"
        assert update[1]["payload"]["before"] is None  # REPLICA IDENTITY DEFAULT
        assert update[1]["payload"]["after"]["updated_at"] == 1767346200123
        assert update[1]["payload"]["after"]["balance"] == "AeI6"  # 1234.50
        update_source = update[1]["payload"]["source"]
        assert update_source["snapshot"] == "false" and update_source["lsn"] > source["lsn"]
        assert update_source["txId"] > 0
        assert insert[0]["payload"] == {"id": 1003} and insert[1]["payload"]["op"] == "c"
        assert delete[0]["payload"] == {"id": 1002}
        assert delete[1]["payload"]["op"] == "d" and delete[1]["payload"]["after"] is None
        assert delete[1]["payload"]["before"]["id"] == 1002
        assert delete[1]["payload"]["before"]["balance"] is None
        assert tombstone == ({"schema": key["schema"], "payload": {"id": 1002}}, None)

        # kill -9 mid-stream, while a writer inserts rows one per transaction
        inserted = list(range(2000, 2400))
        done = threading.Event()

        def write() -> None:
            with server.connect(db) as connection:
                for i in inserted:
                    connection.execute("INSERT INTO customers VALUES (%s, 'x', NULL, NULL)", (i,))
            done.set()

        writer = threading.Thread(target=write)
        writer.start()
        wait_for(
            "records mid-stream", lambda: len(topic_messages(bootstrap, topic)) >= 30, timeout=30
        )
        worker.kill()
        writer.join(60)
        assert done.is_set()
        in_kafka = {k["payload"]["id"] for k, v in topic_messages(bootstrap, topic) if v}
        left = _ids_left_in_slot(server, db, slot)
        missing = set(inserted) - in_kafka - left
        assert not missing, f"the slot passed records not in Kafka: {sorted(missing)[:10]}"

        worker = WorkerProcess(props, tmp_path / "w2").start()
        rest = worker.rest
        assert rest is not None

        def all_there() -> Any:
            ids = {k["payload"]["id"] for k, v in topic_messages(bootstrap, topic) if v}
            return set(inserted) <= ids

        wait_for("every row after the restart", all_there, timeout=45)

        def stored() -> Any:
            status, body = rest.get("/connectors/cdc/offsets")
            entries = body["offsets"] if status == 200 else []
            return entries and entries[0]["offset"].get("messageType") == "INSERT" and entries

        [entry] = wait_for("the offsets flushed", stored, timeout=20)
        assert entry["partition"] == {"server": prefix}
        offset = entry["offset"]
        assert {"lsn", "lsn_proc", "txId", "ts_usec", "messageType"} <= set(offset)
        assert offset["messageType"] == "INSERT" and "snapshot" not in offset
        # The slot moves only to records already in Kafka (checked at the kill above); in
        # at-least-once mode the offsets topic follows every offset.flush.interval.ms, so the
        # stored offset catches up with the slot once the stream is idle.
        flushed = pgoutput.parse_lsn(_slot_flushed(server, db, slot))
        caught_up = lambda: (e := stored()) and e[0]["offset"]["lsn"] >= flushed  # noqa: E731
        wait_for("the stored offset to reach the slot's position", caught_up, timeout=30)

        # a primary key changed, a column dropped, a table created
        _create_topic(bootstrap, f"{prefix}.public.orders")
        with server.connect(db) as connection:
            connection.execute("UPDATE customers SET id = 3003 WHERE id = 1003")
            connection.execute("ALTER TABLE customers DROP COLUMN balance")
            connection.execute("INSERT INTO customers VALUES (1005, 'kim@example.org', NULL)")
            connection.execute("CREATE TABLE orders (id INT PRIMARY KEY, customer INT NOT NULL)")
            connection.execute("INSERT INTO orders VALUES (1, 1005)")
        with TopicTail(bootstrap, topic) as tail:
            wait_for("the key change", lambda: tail.read()[-1][0]["payload"]["id"] == 1005)
            later = [m for m in tail.messages if m[0]["payload"]["id"] in (1003, 3003, 1005)]
        assert [(k["payload"]["id"], v and v["payload"]["op"]) for k, v, _ in later[-4:]] == [
            (1003, "d"), (1003, None), (3003, "c"), (1005, "c")]  # fmt: skip
        assert later[-4][2] == {"__debezium.newkey": {"id": 3003}}
        assert later[-2][2] == {"__debezium.oldkey": {"id": 1003}}
        assert later[-2][1]["payload"]["after"]["email"] == "ed@example.org"
        dropped = later[-1][1]
        assert [f["field"] for f in dropped["schema"]["fields"][1]["fields"]] == [
            "id", "email", "updated_at"]  # fmt: skip
        assert dropped["payload"]["after"] == {"id": 1005, "email": "kim@example.org",
                                               "updated_at": None}  # fmt: skip
        orders = wait_for("the new table's row",
                          lambda: topic_messages(bootstrap, f"{prefix}.public.orders"))  # fmt: skip
        assert [(k["payload"], v["payload"]["op"], v["payload"]["after"]) for k, v in orders] == [
            ({"id": 1}, "c", {"id": 1, "customer": 1005})]  # fmt: skip
    finally:
        worker.stop()


def test_bad_configs_are_refused(tmp_path: Path, bootstrap: str, topic_name: str) -> None:
    with WorkerProcess(distributed_props(bootstrap, topic_name), tmp_path / "w") as worker:
        rest = worker.rest
        assert rest is not None
        bad = {"connector.class": CLASS, "database.hostname": "127.0.0.1",
               "database.user": "postgres", "topic.prefix": "p", "plugin.name": "decoderbufs",
               "snapshot.mode": "never", "publication.autocreate.mode": "sometimes",
               "slot.name": "Not-Valid"}  # fmt: skip
        body = rest.ok("PUT", "/connector-plugins/PostgresConnector/config/validate", bad)
        errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"]}
        assert "decoderbufs" in errors["plugin.name"][0]
        assert "pgoutput" in errors["plugin.name"][0]
        assert "no_data" in errors["snapshot.mode"][0]
        assert errors["publication.autocreate.mode"]
        assert "replication slot name" in errors["slot.name"][0]
        assert errors["database.dbname"] == [
            'Missing required configuration "database.dbname" which has no default value.'
        ]
        assert body["error_count"] == 6, {k: v for k, v in errors.items() if v}  # name too


def test_snapshot_restart_then_kill_9_exactly_once(
    tmp_path: Path, bootstrap: str, topic_name: str, server: PostgresServer
) -> None:
    """Exactly-once workers: one killed mid-snapshot (the next takes the snapshot again from a
    fresh slot), then one killed with 5,000 inserts in flight: every change after the
    snapshot is in Kafka exactly once (read_committed)."""
    prefix = topic_name
    db = _database(server, prefix)
    rows = 8_000
    with server.connect(db) as connection:
        connection.execute("CREATE TABLE big (id INT PRIMARY KEY, n INT)")
        connection.execute(f"INSERT INTO big SELECT i, i FROM generate_series(0, {rows - 1}) i")
    topic = f"{prefix}.public.big"
    _create_topic(bootstrap, topic)
    props = distributed_props(bootstrap, topic_name, **{
        "exactly.once.source.support": "enabled", "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1000, "scheduled.rebalance.max.delay.ms": 0})  # fmt: skip
    config = {**_config(server, prefix, db), "max.batch.size": 400}
    burst = range(100_000, 105_000)
    with TopicTail(bootstrap, topic, "read_committed") as tail:
        first_run = kill_mid_snapshot(props, tmp_path / "w", config, tail, rows)
        worker = WorkerProcess(props, tmp_path / "w2").start()
        try:
            wanted = set(range(rows))
            wait_for("the snapshot again", lambda: wanted <= {k["payload"]["id"]
                     for k, _, _ in tail.read()[first_run:]}, timeout=180)  # fmt: skip
            with server.connect(db) as connection:  # 5,000 inserts, 50 per transaction
                for first in range(burst.start, burst.stop, 50):
                    connection.execute(f"INSERT INTO big SELECT i, i FROM generate_series("
                                       f"{first}, {first + 49}) i")  # fmt: skip
                    connection.commit()
        finally:
            worker.kill()
        with WorkerProcess(props, tmp_path / "w3"):
            wait_for("every insert", lambda: set(burst) <= {k["payload"]["id"]
                     for k, v, _ in tail.read() if v and v["payload"]["op"] == "c"},
                     timeout=120)  # fmt: skip
        streamed = [k["payload"]["id"] for k, v, _ in tail.read() if v["payload"]["op"] == "c"]
    assert sorted(streamed) == list(burst)  # each exactly once
