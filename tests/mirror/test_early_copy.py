"""A flow copies from the driver while Spark starts (seaway.mirror.early_copy), without
Spark: from MM2's stored offsets (the earliest where none), what arrives as it arrives,
its offsets stored when it ends, so the query (or the next early copy) starts after it."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.ledger import copied_up_to, request_stop
from seaway.mirror.copy.loop import copy_ranges
from seaway.mirror.filters import DefaultConfigPropertyFilter, DefaultTopicFilter
from seaway.mirror.lag import stored_offsets
from seaway.mirror.metrics import MirrorMetrics
from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.source_flow import FlowSettings, MirrorSourceFlow
from seaway.spark.kafka.options import parse_source_options
from tests.broker.clients import quiet, read_partition

pytestmark = pytest.mark.waits

PARTITIONS = 2


def _produce(bootstrap: str, topic: str, start: int, count: int) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 0}))
    for partition in range(PARTITIONS):
        for i in range(start, start + count):
            producer.produce(topic, f"p{partition}-{i}".encode(), partition=partition)
    assert producer.flush(30) == 0


def _wait_for(bootstrap: str, topic: str, count: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if all(len(read_partition(bootstrap, topic, partition=p)) >= count for p in range(2)):
            return
        time.sleep(0.1)
    raise AssertionError(f"{topic} did not get {count} records per partition")


@pytest.fixture
def flow(cluster_a: Any, cluster_b: Any) -> tuple[MirrorSourceFlow, str]:
    """A flow (no Spark session) of one new topic of 10 records per partition."""
    tag = uuid.uuid4().hex[:6]
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic, alias = f"early-{tag}", f"E{tag}"
    admin = AdminClient(quiet({"bootstrap.servers": a}))  # referenced until it answers
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    _produce(a, topic, 0, 10)
    settings = FlowSettings(
        source_alias=alias,
        target_alias="B",
        source_client={"bootstrap.servers": a},
        target_client={"bootstrap.servers": b},
        policy=DefaultReplicationPolicy(),
        topic_filter=DefaultTopicFilter({"topics": topic}),
        config_filter=DefaultConfigPropertyFilter(),
        replication_factor=1,
        internal_replication_factor=1,
        heartbeats_replication=False,
        emit_offset_syncs=False,
        metrics=MirrorMetrics(),
    )
    return MirrorSourceFlow(None, settings), topic


def test_a_flow_copies_while_spark_starts_and_the_next_start_resumes(
    flow: tuple[MirrorSourceFlow, str], cluster_a: Any, cluster_b: Any
) -> None:
    mirror, topic = flow
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    remote = f"{mirror.settings.source_alias}.{topic}"
    alias = mirror.settings.source_alias

    mirror.start_early()  # from the earliest: nothing stored yet
    _wait_for(b, remote, 10)
    _produce(a, topic, 10, 5)  # as it arrives
    _wait_for(b, remote, 15)
    mirror.stop()  # ends the early copy (no query yet) and records MM2's metrics
    assert stored_offsets(b, alias) == {(topic, p): 14 for p in range(PARTITIONS)}
    registry = mirror.settings.metrics
    assert registry is not None
    assert registry.copied(alias, "B") == {(topic, p): 14 for p in range(PARTITIONS)}

    _produce(a, topic, 15, 5)  # while no copy runs
    mirror.start_early()  # the next start resumes after the stored offsets
    _wait_for(b, remote, 20)
    mirror.stop()
    assert stored_offsets(b, alias) == {(topic, p): 19 for p in range(PARTITIONS)}
    assert registry.copied(alias, "B") == {(topic, p): 19 for p in range(PARTITIONS)}
    for p in range(PARTITIONS):  # every record once, in order
        copied = [m.value() for m in read_partition(b, remote, partition=p)]
        assert copied == [f"p{p}-{i}".encode() for i in range(20)]


def test_the_query_s_first_tasks_take_over_from_the_early_copy(
    flow: tuple[MirrorSourceFlow, str], cluster_a: Any, cluster_b: Any
) -> None:
    """A following flow's early copy becomes a bridge of the query's run: it copies on
    until the first micro-batch's task takes over, which starts where it got to."""
    mirror, topic = flow
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    remote = f"{mirror.settings.source_alias}.{topic}"
    mirror.settings.follow_ms = 3000
    mirror.start_early()
    _wait_for(b, remote, 10)
    early = mirror._early
    assert early is not None
    topics = {topic: PARTITIONS}
    spec = mirror.copy_spec(topics, "run-1")
    assert spec.bridge_ms == 3000
    assert early.hand_over(spec)
    _produce(a, topic, 10, 5)  # the early copy, now a bridge of run-1, copies it
    _wait_for(b, remote, 15)
    # The first micro-batch, planned from the ledger (where the early copy began: 0).
    planned = copied_up_to(spec, [(topic, p) for p in range(PARTITIONS)])
    assert planned == {(topic, p): 0 for p in range(PARTITIONS)}
    source = parse_source_options(mirror.source_options(topics), streaming=True)
    ranges = [(source, OffsetRange(topic, p, 0, 15)) for p in range(PARTITIONS)]
    summaries = copy_ranges(spec, ranges)  # takes over, starts at 15, follows 3 s
    assert [s.start for s in summaries] == [15] * PARTITIONS
    request_stop(spec)  # its own bridge ends
    for p in range(PARTITIONS):  # every record once, in order
        copied = [m.value() for m in read_partition(b, remote, partition=p)]
        assert copied == [f"p{p}-{i}".encode() for i in range(15)]
    alias = mirror.settings.source_alias
    assert stored_offsets(b, alias) == {(topic, p): 14 for p in range(PARTITIONS)}
