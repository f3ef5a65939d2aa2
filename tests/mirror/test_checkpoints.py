"""Checkpoints: a group on A, translated for B, never ahead, at most offset.lag.max behind."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.mirror.checkpoint_flow import CheckpointSettings, MirrorCheckpointFlow
from seaway.mirror.client import translate_offsets
from seaway.mirror.filters import DefaultGroupFilter, DefaultTopicFilter
from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.source_flow import register
from tests.broker.clients import quiet
from tests.mirror.test_source_flow import _ends, _settings, _wait

pytestmark = pytest.mark.slow

RECORDS = 2000
LAG_MAX = 100


def _consume_and_commit(bootstrap: str, topic: str, group: str, count: int) -> dict[int, int]:
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    consumer = Consumer(quiet(config))
    consumer.subscribe([topic])
    seen = 0
    try:
        while seen < count:
            for message in consumer.consume(min(100, count - seen), 1.0):
                if message.error() is None:
                    seen += 1
        consumer.commit(asynchronous=False)
        committed = consumer.committed([TopicPartition(topic, p) for p in range(3)], 10)
        return {tp.partition: tp.offset for tp in committed}
    finally:
        consumer.close()


def test_checkpoints_translate_a_group_for_failover(
    spark: Any, cluster_a: Any, cluster_b: Any
) -> None:
    from seaway.mirror.source_flow import MirrorSourceFlow

    register(spark)
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    alias = f"C{uuid.uuid4().hex[:4]}"
    target = f"T{uuid.uuid4().hex[:4]}"
    topic = f"clicks-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": a})
    for i in range(RECORDS):
        producer.produce(topic, value=f"click {i}".encode())
    assert producer.flush(30) == 0
    group = f"dashboard-{uuid.uuid4().hex[:6]}"
    positions = _consume_and_commit(a, topic, group, RECORDS)  # caught up, then failed over
    lagging = f"report-{uuid.uuid4().hex[:6]}"
    behind = _consume_and_commit(a, topic, lagging, RECORDS // 2)

    policy = DefaultReplicationPolicy()
    settings = _settings(a, b, alias, target, policy, topics=topic, offset_lag_max=LAG_MAX)
    flow = MirrorSourceFlow(spark, settings)
    flow.start()
    remote = f"{alias}.{topic}"
    try:
        _wait("the copy", lambda: _ends(b, remote, 3) >= RECORDS)
        time.sleep(1)
    finally:
        flow.stop()

    checkpoints = MirrorCheckpointFlow(
        CheckpointSettings(
            source_alias=alias, target_alias=target,
            source_client={"bootstrap.servers": a}, target_client={"bootstrap.servers": b},
            policy=policy, topic_filter=DefaultTopicFilter({"topics": topic}),
            group_filter=DefaultGroupFilter(), offset_syncs_topic=settings.offset_syncs_topic,
            offset_syncs_client={"bootstrap.servers": a}, checkpoints_replication_factor=1,
            sync_group_offsets=True,
        )
    )  # fmt: skip
    checkpoints.start()
    try:
        emitted = checkpoints.emit()
        consumed = {p for p, offset in positions.items() if offset >= 0}
        assert consumed == {0, 1, 2}
        assert {c.partition for c in emitted if c.consumer_group_id == group} == consumed
        assert checkpoints.emit() == []  # nothing new: nothing repeated
    finally:
        checkpoints.stop()

    translated = translate_offsets({"bootstrap.servers": b}, alias, group, 30)
    assert {tp.partition for tp in translated} == consumed
    for tp, downstream in translated.items():
        assert tp.topic == remote
        upstream = positions[tp.partition]
        # The remote topic's offsets equal the source's here (a fresh, complete copy): a
        # failed-over consumer never skips a record and re-reads fewer than offset.lag.max.
        assert downstream <= upstream
        assert upstream - downstream < LAG_MAX
    # A group far behind the end gets a coarser translation (MM2's sync store thins old
    # syncs out), but never one ahead of its real position: it re-reads, it skips nothing.
    for tp, downstream in translate_offsets({"bootstrap.servers": b}, alias, lagging, 30).items():
        assert 0 <= downstream <= behind[tp.partition]
    # sync.group.offsets.enabled: the (inactive) group now exists on B with those offsets.
    consumer = Consumer(quiet({"bootstrap.servers": b, "group.id": group}))
    try:
        committed = consumer.committed([TopicPartition(remote, p) for p in consumed], 10)
    finally:
        consumer.close()
    assert {tp.partition: tp.offset for tp in committed} == {
        tp.partition: offset for tp, offset in translated.items()
    }
