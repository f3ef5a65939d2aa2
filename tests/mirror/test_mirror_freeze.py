"""A mirror flow through frozen clusters (issue 29, item 7).

Two brokers run as processes; a producer writes to A at a steady rate while
``seaway mirror-maker`` copies A -> B with exactly-once. A's broker is frozen (SIGSTOP)
for a while at a random point of the flow's cycle, then B's. Once both answer again the
flow must catch up by itself, every record exactly once and in order, and while B was
frozen (records waiting, nothing copied) the flow must have said so in its log.

``make test`` runs one short cycle; ``make soak`` (``SEAWAY_SOAK``) runs that many cycles
with longer, random freezes. The seed is printed so a failing run can be replayed
(``SEAWAY_FREEZE_SEED``).
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.broker import BrokerProcess
from tests.broker.clients import quiet
from tests.mirror.test_mirror_exactly_once import _committed, _committed_count
from tests.mirror.test_mirror_maker import PARTITIONS, _mm2_properties, _start, _stop, _values
from tests.soak import SOAK

pytestmark = pytest.mark.slow

CYCLES = SOAK  # one (freeze A, freeze B) cycle in make test
RATE = 4_000  # records per second into A
CATCH_UP_S = 90.0  # after the last thaw
STALL_MS = 3_000  # the flow's no-progress bound in this test
BROKER_CONFIG = {"group.initial.rebalance.delay.ms": 200, "num.partitions": PARTITIONS}


class SteadyProducer(threading.Thread):
    """Writes ``RATE`` records a second to *topic* until stopped; retries through outages
    (idempotent, so a frozen broker neither loses nor duplicates a record)."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(daemon=True)
        self.topic = topic
        self.sent = 0
        self.failed: list[str] = []
        self.producer = Producer(
            quiet(
                {
                    "bootstrap.servers": bootstrap,
                    "enable.idempotence": True,
                    "linger.ms": 5,
                    "message.timeout.ms": 600_000,
                }
            )
        )
        self._done = threading.Event()

    def _report(self, error: object, _message: object) -> None:
        if error is not None:
            self.failed.append(str(error))

    def run(self) -> None:
        start = time.monotonic()
        while not self._done.is_set():
            due = int((time.monotonic() - start) * RATE)
            while self.sent < due:
                try:
                    self.producer.produce(
                        self.topic, key=b"%d" % self.sent, value=b"r%d" % self.sent,
                        on_delivery=self._report,
                    )  # fmt: skip
                except BufferError:
                    break  # the queue is full while A is frozen: try again shortly
                self.sent += 1
            self.producer.poll(0.01)

    def finish(self) -> int:
        """Stop producing, wait for every record's acknowledgement; the count sent."""
        self._done.set()
        self.join(10)
        assert self.producer.flush(120) == 0, "records still unacknowledged after 120 s"
        assert not self.failed, self.failed[:5]
        return self.sent


def _freeze(broker: BrokerProcess, seconds: float) -> None:
    os.kill(broker.pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(broker.pid, signal.SIGCONT)


def test_flow_resumes_after_either_cluster_was_frozen(tmp_path: Path) -> None:
    seed = int(os.environ.get("SEAWAY_FREEZE_SEED", random.randrange(1 << 30)))
    print(f"SEAWAY_FREEZE_SEED={seed}")
    rng = random.Random(seed)
    topic = f"frozen-{uuid.uuid4().hex[:6]}"
    with (
        BrokerProcess(tmp_path / "a", config=BROKER_CONFIG) as cluster_a,
        BrokerProcess(tmp_path / "b", config=BROKER_CONFIG) as cluster_b,
    ):
        a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
        admin = AdminClient({"bootstrap.servers": a})
        admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
        config = _mm2_properties(
            tmp_path / "mm2.properties", a, b, topic,
            **{"B.exactly.once.source.support": "enabled",
               "seaway.metrics.lag.interval.ms": "1000",
               "seaway.flow.stall.timeout.ms": str(STALL_MS)},
        )  # fmt: skip
        log = tmp_path / "mm2.log"
        remote = f"A.{topic}"
        producer = SteadyProducer(a, topic)
        producer.start()
        proc = _start(config, log)
        try:
            deadline = time.monotonic() + 120
            while _committed_count(b, remote, 1_000) <= 1_000:
                assert time.monotonic() < deadline, "the flow did not start copying"
                time.sleep(0.5)
            for cycle in range(CYCLES):
                for broker in (cluster_a, cluster_b):
                    time.sleep(rng.uniform(0.2, 3.0))  # any point of the flow's cycle
                    seconds = 8.0 if CYCLES == 1 else rng.uniform(5.0, 30.0)
                    print(f"cycle {cycle}: freezing {broker.bootstrap_servers} {seconds:.1f} s")
                    _freeze(broker, seconds)
            thawed = time.monotonic()
            total = producer.finish()
            deadline = thawed + CATCH_UP_S
            while (copied := _committed_count(b, remote, total - 1)) < total:
                assert time.monotonic() < deadline, (
                    f"{copied} of {total} records on B {CATCH_UP_S:.0f} s after the last thaw "
                    f"(seed {seed}); mirror log:\n{log.read_text(errors='replace')[-6000:]}"
                )
                time.sleep(0.5)
            assert proc.poll() is None, "mirror-maker exited"
            deadline = time.monotonic() + 30  # the stall watch runs with the lag, every 1 s
            while "is making progress again" not in log.read_text(errors="replace"):
                assert time.monotonic() < deadline, "the end of the stall went unreported"
                time.sleep(0.5)
        finally:
            _stop(proc)
        source, copy = _values(a, topic), _committed(b, remote)
    for p in range(PARTITIONS):
        assert copy[p] == source[p], f"partition {p}: not the source's records once, in order"
    assert "has made no progress" in log.read_text(errors="replace"), "B's freeze unreported"
