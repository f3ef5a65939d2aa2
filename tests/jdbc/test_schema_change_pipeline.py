"""The seed's schema-change problem end to end (000 §7.1.4): a column added to a MariaDB table
reaches the PostgreSQL table downstream. MariaDB -> JDBC source -> Avro in Seaway's schema
registry (BACKWARD compatibility) -> Kafka -> JDBC sink with auto.create and auto.evolve
-> PostgreSQL (and into Parquet files with the HDFS sink), through one Connect worker. Then
an incompatible change (a required column dropped under FULL) stops the source with the
registry's reason and loses nothing."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

from seaway.registry.server import RegistryServer
from tests.broker.clients import create_topic, quiet
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
        rest.ok("POST", "/connectors", {"name": "parquet-login", "config": {
            "connector.class": "HdfsSinkConnector", "store.url": f"file://{tmp_path / 'lake'}",
            "topics": topic, "flush.size": "100", "schema.compatibility": "BACKWARD",
            **avro}})  # fmt: skip
        wait_for("three rows in PostgreSQL", lambda: len(rows()) == 3)
        assert [r[:2] for r in rows()] == [(1, "gwenshap"), (2, "tpalino"), (3, "ewen")]

        with mariadb.connect(shop) as db, db.cursor() as cursor:
            cursor.execute("ALTER TABLE login ADD COLUMN country VARCHAR(2) NULL")
            cursor.execute("INSERT INTO login (username, login_time, country) VALUES "
                           "('jun', '2026-11-20 10:00:03', 'NL')")  # fmt: skip
        wait_for("the new column's row in PostgreSQL", lambda: len(rows()) == 4)
        assert rows()[-1][1] == "jun" and rows()[-1][-1] == "NL"
        assert rows()[0][-1] is None  # the old rows: the new column empty
        wait_for("four rows in Parquet", lambda: len(_parquet(tmp_path / "lake", topic)) == 4)
        assert [(r["id"], r["country"]) for r in _parquet(tmp_path / "lake", topic)] == [
            (1, None), (2, None), (3, None), (4, "NL")]  # fmt: skip
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

        # An incompatible change: under FULL, a required column dropped upstream stops the
        # source with the registry's reason, and its row is not lost.
        client = SchemaRegistryClient({"url": registry.url})
        subject = f"{topic}-value"
        client.set_compatibility(subject_name=subject, level="FULL")
        rest.ok("DELETE", "/connectors/postgres-login")  # its table keeps username NOT NULL
        with mariadb.connect(shop) as db, db.cursor() as cursor:
            cursor.execute("ALTER TABLE login DROP COLUMN username")
            cursor.execute("INSERT INTO login (login_time, country) VALUES "
                           "('2026-11-20 10:00:04', 'DE')")  # fmt: skip

        def failed() -> Any:
            status, body = rest.get("/connectors/mariadb-login/status")
            tasks = (body.get("tasks") or []) if status == 200 else []
            return tasks and tasks[0]["state"] == "FAILED" and tasks[0]["trace"]

        trace = wait_for("the source to stop", failed)
        assert f'incompatible with an earlier schema for subject "{subject}"' in trace
        assert "compatibility: 'FULL'" in trace
        assert _ids(bootstrap, topic, registry.url) == [1, 2, 3, 4]
        client.set_compatibility(subject_name=subject, level="NONE")  # the operator decides
        rest.call("POST", "/connectors/mariadb-login/restart?includeTasks=true&onlyFailed=true")
        wait_for(
            "the row in Kafka", lambda: _ids(bootstrap, topic, registry.url) == [1, 2, 3, 4, 5]
        )

    assert client.get_versions(subject) == [1, 2, 3]
    assert client.get_compatibility() == "BACKWARD"
    second = json.loads(client.get_version(subject, 2).schema.schema_str)
    assert second["fields"][-1] == {"name": "country", "type": ["null", "string"],
                                    "default": None}  # fmt: skip


def _parquet(lake: Path, topic: str) -> list[dict[str, Any]]:
    """The rows of the topic's committed Parquet files, in offset order, in one schema."""
    import pyarrow.dataset as ds

    folder = lake / "topics" / topic / "partition=0"
    files = sorted(folder.glob(f"{topic}+0+*.parquet")) if folder.exists() else []
    if not files:
        return []
    schemas = [ds.dataset(f).schema for f in files]
    table = ds.dataset(files, schema=max(schemas, key=len)).to_table()
    return sorted(table.to_pylist(), key=lambda row: row["id"])


def _ids(bootstrap: str, topic: str, registry_url: str) -> list[int]:
    """The ``id`` of every record in the topic, read with Confluent's AvroDeserializer."""
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": registry_url}))
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex,
                               "enable.partition.eof": True}))  # fmt: skip
    consumer.assign([TopicPartition(topic, 0, 0)])
    ids: list[int] = []
    try:
        while (message := consumer.poll(10)) is not None:
            if message.error():
                break  # the end of the partition
            context = SerializationContext(topic, MessageField.VALUE)
            ids.append(deserializer(message.value(), context)["id"])
    finally:
        consumer.close()
    return ids
