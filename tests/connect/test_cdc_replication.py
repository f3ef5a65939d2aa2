"""Replicating a database into another through Kafka (issue 30): Debezium's connector ->
``ExtractNewRecordState`` -> the JDBC sink (upserts by key, deletes by tombstone), from
MariaDB to PostgreSQL and from PostgreSQL to MariaDB. After hundreds of random inserts,
updates and deletes on the source, the target table equals the source row for row."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import WorkerProcess, distributed_props, wait_for
from tests.databases import MariaDbServer, PostgresServer

OPERATIONS = 400
JSON = "org.apache.kafka.connect.json.JsonConverter"
Row = tuple[int, str, int | None, Decimal | None]


def _changes(seed: int) -> list[tuple[str, Row]]:
    """A random mix of inserts, updates and deletes over 50 snapshot rows and new ones."""
    rng = random.Random(seed)
    live = set(range(1, 51))
    out: list[tuple[str, Row]] = []
    next_id = 51
    for n in range(OPERATIONS):
        choice = rng.random()
        qty = rng.choice([None, rng.randint(0, 100)])
        price = rng.choice([None, Decimal(rng.randint(0, 99_999)) / 100])
        if choice < 0.4 or not live:
            row: Row = (next_id, f"new {n}", qty, price)
            live.add(next_id)
            next_id += 1
            out.append(("insert", row))
        elif choice < 0.8:
            out.append(("update", (rng.choice(sorted(live)), f"upd {n}", qty, price)))
        else:
            victim = rng.choice(sorted(live))
            live.discard(victim)
            out.append(("delete", (victim, "", None, None)))
    return out


def _apply(execute: Callable[[str, tuple[Any, ...]], None], changes: list[tuple[str, Row]]) -> None:
    for kind, (id_, name, qty, price) in changes:
        if kind == "insert":
            execute("INSERT INTO items VALUES (%s, %s, %s, %s)", (id_, name, qty, price))
        elif kind == "update":
            execute("UPDATE items SET name = %s, qty = %s, price = %s WHERE id = %s",
                    (name, qty, price, id_))  # fmt: skip
        else:
            execute("DELETE FROM items WHERE id = %s", (id_,))


def _sink(url: str, topic: str) -> dict[str, Any]:
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector", "connection.url": url,
        "topics": topic, "table.name.format": "items", "insert.mode": "upsert",
        "pk.mode": "record_key", "pk.fields": "id", "delete.enabled": "true",
        "auto.create": "true", "transforms": "unwrap",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    }  # fmt: skip


def _replicate(
    tmp_path: Path, bootstrap: str, name: str, source: dict[str, Any], sink: dict[str, Any],
    rows: Callable[[str], list[Row]], change: Callable[[], None],
) -> None:  # fmt: skip
    """Run the source and sink connectors: the snapshot reaches the target, then *change*
    runs on the source and its changes follow."""
    props = distributed_props(bootstrap, name, **{"key.converter": JSON,
                                                  "value.converter": JSON})  # fmt: skip
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": f"{name}-cdc", "config": source})
        rest.ok("POST", "/connectors", {"name": f"{name}-sink", "config": sink})
        snapshot = rows("source")
        wait_for("the snapshot in the target", lambda: rows("target") == snapshot, timeout=180)
        change()
        expected = rows("source")
        wait_for("the target to equal the source",
                 lambda: rows("target") == expected, timeout=180)  # fmt: skip


@pytest.mark.parametrize("seed", [7])
def test_mariadb_to_postgres_row_for_row(
    tmp_path: Path, bootstrap: str, topic_name: str, postgres: PostgresServer, seed: int
) -> None:
    with MariaDbServer(binlog=True) as mariadb:
        db = f"shop_{uuid.uuid4().hex[:8]}"
        mariadb.create_database(db)
        warehouse = f"dw_{uuid.uuid4().hex[:8]}"
        postgres.create_database(warehouse)
        with mariadb.connect(db) as connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, "
                           "qty INT, price DECIMAL(10,2))")  # fmt: skip
            snapshot = [(i, f"item {i}", i, Decimal(i) / 4) for i in range(1, 51)]
            cursor.executemany("INSERT INTO items VALUES (%s, %s, %s, %s)", snapshot)
        prefix = topic_name
        topic = f"{prefix}.{db}.items"
        _create_topic(bootstrap, topic)
        source = {
            "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
            "database.hostname": "127.0.0.1", "database.port": mariadb.port,
            "database.user": "root", "database.server.id": random.randint(1000, 2**31),
            "topic.prefix": prefix, "database.include.list": db, "poll.interval.ms": 200,
            "schema.history.internal.kafka.bootstrap.servers": bootstrap,
            "schema.history.internal.kafka.topic": f"{prefix}.history",
        }  # fmt: skip

        def rows(side: str) -> list[Row]:
            if side == "source":
                with mariadb.connect(db) as connection, connection.cursor() as cursor:
                    cursor.execute("SELECT id, name, qty, price FROM items ORDER BY id")
                    return [tuple(r) for r in cursor.fetchall()]  # type: ignore[misc]
            with postgres.connect(warehouse) as connection:
                if connection.execute("SELECT to_regclass('items')").fetchone()[0] is None:
                    return []
                query = "SELECT id, name, qty, price FROM items ORDER BY id"
                return [tuple(r) for r in connection.execute(query).fetchall()]  # type: ignore[misc]

        def execute(statement: str, params: tuple[Any, ...]) -> None:
            with mariadb.connect(db) as connection, connection.cursor() as cursor:
                cursor.execute(statement, params)

        _replicate(tmp_path, bootstrap, topic_name, source, _sink(postgres.url(warehouse), topic),
                   rows, lambda: _apply(execute, _changes(seed)))  # fmt: skip


@pytest.mark.parametrize("seed", [11])
def test_postgres_to_mariadb_row_for_row(
    tmp_path: Path, bootstrap: str, topic_name: str, mariadb: MariaDbServer, seed: int
) -> None:
    with PostgresServer(logical=True) as postgres:
        db = f"shop_{uuid.uuid4().hex[:8]}"
        postgres.create_database(db)
        warehouse = f"dw_{uuid.uuid4().hex[:8]}"
        mariadb.create_database(warehouse)
        with postgres.connect(db) as connection:
            connection.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT "
                               "NULL, qty INT, price NUMERIC(10,2))")  # fmt: skip
            with connection.cursor() as cursor:
                snapshot = [(i, f"item {i}", i, Decimal(i) / 4) for i in range(1, 51)]
                cursor.executemany("INSERT INTO items VALUES (%s, %s, %s, %s)", snapshot)
        prefix = topic_name
        topic = f"{prefix}.public.items"
        _create_topic(bootstrap, topic)
        source = {
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": "127.0.0.1", "database.port": postgres.port,
            "database.user": "postgres", "database.dbname": db, "topic.prefix": prefix,
            "slot.name": f"s_{uuid.uuid4().hex[:12]}", "poll.interval.ms": 200,
        }  # fmt: skip

        def rows(side: str) -> list[Row]:
            query = "SELECT id, name, qty, price FROM items ORDER BY id"
            if side == "source":
                with postgres.connect(db) as connection:
                    return [tuple(r) for r in connection.execute(query).fetchall()]  # type: ignore[misc]
            with mariadb.connect(warehouse) as connection, connection.cursor() as cursor:
                cursor.execute("SHOW TABLES LIKE 'items'")
                if cursor.fetchone() is None:
                    return []
                cursor.execute(query)
                return [tuple(r) for r in cursor.fetchall()]  # type: ignore[misc]

        def execute(statement: str, params: tuple[Any, ...]) -> None:
            with postgres.connect(db) as connection:
                connection.execute(statement, params)

        _replicate(tmp_path, bootstrap, topic_name, source, _sink(mariadb.url(warehouse), topic),
                   rows, lambda: _apply(execute, _changes(seed)))  # fmt: skip
