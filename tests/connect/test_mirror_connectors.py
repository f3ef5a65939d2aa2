"""MirrorMaker 2's three connectors on a distributed Connect worker, as the seed submits them.

Two embedded clusters A and B (this module's own); the worker's Kafka is B. The seed's three
``POST /connectors`` bodies (notes ch. 8, "MirrorSourceConnector / MirrorCheckpointConnector
/ MirrorHeartbeatConnector 配置并提交到Connect集群") are sent as written except for:

* the bootstrap addresses (the embedded clusters') — and replication factors of 1, since
  each cluster has one broker (MM2's defaults of 2 and 3 would be refused);
* ``replication.policy.separator: "_"`` on the checkpoint connector too: since Kafka 3.1
  (KIP-690) the separator also names the internal topics (``mm2-offset-syncs_B_internal``,
  ``A_checkpoints_internal``) and the remote topics checkpoints refer to (``A_mirror-test-1``),
  so both connectors of a flow must agree on it; the seed's 2.7 cluster did not need that
  for the internal topics.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from seaway.broker import BrokerThread
from seaway.kafka import clients
from seaway.kafka.admin import alter_offsets
from seaway.mirror.formats import Checkpoint, Heartbeat
from tests.broker.clients import create_topic, quiet
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.waits]

TOPIC = "mirror-test-1"
REMOTE = "A_mirror-test-1"
GROUP = "mirror-test-consumers"
RECORDS = 500
PARTITIONS = 3
KAFKA = "org.apache.kafka.connect.mirror."
ONE_BROKER = {  # each embedded cluster has a single broker
    "replication.factor": "1",
    "offset-syncs.topic.replication.factor": "1",
    "checkpoints.topic.replication.factor": "1",
    "heartbeats.topic.replication.factor": "1",
}


@pytest.fixture(scope="module")
def clusters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    config = {"group.initial.rebalance.delay.ms": 200, "num.partitions": PARTITIONS}
    with (
        BrokerThread(tmp_path_factory.mktemp("mm2-a"), config=config) as a,
        BrokerThread(tmp_path_factory.mktemp("mm2-b"), config=config) as b,
    ):
        yield a.bootstrap_servers, b.bootstrap_servers


@pytest.fixture(scope="module")
def worker(
    clusters: tuple[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    props = distributed_props(clusters[1], "mm2-connect")
    with WorkerProcess(props, tmp_path_factory.mktemp("mm2-worker")) as process:
        yield process


@pytest.fixture
def rest(worker: WorkerProcess, request: pytest.FixtureRequest) -> Iterator[Rest]:
    """The worker's REST API; the tail of its log is printed when the test failed."""
    assert worker.rest is not None
    failed = request.session.testsfailed
    yield worker.rest
    if request.session.testsfailed > failed:
        print(f"--- worker log ({worker.log}) ---\n{worker.tail(150)}")


def seed_requests(a: str, b: str) -> list[dict[str, Any]]:
    """The seed's three bodies, with this test's clusters."""
    source = {
        "name": "public-test",
        "config": {
            "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
            "source.cluster.alias": "A",
            "target.cluster.alias": "B",
            "source.cluster.bootstrap.servers": a,
            "target.cluster.bootstrap.servers": b,
            "topics": "mirror-test-.*",
            "replication.policy.separator": "_",
            "refresh.topics.interval.seconds": 60,
            "sync.topic.configs.enabled": "true",
            "sync.topic.acls.enabled": "false",
            **ONE_BROKER,
        },
    }
    checkpoint = {
        "name": "public-test-checkpoint",
        "config": {
            "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
            "source.cluster.alias": "A",
            "target.cluster.alias": "B",
            "source.cluster.bootstrap.servers": a,
            "target.cluster.bootstrap.servers": b,
            "replication.policy.separator": "_",
            **ONE_BROKER,
        },
    }
    heartbeats = {
        "name": "public-test-heartbeats",
        "config": {
            "connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
            "source.cluster.alias": "A",
            "target.cluster.alias": "B",
            "source.cluster.bootstrap.servers": a,
            "target.cluster.bootstrap.servers": b,
            **ONE_BROKER,
        },
    }
    return [source, checkpoint, heartbeats]


def produce(bootstrap: str, start: int, count: int) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 5}))
    for i in range(start, start + count):
        producer.produce(
            TOPIC,
            key=f"key-{i % 37}".encode(),
            value=f"record {i}".encode(),
            headers=[("n", str(i).encode())],
            timestamp=1_700_000_000_000 + i,
        )
    assert producer.flush(30) == 0


