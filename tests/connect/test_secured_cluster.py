"""A Connect worker on a Kafka that speaks only SASL_SSL and enforces ACLs, configured as a
Kafka user writes worker.properties (``sasl.jaas.config``, a PEM truststore, the same
settings under ``producer.``/``consumer.`` for the connectors' clients, and under
``source.cluster.``/``target.cluster.`` for MirrorMaker's connectors).

A FileStream source writes lines exactly once, a FileStream sink copies them back to a file,
and a MirrorSourceConnector copies the topic to its remote twin: the worker's group, its
internal topics, the connectors' batch reads and writes all go over SASL_SSL. A principal
without ACLs is refused by the same broker.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, TopicPartition

from seaway.broker import BrokerThread
from tests.broker.certs import Certs, make_certs
from tests.connect.workers import WorkerProcess, distributed_props, wait_for

pytestmark = pytest.mark.slow

LINES = 300
STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
SCRAM = "SCRAM-SHA-256"
JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required '
        'username="{user}" password="{user}-secret";')  # fmt: skip


def _java_security(certs: Certs, user: str) -> dict[str, str]:
    return {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": SCRAM,
        "sasl.jaas.config": JAAS.format(user=user),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
    }


def _librdkafka(certs: Certs, user: str) -> dict[str, str]:
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": SCRAM, "sasl.username": user,
            "sasl.password": f"{user}-secret", "ssl.ca.location": str(certs.ca)}  # fmt: skip


@pytest.fixture
def certs(tmp_path: Path) -> Certs:
    folder = tmp_path / "certs"
    folder.mkdir()
    return make_certs(folder)


@pytest.fixture
def broker(tmp_path: Path, certs: Certs) -> Iterator[BrokerThread]:
    config = {
        "listeners": "SASL_SSL://localhost:0",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.server),
        "sasl.enabled.mechanisms": SCRAM,
        "seaway.scram.credentials": f"{SCRAM}=[name=connect,password=connect-secret];"
        f"{SCRAM}=[name=mallory,password=mallory-secret]",
        "authorizer.class.name": STANDARD_AUTHORIZER,
        "super.users": "User:connect",
        "group.initial.rebalance.delay.ms": 200,
    }
    with BrokerThread(tmp_path / "kafka", config=config) as b:
        yield b


def _values(bootstrap: str, certs: Certs, user: str, topic: str) -> list[Any]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex}",
                         "isolation.level": "read_committed", "enable.partition.eof": True,
                         **_librdkafka(certs, user)})  # fmt: skip
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Any] = []
    try:
        while (message := consumer.poll(10)) is not None:
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    break
                raise AssertionError(f"{topic}: {error}")
            out.append(json.loads(message.value())["payload"])
    finally:
        consumer.close()
    return out


def test_a_worker_and_its_connectors_on_a_sasl_ssl_cluster_with_acls(
    tmp_path: Path, certs: Certs, broker: BrokerThread
) -> None:
    bootstrap = broker.listeners["SASL_SSL"]
    security = _java_security(certs, "connect")
    props = distributed_props(
        bootstrap,
        "secured",
        **security,
        **{f"producer.{k}": v for k, v in security.items()},
        **{f"consumer.{k}": v for k, v in security.items()},
        **{f"admin.{k}": v for k, v in security.items()},
        **{"exactly.once.source.support": "enabled", "offset.storage.partitions": 1},
    )
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    lines = [f"secret line {i}" for i in range(LINES)]
    source_file.write_text("".join(line + "\n" for line in lines))
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "lines-in", "config": {
            "connector.class": "FileStreamSource", "file": str(source_file),
            "topic": "lines"}})  # fmt: skip
        got = wait_for("every line in the topic", lambda: (
            v if len(v := _values(bootstrap, certs, "connect", "lines")) >= LINES else None
        ), timeout=120)  # fmt: skip
        assert got == lines
        sink = {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": "lines"}
        rest.ok("POST", "/connectors", {"name": "lines-out", "config": sink})
        wait_for("the sink's copy", lambda: sink_file.exists()
                 and sink_file.read_text().splitlines() == lines, timeout=120)  # fmt: skip
        mirror = {
            "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
            "source.cluster.alias": "A",
            "target.cluster.alias": "B",
            "source.cluster.bootstrap.servers": bootstrap,
            "target.cluster.bootstrap.servers": bootstrap,
            **{f"source.cluster.{k}": v for k, v in security.items()},
            **{f"target.cluster.{k}": v for k, v in security.items()},
            "topics": "lines",
            "replication.factor": "1",
            "offset-syncs.topic.replication.factor": "1",
            "sync.topic.acls.enabled": "false",
        }
        rest.ok("POST", "/connectors", {"name": "mirror", "config": mirror})
        copied = wait_for("the remote topic", lambda: (
            v if len(v := _values(bootstrap, certs, "connect", "A.lines")) >= LINES else None
        ), timeout=180)  # fmt: skip
        assert copied == lines
        statuses = rest.ok("GET", "/connectors?expand=status")
        assert {n: s["status"]["connector"]["state"] for n, s in statuses.items()} == {
            "lines-in": "RUNNING", "lines-out": "RUNNING", "mirror": "RUNNING"}  # fmt: skip
    with pytest.raises(AssertionError, match=r"(GROUP|TOPIC)_AUTHORIZATION_FAILED"):
        _values(bootstrap, certs, "mallory", "lines")
