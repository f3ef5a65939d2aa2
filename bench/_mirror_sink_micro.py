"""Micro-benchmark of a mirror task's copy loop, without Spark: ``seaway.mirror.copy.loop.
copy_range`` copies each partition of a topic on broker A to broker B, one range (one
"task") per partition, all in this process (as a reused Python worker runs the tasks of a
micro-batch one after the other).

Run from the repository root::

    .venv/bin/python -m bench._mirror_sink_micro                 # 400,000 records
    .venv/bin/python -m bench._mirror_sink_micro --records 100000 --repeat 1
    .venv/bin/python -m bench._mirror_sink_micro --librdkafka  # librdkafka on both sides

A and B are broker subprocesses. A's topic holds ``--records`` records of
``--value-size`` bytes (8-byte keys, no headers, CreateTime timestamps) over
``--partitions`` partitions. Each variant copies all of it into its own fresh remote topic
and offset-syncs topic. Timed per variant: wall seconds and this process's CPU seconds (all
threads, librdkafka's included) from the first range to the last summary (every record
acknowledged, offset syncs flushed). Best of ``--repeat`` by CPU.

Variants:

* ``copier``: ``copy_range`` at least once, with offset syncs, no metrics (the flow's
  default when no metrics endpoint is set).
* ``copier+metrics``: the same with MM2's metrics computed (``metrics`` on; the
  stats travel in the summaries, which the flow observes).
* ``copier+eos``: the exactly-once copy: one transaction per range with the MM2 offset
  record and the marker commit (a range that starts on a fresh transactional id pays for
  ``init_transactions`` once).
* ``floor``: fetch and produce the batches only, no reshaping, no syncs (not a valid
  mirror; the lower bound of the copy loop over the same fetcher and producer).

``--librdkafka`` puts librdkafka behind the fetcher and the producer on both clusters (as
for a SASL mechanism the batch client does not speak); by default the batch client does
both.

Checks: every variant's remote topic holds every record; the offset syncs each ``copier*``
variant wrote equal what MM2's per-record rule (``OffsetSyncWriter.maybe_queue_offset_syncs``
per acknowledged record, promoted at the end of each task) gives for the downstream offsets
the records landed at.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from bench._brokers import SeawayBroker
from bench._report import (
    CpuMeter,
    arg_parser,
    fmt,
    own_cpu,
    render_table,
    report_head,
    run_in_data_dir,
    us_per,
)
from bench._util import progress
from bench._workload import create_topics
from seaway.kafka import pool
from seaway.kafka.ranges import OffsetRange, range_producer
from seaway.mirror.copy.loop import copy_range
from seaway.mirror.copy.spec import MirrorCopySpec, RangeSummary
from seaway.mirror.formats import OffsetSync
from seaway.mirror.offset_syncs import OffsetSyncWriter
from seaway.spark.kafka.options import SourceOptions, parse_source_options
from seaway.spark.kafka.reader import fetch_range

SOURCE_TOPIC = "bench"
VARIANTS = ("copier", "copier+metrics", "copier+eos", "floor")


def copy_floor(
    spec: MirrorCopySpec, options: SourceOptions, r: OffsetRange, *, librdkafka: bool | None
) -> RangeSummary:
    """Fetch and produce the batches only (no reshaping, no syncs): a lower bound."""
    producer = range_producer(spec.target_producer, client_id="bench", librdkafka=librdkafka)
    remote, count = spec.remote_topics[r.topic], 0
    for batch in fetch_range(options, r, librdkafka=librdkafka):
        producer.send(remote, r.partition, batch.data)
        producer.take_acked()
        count += batch.header.records_count
    producer.flush()
    producer.take_acked()
    return RangeSummary(r.topic, r.partition, r.start, r.end, r.end - 1, count)


@dataclass(frozen=True)
class Measurement:
    """One variant's best run."""

    variant: str
    records: int
    wall: float
    cpu: float
    syncs: list[tuple[int, int, int]]
    expected_syncs: list[tuple[int, int, int]] | None

    @property
    def rate(self) -> float:
        """Records per second of wall time."""
        return self.records / self.wall

    @property
    def cpu_us(self) -> float | None:
        """CPU microseconds (this process, all threads) per record."""
        return us_per(self.cpu, self.records)


