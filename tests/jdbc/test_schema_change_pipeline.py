"""The seed's schema-change problem end to end (000 §7.1.4): a column added to a MariaDB table
reaches the PostgreSQL table downstream. MariaDB -> JDBC source -> Avro in Seaway's schema
registry (BACKWARD compatibility) -> Kafka -> JDBC sink with auto.create and auto.evolve
-> PostgreSQL, through one Connect worker."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka.schema_registry import SchemaRegistryClient

from seaway.registry.server import RegistryServer
from tests.broker.clients import create_topic
from tests.connect.workers import WorkerProcess, distributed_props, wait_for

AVRO = "io.confluent.connect.avro.AvroConverter"


def test_a_column_added_upstream_reaches_the_sink_table(
    tmp_path: Path, bootstrap: str, topic_name: str, registry: RegistryServer,
    mariadb: Any, postgres: Any,
) -> None:  # fmt: skip
    shop, warehouse = f"shop{uuid.uuid4().hex[:6]}", f"dw{uuid.uuid4().hex[:6]}"
    mariadb.create_database(shop)
    postgres.create_database(warehouse)
    with mariadb.connect(shop) as db, db.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE login (id INT AUTO_INCREMENT PRIMARY KEY, "
            "username VARCHAR(30) NOT NULL, login_time DATETIME(3) NOT NULL)"
        )
        cursor.execute("INSERT INTO login (username, login_time) VALUES "
                       "('gwenshap', '2026-11-20 10:00:00'), ('tpalino', '2026-11-20 10:00:01'),"
                       " ('ewen', '2026-11-20 10:00:02')")  # fmt: skip
    topic = f"mysql-{topic_name}-login"
    create_topic(bootstrap, topic, partitions=1)
    avro = {"value.converter": AVRO, "value.converter.schema.registry.url": registry.url}

    def rows() -> list[tuple[Any, ...]]:
        with postgres.connect(warehouse) as db:
            exists = db.execute("SELECT to_regclass('login')").fetchone()[0]
            if exists is None:
                return []
            return [tuple(r) for r in db.execute("SELECT * FROM login ORDER BY id").fetchall()]

    with WorkerProcess(distributed_props(bootstrap, topic_name), tmp_path / "w") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "mariadb-login", "config": {
            "connector.class": "JdbcSourceConnector", "connection.url": mariadb.url(shop),
            "mode": "timestamp+incrementing", "timestamp.column.name": "login_time",
            "incrementing.column.name": "id", "table.whitelist": "login", "poll.interval.ms": "300",
            "topic.prefix": f"mysql-{topic_name}-", **avro}})  # fmt: skip
        rest.ok("POST", "/connectors", {"name": "postgres-login", "config": {
            "connector.class": "JdbcSinkConnector", "connection.url": postgres.url(warehouse),
            "topics": topic, "table.name.format": "login", "insert.mode": "upsert",
            "pk.mode": "record_value", "pk.fields": "id", "auto.create": "true",
            "auto.evolve": "true", **avro}})  # fmt: skip
        wait_for("three rows in PostgreSQL", lambda: len(rows()) == 3)
        assert [r[:2] for r in rows()] == [(1, "gwenshap"), (2, "tpalino"), (3, "ewen")]

        with mariadb.connect(shop) as db, db.cursor() as cursor:
            cursor.execute("ALTER TABLE login ADD COLUMN country VARCHAR(2) NULL")
            cursor.execute("INSERT INTO login (username, login_time, country) VALUES "
                           "('jun', '2026-11-20 10:00:03', 'NL')")  # fmt: skip
        wait_for("the new column's row in PostgreSQL", lambda: len(rows()) == 4)
        assert rows()[-1][1] == "jun" and rows()[-1][-1] == "NL"
        assert rows()[0][-1] is None  # the old rows: the new column empty
        with postgres.connect(warehouse) as db:
            columns = db.execute("SELECT column_name, data_type, is_nullable FROM "
                                 "information_schema.columns WHERE table_name = 'login' "
                                 "ORDER BY ordinal_position").fetchall()  # fmt: skip
        assert [tuple(c) for c in columns] == [
            ("id", "integer", "NO"),
            ("username", "text", "NO"),
            ("login_time", "timestamp without time zone", "NO"),
            ("country", "text", "YES"),
        ]

    client = SchemaRegistryClient({"url": registry.url})
    subject = f"{topic}-value"
    assert client.get_versions(subject) == [1, 2]
    assert client.get_compatibility() == "BACKWARD"
    latest = json.loads(client.get_latest_version(subject).schema.schema_str)
    assert latest["fields"][-1] == {"name": "country", "type": ["null", "string"],
                                    "default": None}  # fmt: skip
