"""The canary against two real clusters, with a tiny copier thread in place of the mirror."""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from seaway.broker import BrokerThread
from seaway.mirror.canary import CANARY_KEY, Canary, CanaryAlarm
from seaway.mirror.metrics import MirrorMetrics
from tests.broker.clients import create_topic, quiet

pytestmark = pytest.mark.waits

INTERVAL_S = 0.2
TIMEOUT_S = 1.5


class Copier:
    """Copies partition 0 of *source* on one cluster to *target* on another, as a mirror."""

    def __init__(self, source_bootstrap: str, target_bootstrap: str, source: str, target: str):
        self.consumer = Consumer(
            quiet(
                {
                    "bootstrap.servers": source_bootstrap,
                    "group.id": f"copier-{uuid.uuid4().hex[:6]}",
                    "enable.auto.commit": False,
                    "fetch.wait.max.ms": 20,
                }
            )
        )
        self.consumer.assign([TopicPartition(source, 0, OFFSET_BEGINNING)])
        self.producer = Producer(quiet({"bootstrap.servers": target_bootstrap, "linger.ms": 0}))
        self.target = target
        self.copied = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for m in self.consumer.consume(100, 0.05):
                if m.error() is None:
                    self.producer.produce(self.target, key=m.key(), value=m.value(), partition=0)
                    self.copied += 1
            self.producer.poll(0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.producer.flush(5)
        self.consumer.close()


def _wait(what: str, check: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def _names() -> tuple[str, str]:
    topic = f"canary-{uuid.uuid4().hex[:8]}"
    return topic, f"A.{topic}"


def test_canary_latency_then_alarm_when_the_mirror_stops(
    cluster_a: BrokerThread, cluster_b: BrokerThread, caplog: pytest.LogCaptureFixture
) -> None:
    source_topic, remote_topic = _names()
    create_topic(cluster_b.bootstrap_servers, remote_topic, partitions=1)
    alarms: list[CanaryAlarm] = []
    metrics = MirrorMetrics()
    canary = Canary(
        {"bootstrap.servers": cluster_a.bootstrap_servers},
        {"bootstrap.servers": cluster_b.bootstrap_servers},
        source_topic,
        remote_topic,
        INTERVAL_S,
        TIMEOUT_S,
        alarms.append,
        source_alias="A",
        target_alias="B",
        metrics=metrics,
        replication_factor=1,
    )
    caplog.set_level(logging.WARNING, logger="seaway.mirror.canary")
    with canary:
        copier = Copier(
            cluster_a.bootstrap_servers, cluster_b.bootstrap_servers, source_topic, remote_topic
        )
        try:
            _wait("5 canaries seen on B", lambda: canary.status().seen >= 5, 15)
            time.sleep(TIMEOUT_S)  # long enough for a lost canary to raise an alarm
            status = canary.status()
            assert (status.alarms, status.late, alarms) == (0, 0, [])
            assert (
                status.last_latency_ms is not None
                and 0 <= status.last_latency_ms < TIMEOUT_S * 1000
            )
            assert status.sent >= status.seen >= 5 and status.pending <= 3
            gauges = metrics.snapshot()["seaway.mirror:type=Canary,source=A,target=B"]
            assert 0 <= gauges["canary-latency-ms-max"] < TIMEOUT_S * 1000
            assert gauges["canary-alarm-count"] == 0 and gauges["canary-seen-count"] >= 5
        finally:
            copier.stop()
        stopped = time.monotonic()
        _wait("an alarm", lambda: alarms, TIMEOUT_S + 5)
        took = time.monotonic() - stopped
        assert took < TIMEOUT_S + 1.5, f"the alarm came {took:.1f} s after the mirror stopped"
        # The mirror comes back and copies everything again: the alarmed canaries arrive
        # late, the ones already seen are not counted twice.
        seen_before = canary.status().seen
        copier = Copier(
            cluster_a.bootstrap_servers, cluster_b.bootstrap_servers, source_topic, remote_topic
        )
        try:
            _wait("a late canary", lambda: canary.status().late >= 1, 10)
        finally:
            copier.stop()
        status = canary.status()
        assert status.seen <= status.sent, "a canary copied twice was counted twice"
        assert status.seen > seen_before
    alarm = alarms[0]
    assert (alarm.source, alarm.target, alarm.remote_topic) == ("A", "B", remote_topic)
    assert alarm.waited_s >= TIMEOUT_S
    assert canary.status().alarms == len(alarms)
    assert any("arrived on B late" in r.getMessage() for r in caplog.records)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any(
        re.fullmatch(
            rf"Canary {re.escape(alarm.id)} sent to A at \S+ not seen on B after 1\.\d s", e
        )
        for e in errors
    ), errors
    gauges = metrics.snapshot()["seaway.mirror:type=Canary,source=A,target=B"]
    assert gauges["canary-alarm-count"] >= 1


def test_canary_topic_and_records(cluster_a: BrokerThread, cluster_b: BrokerThread) -> None:
    """The canary creates its 1-partition topic and writes only small keyed JSON records;
    a remote topic created after the canary started is still watched."""
    source_topic, remote_topic = _names()
    canary = Canary(
        {"bootstrap.servers": cluster_a.bootstrap_servers},
        {"bootstrap.servers": cluster_b.bootstrap_servers},
        source_topic,
        remote_topic,
        INTERVAL_S,
        10.0,
        source_alias="A",
        target_alias="B",
        metrics=MirrorMetrics(),
        replication_factor=1,
    )
    with canary:
        _wait("3 canaries sent", lambda: canary.status().sent >= 3, 10)
        create_topic(cluster_b.bootstrap_servers, remote_topic, partitions=1)  # as the flow would
        copier = Copier(
            cluster_a.bootstrap_servers, cluster_b.bootstrap_servers, source_topic, remote_topic
        )
        try:
            _wait(
                "canaries seen after the remote topic appeared",
                lambda: canary.status().seen >= 3,
                15,
            )
        finally:
            copier.stop()
    consumer = Consumer(
        quiet({"bootstrap.servers": cluster_a.bootstrap_servers, "group.id": "peek"})
    )
    try:
        metadata = consumer.list_topics(source_topic, timeout=10).topics[source_topic]
        assert len(metadata.partitions) == 1
        consumer.assign([TopicPartition(source_topic, 0, OFFSET_BEGINNING)])
        message = _wait("a canary record", lambda: consumer.poll(0.5), 10)
        assert message.key() == CANARY_KEY
        assert re.fullmatch(rb'\{"id": "[0-9a-f]{12}-1", "sent_ms": \d{13}\}', message.value())
    finally:
        consumer.close()
    assert canary.status().alarms == 0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match=r"seaway\.canary\.interval\.ms"):
        Canary({}, {}, "c", "A.c", 0, 1)
