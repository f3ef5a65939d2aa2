"""The latency benchmarks' parts: a paced producer that stamps each value with its send
time, and a probe (a process of its own, so it shares no GIL with the producer) that
consumes a topic and reports, for every measured record, its arrival time minus that
stamp (one clock: ``time.time_ns()`` of one machine).

A value is ``<send ns, 19 digits> <phase><sequence, 10 digits> `` padded with ``.`` to the
value size: phase ``w`` (warm-up), ``m`` (measured, sequence 0, 1, ...) or ``c``
(cool-down, after the measured window),
ASCII without tab or newline, so line-framed pipes (kcat) carry it unchanged.

``python -m bench._latency --bootstrap ... --topic ... --partitions ...`` is the probe: it
waits for the topic, reads every partition from the beginning and prints ``ready``, then
``first`` at the first record; given ``end N`` on stdin it waits for measured records
0..N-1 (or ``--drain-timeout``) and prints one JSON line (:class:`ProbeResult`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from array import array
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    Message,
    Producer,
    TopicPartition,
)

#: Bytes of the stamp: send time, phase, sequence, and their separators.
STAMP_BYTES = 32
_STAMP = b"%019d %c%010d "
WARMUP, MEASURED, COOLDOWN = ord("w"), ord("m"), ord("c")
#: The producer sends what is due every TICK_S.
TICK_S = 0.001
#: Percentiles reported, by name.
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p99.9": 99.9}
#: Measured records whose sequence the probe lists when they are missing.
MISSING_LISTED = 20


def stamp(send_ns: int, phase: int, sequence: int, size: int) -> bytes:
    """A record value of *size* bytes carrying its send time, phase and sequence."""
    head = _STAMP % (send_ns, phase, sequence)
    return head + b"." * (size - len(head))


def read_stamp(value: bytes) -> tuple[int, int, int]:
    """``(send ns, phase, sequence)`` of a value made by :func:`stamp`."""
    return int(value[:19]), value[20], int(value[21:31])


def percentile(ordered: Sequence[float], pct: float) -> float | None:
    """The nearest-rank percentile of an ascending sequence (None when empty)."""
    if not ordered:
        return None
    rank = max(1, -(-len(ordered) * pct // 100))  # ceil(n * pct / 100)
    return ordered[min(len(ordered), int(rank)) - 1]


# --------------------------------------------------------------------------- producer


@dataclass
class ProducerStats:
    """What the paced producer did; times in ``time.time_ns()`` and seconds."""

    rate: float
    warmup_records: int = 0
    measured_records: int = 0
    #: Wall clock (ns) of the measured window's first and last send.
    window_start_ns: int = 0
    window_end_ns: int = 0
    #: The longest gap between two ticks (a tick sends what fell due since the last).
    max_tick_gap_ms: float = 0.0
    delivery_errors: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def window_seconds(self) -> float:
        return (self.window_end_ns - self.window_start_ns) / 1e9

    @property
    def achieved_rate(self) -> float | None:
        """Measured records per second of the measured window."""
        seconds = self.window_seconds
        return self.measured_records / seconds if seconds > 0 else None


class PacedProducer(threading.Thread):
    """Produces *rate* records/s round-robin over a topic's partitions, in ticks of
    ``TICK_S`` (each sends what fell due since the last): warm-up records, at *ready_rate*
    until :meth:`full_rate` (a copy that starts slowly gets no backlog to catch up), until
    :meth:`measure`, then ``rate * seconds`` measured records (``window_done`` is set after
    the last), then cool-down records until :meth:`stop`, so that nothing waits for more
    input at the end (kcat -P holds its last lines until more arrive), then it flushes."""

    def __init__(
        self,
        bootstrap: str,
        topic: str,
        partitions: int,
        rate: float,
        seconds: float,
        value_size: int,
        settings: dict[str, Any],
        ready_rate: float = 100.0,
    ) -> None:
        super().__init__(name="paced-producer", daemon=True)
        self.ready_rate = min(ready_rate, rate)
        self.topic = topic
        self.partitions = partitions
        self.count = round(rate * seconds)
        self.value_size = value_size
        self.stats = ProducerStats(rate=rate)
        self.config = {
            "bootstrap.servers": bootstrap,
            "queue.buffering.max.messages": 2_000_000,
            "queue.buffering.max.kbytes": 2_097_151,
            "delivery.report.only.error": True,
            "on_delivery": self._delivered,
            **settings,
        }
        self.window_done = threading.Event()
        self._full = threading.Event()
        self._measuring = threading.Event()
        self._halt = threading.Event()

    def _delivered(self, error: KafkaError | None, _message: Message) -> None:
        if error is not None:
            self.stats.delivery_errors += 1
            if len(self.stats.errors) < 5:
                self.stats.errors.append(str(error))

    def full_rate(self) -> None:
        """Go from *ready_rate* to the full rate at the next tick."""
        self._full.set()

    def measure(self) -> None:
        """Start the measured window at the next tick (at the full rate)."""
        self._full.set()
        self._measuring.set()

    def stop(self) -> None:
        """Stop producing, flush and end."""
        self._halt.set()

    def run(self) -> None:
        producer = Producer(self.config)
        producer.list_topics(self.topic, timeout=30)
        stats, produce, size = self.stats, producer.produce, self.value_size
        sent = 0
        # Records [first, last) of the schedule are the measured ones.
        first = last = 1 << 62
        # The schedule: *base* records by *since*, then *rate* records/s.
        rate, base, since = self.ready_rate, 0, time.monotonic()
        previous = since
        while not self._halt.is_set():
            now = time.monotonic()
            if rate != stats.rate and self._full.is_set():
                rate, base, since = stats.rate, base + int((now - since) * rate), now
            due = base + int((now - since) * rate)
            if first <= sent < last:
                stats.max_tick_gap_ms = max(stats.max_tick_gap_ms, (now - previous) * 1000)
            previous = now
            if first > due and self._measuring.is_set():
                first, last = due, due + self.count
                stats.warmup_records = due
                stats.window_start_ns = time.time_ns()
            for index in range(sent, due):
                if index < first:
                    value = stamp(time.time_ns(), WARMUP, index, size)
                elif index < last:
                    value = stamp(time.time_ns(), MEASURED, index - first, size)
                else:
                    value = stamp(time.time_ns(), COOLDOWN, index, size)
                while True:
                    try:
                        produce(self.topic, value, partition=index % self.partitions)
                        break
                    except BufferError:
                        producer.poll(0.001)
                if index == last - 1:
                    stats.measured_records = self.count
                    stats.window_end_ns = time.time_ns()
                    self.window_done.set()
            sent = max(sent, due)
            producer.poll(0)
            time.sleep(TICK_S)
        if left := producer.flush(60):
            stats.errors.append(f"{left} records unacknowledged 60 s after the stop")


# --------------------------------------------------------------------------- probe


@dataclass
class ProbeResult:
    """What a probe saw of the measured records; latencies in milliseconds."""

    topic: str
    expected: int
    received: int
    missing: int
    duplicates: int
    warmup_received: int
    #: Sequences of the first missing records.
    missing_sequences: list[int]
    latency_ms: dict[str, float | None]
    #: Per second of the measured window (by send time): [p50, max] in ms.
    per_second_ms: list[tuple[float | None, float | None]]
    drain_seconds: float

    @property
    def complete(self) -> bool:
        return self.missing == 0


def summarise(
    topic: str,
    expected: int,
    latencies: array[int],
    sent_at: array[int],
    seen: bytearray,
    duplicates: int,
    warmup: int,
    drain_seconds: float,
) -> ProbeResult:
    """The probe's result from the latencies (ns) and send times (ns) of its records."""
    received = sum(seen[:expected])
    missing = [s for s in range(expected) if s >= len(seen) or not seen[s]]
    ordered = sorted(latencies)
    figures: dict[str, float | None] = {
        name: _ms(percentile(ordered, pct)) for name, pct in PERCENTILES.items()
    }
    figures["max"] = _ms(ordered[-1] if ordered else None)
    figures["min"] = _ms(ordered[0] if ordered else None)
    figures["mean"] = _ms(sum(ordered) / len(ordered) if ordered else None)
    seconds: dict[int, list[int]] = {}
    origin = min(sent_at) if sent_at else 0
    for sent, latency in zip(sent_at, latencies, strict=True):
        seconds.setdefault((sent - origin) // 1_000_000_000, []).append(latency)
    per_second = []
    for second in range(max(seconds, default=-1) + 1):
        values = sorted(seconds.get(second, []))
        per_second.append((_ms(percentile(values, 50)), _ms(values[-1] if values else None)))
    return ProbeResult(
        topic=topic,
        expected=expected,
        received=received,
        missing=len(missing),
        duplicates=duplicates,
        warmup_received=warmup,
        missing_sequences=missing[:MISSING_LISTED],
        latency_ms=figures,
        per_second_ms=per_second,
        drain_seconds=drain_seconds,
    )


def _ms(ns: float | None) -> float | None:
    return None if ns is None else ns / 1e6


def _wait_for_topic(consumer: Consumer, topic: str, partitions: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        found = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if found is not None and found.error is None and len(found.partitions) == partitions:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"topic {topic} with {partitions} partitions did not appear")
        time.sleep(0.2)


class _Orders(threading.Thread):
    """Reads ``end N`` from stdin: the measured records to wait for."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.expected: int | None = None
        self.at = 0.0
        self.closed = False

    def run(self) -> None:
        for line in sys.stdin:
            word, _, count = line.partition(" ")
            if word == "end":
                self.at = time.monotonic()
                self.expected = int(count)
        self.closed = True


def probe(args: argparse.Namespace) -> ProbeResult | None:
    """Consume until the measured records are in; None when stdin closed first."""
    consumer = Consumer(
        {
            "bootstrap.servers": args.bootstrap,
            "group.id": f"latency-probe-{args.topic}",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": args.fetch_wait_ms,
            "isolation.level": args.isolation,
        }
    )
    orders = _Orders()
    orders.start()
    latencies, sent_at = array("q"), array("q")
    seen = bytearray()
    duplicates = warmup = 0
    try:
        _wait_for_topic(consumer, args.topic, args.partitions, args.topic_timeout)
        consumer.assign(
            [TopicPartition(args.topic, p, OFFSET_BEGINNING) for p in range(args.partitions)]
        )
        print("ready", flush=True)
        first = False
        while not orders.closed:
            messages = consumer.consume(1000, 0.05)
            now = time.time_ns()
            for message in messages:
                value = message.value()
                if message.error() is not None or value is None:
                    continue
                sent, phase, sequence = read_stamp(value)
                if phase != MEASURED:
                    warmup += phase == WARMUP
                    continue
                if sequence >= len(seen):
                    seen.extend(bytes(sequence + 1 - len(seen) + 65536))
                if seen[sequence]:
                    duplicates += 1
                    continue
                seen[sequence] = 1
                latencies.append(now - sent)
                sent_at.append(sent)
            if messages and not first:
                first = True
                print("first", flush=True)
            expected = orders.expected
            if expected is not None:
                done = len(latencies) >= expected and all(seen[:expected])
                if done or time.monotonic() - orders.at > args.drain_timeout:
                    drained = time.monotonic() - orders.at
                    return summarise(
                        args.topic, expected, latencies, sent_at, seen, duplicates, warmup, drained
                    )
        return None
    finally:
        consumer.close()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench._latency")
    add = parser.add_argument
    add("--bootstrap", required=True)
    add("--topic", required=True)
    add("--partitions", type=int, required=True)
    add("--isolation", choices=("read_uncommitted", "read_committed"), default="read_uncommitted")
    add("--fetch-wait-ms", type=int, default=5, help="the consumer's fetch.wait.max.ms")
    add("--topic-timeout", type=float, default=300.0, help="how long to wait for the topic")
    add("--drain-timeout", type=float, default=60.0, help="after 'end N', at most this long")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    result = probe(parse_args(argv))
    if result is None:
        return 1
    print(json.dumps(asdict(result)), flush=True)
    return 0


# --------------------------------------------------------------------------- probe handle


class Probe:
    """A probe process as the benchmark sees it: start, wait for ``first``, ``end N``."""

    def __init__(self, args: Sequence[str], log: Path) -> None:
        self.command = [sys.executable, "-m", "bench._latency", *args]
        self.log = log
        self.first = threading.Event()
        self.ready = threading.Event()
        self.result: ProbeResult | None = None
        self.process: subprocess.Popen[str] | None = None
        self._done = threading.Event()

    def start(self) -> None:
        with self.log.open("a") as err:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                cwd=Path(__file__).resolve().parent.parent,
            )
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[str]) -> None:
        for line in stdout:
            if line.startswith("ready"):
                self.ready.set()
            elif line.startswith("first"):
                self.first.set()
            elif line.startswith("{"):
                self.result = ProbeResult(**json.loads(line))
        self._done.set()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def end(self, expected: int) -> None:
        """Tell it how many measured records were sent."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(f"end {expected}\n")
        self.process.stdin.flush()

    def wait(self, timeout: float) -> ProbeResult:
        """Its result, once it printed it."""
        if not self._done.wait(timeout) or self.result is None:
            raise RuntimeError(f"probe {self.command} gave no result; see {self.log}")
        return self.result

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()


if __name__ == "__main__":
    sys.exit(main())
