"""The seed's JDBC session, on SQLite: a login table loaded into ``<prefix>login`` in
``mode=timestamp``, later rows following within ``poll.interval.ms``, Confluent's offsets in
the offsets API, and the connector's definitions from ``config/validate``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.connect.test_worker_recovery import _create_topic, _payloads
from tests.connect.workers import WorkerProcess, distributed_props, wait_for


def test_the_seed_session_on_sqlite(tmp_path: Path, bootstrap: str, topic_name: str) -> None:
    db = tmp_path / "test.db"
    with sqlite3.connect(db) as conn:
        conn.execute("create table login (username varchar(30), login_time datetime)")
        conn.execute("insert into login values ('gwenshap', '2026-11-20 10:00:00')")
        conn.execute("insert into login values ('tpalino', '2026-11-20 10:00:01')")
    prefix = f"{topic_name}."
    _create_topic(bootstrap, f"{prefix}login")  # one partition: the rows keep their order
    with WorkerProcess(distributed_props(bootstrap, topic_name), tmp_path / "w") as worker:
        rest = worker.rest
        assert rest is not None
        status, body, _ = rest.call("PUT", "/connector-plugins/JdbcSourceConnector/config/validate",
                                    {"connector.class": "JdbcSourceConnector"})  # fmt: skip
        assert status == 200
        definitions = {c["definition"]["name"]: c["definition"] for c in body["configs"]}
        assert definitions["timestamp.column.name"]["group"] == "Mode"
        config = {"connector.class": "JdbcSourceConnector", "connection.url": f"jdbc:sqlite:{db}",
                  "mode": "timestamp", "table.whitelist": "login", "validate.non.null": False,
                  "timestamp.column.name": "login_time", "topic.prefix": prefix,
                  "poll.interval.ms": 500}  # fmt: skip
        created = rest.ok(
            "POST", "/connectors", {"name": "sqlite-login-connector", "config": config}
        )
        assert created["config"]["validate.non.null"] == "false"
        topic = f"{prefix}login"

        def users() -> list[str]:
            return [p["username"] for p in _payloads(bootstrap, topic, "read_uncommitted")]

        assert wait_for("the table in the topic", lambda: len(users()) >= 2)
        with sqlite3.connect(db) as conn:
            conn.execute("insert into login values ('ewen', '2026-11-20 10:00:02')")
        wait_for("the new row", lambda: len(users()) >= 3)
        assert users() == ["gwenshap", "tpalino", "ewen"]
        first = _payloads(bootstrap, topic, "read_uncommitted")[0]
        assert first["login_time"] == 1795168800000  # a Connect Timestamp: epoch ms

        def stored() -> list[dict]:
            status, body = rest.get("/connectors/sqlite-login-connector/offsets")
            return body["offsets"] if status == 200 else []

        offsets = wait_for("the offsets flushed", lambda: stored() and stored()[0]["offset"].get(
            "timestamp") == 1795168802000 and stored())  # fmt: skip
        partition = {"protocol": "1", "table": "login"}
        offset = {"timestamp": 1795168802000, "timestamp_nanos": 0}
        assert offsets == [{"partition": partition, "offset": offset}]