def end_offsets(bootstrap: str, topic: str, partitions: int = PARTITIONS) -> list[int]:
    """Each partition's end offset; zeros while the topic does not exist."""
    if topic not in clients.admin({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics:
        return [0] * partitions
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "ends"}))
    try:
        return [
            consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1]
            for p in range(partitions)
        ]
    finally:
        consumer.close()


def records(bootstrap: str, topic: str, partitions: int = PARTITIONS) -> list[tuple[Any, ...]]:
    """(partition, offset, key, value, headers, timestamp) of every record."""
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "check"}))
    out: list[tuple[Any, ...]] = []
    try:
        for p, high in enumerate(end_offsets(bootstrap, topic, partitions)):
            consumer.assign([TopicPartition(topic, p, 0)])
            rows: list[tuple[Any, ...]] = []
            while len(rows) < high:
                for m in consumer.consume(min(500, high - len(rows)), 1.0):
                    if m.error() is None:
                        row = (p, m.offset(), m.key(), m.value(), m.headers(), m.timestamp()[1])
                        rows.append(row)
            out += rows
    finally:
        consumer.close()
    return out


def partition_zero(bootstrap: str, topic: str) -> list[tuple[bytes, bytes]]:
    """(key, value) of every record of partition 0 of *topic* (empty if it is missing)."""
    return [(row[2], row[3]) for row in records(bootstrap, topic, partitions=1)]


def wait_running(rest: Rest, name: str, tasks: int) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        status, body = rest.get(f"/connectors/{name}/status")
        states = [t["state"] for t in body.get("tasks", [])] if status == 200 else []
        running = status == 200 and body["connector"]["state"] == "RUNNING"
        return body if running and states == ["RUNNING"] * tasks else None

    return wait_for(f"{name} RUNNING with {tasks} task(s)", check, 60)


