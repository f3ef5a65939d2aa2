"""A secret through a config provider: a MariaDB password in a properties file, referenced
as ``${file:...:password}`` in a JDBC source's config. The connector logs in and copies the
table; the config topic, the REST API and the worker's log never hold the password."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from tests.broker.clients import quiet
from tests.connect.test_worker_recovery import _create_topic, _payloads
from tests.connect.workers import WorkerProcess, distributed_props, wait_for

PASSWORD = f"pw-{uuid.uuid4().hex}"


def _topic_bytes(bootstrap: str, topic: str) -> bytes:
    """Every key and value of partition 0 of *topic*, concatenated."""
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex,
                               "enable.partition.eof": True}))  # fmt: skip
    consumer.assign([TopicPartition(topic, 0, 0)])
    out = b""
    try:
        while (message := consumer.poll(10)) is not None and not message.error():
            out += (message.key() or b"") + (message.value() or b"")
    finally:
        consumer.close()
    return out


def test_a_password_from_a_file_provider_is_used_and_never_stored(
    tmp_path: Path, bootstrap: str, topic_name: str, mariadb: Any
) -> None:
    shop = f"shop{uuid.uuid4().hex[:6]}"
    mariadb.create_database(shop)
    with mariadb.connect(shop) as db, db.cursor() as cursor:
        cursor.execute(f"CREATE USER 'reader'@'%' IDENTIFIED BY '{PASSWORD}'")
        cursor.execute(f"GRANT SELECT ON `{shop}`.* TO 'reader'@'%'")
        cursor.execute("CREATE TABLE login (id INT PRIMARY KEY, username VARCHAR(30))")
        cursor.execute("INSERT INTO login VALUES (1, 'gwenshap'), (2, 'tpalino')")
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"password={PASSWORD}\n", encoding="utf-8")
    reference = f"${{file:{secrets}:password}}"
    topic = f"{topic_name}-login"
    _create_topic(bootstrap, topic)
    props = distributed_props(bootstrap, topic_name, **{
        "config.providers": "file",
        "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    })  # fmt: skip
    url = f"jdbc:mysql://127.0.0.1:{mariadb.port}/{shop}"
    with WorkerProcess(props, tmp_path / "w") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "secret-login", "config": {
            "connector.class": "JdbcSourceConnector", "connection.url": url,
            "connection.user": "reader", "connection.password": reference,
            "mode": "incrementing", "incrementing.column.name": "id",
            "topic.prefix": f"{topic_name}-", "poll.interval.ms": "200"}})  # fmt: skip
        wait_for("the rows", lambda: len(_payloads(bootstrap, topic, "read_uncommitted")) == 2)
        assert rest.ok("GET", "/connectors/secret-login/config")["connection.password"] == (
            reference)  # fmt: skip
        tasks = rest.ok("GET", "/connectors/secret-login/tasks")
        assert tasks and all(t["config"]["connection.password"] == reference for t in tasks)
        log = worker.tail(100_000)
    stored = _topic_bytes(bootstrap, f"{topic_name}-configs")
    assert reference.encode() in stored and PASSWORD.encode() not in stored
    assert PASSWORD not in log
