"""``seaway mirror lag`` against two real clusters, from MM2's stored source offsets."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.cli.main import main
from seaway.kafka.admin import ensure_topic
from seaway.kafka.ranges import range_producer
from seaway.mirror.copy.offsets import store_offsets
from seaway.mirror.copy.spec import MirrorCopySpec
from seaway.mirror.filters import DefaultConfigPropertyFilter, DefaultTopicFilter
from seaway.mirror.lag import LagRow, replication_lag, stored_offsets
from seaway.mirror.metrics import MirrorMetrics
from seaway.mirror.monitoring import publish_lag
from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.source_flow import FlowSettings, MirrorSourceFlow
from tests.broker.clients import quiet

pytestmark = pytest.mark.waits


def _topic_with_records(bootstrap: str, counts: list[int]) -> str:
    topic = f"lag-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    admin.create_topics([NewTopic(topic, len(counts), 1)])[topic].result(30)
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    for partition, count in enumerate(counts):
        for i in range(count):
            producer.produce(topic, value=f"{i}".encode(), partition=partition)
    assert producer.flush(30) == 0
    return topic


def _store(
    b: str, alias: str, copied: list[tuple[str, int, int]], offsets_topic: str | None = None
) -> None:
    """Write offsets as a MirrorSource flow's copy tasks do (MM2's format)."""
    offsets_topic = offsets_topic or f"mm2-offsets.{alias}.internal"
    ensure_topic({"bootstrap.servers": b}, offsets_topic, 25, 1, {"cleanup.policy": "compact"})
    spec = MirrorCopySpec(alias, {}, {"bootstrap.servers": b}, offsets_topic)
    store_offsets(range_producer(spec.target_producer, client_id="test"), spec, copied)


def _cli(a: str, b: str, alias: str, *extra: str) -> int:
    return main(["mirror", "lag", "--source-bootstrap", a, "--target-bootstrap", b,
                 "--source-alias", alias, *extra])  # fmt: skip


def test_lag_before_and_after_copying_part_of_a_topic(
    cluster_a: Any, cluster_b: Any, capsys: Any
) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    alias = f"L{uuid.uuid4().hex[:6]}"
    topic = _topic_with_records(a, [100, 50, 30])

    # Nothing copied yet: no offsets topic (and it is not created by asking).
    assert replication_lag(a, b, alias) == []
    assert replication_lag(a, b, alias, [topic]) == [
        LagRow(topic, 0, 0, 100, None, 100),
        LagRow(topic, 1, 0, 50, None, 50),
        LagRow(topic, 2, 0, 30, None, 30),
    ]
    target_admin = AdminClient(quiet({"bootstrap.servers": b}))
    assert f"mm2-offsets.{alias}.internal" not in target_admin.list_topics(timeout=10).topics
    assert _cli(a, b, alias) == 0
    assert f"Nothing copied from {alias} yet" in capsys.readouterr().out

    # Part copied: p0 up to offset 59, p1 completely, p2 never. Another flow's offsets (an
    # other source cluster) in the same topic are not ours. A later store wins.
    _store(b, alias, [(topic, 0, 20), (topic, 1, 49)])
    _store(b, alias, [(topic, 0, 59)])
    _store(b, f"{alias}x", [(topic, 2, 29)], f"mm2-offsets.{alias}.internal")
    assert stored_offsets(b, alias) == {(topic, 0): 59, (topic, 1): 49}
    expected = [
        LagRow(topic, 0, 0, 100, 60, 40),
        LagRow(topic, 1, 0, 50, 50, 0),
        LagRow(topic, 2, 0, 30, None, 30),
    ]
    assert replication_lag(a, b, alias) == expected  # the topics the flow has copied
    assert replication_lag(a, b, alias, [topic]) == expected

    assert _cli(a, b, alias) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["TOPIC", "PARTITION", "SOURCE-END", "MIRRORED", "LAG"]
    assert [line.split() for line in lines[1:4]] == [
        [topic, "0", "100", "60", "40"],
        [topic, "1", "50", "50", "0"],
        [topic, "2", "30", "-", "30"],
    ]
    assert lines[4] == f"TOTAL LAG 70 over 3 partition(s) of 1 topic(s) from {alias}"

    # Retention moved the log start past what was copied: the flow starts there.
    source_admin = AdminClient(quiet({"bootstrap.servers": a}))
    for tp in (TopicPartition(topic, 0, 80), TopicPartition(topic, 2, 10)):
        source_admin.delete_records([tp])[tp].result(30)
    rows = replication_lag(a, b, alias, [topic])
    assert [(r.source_start, r.mirrored, r.next_offset, r.lag) for r in rows] == [
        (80, 60, 80, 20),
        (0, 50, 50, 0),
        (10, None, 10, 20),
    ]


def test_lag_errors_name_the_topic_and_cluster(cluster_a: Any, cluster_b: Any, capsys: Any) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    assert _cli(a, b, "A", "--topic", "no-such-topic") == 2
    assert f"Topic no-such-topic does not exist on the source cluster ({a})" in (
        capsys.readouterr().err
    )
    assert _cli(a, "127.0.0.1:1", "A", "--timeout", "1") == 2
    assert "Cannot reach the target cluster at 127.0.0.1:1" in capsys.readouterr().err


@pytest.mark.parametrize("follow_ms", [0, 30_000])
def test_lag_gauge_of_a_following_flow_reads_the_stored_offsets(
    cluster_a: Any, cluster_b: Any, follow_ms: int
) -> None:
    """A following flow's micro-batch reports how far it copied only when its follow period
    ends; its tasks store MM2's offsets every second, so its lag gauge reads those."""
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    alias = f"F{uuid.uuid4().hex[:6]}"
    topic = _topic_with_records(a, [100])
    settings = FlowSettings(
        source_alias=alias,
        target_alias="B",
        source_client={"bootstrap.servers": a},
        target_client={"bootstrap.servers": b},
        policy=DefaultReplicationPolicy(),
        topic_filter=DefaultTopicFilter({"topics": topic}),
        config_filter=DefaultConfigPropertyFilter(),
        follow_ms=follow_ms,
    )
    registry = MirrorMetrics()
    registry.record_copied(alias, "B", [(topic, 0, 19)])  # the last micro-batch's report
    _store(b, alias, [(topic, 0, 79)])  # what the tasks stored since
    lags = publish_lag(MirrorSourceFlow(None, settings), registry)
    assert lags == {(topic, 0): 20 if follow_ms else 80}
