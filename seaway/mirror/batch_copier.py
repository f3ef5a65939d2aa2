"""The batch path of a MirrorSource flow's copy: source record batches go to the target whole.

:func:`copy_range_batches` does what :func:`seaway.mirror.copier.copy_range` does — copy
``[start, end)`` of one source partition to its remote partition, fold the acknowledgements
into MM2's offset syncs, report MM2's metrics, and with ``exactly_once`` put the records,
the MM2 offset record and the marker in one transaction — without a Python object per
record: Seaway's batch client (:mod:`seaway.kafka`) fetches the source's batches as stored,
and each goes to the target as it came (compression codec, keys, values, headers and
timestamps byte for byte), its header made the target producer's
(:func:`~seaway.protocol.records.restamp_producer`). Control batches, and under
read_committed aborted ones, are dropped.

Small uncompressed batches (a source written with ``linger.ms=0``) are joined into one of
up to 1 MB before they are sent (:mod:`seaway.protocol.batch_merge`: only each record's
offset and timestamp deltas are rewritten), so each costs no Produce request of its own.
A batch is opened (:mod:`seaway.protocol.record_codec`) only when its records must change:
it straddles an edge of the range (only the records inside are copied), it has offset gaps
left by compaction (Kafka takes only contiguous batches on produce), it carries
LogAppendTime (MM2 gives the target record the time the source consumer sees, the append
time, as its CreateTime), or it is larger than the remote topic's ``max.message.bytes``
(split into batches that fit). Each piece keeps its codec.

Offset syncs come from the per-batch mapping: a batch of upstream offsets ``u0..u0+n-1``
acknowledged at target offset ``d0`` maps record by record to ``d0..d0+n-1``, and MM2's
``offset.lag.max`` rule runs over that run (:meth:`OffsetSyncWriter.queue_offset_syncs_run`)
— the same syncs as record by record, so checkpoints translate exactly.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Final

from seaway.connect.api.structs import TopicPartition
from seaway.kafka import pool
from seaway.kafka.cluster import KafkaCluster
from seaway.kafka.fetcher import CorruptBatchError, FetchedBatch, PartitionFetcher
from seaway.kafka.partitioner import partition_for_key
from seaway.kafka.producer import BatchProducer, Delivery, ProduceError
from seaway.mirror.copier import MirrorCopySpec, RangeSummary, SyncSender, copy_in_transaction
from seaway.mirror.metrics import RunningStats, now_ms
from seaway.protocol.batch_merge import can_merge, merge_batches
from seaway.protocol.record_codec import Record, build_batch, decode_records
from seaway.protocol.records import ATTR_TIMESTAMP_TYPE, BATCH_OVERHEAD, BatchHeader
from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.planner import OffsetRange
from seaway.spark.kafka.reader import data_loss

log = logging.getLogger(__name__)

__all__ = ["Outgoing", "copy_range_batches"]

_DEFAULT_MAX_MESSAGE_BYTES: Final = 1_048_588
_RECORD_OVERHEAD: Final = 24  # a record's varints and attributes, at most, beside its bytes


def _target(spec: MirrorCopySpec) -> KafkaCluster:
    bootstrap = spec.target_producer["bootstrap.servers"]
    return pool.shared_cluster(
        bootstrap, f"seaway-mirror-{spec.target_alias}", spec.target_producer
    )


def _producer(spec: MirrorCopySpec, transactional_id: str | None = None) -> BatchProducer:
    """The Python worker's producer (:mod:`seaway.kafka.pool`), as the record path's:
    connections and producer ids outlive a task."""

    def make() -> BatchProducer:
        producer = BatchProducer(_target(spec), transactional_id=transactional_id)
        producer.init()  # a transactional id: fences older attempts, aborts their work
        return producer

    key = ("batch producer", spec.target_producer["bootstrap.servers"], transactional_id)
    # Dropped when it failed, with its connections: answers still on their way to it must
    # not reach the next producer (they are reopened on next use).
    return pool.shared(key, make, lambda producer: producer.cluster.close())


def _max_message_bytes(cluster: KafkaCluster, topic: str) -> int:
    def read() -> int:
        value = cluster.retrying(
            lambda: cluster.topic_config(topic, "max.message.bytes"), f"DescribeConfigs({topic})"
        )
        return int(value) if value else _DEFAULT_MAX_MESSAGE_BYTES

    return pool.shared(("max.message.bytes", cluster.bootstrap_servers, topic), read)


# --- what goes out for one source batch ---------------------------------------------------------


def _fits_whole(header: BatchHeader, start: int, end: int, max_bytes: int) -> bool:
    return (
        header.base_offset >= start
        and header.last_offset < end
        and header.records_count == header.last_offset_delta + 1
        and not header.attributes & ATTR_TIMESTAMP_TYPE
        and header.size <= max_bytes
    )


def _record_size(record: Record) -> int:
    size = _RECORD_OVERHEAD + len(record.key or b"") + len(record.value or b"")
    return size + sum(len(k) + len(v or b"") + 10 for k, v in record.headers)


def _chunks(records: list[Record], max_bytes: int) -> Iterator[list[Record]]:
    """*records* in runs whose batch (uncompressed) stays within *max_bytes*."""
    chunk: list[Record] = []
    size = BATCH_OVERHEAD
    for record in records:
        n = _record_size(record)
        if chunk and size + n > max_bytes:
            yield chunk
            chunk, size = [], BATCH_OVERHEAD
        chunk.append(record)
        size += n
    if chunk:
        yield chunk


Upstream = list[Sequence[int]]
r"""The upstream offsets a sent batch holds, as runs: one per source batch (``range``\ s),
or the offsets kept of a rebuilt one (a list)."""

MERGE_BELOW: Final = 64 << 10
"""Uncompressed source batches smaller than this are joined before they are sent."""
MERGE_TARGET: Final = 1 << 20
"""How many bytes of small batches are joined into one (at most ``max.message.bytes``)."""
_JOIN_GROWTH: Final = 16  # timestamp (10) + offset (5) + length (+1) varints, at most


class Outgoing:
    """Turns a range's source batches into the batches to send, in order.

    A batch goes whole when it can; small uncompressed ones are joined
    (:func:`~seaway.protocol.batch_merge.merge_batches`: one Produce request instead of
    many); the rest are opened and rebuilt (:func:`_rebuilt`).
    """

    def __init__(self, start: int, end: int, max_bytes: int) -> None:
        self.start, self.end, self.max_bytes = start, end, max_bytes
        self.target = min(MERGE_TARGET, max_bytes - BATCH_OVERHEAD)
        self.pending: list[FetchedBatch] = []
        self.pending_bytes = 0  # what the joined batch may take, at most

    def add(self, batch: FetchedBatch) -> Iterator[tuple[bytes | memoryview, Upstream]]:
        """What to send now that *batch* came (possibly nothing yet)."""
        header = batch.header
        if not _fits_whole(header, self.start, self.end, self.max_bytes):
            yield from self.flush()
            yield from _rebuilt(batch, self.start, self.end, self.max_bytes)
            return
        if header.size >= MERGE_BELOW or not can_merge(header):
            yield from self.flush()
            yield batch.data, [range(header.base_offset, header.next_offset)]
            return
        # A joined record's rewritten varints may take up to _JOIN_GROWTH bytes more.
        size = header.size + _JOIN_GROWTH * header.records_count
        if self.pending and self.pending_bytes + size > self.target:
            yield from self.flush()
        self.pending.append(batch)
        self.pending_bytes += size

    def flush(self) -> Iterator[tuple[bytes | memoryview, Upstream]]:
        """Send what is held back."""
        pending, self.pending, self.pending_bytes = self.pending, [], 0
        runs: Upstream = []
        for b in pending:  # consecutive batches make one run
            if runs and runs[-1].stop == b.header.base_offset:  # type: ignore[attr-defined]
                runs[-1] = range(runs[-1].start, b.header.next_offset)  # type: ignore[attr-defined]
            else:
                runs.append(range(b.header.base_offset, b.header.next_offset))
        if len(pending) == 1:
            yield pending[0].data, runs
        elif pending:
            yield merge_batches([(b.header, b.data) for b in pending]), runs


def _rebuilt(
    batch: FetchedBatch, start: int, end: int, max_bytes: int
) -> Iterator[tuple[bytes, Upstream]]:
    """A batch's records in ``[start, end)``, rebuilt contiguous, restamped CreateTime and
    cut to fit *max_bytes*, with the same codec."""
    _, records = decode_records(batch.data)
    kept = [r for r in records if start <= r.offset < end]
    for chunk in _chunks(kept, max_bytes):
        yield build_batch(chunk, compression=batch.header.compression), [[r.offset for r in chunk]]


# --- the copy ---------------------------------------------------------------------------------


class _Copy:
    """One range's copy: batches out, acknowledgements folded into syncs and progress."""

    def __init__(
        self, spec: MirrorCopySpec, r: OffsetRange, producer: BatchProducer, syncs: SyncSender
    ) -> None:
        self.spec = spec
        self.range = r
        self.remote = spec.remote_topic(r.topic)
        self.producer = producer
        self.syncs = syncs
        self.stats = RunningStats() if spec.metrics else None
        self.partition = TopicPartition(r.topic, r.partition)
        self.last = -1  # the last upstream offset acknowledged
        self.records = 0

    def run(self, options: SourceOptions, start: int) -> None:
        r = self.range
        client_id = f"seaway-mirror-{self.spec.source_alias}"
        source = pool.shared_cluster(options.bootstrap_servers, client_id, options.kafka_params)
        fetcher = PartitionFetcher(
            source,
            r.topic,
            r.partition,
            read_committed=options.kafka_params.get("isolation.level") == "read_committed",
        )
        max_bytes = _max_message_bytes(self.producer.cluster, self.remote)

        def on_data_loss(position: int, what: str, skip_to: int) -> int:
            return data_loss(options, r, position, what, skip_to=skip_to)

        batches = fetcher.batches(
            start, r.end, timeout_s=options.poll_timeout_ms / 1000, on_data_loss=on_data_loss
        )
        outgoing = Outgoing(start, r.end, max_bytes)
        try:
            try:
                for batch in batches:
                    if self.stats is not None:  # MM2's record age is taken when it is read
                        h = batch.header
                        count = min(h.last_offset, r.end - 1) - max(h.base_offset, start) + 1
                        now = now_ms()
                        self.stats.add_batch(count, h.size, h.base_timestamp, h.max_timestamp, now)
                    self.send(outgoing.add(batch))
            except CorruptBatchError:  # what came before it is good: copy it, then stop
                self.send(outgoing.flush())
                self.producer.flush()
                self.fold(self.producer.take_acked())
                raise
            self.send(outgoing.flush())
            self.producer.flush()
        except ProduceError as error:
            raise RuntimeError(f"Mirroring {r.topic}[{r.partition}] failed: {error}") from error
        self.fold(self.producer.take_acked())

    def send(self, batches: Iterator[tuple[bytes | memoryview, Upstream]]) -> None:
        """Send batches to the remote partition; fold what was acknowledged meanwhile."""
        sent = False
        for data, upstream in batches:
            self.producer.send(self.remote, self.range.partition, data, tag=upstream)
            sent = True
        if sent:
            self.fold(self.producer.take_acked())

    def fold(self, acked: list[Delivery]) -> None:
        """Map acknowledged batches to their target offsets; feed MM2's sync rule."""
        writer = self.syncs.writer
        for delivery in acked:
            runs: Upstream | None = delivery.tag
            if runs is None:  # the MM2 offset record of an exactly-once range
                continue
            base = delivery.base_offset
            for upstream in runs:
                self.records += len(upstream)
                self.last = upstream[-1]
                if writer is not None and base >= 0:
                    downstream = range(base, base + len(upstream))
                    syncs = writer.queue_offset_syncs_run(self.partition, upstream, downstream)
                    self.syncs.add(syncs)
                base += len(upstream)

    def summary(self, skipped: int = 0) -> RangeSummary:
        r = self.range
        summary = RangeSummary(
            r.topic, r.partition, r.start, r.end, self.last, self.records, skipped
        )
        if self.stats is not None:
            summary = replace(summary, stats=self.stats.acked(now_ms()))
        return summary


