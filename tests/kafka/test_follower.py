"""Seaway's follower against the embedded broker: several partitions in one long-poll Fetch."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.kafka.cluster import KafkaCluster
from seaway.kafka.fetcher import FetchedBatch
from seaway.kafka.follower import Follower
from seaway.protocol.record_codec import decode_records
from tests.broker.clients import quiet

pytestmark = pytest.mark.waits


def _topic(bootstrap: str, partitions: int) -> str:
    topic = f"follow-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    return topic


def _produce(bootstrap: str, topic: str, values: dict[int, list[str]]) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 0}))
    for partition, vs in values.items():
        for v in vs:
            producer.produce(topic, v.encode(), partition=partition)
    assert producer.flush(30) == 0


def _values(
    fetched: dict[tuple[str, int], list[FetchedBatch]], since: dict[tuple[str, int], int]
) -> dict[int, list[str]]:
    """The values at or after each partition's position (a batch may start before it)."""
    return {
        p: [
            (r.value or b"").decode()
            for b in batches
            for r in decode_records(b.data)[1]
            if r.offset >= since[(t, p)]
        ]
        for (t, p), batches in fetched.items()
    }


def test_one_poll_brings_every_partitions_new_records(bootstrap: str) -> None:
    topic = _topic(bootstrap, 3)
    _produce(bootstrap, topic, {0: ["a0", "a1", "a2"], 1: ["b0"], 2: []})
    cluster = KafkaCluster(bootstrap, client_id="test-follower")
    try:
        start = {(topic, 0): 1, (topic, 1): 0, (topic, 2): 0}
        follower = Follower(cluster, start)
        assert _values(follower.poll(), start) == {0: ["a1", "a2"], 1: ["b0"]}
        assert follower.positions == {(topic, 0): 3, (topic, 1): 1, (topic, 2): 0}

        # Nothing new: the poll waits for a record, and returns as soon as one comes.
        follower.max_wait_ms = 5_000
        later = threading.Timer(0.3, _produce, (bootstrap, topic, {2: ["c0"]}))
        later.start()
        begun, before = time.monotonic(), dict(follower.positions)
        assert _values(follower.poll(), before) == {2: ["c0"]}
        assert time.monotonic() - begun < 4.5
        later.join()
        assert follower.positions[(topic, 2)] == 1
    finally:
        cluster.close()


def test_a_partition_that_cannot_be_fetched_is_no_longer_followed(bootstrap: str) -> None:
    topic = _topic(bootstrap, 1)
    _produce(bootstrap, topic, {0: ["x"]})
    cluster = KafkaCluster(bootstrap, client_id="test-follower")
    try:
        follower = Follower(cluster, {(topic, 0): 0}, max_wait_ms=100)
        follower.positions[(topic, 0)] = 50  # past the log's end: OFFSET_OUT_OF_RANGE
        assert follower.poll() == {}
        assert follower.positions == {}
    finally:
        cluster.close()
