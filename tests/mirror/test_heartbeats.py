"""MirrorHeartbeat flows against the embedded clusters, and the topology they make visible.

The clusters are shared by the mirror tests (``heartbeats`` included), so each test uses
cluster aliases unique to it and looks only at its own heartbeat keys and topics.
"""

from __future__ import annotations

import struct
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

from seaway.mirror.client import MirrorClient
from seaway.mirror.config import MirrorHeartbeatConfig
from seaway.mirror.filters import DefaultConfigPropertyFilter, DefaultTopicFilter
from seaway.mirror.formats import Heartbeat
from seaway.mirror.heartbeat_flow import MirrorHeartbeatFlow, heartbeat_settings
from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.source_flow import FlowSettings, MirrorSourceFlow, register
from tests.broker.clients import quiet

pytestmark = pytest.mark.waits

TIMEOUT = 30.0


def _aliases() -> tuple[str, str, str]:
    uid = uuid.uuid4().hex[:6]
    return f"X{uid}", f"B{uid}", f"A{uid}"


def _config(source: str, target: str, bootstrap: str, **extra: str) -> MirrorHeartbeatConfig:
    return MirrorHeartbeatConfig(
        {
            "name": "MirrorHeartbeatConnector",
            "connector.class": "MirrorHeartbeatConnector",
            "source.cluster.alias": source,
            "target.cluster.alias": target,
            "target.cluster.bootstrap.servers": bootstrap,
            "heartbeats.topic.replication.factor": "1",
            **extra,
        }
    )


def _beats(bootstrap: str, topic: str, source: str, target: str) -> list[tuple[bytes, bytes]]:
    """(key, value) of every record of partition 0 of *topic* keyed (source, target)."""
    key = Heartbeat(source, target, 0).record_key()
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "beats-check"}))
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), TIMEOUT)
        consumer.assign([TopicPartition(topic, 0, low)])
        out: list[tuple[bytes, bytes]] = []
        position = low
        while position < high:
            for message in consumer.consume(500, 1.0):
                if message.error() is None:
                    position = message.offset() + 1
                    if message.key() == key:
                        out.append((message.key(), message.value()))
        return out
    finally:
        consumer.close()


def _mm2_bytes(source: str, target: str, timestamp: int) -> tuple[bytes, bytes]:
    """MM2's Heartbeat layout, written out by hand: STRING = INT16 length + UTF-8."""
    key = b"".join(struct.pack(">h", len(s)) + s.encode() for s in (source, target))
    return key, struct.pack(">hq", 0, timestamp)


def test_heartbeats_reach_the_target_in_mm2_format(cluster_b: Any) -> None:
    source, target, _ = _aliases()
    b = cluster_b.bootstrap_servers
    settings = heartbeat_settings(_config(source, target, b))
    assert settings.enabled and settings.interval_s == 1.0  # MM2's default interval
    assert settings.heartbeats_topic == "heartbeats" and settings.replication_factor == 1
    flow = MirrorHeartbeatFlow(settings)
    flow.start()
    try:
        emitted = []
        for _ in range(3):
            beat = flow.emit()
            assert beat is not None
            emitted.append(beat.timestamp)
            time.sleep(0.01)
    finally:
        flow.stop()
    records = _beats(b, "heartbeats", source, target)
    assert records == [_mm2_bytes(source, target, t) for t in emitted]
    assert emitted == sorted(emitted) and len(set(emitted)) == 3
    assert all(abs(t - time.time() * 1000) < 60_000 for t in emitted)
    admin = AdminClient(quiet({"bootstrap.servers": b}))
    topic = admin.list_topics(timeout=TIMEOUT).topics["heartbeats"]
    assert len(topic.partitions) == 1
    resource = ConfigResource("topic", "heartbeats")
    configs = admin.describe_configs([resource])[resource].result(TIMEOUT)
    assert configs["cleanup.policy"].value == "compact"


@pytest.mark.parametrize(
    "extra",
    [{"emit.heartbeats.enabled": "false"}, {"emit.heartbeats.interval.seconds": "-1"}],
    ids=["disabled", "negative-interval"],
)
def test_disabled_heartbeats_emit_nothing(cluster_b: Any, extra: dict[str, str]) -> None:
    source, target, _ = _aliases()
    b = cluster_b.bootstrap_servers
    settings = heartbeat_settings(_config(source, target, b, **extra))
    assert not settings.enabled
    flow = MirrorHeartbeatFlow(settings)
    flow.start()
    assert flow.emit() is None
    flow.stop()
    topics = AdminClient(quiet({"bootstrap.servers": b})).list_topics(timeout=TIMEOUT).topics
    if "heartbeats" in topics:  # other tests' flows may have created it
        assert _beats(b, "heartbeats", source, target) == []


def test_missing_target_bootstrap_names_the_key() -> None:
    config = MirrorHeartbeatConfig(
        {"name": "hb", "connector.class": "MirrorHeartbeatConnector", "source.cluster.alias": "A"}
    )
    with pytest.raises(Exception, match=r"target\.cluster\.bootstrap\.servers"):
        heartbeat_settings(config)


def test_replicated_heartbeats_show_the_topology(
    spark: Any, cluster_a: Any, cluster_b: Any
) -> None:
    """Heartbeats X->B land in B's ``heartbeats``; the flow B->A copies them to A as
    ``B.heartbeats``, so A's MirrorClient sees B one hop upstream."""
    upstream, middle, downstream = _aliases()
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    beats = MirrorHeartbeatFlow(heartbeat_settings(_config(upstream, middle, b)))
    beats.start()
    emitted = [beats.emit() for _ in range(2)]
    register(spark)
    settings = FlowSettings(
        source_alias=middle,
        target_alias=downstream,
        source_client={"bootstrap.servers": b},
        target_client={"bootstrap.servers": a},
        policy=DefaultReplicationPolicy(),
        topic_filter=DefaultTopicFilter({"topics": f"nothing-{middle}"}),  # heartbeats only
        config_filter=DefaultConfigPropertyFilter(),
        replication_factor=1,
        internal_replication_factor=1,
        trigger_ms=200,
    )
    copy = MirrorSourceFlow(spark, settings)
    copy.start()
    remote = f"{middle}.heartbeats"
    try:
        assert "heartbeats" in copy.topics  # not in `topics`, replicated anyway
        emitted.append(beats.emit())  # one more while the copy runs
        want = [_mm2_bytes(upstream, middle, beat.timestamp) for beat in emitted if beat]
        deadline = time.monotonic() + 90
        while _beats(a, remote, upstream, middle) != want:
            assert time.monotonic() < deadline, "the heartbeats never reached A"
            time.sleep(0.5)
    finally:
        copy.stop()
        beats.stop()
    with MirrorClient({"bootstrap.servers": a}) as client:
        assert middle in client.upstream_clusters()
        assert remote in client.heartbeat_topics()
        assert client.replication_hops(middle) == 1
        assert client.replication_hops(upstream) == -1  # its heartbeats come, its topic not
