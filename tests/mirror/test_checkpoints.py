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

pytestmark = [pytest.mark.slow, pytest.mark.waits]

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
        producer.produce(topic, value=f"click {i}".encode(), partition=i % 3)  # every partition
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


def test_checkpoints_stay_monotonic_across_a_restart(
    spark: Any, cluster_a: Any, cluster_b: Any
) -> None:
    """A restarted checkpoint part (fresh process state: syncs and checkpoints reloaded from
    the topics) never writes a checkpoint behind the last one of a group that did not
    rewind; when the group moves on, the new checkpoints move on too."""
    from seaway.mirror.formats import Checkpoint
    from seaway.mirror.source_flow import MirrorSourceFlow

    register(spark)
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    alias, target = f"M{uuid.uuid4().hex[:4]}", f"T{uuid.uuid4().hex[:4]}"
    topic = f"views-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": a})
    for i in range(RECORDS):
        producer.produce(topic, value=f"view {i}".encode())
    assert producer.flush(30) == 0
    group = f"ranker-{uuid.uuid4().hex[:6]}"
    _consume_and_commit(a, topic, group, RECORDS // 2)
    policy = DefaultReplicationPolicy()
    settings = _settings(a, b, alias, target, policy, topics=topic, offset_lag_max=LAG_MAX)
    flow = MirrorSourceFlow(spark, settings)
    flow.start()

    def checkpoint_flow() -> MirrorCheckpointFlow:
        return MirrorCheckpointFlow(
            CheckpointSettings(
                source_alias=alias, target_alias=target,
                source_client={"bootstrap.servers": a}, target_client={"bootstrap.servers": b},
                policy=policy, topic_filter=DefaultTopicFilter({"topics": topic}),
                group_filter=DefaultGroupFilter(), offset_syncs_topic=settings.offset_syncs_topic,
                offset_syncs_client={"bootstrap.servers": a}, checkpoints_replication_factor=1,
            )
        )  # fmt: skip

    try:
        _wait("the copy", lambda: _ends(b, f"{alias}.{topic}", 3) >= RECORDS)
        time.sleep(1)
        first = checkpoint_flow()
        first.start()
        try:
            assert {c.partition for c in first.emit() if c.consumer_group_id == group}
        finally:
            first.stop()
        restarted = checkpoint_flow()  # the mirror restarted: state from the topics only
        restarted.start()
        try:
            assert [c for c in restarted.emit() if c.consumer_group_id == group] == []
            # The group moves on to the end. Kept syncs thin out exponentially with distance
            # from the newest (Kafka's OffsetSyncStore), so a short move can translate to the
            # same downstream offset; the end translates through the newest sync, which is
            # within offset.lag.max of it, and at least one partition has a third left to read.
            _consume_and_commit(a, topic, group, RECORDS - RECORDS // 2)
            moved = [c for c in restarted.emit() if c.consumer_group_id == group]
            assert moved
        finally:
            restarted.stop()
    finally:
        flow.stop()
    consumer = Consumer(quiet({"bootstrap.servers": b, "group.id": "read-checkpoints"}))
    consumer.assign([TopicPartition(f"{alias}.checkpoints.internal", 0, 0)])
    history: dict[int, list[int]] = {}
    for message in consumer.consume(1000, 5.0):
        if message.error() is None:
            checkpoint = Checkpoint.from_record(message.key(), message.value())
            if checkpoint.consumer_group_id == group:
                history.setdefault(checkpoint.partition, []).append(checkpoint.downstream_offset)
    consumer.close()
    assert history
    for partition, downstream in history.items():
        assert downstream == sorted(downstream), f"partition {partition} went back: {downstream}"
    assert any(len(d) > 1 and d[-1] > d[0] for d in history.values())
