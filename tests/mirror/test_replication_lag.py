"""``lag_behind_source`` reads the source's high watermarks over the wire."""

from __future__ import annotations

import uuid

import pytest

from seaway.broker import BrokerThread
from seaway.mirror.metrics import MirrorMetrics, lag_behind_source
from tests.broker.clients import create_topic, produce

pytestmark = pytest.mark.waits


def test_replication_lag_from_high_watermarks(cluster_a: BrokerThread) -> None:
    bootstrap = cluster_a.bootstrap_servers
    topic = f"lag-{uuid.uuid4().hex[:8]}"
    create_topic(bootstrap, topic, partitions=3)
    produce(bootstrap, topic, [(b"k", b"v", 0)] * 10 + [(b"k", b"v", 1)] * 4)
    copied = {(topic, 0): 5, (topic, 1): 3, (topic, 2): -1, (f"{topic}-gone", 0): 0}
    lags = lag_behind_source({"bootstrap.servers": bootstrap}, copied)
    # offsets 6..9 of partition 0 not copied yet; 1 and 2 fully copied; the unknown topic left out
    assert lags == {(topic, 0): 4, (topic, 1): 0, (topic, 2): 0}
    assert lag_behind_source({"bootstrap.servers": bootstrap}, {}) == {}
    metrics = MirrorMetrics()
    metrics.record_replication_lag("B", lags, "A", {topic: f"A.{topic}"})
    name = f"kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.{topic},"
    assert metrics.snapshot()[name + "partition=0"]["seaway-replication-lag"] == 4