def copy_range_batches(
    spec: MirrorCopySpec, options: SourceOptions, r: OffsetRange
) -> RangeSummary:
    """Copy the records of *r* batch by batch; what was done (as ``copy_range``)."""
    if spec.exactly_once:
        return _copy_in_transaction(spec, options, r)
    producer = _producer(spec)
    copy = _Copy(spec, r, producer, SyncSender(spec, hold=False))
    try:
        copy.run(options, r.start)
    except BaseException:
        pool.drop(producer)  # what it holds unacknowledged is never sent later
        raise
    summary = copy.summary()
    copy.syncs.finish()
    return summary


def _copy_in_transaction(
    spec: MirrorCopySpec, options: SourceOptions, r: OffsetRange
) -> RangeSummary:
    """Copy *r* in one transaction (the record path's :func:`copy_in_transaction`)."""
    producer = _producer(spec, spec.transactional_id(r.topic, r.partition))
    copy = _Copy(spec, r, producer, SyncSender(spec, hold=True))

    def copy_from(start: int) -> int:
        copy.run(options, start)
        return copy.last

    def send_offset(key: bytes, value: bytes | None) -> None:
        partitions = producer.cluster.partition_count(spec.offsets_topic)
        record = build_batch([Record(0, now_ms(), key, value)])
        producer.send(spec.offsets_topic, partition_for_key(key, partitions), record)

    try:
        skipped = copy_in_transaction(spec, r, producer, copy_from, send_offset)
    except BaseException:
        pool.drop(producer)
        raise
    summary = copy.summary(skipped)
    copy.syncs.finish()  # outside the transaction, once it committed
    return summary
