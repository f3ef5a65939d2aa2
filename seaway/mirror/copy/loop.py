"""The copy loop of a MirrorSource flow: one offset range of one source partition, A -> B.

:func:`copy_range` runs inside a Spark task (``seaway-mirror-copy``'s ``read``): it fetches
``[start, end)`` of a source partition as record batches (the Kafka source's
:func:`~seaway.spark.kafka.reader.fetch_range`: its end-of-log and data-loss rules, under
read_committed without aborted records, control batches never) and produces them to the
remote partition the replication policy names (MirrorSourceTask's record mapping), as
:class:`~seaway.mirror.copy.outgoing.Outgoing` shapes them. Only a :class:`RangeSummary`
leaves the task; the records never cross into Spark's JVM. Fetcher and producer come from
:mod:`seaway.kafka.ranges`: Seaway's batch client, or librdkafka behind the same interface
for a cluster whose SASL mechanism the batch client does not speak.

Each acknowledged batch maps its upstream offsets one to one onto the target's, and MM2's
``offset.lag.max`` rule runs over that run (:mod:`~seaway.mirror.copy.syncs`): the same
syncs as record by record, so checkpoints translate exactly. MM2's metrics come from the
same pass (:class:`~seaway.mirror.metrics.RunningStats`).

With ``exactly_once`` (``exactly.once.source.support=enabled``, KIP-618 as MM2 uses it
since Kafka 3.5) the range's records, the partition's MM2 offset record and a marker
commit go to the target in one transaction (:func:`seaway.kafka.transactions.write_range`):
read_committed consumers of the remote topic see every source record exactly once,
whatever is killed when; its offset syncs wait for the commit. Producers (the
transactional ones by id) are pooled per Python worker (:mod:`seaway.kafka.pool`); one
that failed is dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import replace

from seaway.connect.api.structs import TopicPartition
from seaway.kafka import pool, topic_limits
from seaway.kafka.fetcher import CorruptBatchError
from seaway.kafka.producer import Delivery, ProduceError
from seaway.kafka.ranges import OffsetRange, RangeProducer, range_producer, uses_librdkafka
from seaway.kafka.transactions import Marker, write_range
from seaway.mirror.copy.offsets import send_offset, store_offsets
from seaway.mirror.copy.outgoing import Outgoing, Upstream
from seaway.mirror.copy.spec import MirrorCopySpec, RangeSummary
from seaway.mirror.copy.syncs import SyncSender
from seaway.mirror.metrics import RunningStats, now_ms
from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.reader import fetch_range

log = logging.getLogger(__name__)

__all__ = ["copy_range", "copy_ranges"]

_LIBRDKAFKA_LOGGED: set[str] = set()


def _producer(
    spec: MirrorCopySpec, librdkafka: bool | None, transactional_id: str | None = None
) -> RangeProducer:
    """The Python worker's producer to the target: connections and producer ids outlive a
    task."""
    client_id = f"seaway-mirror-{spec.target_alias}"
    return range_producer(
        spec.target_producer, transactional_id, client_id=client_id, librdkafka=librdkafka
    )


def _log_librdkafka(spec: MirrorCopySpec, options: SourceOptions, librdkafka: bool | None) -> None:
    """Say once per flow that a cluster is copied through librdkafka, and why."""
    if spec.flow in _LIBRDKAFKA_LOGGED or librdkafka is not None:
        return
    if uses_librdkafka(options.kafka_params) or uses_librdkafka(spec.target_producer):
        _LIBRDKAFKA_LOGGED.add(spec.flow)
        log.info(
            "Mirror %s goes through librdkafka: a cluster uses a sasl.mechanism Seaway's "
            "batch client does not speak (it speaks PLAIN and SCRAM-SHA-256/512)",
            spec.flow,
        )


class _Copy:
    """One range's copy: batches out, acknowledgements folded into syncs and progress."""

    def __init__(
        self,
        spec: MirrorCopySpec,
        r: OffsetRange,
        producer: RangeProducer,
        syncs: SyncSender,
        librdkafka: bool | None,
    ) -> None:
        self.spec = spec
        self.range = r
        self.remote = spec.remote_topic(r.topic)
        self.producer = producer
        self.syncs = syncs
        self.librdkafka = librdkafka
        self.stats = RunningStats() if spec.metrics else None
        self.partition = TopicPartition(r.topic, r.partition)
        self.last = -1  # the last upstream offset acknowledged
        self.records = 0

    def run(self, options: SourceOptions, start: int) -> None:
        r = self.range
        target = self.spec.target_producer["bootstrap.servers"]
        max_bytes = topic_limits.max_message_bytes(target, self.remote, self.producer)
        batches = fetch_range(
            options,
            replace(r, start=start),
            client_id=f"seaway-mirror-{self.spec.source_alias}",
            librdkafka=self.librdkafka,
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
            # perhaps the limit changed: read it again
            topic_limits.forget(self.spec.target_producer["bootstrap.servers"], self.remote)
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
            base, at = delivery.base_offset, 0
            for upstream in runs:
                n = len(upstream)
                self.records += n
                self.last = upstream[-1]
                if writer is not None and base >= 0:
                    downstream = (
                        range(base + at, base + at + n)
                        if delivery.downstream is None
                        else delivery.downstream[at : at + n]
                    )
                    syncs = writer.queue_offset_syncs_run(self.partition, upstream, downstream)
                    self.syncs.add(syncs)
                at += n

    def summary(self, skipped: int = 0) -> RangeSummary:
        r = self.range
        summary = RangeSummary(
            r.topic, r.partition, r.start, r.end, self.last, self.records, skipped
        )
        if self.stats is not None:
            summary = replace(summary, stats=self.stats.acked(now_ms()))
        return summary


def copy_range(
    spec: MirrorCopySpec,
    options: SourceOptions,
    r: OffsetRange,
    *,
    librdkafka: bool | None = None,
) -> RangeSummary:
    """Copy the records of *r* from the source cluster to the target; what was done.

    At-least-once unless ``spec.exactly_once``: the caller stores the MM2 offset of
    :attr:`RangeSummary.copied` (:func:`copy_ranges` does). *librdkafka* forces
    (True) or rules out (False) librdkafka on both clusters; None: as each cluster needs.
    """
    _log_librdkafka(spec, options, librdkafka)
    if spec.exactly_once:
        return _copy_in_transaction(spec, options, r, librdkafka)
    producer = _producer(spec, librdkafka)
    copy = _Copy(spec, r, producer, SyncSender(spec, hold=False), librdkafka)
    try:
        copy.run(options, r.start)
    except BaseException:
        pool.drop(producer)  # what it holds unacknowledged is never sent later
        raise
    summary = copy.summary()
    copy.syncs.finish()
    return summary


def copy_ranges(
    spec: MirrorCopySpec,
    ranges: Iterable[tuple[SourceOptions, OffsetRange]],
    *,
    librdkafka: bool | None = None,
) -> list[RangeSummary]:
    """Copy each of *ranges* in turn (one task's work) and store where they got to.

    At least once the MM2 offsets of what was copied are stored once all of it is
    acknowledged, in one round trip; exactly-once ranges stored theirs in their
    transactions. Either way the micro-batch needs no commit step after its tasks: a
    restart resumes from what the tasks stored.
    """
    summaries = [copy_range(spec, options, r, librdkafka=librdkafka) for options, r in ranges]
    copied = [c for s in summaries for c in s.copied]
    if copied and not spec.exactly_once:
        producer = _producer(spec, librdkafka)
        try:
            store_offsets(producer, spec, copied)
        except BaseException:
            pool.drop(producer)
            raise
    return summaries


# --- exactly once ------------------------------------------------------------------------------


def _copy_in_transaction(
    spec: MirrorCopySpec, options: SourceOptions, r: OffsetRange, librdkafka: bool | None
) -> RangeSummary:
    """Copy *r*, its partition's MM2 offset and a marker in one transaction.

    The transactional id (:meth:`MirrorCopySpec.transactional_id`) is the same for every
    attempt and every run, so the first thing a new attempt does (initialize its producer)
    fences the older ones and aborts what they left open. The marker (a transactional
    commit of ``upstream + 1`` for the remote partition in
    :attr:`MirrorCopySpec.marker_group`) says how far the partition is copied: offsets
    below it were copied by a committed attempt and are not read again.
    """
    producer = _producer(spec, librdkafka, spec.transactional_id(r.topic, r.partition))
    copy = _Copy(spec, r, producer, SyncSender(spec, hold=True), librdkafka)
    remote = spec.remote_topic(r.topic)
    start = r.start

    def write(committed: int) -> int | None:
        nonlocal start
        start = max(r.start, committed)
        if start < r.end:
            copy.run(options, start)
        if copy.last < 0:
            return None
        send_offset(producer, spec, r.topic, r.partition, copy.last)
        return copy.last + 1

    marker = Marker(spec.marker_group, remote, r.partition)
    try:
        write_range(producer, marker, write, spec.target_producer)
    except BaseException:
        pool.drop(producer)
        raise
    skipped = min(start, r.end) - r.start
    if skipped:
        log.info(
            "%s[%d]: offsets [%d, %d) committed by an earlier attempt, not copied again",
            r.topic, r.partition, r.start, r.start + skipped,
        )  # fmt: skip
    summary = copy.summary(skipped)
    copy.syncs.finish()  # outside the transaction, once it committed
    return summary