def read_topic(bootstrap: str, topic: str, partition: int) -> list[tuple[int, bytes, bytes]]:
    """(offset, key, value) of every record of one partition, read_committed."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "micro-check", "enable.partition.eof": True}
    )
    out: list[tuple[int, bytes, bytes]] = []
    try:
        consumer.assign([TopicPartition(topic, partition, 0)])
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for m in consumer.consume(10_000, 0.5):
                if m.error() is None:
                    out.append((m.offset(), m.key(), m.value()))
                elif m.error().code() == -191:  # _PARTITION_EOF
                    return out
        raise TimeoutError(f"{topic}[{partition}]: no end of partition in 120 s")
    finally:
        consumer.close()


def expected_syncs(
    b: str, remote: str, partitions: int, lag: int
) -> tuple[int, list[tuple[int, int, int]]]:
    """The records on B and the syncs MM2's per-record rule gives for where they landed
    (upstream offset from the value's record number, one task per partition)."""
    writer = OffsetSyncWriter(lag)
    out: list[tuple[int, int, int]] = []
    total = 0
    for p in range(partitions):
        rows = read_topic(b, remote, p)
        total += len(rows)
        for up, (down, _, _) in enumerate(rows):
            if writer.maybe_queue_offset_syncs((SOURCE_TOPIC, p), up, down):  # type: ignore[arg-type]
                out += [(s.partition, s.upstream_offset, s.downstream_offset)
                        for s in writer.take_pending_offset_syncs()]  # fmt: skip
        writer.promote_delayed_offset_syncs()
        out += [(s.partition, s.upstream_offset, s.downstream_offset)
                for s in writer.take_pending_offset_syncs()]  # fmt: skip
    return total, out


def read_syncs(bootstrap: str, topic: str) -> list[tuple[int, int, int]]:
    """(partition, upstream, downstream) of every offset sync in ``topic``."""
    out = []
    for _, key, value in read_topic(bootstrap, topic, 0):
        sync = OffsetSync.from_record(key, value)
        out.append((sync.partition, sync.upstream_offset, sync.downstream_offset))
    return out


def measure(
    variant: str, a: str, b: str, partitions: int, per_partition: int, librdkafka: bool | None
) -> Measurement:
    """Copy every partition with ``variant`` into fresh topics; check records and syncs."""
    suffix = uuid.uuid4().hex[:8]
    name = variant.replace("+", "-")
    remote, syncs_topic = f"A.{SOURCE_TOPIC}-{name}-{suffix}", f"syncs-{name}-{suffix}"
    create_topics(b, [remote], partitions)
    create_topics(b, [syncs_topic], 1)
    create_topics(b, [f"mm2-offsets-{suffix}"], 1)
    client = {"bootstrap.servers": b}
    spec = MirrorCopySpec(
        source_alias=f"A{suffix}",
        remote_topics={SOURCE_TOPIC: remote},
        target_producer=client,
        offsets_topic=f"mm2-offsets-{suffix}",
        offset_syncs_topic=None if variant == "floor" else syncs_topic,
        offset_syncs_producer=client,
        target_alias="B",
    )
    if variant == "copier+metrics":
        spec = dataclasses.replace(spec, metrics=True)
    if variant == "copier+eos":
        spec = dataclasses.replace(spec, exactly_once=True)
    isolation = "read_committed" if spec.exactly_once else "read_uncommitted"
    options = parse_source_options(
        {"kafka.bootstrap.servers": a, "subscribe": SOURCE_TOPIC,
         "kafka.isolation.level": isolation}, streaming=True
    )  # fmt: skip
    copy = copy_floor if variant == "floor" else copy_range
    meter, wall = CpuMeter(cpu=own_cpu), time.perf_counter()
    for partition in range(partitions):
        r = OffsetRange(SOURCE_TOPIC, partition, 0, per_partition)
        copy(spec, options, r, librdkafka=librdkafka)
    wall, cpu = time.perf_counter() - wall, meter.read()["cpu"]
    total, expected = expected_syncs(b, remote, partitions, spec.offset_lag_max)
    if total != partitions * per_partition:
        raise AssertionError(f"{variant}: {total:,} records in {remote}")
    if variant == "floor":
        return Measurement(variant, total, wall, cpu, [], None)
    return Measurement(variant, total, wall, cpu, read_syncs(b, syncs_topic), expected)


def fill_a(a: str, records: int, partitions: int, value_size: int) -> None:
    """Fill A's ``bench`` topic like bench/mirror.py."""
    from bench.mirror import fill_source

    create_topics(a, [SOURCE_TOPIC], partitions)
    filled = fill_source(a, records, partitions, value_size, {})
    progress(f"A filled at {filled.records_per_s:,.0f} rec/s")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = arg_parser("_mirror_sink_micro", __doc__)
    parser.add_argument("--records", type=int, default=400_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant (best kept)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"of {list(VARIANTS)}")
    parser.add_argument(
        "--librdkafka", action="store_true", help="librdkafka behind fetcher and producer"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every variant ``--repeat`` times, print the best of each and the checks."""
    args = parse_args(argv)
    variants = args.variants.split(",")
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown --variants {sorted(unknown)}; choose from {list(VARIANTS)}")
    return run_in_data_dir(args, "copy-micro", lambda root: run(args, variants, root))


def run(args: argparse.Namespace, variants: list[str], root: Path) -> dict[str, Any]:
    """The best of each variant; the JSON report (a sync mismatch is an error)."""
    per_partition = args.records // args.partitions
    records = per_partition * args.partitions
    broker_a, broker_b = SeawayBroker(root / "a", {}), SeawayBroker(root / "b", {})
    best: dict[str, Measurement] = {}
    try:
        a, pid_a = broker_a.start()
        b, pid_b = broker_b.start()
        progress(f"A on {a} (pid {pid_a}), B on {b} (pid {pid_b}); {records:,} records")
        fill_a(a, records, args.partitions, args.value_size)
        Producer({"bootstrap.servers": b}).list_topics(timeout=30)
        for round_ in range(args.repeat):
            for variant in variants:
                librdkafka = True if args.librdkafka else None
                m = measure(variant, a, b, args.partitions, per_partition, librdkafka)
                progress(
                    f"round {round_ + 1} {variant}: {m.rate:,.0f} rec/s, {m.cpu_us:.2f} us/rec"
                )
                if variant not in best or m.cpu < best[variant].cpu:
                    best[variant] = m
    finally:
        pool.close_all()  # the pooled clients first: they would call stopped brokers
        broker_b.stop()
        broker_a.stop()
    print(
        f"\nmirror copy loop (seaway.mirror.copy.loop.copy_range"
        f"{', librdkafka' if args.librdkafka else ''}), {records:,} records x "
        f"{args.value_size} B, {args.partitions} ranges of {per_partition:,}; best of "
        f"{args.repeat} (by CPU); CPU = this process, librdkafka threads included"
    )
    cells = [
        (variant, f"{m.rate:,.0f}", fmt(m.cpu_us), str(len(m.syncs)),
         "-" if m.expected_syncs is None else str(m.syncs == m.expected_syncs))
        for variant, m in best.items()
    ]  # fmt: skip
    print(render_table(("variant", "rec/s", "CPU us/rec", "syncs", "MM2 rule"), cells))
    return {
        **report_head("bench/_mirror_sink_micro.py"),
        "records": records,
        "best": {v: {"rate": m.rate, "cpu_us": m.cpu_us} for v, m in best.items()},
        "errors": [
            f"{v}: offset syncs differ from MM2's rule"
            for v, m in best.items()
            if m.expected_syncs not in (None, m.syncs)
        ],
    }


if __name__ == "__main__":
    sys.exit(main())
