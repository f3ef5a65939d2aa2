"""``kill -9`` in the middle of a MariaDB -> Kafka -> PostgreSQL copy: the exactly-once JDBC
source resumes from its stored offsets and writes every row once (read_committed), and the
upserting JDBC sink replays what it had not committed, leaving each key once."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from tests.connect.test_worker_recovery import _create_topic, _end_offset, _payloads
from tests.connect.workers import WorkerProcess, distributed_props, wait_for

ROWS = 6000


def test_kill9_mid_copy_loses_and_duplicates_nothing(
    tmp_path: Path, bootstrap: str, mariadb: Any, postgres: Any
) -> None:
    name = f"jdbc-{uuid.uuid4().hex[:6]}"
    shop, warehouse = f"shop{uuid.uuid4().hex[:6]}", f"dw{uuid.uuid4().hex[:6]}"
    mariadb.create_database(shop)
    postgres.create_database(warehouse)
    with mariadb.connect(shop) as db, db.cursor() as cursor:
        cursor.execute("CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, "
                       "item VARCHAR(20) NOT NULL, qty INT NOT NULL)")  # fmt: skip
        cursor.executemany("INSERT INTO orders (item, qty) VALUES (%s, %s)",
                           [(f"item {i}", i % 7) for i in range(1, ROWS + 1)])  # fmt: skip
    topic = f"{name}-orders"
    _create_topic(bootstrap, topic)
    props = distributed_props(bootstrap, name, **{
        "exactly.once.source.support": "enabled", "spark.source.plans.per.batch": 2})  # fmt: skip
    connectors = {
        f"{name}-src": {
            "connector.class": "JdbcSourceConnector", "connection.url": mariadb.url(shop),
            "mode": "incrementing", "incrementing.column.name": "id", "batch.max.rows": "250",
            "poll.interval.ms": "0", "topic.prefix": f"{name}-",
        },
        f"{name}-sink": {
            "connector.class": "JdbcSinkConnector", "connection.url": postgres.url(warehouse),
            "topics": topic, "table.name.format": "orders", "insert.mode": "upsert",
            "pk.mode": "record_value", "pk.fields": "id", "auto.create": "true",
        },
    }  # fmt: skip

    def copied() -> list[tuple[int, str, int]]:
        with postgres.connect(warehouse) as db:
            if db.execute("SELECT to_regclass('orders')").fetchone()[0] is None:
                return []
            return [tuple(r) for r in db.execute("SELECT * FROM orders ORDER BY id").fetchall()]

    first = WorkerProcess(props, tmp_path / "first").start()
    try:
        assert first.rest is not None
        for connector, config in connectors.items():
            first.rest.ok("POST", "/connectors", {"name": connector, "config": config})
        wait_for("a fifth of the table", lambda: _end_offset(bootstrap, topic) > ROWS // 5)
    finally:
        first.kill()
    assert _end_offset(bootstrap, topic) < ROWS, "the copy finished before the kill"

    with WorkerProcess(props, tmp_path / "second") as second:
        assert second.rest is not None
        wait_for("every row in PostgreSQL", lambda: len(copied()) >= ROWS, timeout=240)
    delivered = [p["id"] for p in _payloads(bootstrap, topic, "read_committed")]
    assert delivered == list(range(1, ROWS + 1))  # once each, in order
    assert copied() == [(i, f"item {i}", i % 7) for i in range(1, ROWS + 1)]
