"""Micro-benchmark of the mirror sink's copy loop, without Spark: Arrow batches shaped like
the Kafka source's rows go through ``seaway.mirror.sink.copy_batches`` as it is now, and
through a proposed rewrite, to a broker subprocess ("B").

Run from the repository root::

    .venv/bin/python -m bench._mirror_sink_micro                 # 400,000 records
    .venv/bin/python -m bench._mirror_sink_micro --records 100000 --repeat 1

Each variant copies the same ``--records`` 100-byte records (8-byte keys, no headers,
CreateTime timestamps), ``--partitions`` source partitions of 10,000-row batches, one
"task" (one call) per partition, all in this process (as a reused Python worker runs the
tasks of a micro-batch one after the other), into its own fresh remote topic and
offset-syncs topic. Timed per variant: wall seconds and this process's CPU seconds (all
threads, librdkafka's included) from the first call to the last return (every record
acknowledged, offset syncs flushed). Best of ``--repeat``.

Variants:

* ``current``: ``seaway.mirror.sink.copy_batches`` (whatever the working tree holds).
* ``proposed``: :func:`copy_batches_proposed` below: producers cached per Python worker,
  positional ``produce()`` without a kwargs dict, one delivery callback object per
  partition (no closure per record) that appends downstream offsets to a list, paired
  with the upstream offsets in produce order (``enable.idempotence=true`` keeps delivery
  reports in produce order per partition) and folded after every batch so memory stays
  bounded by the records in flight, ``poll(0)`` once per batch, timestamps converted with
  one Arrow kernel, headers converted only where a row has some, and MM2's offset-sync
  rule run over the two offset lists (:func:`queue_offset_syncs_run`) instead of one
  ``maybe_queue_offset_syncs`` call per record.
* ``proposed+closures``, ``proposed+record-syncs``, ``proposed+new-producer``: ``proposed``
  with one part of the current code put back (a closure per record; one
  ``maybe_queue_offset_syncs`` call per record; a new producer per task), to price each.
* ``fused`` (only when named in ``--variants``): a second broker A holds the same records;
  one loop per partition consumes them from A and produces them the ``proposed`` way
  (no Arrow, no Spark): the cost of a mirror task that reads and writes in one Python
  process, e.g. a Python data source whose reader produces to B itself.
* ``floor``: the produce loop alone: no delivery callbacks, no offset syncs (not a valid
  mirror; the lower bound of a Python produce loop).

Checks: every variant's remote topic holds every record; every ``proposed*`` variant and
``fused`` emit exactly the offset syncs ``current`` emits and report the same copied offsets.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from confluent_kafka import Consumer, Producer, TopicPartition

from bench._brokers import SeawayBroker
from bench._util import progress
from bench._workload import CONSUMER_CONFIG, create_topics
from bench.broker import fmt
from seaway.connect.api.structs import TopicPartition as ConnectTopicPartition
from seaway.mirror import sink
from seaway.mirror.formats import OffsetSync
from seaway.mirror.offset_syncs import OffsetSyncWriter, PartitionState
from seaway.mirror.sink import MirrorCommitMessage, MirrorSinkSpec
from seaway.spark.kafka.schema import arrow_schema

SOURCE_TOPIC = "bench"
BATCH_ROWS = 10_000
_TIMEOUT_S = 60.0

# --------------------------------------------------------------------------- the proposal

_PRODUCERS: dict[tuple[tuple[str, Any], ...], Producer] = {}
_PRODUCER_DEFAULTS: dict[str, Any] = {
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "reconnect.backoff.ms": 10,
    "queue.buffering.max.messages": 200_000,
}


def cached_producer(config: dict[str, Any]) -> Producer:
    """One producer per config per Python worker, reused by every task (as the reader
    pools its consumers): no connection, metadata and producer-id set-up per task."""
    full = {**_PRODUCER_DEFAULTS, **config}
    key = tuple(sorted(full.items()))
    producer = _PRODUCERS.get(key)
    if producer is None:
        producer = _PRODUCERS[key] = Producer(full)
        producer.list_topics(timeout=_TIMEOUT_S)  # connect first (no 500 ms PID stall)
    return producer


class PartitionAcks:
    """Delivery reports of one source partition's rows: one callable for all of them.

    The upstream offsets of the rows produced wait in ``upstream``; each report appends
    the downstream offset to ``downstream`` (idempotence keeps the reports of a partition
    in produce order, so the i-th report is the i-th row). :meth:`fold` pairs what was
    acknowledged so far, runs MM2's sync rule over it and forgets it, so memory is bounded
    by the records in flight, not by the task's size.
    """

    __slots__ = ("downstream", "errors", "last", "last_downstream", "partition", "topic")
    __slots__ += ("upstream",)

    def __init__(self, topic: str, partition: int, errors: list[str]) -> None:
        self.topic = topic
        self.partition = partition
        self.upstream: list[int] = []
        self.downstream: list[int] = []
        self.errors = errors
        self.last = -1  # last upstream offset acknowledged
        self.last_downstream = -1

    def __call__(self, err: Any, msg: Any) -> None:
        if err is None:
            self.downstream.append(msg.offset())
        else:
            self.errors.append(f"{self.topic}-{self.partition}: {err}")

    def fold(self, writer: OffsetSyncWriter | None, per_record: bool = False) -> list[OffsetSync]:
        """Pair the acknowledged rows with their upstream offsets; the syncs due."""
        down = self.downstream
        if not down:
            return []
        if down[0] <= self.last_downstream or any(a >= b for a, b in itertools.pairwise(down)):
            raise RuntimeError(f"Delivery reports of {self.topic}-{self.partition} out of order")
        count = len(down)
        up = self.upstream[:count]
        del self.upstream[:count]
        self.downstream = []
        self.last, self.last_downstream = up[-1], down[-1]
        if writer is None:
            return []
        if not per_record:
            return queue_offset_syncs_run(writer, self.topic, self.partition, up, down)
        syncs: list[OffsetSync] = []  # the current code's way, to price it
        tp = ConnectTopicPartition(self.topic, self.partition)
        for upstream, downstream in zip(up, down, strict=True):
            if writer.maybe_queue_offset_syncs(tp, upstream, downstream):
                syncs += writer.take_pending_offset_syncs()
        return syncs


def queue_offset_syncs_run(
    writer: OffsetSyncWriter, topic: str, partition: int, upstream: list[int], downstream: list[int]
) -> list[OffsetSync]:
    """MM2's rule over a run of acknowledged records of one partition, in upstream order.

    Same result as ``maybe_queue_offset_syncs`` per pair, taking the pending syncs after
    each immediate one (what ``_emit_offset_syncs`` does), but objects are only built for
    syncs. Would be a method of OffsetSyncWriter (it touches its state; here from outside).
    """
    if not upstream:
        return []
    tp = ConnectTopicPartition(topic, partition)
    state = writer._states.get(tp)
    if state is None:
        state = writer._states[tp] = PartitionState(writer.max_offset_lag)
    lag = state.max_offset_lag
    prev_up, prev_down = state.previous_upstream_offset, state.previous_downstream_offset
    last_sync = state.last_sync_downstream_offset
    syncs: list[OffsetSync] = []
    immediate = False
    for up, down in zip(upstream, downstream, strict=True):
        immediate = (
            last_sync == -1
            or down - (last_sync + 1) >= lag
            or up - prev_up != 1
            or down < prev_down
        )
        if immediate:
            last_sync = down
            syncs.append(OffsetSync(topic, partition, up, down))
        prev_up, prev_down = up, down
    state.previous_upstream_offset, state.previous_downstream_offset = prev_up, prev_down
    state.last_sync_downstream_offset = last_sync
    with writer._lock:
        if immediate:
            writer._delayed.pop(tp, None)
        else:
            writer._delayed[tp] = OffsetSync(topic, partition, prev_up, prev_down)
    return syncs


def _runs(batch: pa.RecordBatch) -> list[tuple[str, int, pa.RecordBatch]]:
    """The batch per source topic-partition (the reader's batches hold exactly one)."""
    names = batch.schema.names
    topics, partitions = batch.column(names.index("topic")), batch.column(names.index("partition"))
    topic, partition = topics[0].as_py(), partitions[0].as_py()
    same = pc.and_(pc.equal(topics, topic), pc.equal(partitions, partition))
    if pc.all(same).as_py():
        return [(topic, partition, batch)]
    table = pa.Table.from_batches([batch])
    out = []
    for key in table.group_by(["topic", "partition"]).aggregate([]).to_pylist():
        mask = pc.and_(pc.equal(topics, key["topic"]), pc.equal(partitions, key["partition"]))
        out.append((key["topic"], key["partition"], batch.filter(mask)))
    return out


def _produce_run(
    producer: Producer,
    remote: str,
    partition: int,
    batch: pa.RecordBatch,
    on_delivery: Callable[[Any, Any], None] | None,
    closures: bool = False,
) -> None:
    names = batch.schema.names
    column = batch.column
    keys = column(names.index("key")).to_pylist()
    values = column(names.index("value")).to_pylist()
    stamps = column(names.index("timestamp")).cast(pa.int64())
    millis = pc.fill_null(pc.divide(stamps, 1000), 0).to_pylist()  # 0: librdkafka's "now"
    headers = column(names.index("headers")) if "headers" in names else None
    produce, poll = producer.produce, producer.poll
    if headers is not None and headers.null_count < len(headers):
        rows = headers.to_pylist()
        hdrs = [[(h["key"], h["value"]) for h in r] if r else None for r in rows]
    else:
        hdrs = None
    offsets = column(names.index("offset")).to_pylist() if closures else None
    for i, (key, value, ts) in enumerate(zip(keys, values, millis, strict=True)):
        callback = on_delivery
        if closures:
            assert offsets is not None and isinstance(on_delivery, PartitionAcks)
            callback = _closure(on_delivery, offsets[i])
        while True:
            try:
                if hdrs is None:
                    produce(remote, value, key, partition, callback, None, ts)
                else:
                    produce(remote, value, key, partition, callback, None, ts, hdrs[i])
                break
            except BufferError:
                poll(0.05)
    poll(0)


def _closure(acks: PartitionAcks, upstream: int) -> Callable[[Any, Any], None]:
    """A callback per record, as ``seaway.mirror.sink._Acks.callback`` makes."""

    def on_delivery(err: Any, msg: Any) -> None:
        if err is not None:
            acks.errors.append(f"{acks.topic}-{acks.partition}@{upstream}: {err}")
        else:
            acks.downstream.append(msg.offset())

    return on_delivery


def copy_batches_proposed(
    spec: MirrorSinkSpec,
    batches: Iterator[pa.RecordBatch],
    closures: bool = False,
    per_record_syncs: bool = False,
    fresh_producer: bool = False,
) -> MirrorCommitMessage:
    """The proposed ``copy_batches``: same records, same syncs, same commit message.

    The flags put back one part of the current code each, to price it: a closure per
    record, ``maybe_queue_offset_syncs`` per record, a new producer per task.
    """
    config = {"acks": "all", "enable.idempotence": True, **spec.target_producer}
    if fresh_producer:
        config["client.id"] = uuid.uuid4().hex  # a cache miss: a new producer per task
    producer = cached_producer(config)
    writer = sink._sync_writer(spec) if spec.offset_syncs_topic else None
    errors: list[str] = []
    acks: dict[tuple[str, int], PartitionAcks] = {}
    syncs: list[OffsetSync] = []
    count = 0
    for batch in batches:
        for topic, partition, rows in _runs(batch):
            remote = spec.remote_topics.get(topic)
            if remote is None:
                raise RuntimeError(f"No remote topic known for source topic {topic}")
            run = acks.get((topic, partition))
            if run is None:
                run = acks[(topic, partition)] = PartitionAcks(topic, partition, errors)
            run.upstream += rows.column(rows.schema.names.index("offset")).to_pylist()
            _produce_run(producer, remote, partition, rows, run, closures)
            count += rows.num_rows
        for run in acks.values():  # what poll(0) acknowledged
            syncs += run.fold(writer, per_record_syncs)
    remaining = producer.flush(_TIMEOUT_S)
    if remaining or errors:
        raise RuntimeError(
            f"Mirroring to {sorted(set(spec.remote_topics.values()))} failed: "
            f"{errors[:5] or f'{remaining} records unacknowledged after {_TIMEOUT_S}s'}"
        )
    for _, run in sorted(acks.items()):
        syncs += run.fold(writer, per_record_syncs)
    if writer is not None:
        writer.promote_delayed_offset_syncs()  # as on a Connect offset commit
        syncs += writer.take_pending_offset_syncs()
    if syncs and spec.offset_syncs_topic:
        syncs_producer = cached_producer(spec.offset_syncs_producer)
        for sync in syncs:
            syncs_producer.produce(
                spec.offset_syncs_topic, sync.record_value(), sync.record_key(), 0
            )
        if syncs_producer.flush(_TIMEOUT_S):
            raise RuntimeError(f"Could not send offset syncs to {spec.offset_syncs_topic}")
    copied = [(t, p, run.last) for (t, p), run in sorted(acks.items()) if run.last >= 0]
    if fresh_producer:
        _PRODUCERS.pop(tuple(sorted({**_PRODUCER_DEFAULTS, **config}.items())), None)
    return MirrorCommitMessage(copied, count)


def copy_floor(spec: MirrorSinkSpec, batches: Iterator[pa.RecordBatch]) -> MirrorCommitMessage:
    """Produce only: no delivery callbacks, no syncs (a lower bound, not a mirror)."""
    producer = cached_producer({"acks": "all", **spec.target_producer})
    count = 0
    for batch in batches:
        for topic, partition, rows in _runs(batch):
            _produce_run(producer, spec.remote_topics[topic], partition, rows, None)
            count += rows.num_rows
    if producer.flush(_TIMEOUT_S):
        raise RuntimeError("records unacknowledged")
    return MirrorCommitMessage([], count)


def copy_fused(
    spec: MirrorSinkSpec, consumer: Consumer, partition: int, end: int
) -> MirrorCommitMessage:
    """Consume ``[0, end)`` of one source partition and produce it as ``proposed`` does, in
    one loop (no Arrow, no Spark): what a mirror task reading *and* writing costs."""
    producer = cached_producer({"acks": "all", "enable.idempotence": True, **spec.target_producer})
    remote = spec.remote_topics[SOURCE_TOPIC]
    errors: list[str] = []
    run = PartitionAcks(SOURCE_TOPIC, partition, errors)
    consumer.assign([TopicPartition(SOURCE_TOPIC, partition, 0)])
    produce, poll, upstream = producer.produce, producer.poll, run.upstream
    position = 0
    while position < end:
        messages = consumer.consume(min(BATCH_ROWS, end - position), 1.0)
        for message in messages:
            if message.error() is not None:
                raise RuntimeError(str(message.error()))
            upstream.append(message.offset())
            _, ts = message.timestamp()
            headers = message.headers()
            while True:
                try:
                    if headers is None:
                        produce(remote, message.value(), message.key(), partition, run, None, ts)
                    else:
                        produce(
                            remote, message.value(), message.key(), partition, run, None, ts,
                            headers,
                        )  # fmt: skip
                    break
                except BufferError:
                    poll(0.05)
        if messages:
            position = messages[-1].offset() + 1
        poll(0)
    consumer.unassign()
    if producer.flush(_TIMEOUT_S) or errors:
        raise RuntimeError(f"fused copy of partition {partition} failed: {errors[:3]}")
    count = len(upstream)
    writer = sink._sync_writer(spec) if spec.offset_syncs_topic else None
    syncs = run.fold(writer)
    if writer is not None and spec.offset_syncs_topic:
        writer.promote_delayed_offset_syncs()
        syncs += writer.take_pending_offset_syncs()
        syncs_producer = cached_producer(spec.offset_syncs_producer)
        for sync in syncs:
            syncs_producer.produce(
                spec.offset_syncs_topic, sync.record_value(), sync.record_key(), 0
            )
        if syncs_producer.flush(_TIMEOUT_S):
            raise RuntimeError(f"Could not send offset syncs to {spec.offset_syncs_topic}")
    return MirrorCommitMessage([(SOURCE_TOPIC, partition, run.last)], count)


VARIANTS: dict[str, Callable[[MirrorSinkSpec, Iterator[pa.RecordBatch]], MirrorCommitMessage]] = {
    "current": sink.copy_batches,
    "proposed": copy_batches_proposed,
    "proposed+closures": lambda spec, b: copy_batches_proposed(spec, b, closures=True),
    "proposed+record-syncs": lambda spec, b: copy_batches_proposed(spec, b, per_record_syncs=True),
    "proposed+new-producer": lambda spec, b: copy_batches_proposed(spec, b, fresh_producer=True),
    "floor": copy_floor,
}


# --------------------------------------------------------------------------- the run


def make_batches(partition: int, records: int, value_size: int) -> list[pa.RecordBatch]:
    """The Kafka source's rows for ``records`` records of one partition, 10k per batch."""
    schema = arrow_schema(include_headers=True)
    filler = (b"mirror-bench-" * (value_size // 13 + 1))[: value_size - 12]
    now_us = int(time.time() * 1e6)
    out = []
    for start in range(0, records, BATCH_ROWS):
        n = min(BATCH_ROWS, records - start)
        offsets = range(start, start + n)
        arrays = [
            pa.array([b"k%07d" % (o % 10_000_000) for o in offsets], pa.binary()),
            pa.array([b"%012d" % o + filler for o in offsets], pa.binary()),
            pa.repeat(pa.scalar(SOURCE_TOPIC, pa.string()), n),
            pa.repeat(pa.scalar(partition, pa.int32()), n),
            pa.array(offsets, pa.int64()),
            pa.array([now_us + o for o in offsets], pa.timestamp("us", tz="UTC")),
            pa.repeat(pa.scalar(0, pa.int32()), n),
            pa.nulls(n, schema.field("headers").type),
        ]
        out.append(pa.RecordBatch.from_arrays(arrays, schema=schema))
    return out


@dataclass(frozen=True)
class Measurement:
    """One variant's best run."""

    variant: str
    records: int
    wall: float
    cpu: float
    syncs: list[tuple[int, int, int]]
    copied: list[tuple[str, int, int]]

    @property
    def rate(self) -> float:
        """Records per second of wall time."""
        return self.records / self.wall

    @property
    def cpu_us(self) -> float:
        """CPU microseconds (this process, all threads) per record."""
        return self.cpu / self.records * 1e6


def read_syncs(bootstrap: str, topic: str) -> list[tuple[int, int, int]]:
    """(partition, upstream, downstream) of every offset sync in ``topic``."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "micro-check"})
    try:
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), 30)
        consumer.assign([TopicPartition(topic, 0, low)])
        out: list[tuple[int, int, int]] = []
        while len(out) < high - low:
            for message in consumer.consume(1000, 1.0):
                if message.error() is None:
                    sync = OffsetSync.from_record(message.key(), message.value())
                    out.append((sync.partition, sync.upstream_offset, sync.downstream_offset))
        return out
    finally:
        consumer.close()


def end_offsets(bootstrap: str, topic: str, partitions: int) -> int:
    """Sum of the high watermarks of ``topic``."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "micro-check"})
    try:
        return sum(
            consumer.get_watermark_offsets(TopicPartition(topic, p), 30)[1]
            for p in range(partitions)
        )
    finally:
        consumer.close()


def measure(
    variant: str,
    bootstrap: str,
    batches: dict[int, list[pa.RecordBatch]],
    records: int,
    source: Consumer | None = None,
) -> Measurement:
    """Copy every partition's batches with ``variant`` into fresh topics; check the count."""
    suffix = uuid.uuid4().hex[:8]
    name = variant.replace("+", "-")
    remote, syncs_topic = f"A.{SOURCE_TOPIC}-{name}-{suffix}", f"syncs-{name}-{suffix}"
    create_topics(bootstrap, [remote], len(batches))
    create_topics(bootstrap, [syncs_topic], 1)
    client = {"bootstrap.servers": bootstrap}
    with_syncs = variant != "floor"
    spec = MirrorSinkSpec(
        source_alias="A",
        remote_topics={SOURCE_TOPIC: remote},
        target_producer=client,
        offsets_topic="unused",
        offset_syncs_topic=syncs_topic if with_syncs else None,
        offset_syncs_producer=client,
    )
    copied = []
    wall, cpu = time.perf_counter(), time.process_time()
    for partition in sorted(batches):
        if variant == "fused":
            assert source is not None
            copied += copy_fused(spec, source, partition, records // len(batches)).copied
        else:
            copied += VARIANTS[variant](spec, iter(batches[partition])).copied
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    found = end_offsets(bootstrap, remote, len(batches))
    if found != records:
        raise AssertionError(f"{variant}: {found:,} records in {remote}, expected {records:,}")
    syncs = read_syncs(bootstrap, syncs_topic) if with_syncs else []
    return Measurement(variant, records, wall, cpu, syncs, copied)


def fill_a(broker: SeawayBroker, records: int, partitions: int, value_size: int) -> Consumer:
    """Start broker A, fill its ``bench`` topic like bench/mirror.py; a consumer on it."""
    from bench.mirror import fill_source

    bootstrap, pid = broker.start()
    create_topics(bootstrap, [SOURCE_TOPIC], partitions)
    filled = fill_source(bootstrap, records, partitions, value_size)
    progress(f"broker A on {bootstrap} (pid {pid}) filled at {filled.records_per_s:,.0f} rec/s")
    # The consumer is reused across partitions (as the reader pools its consumers): with
    # librdkafka's default fetch.wait.max.ms (500) each new assign() waits for the long
    # poll still parked at the previous partition's end, ~0.5 s per task.
    config = {"group.id": "micro-fused", **CONSUMER_CONFIG, "fetch.wait.max.ms": 10}
    return Consumer({"bootstrap.servers": bootstrap, **config})


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bench._mirror_sink_micro", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--records", type=int, default=400_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant (best kept)")
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma-separated, of {[*VARIANTS, 'fused']} (fused also starts and fills a broker A)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run every variant ``--repeat`` times, print the best of each and the checks."""
    args = parse_args(argv)
    variants = args.variants.split(",")
    per_partition = args.records // args.partitions
    records = per_partition * args.partitions
    batches = {p: make_batches(p, per_partition, args.value_size) for p in range(args.partitions)}
    root = Path(tempfile.mkdtemp(prefix="seaway-sink-micro-"))
    broker = SeawayBroker(root / "b", {})
    broker_a = SeawayBroker(root / "a", {})
    source: Consumer | None = None
    best: dict[str, Measurement] = {}
    try:
        bootstrap, pid = broker.start()
        progress(
            f"broker B on {bootstrap} (pid {pid}); {records:,} records, {args.partitions} parts"
        )
        if "fused" in variants:
            source = fill_a(broker_a, records, args.partitions, args.value_size)
        for round_ in range(args.repeat):
            for variant in variants:
                m = measure(variant, bootstrap, batches, records, source)
                progress(
                    f"round {round_ + 1} {variant}: {m.rate:,.0f} rec/s, {m.cpu_us:.2f} us/rec"
                )
                if variant not in best or m.cpu < best[variant].cpu:
                    best[variant] = m
    finally:
        if source is not None:
            source.close()
        broker_a.stop()
        broker.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"\nmirror sink copy loop, {records:,} records x {args.value_size} B, "
        f"{args.partitions} tasks of {per_partition:,} rows; best of {args.repeat} (by CPU)"
    )
    print(f"{'variant':<22} {'rec/s':>10} {'CPU us/rec':>10} {'vs current':>10} {'syncs':>7}")
    base = best.get("current")
    for variant, m in best.items():
        ratio = base.cpu / m.cpu if base else None
        print(
            f"{variant:<22} {m.rate:>10,.0f} {m.cpu_us:>10.2f} {fmt(ratio):>10} {len(m.syncs):>7}"
        )
    if base is not None:
        for variant, m in best.items():
            if variant in ("current", "floor"):
                continue
            same = m.syncs == base.syncs and m.copied == base.copied
            print(f"{variant}: same offset syncs and copied offsets as current: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
