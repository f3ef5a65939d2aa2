"""The book's architectures as running flows: active/active without loops, hub-and-spoke."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.source_flow import MirrorSourceFlow, register
from tests.mirror.test_source_flow import _ends, _produce, _records, _settings, _wait

pytestmark = [pytest.mark.slow, pytest.mark.waits]


def _topic(bootstrap: str, name: str, partitions: int = 2) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)


def _topics(bootstrap: str) -> set[str]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    return set(admin.list_topics(timeout=10).topics)


def _run(spark: Any, flows: list[MirrorSourceFlow], done: Any) -> None:
    for flow in flows:
        flow.start()
    try:
        _wait("the copies", done, timeout=180)
        for flow in flows:  # a second look: nothing new is picked up (no loop appears)
            flow.refresh()
        _wait("the copies after a refresh", done, timeout=60)
    finally:
        for flow in flows:
            flow.stop()


def test_active_active_mirrors_both_ways_without_loops(
    spark: Any, cluster_a: Any, cluster_b: Any
) -> None:
    register(spark)
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    tag = uuid.uuid4().hex[:4]
    east, west, topic = f"east{tag}", f"west{tag}", f"orders-{tag}"
    _topic(a, topic)  # each data centre's local producers write its own "orders"
    _topic(b, topic)
    _produce(a, topic, 300)
    _produce(b, topic, 200, start=10_000)
    policy = DefaultReplicationPolicy()
    pattern = f"{topic}|(east|west){tag}\\..*"  # also offer the remote topics: never looped
    flows = [
        MirrorSourceFlow(spark, _settings(a, b, east, west, policy, topics=pattern)),
        MirrorSourceFlow(spark, _settings(b, a, west, east, policy, topics=pattern)),
    ]
    _run(
        spark, flows,
        lambda: _ends(b, f"{east}.{topic}", 2) >= 300 and _ends(a, f"{west}.{topic}", 2) >= 200,
    )  # fmt: skip
    assert _records(b, f"{east}.{topic}", 2) == _records(a, topic, 2)
    assert _records(a, f"{west}.{topic}", 2) == _records(b, topic, 2)
    looped = {f"{east}.{west}.{topic}", f"{west}.{east}.{topic}"}
    assert not looped & (_topics(a) | _topics(b))
    # every consumer in either data centre sees both sides' orders
    assert _ends(a, topic, 2) + _ends(a, f"{west}.{topic}", 2) == 500
    assert _ends(b, topic, 2) + _ends(b, f"{east}.{topic}", 2) == 500


def test_hub_and_spoke_aggregates_every_spoke(
    spark: Any, cluster_a: Any, cluster_b: Any, cluster_c: Any
) -> None:
    register(spark)
    spoke1, hub, spoke2 = (c.bootstrap_servers for c in (cluster_a, cluster_c, cluster_b))
    tag = uuid.uuid4().hex[:4]
    s1, s2, h, topic = f"nyc{tag}", f"sfo{tag}", f"hub{tag}", f"sales-{tag}"
    _topic(spoke1, topic)
    _topic(spoke2, topic)
    _produce(spoke1, topic, 250)
    _produce(spoke2, topic, 150, start=5_000)
    policy = DefaultReplicationPolicy()
    flows = [
        MirrorSourceFlow(spark, _settings(spoke1, hub, s1, h, policy, topics=topic)),
        MirrorSourceFlow(spark, _settings(spoke2, hub, s2, h, policy, topics=topic)),
    ]
    _run(
        spark, flows,
        lambda: _ends(hub, f"{s1}.{topic}", 2) >= 250 and _ends(hub, f"{s2}.{topic}", 2) >= 150,
    )  # fmt: skip
    assert _records(hub, f"{s1}.{topic}", 2) == _records(spoke1, topic, 2)
    assert _records(hub, f"{s2}.{topic}", 2) == _records(spoke2, topic, 2)
    assert {t for t in _topics(hub) if t.endswith(topic)} == {f"{s1}.{topic}", f"{s2}.{topic}"}
