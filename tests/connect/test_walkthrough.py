"""The seed's Kafka Connect session, as written, against a distributed worker process,
typed right after the worker process starts.

``curl localhost:8083/``, ``/connector-plugins``, the FileStreamSource and FileStreamSink
POSTs, the topic holding the JsonConverter envelope per line, the identical copy, the DELETE.
The broker is a default one (``num.partitions=1``, as in the book's set-up), so the topic the
source creates keeps the file's order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka import Consumer

from seaway.broker import BrokerProcess
from tests.broker.clients import quiet
from tests.connect.workers import WorkerProcess, distributed_props, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.waits]

SERVER_PROPERTIES = """\
# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.

############################# Server Basics #############################

# The id of the broker. This must be set to a unique integer for each broker.
broker.id=0
# Unicode survives the trip: naïve café ☕
log.dirs=/tmp/kafka-logs
"""


def _topic_values(bootstrap: str, topic: str, count: int) -> list[str]:
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": "console-consumer",
        "auto.offset.reset": "earliest",
    }
    consumer = Consumer(quiet(config))
    consumer.subscribe([topic])
    values: list[str] = []
    try:
        while len(values) < count:
            message = consumer.poll(1.0)
            if message is not None and not message.error():
                values.append(message.value().decode())
    finally:
        consumer.close()
    return values


def test_seed_file_connectors_session(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    source = config / "server.properties"
    source.write_text(SERVER_PROPERTIES, encoding="utf-8")
    copy = tmp_path / "copy-of-server-properties"
    with BrokerProcess(tmp_path / "kafka") as broker:
        props = distributed_props(broker.bootstrap_servers, "seed")
        # Typed as soon as the REST server listens, no waiting for /health: requests made
        # while the worker starts wait for it, then succeed (Kafka's herder queues them).
        with WorkerProcess(props, tmp_path / "worker").start(until_listening=True) as worker:
            rest = worker.rest
            assert rest is not None
            status, info = rest.get("/")
            assert status == 200
            assert set(info) == {"version", "commit", "kafka_cluster_id"}
            assert info["kafka_cluster_id"]

            status, plugins = rest.get("/connector-plugins")
            assert status == 200
            classes = [p["class"] for p in plugins]
            assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in classes
            assert "org.apache.kafka.connect.file.FileStreamSinkConnector" in classes

            # echo '{"name":"load-kafka-config", ...}' | curl -X POST -d @- .../connectors
            request = {
                "name": "load-kafka-config",
                "config": {
                    "connector.class": "FileStreamSource",
                    "file": str(source),
                    "topic": "kafka-config-topic",
                },
            }
            status, created, headers = rest.call("POST", "/connectors", request)
            assert status == 201, created
            assert created["name"] == "load-kafka-config"
            assert created["config"] == {**request["config"], "name": "load-kafka-config"}
            assert created["tasks"] == [] or created["tasks"] == [
                {"connector": "load-kafka-config", "task": 0}
            ]
            assert created["type"] == "source"
            assert headers["Location"].endswith("/connectors/load-kafka-config")

            lines = source.read_text(encoding="utf-8").splitlines()
            values = _topic_values(broker.bootstrap_servers, "kafka-config-topic", len(lines))
            assert values == [
                json.dumps(
                    {"schema": {"type": "string", "optional": False}, "payload": line},
                    separators=(",", ":"),
                    ensure_ascii=False,
                )
                for line in lines
            ]
            assert values[0] == (
                '{"schema":{"type":"string","optional":false},"payload":"# Licensed to the '
                'Apache Software Foundation (ASF) under one or more"}'
            )

            request = {
                "name": "dump-kafka-config",
                "config": {
                    "connector.class": "FileStreamSink",
                    "file": str(copy),
                    "topics": "kafka-config-topic",
                },
            }
            status, created, _ = rest.call("POST", "/connectors", request)
            assert status == 201, created
            assert created["type"] == "sink"
            wait_for(
                "the copy",
                lambda: copy.exists() and copy.read_bytes() == source.read_bytes(),
            )
            status, body = rest.get("/connectors")
            assert status == 200 and body == ["dump-kafka-config", "load-kafka-config"]

            status, body, _ = rest.call("DELETE", "/connectors/dump-kafka-config")
            assert status == 204 and body is None
            status, body = rest.get("/connectors")
            assert body == ["load-kafka-config"]
            status, body = rest.get("/connectors/dump-kafka-config")
            assert status == 404
            assert body == {"error_code": 404, "message": "Connector dump-kafka-config not found"}
            # The file is untouched by the delete, and nothing more arrives.
            assert copy.read_bytes() == source.read_bytes()
