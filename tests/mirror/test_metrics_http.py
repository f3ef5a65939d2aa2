"""``seaway mirror-maker`` with metrics and the canary: MM2's metric names served over HTTP,
replication lag back to 0 once caught up, checkpoint latency, canary latency, no alarm."""

from __future__ import annotations

import socket
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.broker.clients import quiet
from tests.mirror.test_mirror_maker import _mm2_properties, _produce, _start, _stop, _wait

pytestmark = [pytest.mark.slow, pytest.mark.waits]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _metrics(port: int) -> dict[str, float]:
    """``name{labels}`` -> value from the Prometheus text at /metrics."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def _find(metrics: dict[str, float], prefix: str, *labels: str) -> list[float]:
    return [v for k, v in metrics.items() if k.startswith(prefix) and all(x in k for x in labels)]


def test_metrics_and_canary_over_http(tmp_path: Path, cluster_a: Any, cluster_b: Any) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic = f"metered-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(30)
    _produce(a, topic, 0, 3_000)
    group = f"app-{uuid.uuid4().hex[:6]}"
    consumer = Consumer(quiet({"bootstrap.servers": a, "group.id": group}))
    consumer.commit(offsets=[TopicPartition(topic, 0, 500)], asynchronous=False)
    consumer.close()
    port = _free_port()
    config = _mm2_properties(
        tmp_path / "mm2.properties", a, b, topic,
        **{
            "emit.checkpoints.interval.seconds": "1",
            "seaway.metrics.port": str(port),
            "seaway.metrics.lag.interval.ms": "1000",
            "A->B.seaway.canary.enabled": "true",
            "seaway.canary.topic": f"canary-{uuid.uuid4().hex[:6]}",
            "seaway.canary.interval.ms": "500",
        },
    )  # fmt: skip
    proc = _start(config, tmp_path / "mm2.log")
    source = "kafka_connect_mirror_mirrorsourceconnector_"
    try:

        def caught_up() -> bool:
            m = _metrics(port)
            counts = _find(m, source + "record_count{", f'topic="A.{topic}"')
            lags = _find(m, source + "seaway_replication_lag{", f'topic="A.{topic}"')
            checkpoints = _find(
                m, "kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms{",
                f'group="{group}"',
            )  # fmt: skip
            canary = _find(m, "seaway_mirror_canary_canary_latency_ms{")
            return (
                sum(counts) == 3_000
                and len(lags) == 3
                and not any(lags)
                and bool(checkpoints)
                and bool(canary)
            )

        _wait("every metric", caught_up, timeout=180)
        metrics = _metrics(port)
        ages = _find(metrics, source + "record_age_ms_max{", f'topic="A.{topic}"')
        latencies = _find(metrics, source + "replication_latency_ms_avg{", f'topic="A.{topic}"')
        assert len(ages) == 3 and all(age >= 0 for age in ages)
        assert len(latencies) == 3 and all(lat >= 0 for lat in latencies)
        assert _find(metrics, "seaway_mirror_canary_canary_alarm_count{") == [0.0]

        # New records on A show as lag until copied, then go back to 0.
        _produce(a, topic, 3_000, 1_000)
        _wait(
            "the new records counted",
            lambda: (
                sum(_find(_metrics(port), source + "record_count{", f'topic="A.{topic}"')) == 4_000
            ),
        )
    finally:
        _stop(proc)
