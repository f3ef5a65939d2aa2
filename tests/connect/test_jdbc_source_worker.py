"""The seed's JDBC session, on SQLite and on MariaDB: a login table loaded into
``<prefix>login`` in ``mode=timestamp``, later rows following within ``poll.interval.ms``,
Confluent's offsets in the offsets API, the connector's definitions from ``config/validate``
and a connector that cannot log in failing with the database's message."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.connect.test_worker_recovery import _create_topic, _envelopes, _payloads
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


def test_the_seed_session_on_mariadb(
    tmp_path: Path, bootstrap: str, topic_name: str, mariadb: Any
) -> None:
    """The seed's walkthrough as written: ``{}`` validated against the plugin, the connector
    JSON with ``jdbc:mysql://...?user=root``, the rows as the seed prints them, a later row
    following, and the ``root;`` typo failing the connector with MySQL's own message."""
    mariadb.create_database("test")
    with mariadb.connect("test") as db, db.cursor() as cursor:
        cursor.execute("create table login (username varchar(30), login_time datetime)")
        cursor.execute("insert into login values ('gwenshap', now())")
        cursor.execute("insert into login values ('tpalino', now())")
    _create_topic(bootstrap, "mysql.login")
    with WorkerProcess(distributed_props(bootstrap, topic_name), tmp_path / "w") as worker:
        rest = worker.rest
        assert rest is not None
        body = rest.ok("PUT", "/connector-plugins/JdbcSourceConnector/config/validate", {})
        definitions = {c["definition"]["name"]: c["definition"] for c in body["configs"]}
        assert definitions["timestamp.column.name"]["group"] == "Mode"
        assert definitions["timestamp.column.name"]["type"] == "LIST"
        config = {"connector.class": "JdbcSourceConnector",
                  "connection.url": f"jdbc:mysql://127.0.0.1:{mariadb.port}/test?user=root&useSSL=false",
                  "mode": "timestamp", "table.whitelist": "login", "validate.non.null": False,
                  "timestamp.column.name": "login_time", "topic.prefix": "mysql."}  # fmt: skip
        created = rest.ok("POST", "/connectors", {"name": "mysql-login-connector",
                                                  "config": config})  # fmt: skip
        assert created["config"]["validate.non.null"] == "false"

        def rows() -> list[Any]:
            return _envelopes(bootstrap, "mysql.login", "read_uncommitted")

        wait_for("the table in mysql.login", lambda: len(rows()) >= 2)
        first = rows()[0]
        timestamp = "org.apache.kafka.connect.data.Timestamp"
        assert first["schema"] == {
            "type": "struct", "optional": False, "name": "login", "fields": [
                {"type": "string", "optional": True, "field": "username"},
                {"type": "int64", "optional": True, "name": timestamp, "version": 1,
                 "field": "login_time"}]}  # fmt: skip
        assert [r["payload"]["username"] for r in rows()] == ["gwenshap", "tpalino"]
        with mariadb.connect("test") as db, db.cursor() as cursor:
            cursor.execute("insert into login values ('ewen', now() + interval 1 second)")
        wait_for("the new row", lambda: len(rows()) >= 3)
        assert [r["payload"]["username"] for r in rows()] == ["gwenshap", "tpalino", "ewen"]

        typo_url = config["connection.url"].replace("user=root", "user=root;")
        typo = {**config, "connection.attempts": "1", "connection.url": typo_url}
        rest.ok("POST", "/connectors", {"name": "typo-connector", "config": typo})

        def failed() -> Any:
            status, body = rest.get("/connectors/typo-connector/status")
            return status == 200 and body["connector"]["state"] == "FAILED" and body

        status = wait_for("the connector to fail", failed)
        assert "Access denied for user 'root;'@'localhost' (using password: NO)" in (
            status["connector"]["trace"])  # fmt: skip