def test_plugins_and_validation(rest: Rest) -> None:
    status, plugins = rest.get("/connector-plugins")
    assert status == 200
    mirror = {p["class"]: p["type"] for p in plugins if p["class"].startswith(KAFKA)}
    assert mirror == {
        KAFKA + "MirrorSourceConnector": "source",
        KAFKA + "MirrorCheckpointConnector": "source",
        KAFKA + "MirrorHeartbeatConnector": "source",
    }
    bad = {"connector.class": "MirrorSourceConnector", "name": "no-alias", "topics": "x"}
    status, infos, _ = rest.call(
        "PUT", "/connector-plugins/MirrorSourceConnector/config/validate", bad
    )
    assert status == 200, infos
    errors = {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"]}
    assert errors["source.cluster.alias"] == [
        'Missing required configuration "source.cluster.alias" which has no default value.'
    ]
    assert "source.cluster.bootstrap.servers" in errors["source.cluster.bootstrap.servers"][0]
    assert infos["error_count"] == 3  # the alias and the two clusters' bootstrap servers
    status, body, _ = rest.call("POST", "/connectors", {"name": "no-alias", "config": bad})
    assert status == 400 and "source.cluster.alias" in body["message"], body
    status, keys = rest.get(f"/connector-plugins/{KAFKA}MirrorHeartbeatConnector/config")
    assert status == 200
    assert {"emit.heartbeats.interval.seconds", "tasks.max"} <= {k["name"] for k in keys}


def test_seed_mirror_connectors_session(rest: Rest, clusters: tuple[str, str]) -> None:
    a, b = clusters
    # 2023 timestamps: no time retention, or a retention check could delete them mid-test.
    create_topic(a, TOPIC, PARTITIONS, config={"retention.ms": "-1"})
    produce(a, 0, RECORDS)
    ends = end_offsets(a, TOPIC)
    admin = clients.admin({"bootstrap.servers": a})
    alter_offsets(admin, GROUP, {(TOPIC, p): end for p, end in enumerate(ends)})
    source, checkpoint, heartbeats = seed_requests(a, b)

    # MirrorSourceConnector: every record, in the same partition at the same offset.
    status, body, _ = rest.call("POST", "/connectors", source)
    assert status == 201, body
    wait_for("the copy", lambda: sum(end_offsets(b, REMOTE)) >= RECORDS, 60)
    assert records(b, REMOTE) == records(a, TOPIC)
    state = wait_running(rest, "public-test", 1)
    assert state["type"] == "source"
    status, tasks = rest.get("/connectors/public-test/tasks")
    assert status == 200
    assigned = tasks[0]["config"]["task.assigned.partitions"].split(",")
    assert sorted(assigned) == [f"{TOPIC}-{p}" for p in range(PARTITIONS)]

    # MirrorCheckpointConnector: the group's offsets, translated for B.
    status, body, _ = rest.call("POST", "/connectors", checkpoint)
    assert status == 201, body

    def checkpoints() -> dict[int, Checkpoint]:
        found = [
            Checkpoint.from_record(k, v) for k, v in partition_zero(b, "A_checkpoints_internal")
        ]
        return {c.partition: c for c in found if c.consumer_group_id == GROUP}

    got = wait_for("the checkpoints", lambda: len(checkpoints()) == PARTITIONS, 60)
    got = checkpoints()
    for p, end in enumerate(ends):
        assert (got[p].topic, got[p].upstream_offset, got[p].downstream_offset) == (
            REMOTE,
            end,
            end,
        )
    wait_running(rest, "public-test-checkpoint", 1)

    # MirrorHeartbeatConnector: Heartbeat(A, B, now) in B's heartbeats, every second.
    status, body, _ = rest.call("POST", "/connectors", heartbeats)
    assert status == 201, body
    wait_for("two heartbeats", lambda: len(partition_zero(b, "heartbeats")) >= 2, 60)
    beats = [Heartbeat.from_record(k, v) for k, v in partition_zero(b, "heartbeats")]
    assert {(h.source_cluster_alias, h.target_cluster_alias) for h in beats} == {("A", "B")}
    stamps = [h.timestamp for h in beats]
    assert stamps == sorted(stamps) and abs(stamps[-1] - time.time() * 1000) < 30_000
    wait_running(rest, "public-test-heartbeats", 1)

    # Pausing stops the flow, resuming starts it again.
    assert rest.call("PUT", "/connectors/public-test-heartbeats/pause")[0] == 202
    path = "/connectors/public-test-heartbeats/status"
    wait_for("PAUSED", lambda: rest.get(path)[1]["connector"]["state"] == "PAUSED", 30)
    time.sleep(1.0)
    paused = len(partition_zero(b, "heartbeats"))
    time.sleep(2.0)
    assert len(partition_zero(b, "heartbeats")) == paused
    assert rest.call("PUT", "/connectors/public-test-heartbeats/resume")[0] == 202
    wait_running(rest, "public-test-heartbeats", 1)
    wait_for("heartbeats again", lambda: len(partition_zero(b, "heartbeats")) > paused, 30)

    # DELETE stops each flow: nothing more is copied, no more heartbeats.
    for request in (source, checkpoint, heartbeats):
        status, _, _ = rest.call("DELETE", f"/connectors/{request['name']}")
        assert status == 204
    for request in (source, checkpoint, heartbeats):
        path = f"/connectors/{request['name']}/status"
        wait_for(f"{request['name']} gone", lambda p=path: rest.get(p)[0] == 404, 30)
    time.sleep(1.0)  # a flow still stopping would write now
    copied, beaten = sum(end_offsets(b, REMOTE)), len(partition_zero(b, "heartbeats"))
    produce(a, RECORDS, 100)
    time.sleep(3.0)
    assert sum(end_offsets(b, REMOTE)) == copied == RECORDS
    assert len(partition_zero(b, "heartbeats")) == beaten


def test_a_flow_that_cannot_start_fails_its_task(rest: Rest, clusters: tuple[str, str]) -> None:
    b = clusters[1]
    config = {
        "connector.class": "MirrorHeartbeat",  # Kafka's short alias
        "source.cluster.alias": "C",
        "target.cluster.alias": "B",
        "target.cluster.bootstrap.servers": b,
        "heartbeats.topic.replication.factor": "3",  # MM2's default; B has one broker
    }
    status, body, _ = rest.call("POST", "/connectors", {"name": "three-replicas", "config": config})
    assert status == 201, body

    def failed() -> dict[str, Any] | None:
        code, body = rest.get("/connectors/three-replicas/status")
        tasks = body.get("tasks", []) if code == 200 else []
        return tasks[0] if tasks and tasks[0]["state"] == "FAILED" else None

    task = wait_for("the task to fail", failed, 60)
    assert "heartbeats.topic.replication.factor" in task["trace"]
    assert rest.call("DELETE", "/connectors/three-replicas")[0] == 204
