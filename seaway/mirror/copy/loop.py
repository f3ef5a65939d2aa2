"""The copy loop of a MirrorSource flow: a task's offset ranges, A -> B.

:func:`copy_ranges` runs inside a Spark task (``seaway-mirror-copy``'s ``read``); for each
range (:func:`copy_range`) it fetches
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
same pass (:class:`~seaway.mirror.metrics.RunningStats`). At least once, the task then
stores the MM2 offsets of what it copied (:mod:`~seaway.mirror.copy.offsets`); with
``seaway.flow.follow.ms`` it first keeps copying its partitions as records arrive
(:func:`_follow`), packing every partition's batches into one Produce request per poll.

With ``exactly_once`` (``exactly.once.source.support=enabled``, KIP-618 as MM2 uses it
since Kafka 3.5) the range's records, the partition's MM2 offset record and a marker
commit go to the target in one transaction (:func:`seaway.kafka.transactions.write_range`):
read_committed consumers of the remote topic see every source record exactly once,
whatever is killed when; its offset syncs wait for the commit. Producers (the
transactional ones by id) are pooled per Python worker (:mod:`seaway.kafka.pool`); one
that failed is dropped.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final

from seaway.connect.api.structs import TopicPartition
from seaway.kafka import pool, topic_limits
from seaway.kafka.errors import KafkaClientError
from seaway.kafka.fetcher import CorruptBatchError, FetchedBatch
from seaway.kafka.follower import Follower
from seaway.kafka.producer import Delivery, ProduceError
from seaway.kafka.ranges import OffsetRange, RangeProducer, range_producer, uses_librdkafka
from seaway.kafka.transactions import Marker, write_range
from seaway.mirror.copy import bridge
from seaway.mirror.copy.ledger import record_progress, release, stop_requested
from seaway.mirror.copy.offsets import send_offset, store_offsets
from seaway.mirror.copy.outgoing import Outgoing, Upstream
from seaway.mirror.copy.spec import MirrorCopySpec, RangeSummary
from seaway.mirror.copy.syncs import SyncSender
from seaway.mirror.metrics import RunningStats, now_ms
from seaway.protocol.errors import KafkaError as ProtocolError
from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.reader import fetch_range, follow_partitions

log = logging.getLogger(__name__)

__all__ = ["copy_range", "copy_ranges", "copy_until"]

_LIBRDKAFKA_LOGGED: set[str] = set()
_FOLLOW_WAIT_MS: Final = 500  # a following task's longest wait for a record, per poll
_TICK_S: Final = 1.0  # how often a following task stores its offsets and reads its stop mark
_BRIDGE_WAIT_MS: Final = 20  # a bridge's longest wait per poll: it reads its marks between


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


@dataclass(frozen=True, slots=True)
class _Sent:
    """A sent batch's tag: the copy it belongs to, and the upstream offsets it holds."""

    copy: _Copy
    upstream: Upstream


def _acknowledge(copies: list[_Copy]) -> None:
    """Wait until everything the copies' (shared) producer sent is acknowledged; fold it."""
    producer = copies[0].producer
    try:
        producer.flush()
    except ProduceError as error:
        raise _failed(copies, error) from error
    _fold(producer.take_acked())


def _failed(copies: list[_Copy], error: ProduceError) -> RuntimeError:
    """The task's error for a refused write (the ProduceError names the partition); the
    remote topics' limits are read again, as they may have changed."""
    spec = copies[0].spec
    for copy in copies:
        topic_limits.forget(spec.target_producer["bootstrap.servers"], copy.remote)
    r = copies[0].range
    where = f"{r.topic}[{r.partition}]" if len(copies) == 1 else spec.flow
    return RuntimeError(f"Mirroring {where} failed: {error}")


def _fold(acked: list[Delivery]) -> None:
    """Fold each acknowledged batch into its copy (an MM2 offset record has no tag)."""
    for delivery in acked:
        if isinstance(delivery.tag, _Sent):
            delivery.tag.copy.fold(delivery, delivery.tag.upstream)


class _Copy:
    """One partition's copy: batches out, acknowledgements folded into syncs and progress.

    The task's copies share its producer; each batch's tag (:class:`_Sent`) names the copy
    its acknowledgement goes to."""

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
        """Copy the range from *start*, and wait until all of it is acknowledged."""
        batches = fetch_range(
            options,
            replace(self.range, start=start),
            client_id=f"seaway-mirror-{self.spec.source_alias}",
            librdkafka=self.librdkafka,
        )
        self.copy(batches, start, self.range.end)
        self.acknowledged()

    def copy(self, batches: Iterable[FetchedBatch], start: int, end: int) -> None:
        """Send what *batches* hold of ``[start, end)`` (acknowledgements come later)."""
        outgoing = self._outgoing(start, end)
        try:
            try:
                for batch in batches:
                    self._count(batch, start, end)
                    self.send(outgoing.add(batch))
            except CorruptBatchError:  # what came before it is good: copy it, then stop
                self.send(outgoing.flush())
                self.acknowledged()
                raise
            self.send(outgoing.flush())
        except ProduceError as error:
            raise _failed([self], error) from error

    def followed(
        self, batches: list[FetchedBatch], start: int
    ) -> list[tuple[str, int, bytes | memoryview, _Sent]]:
        """The batches to send for what a poll brought from *start* on (sent with the other
        partitions', in one request per leader)."""
        end = batches[-1].header.next_offset
        outgoing = self._outgoing(start, end)
        out: list[tuple[bytes | memoryview, Upstream]] = []
        for batch in batches:
            self._count(batch, start, end)
            out += outgoing.add(batch)
        out += outgoing.flush()
        partition = self.range.partition
        return [(self.remote, partition, data, _Sent(self, upstream)) for data, upstream in out]

    def _outgoing(self, start: int, end: int) -> Outgoing:
        target = self.spec.target_producer["bootstrap.servers"]
        max_bytes = topic_limits.max_message_bytes(target, self.remote, self.producer)
        return Outgoing(start, end, max_bytes)

    def _count(self, batch: FetchedBatch, start: int, end: int) -> None:
        """MM2's record age and counts, taken when a batch is read."""
        if self.stats is not None:
            h = batch.header
            count = min(h.last_offset, end - 1) - max(h.base_offset, start) + 1
            self.stats.add_batch(count, h.size, h.base_timestamp, h.max_timestamp, now_ms())

    def acknowledged(self) -> None:
        """Wait until everything sent is acknowledged, and fold it."""
        _acknowledge([self])

    def send(self, batches: Iterator[tuple[bytes | memoryview, Upstream]]) -> None:
        """Send batches to the remote partition; fold what was acknowledged meanwhile."""
        sent = False
        for data, upstream in batches:
            self.producer.send(self.remote, self.range.partition, data, tag=_Sent(self, upstream))
            sent = True
        if sent:
            _fold(self.producer.take_acked())

    def fold(self, delivery: Delivery, runs: Upstream) -> None:
        """Map an acknowledged batch to its target offsets; feed MM2's sync rule."""
        writer = self.syncs.writer
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
        end = max(r.end, self.last + 1)  # past the planned end where it followed
        summary = RangeSummary(r.topic, r.partition, r.start, end, self.last, self.records, skipped)
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
    if spec.exactly_once:
        _log_librdkafka(spec, options, librdkafka)
        return _copy_in_transaction(spec, options, r, librdkafka)
    return _copy_at_least_once(spec, [(options, r)], librdkafka, store=False)[0]


def copy_ranges(
    spec: MirrorCopySpec,
    ranges: Sequence[tuple[SourceOptions, OffsetRange]],
    *,
    librdkafka: bool | None = None,
) -> list[RangeSummary]:
    """Copy each of *ranges* in turn (one task's work) and store where they got to.

    At least once the MM2 offsets of what was copied are stored once all of it is
    acknowledged, in one round trip; exactly-once ranges stored theirs in their
    transactions. Either way the micro-batch needs no commit step after its tasks: a
    restart resumes from what the tasks stored. With ``spec.follow_ms`` (at least once)
    the task then keeps copying its partitions as records arrive until that long after it
    started (:func:`_follow`), and records how far it got for the next micro-batch
    (:mod:`~seaway.mirror.copy.ledger`).
    """
    if spec.exactly_once:
        return [copy_range(spec, options, r, librdkafka=librdkafka) for options, r in ranges]
    return _copy_at_least_once(spec, ranges, librdkafka, store=True)


def _copy_at_least_once(
    spec: MirrorCopySpec,
    ranges: Sequence[tuple[SourceOptions, OffsetRange]],
    librdkafka: bool | None,
    *,
    store: bool,
) -> list[RangeSummary]:
    """Copy *ranges* through the worker's producer; with *store*, follow (``follow_ms``)
    and store the MM2 offsets of what was copied."""
    following = bool(store and spec.follow_ms and ranges and librdkafka is not True)
    bridged: list[RangeSummary] = []
    if following and spec.bridge_ms:
        ranges, bridged = bridge.take_over(spec, ranges)
    deadline = time.monotonic() + spec.follow_ms / 1000
    producer = _producer(spec, librdkafka)
    syncs = SyncSender(spec, hold=False)
    copies = [_Copy(spec, r, producer, syncs, librdkafka) for _, r in ranges]
    positions: dict[tuple[str, int], int] = {}
    try:
        for (options, r), copy in zip(ranges, copies, strict=True):
            _log_librdkafka(spec, options, librdkafka)
            copy.run(options, r.start)
        if following:
            positions = _follow_period(spec, ranges[0][0], copies, deadline)
        if store:
            _store(spec, copies)
    except BaseException:
        pool.drop(producer)  # what it holds unacknowledged is never sent later
        raise
    if not _hand_to_bridge(spec, ranges[0][0] if ranges else None, positions, producer, syncs):
        syncs.finish()  # a bridge finishes them when it ends
    return [copy.summary() for copy in copies] + bridged


def _hand_to_bridge(
    spec: MirrorCopySpec,
    options: SourceOptions | None,
    positions: dict[tuple[str, int], int],
    producer: RangeProducer,
    syncs: SyncSender,
) -> bool:
    """Whether a bridge (:mod:`~seaway.mirror.copy.bridge`) goes on copying *positions*,
    the partitions whose follow period ran out. Not where the target needs librdkafka (its
    producer is the process's one, which a bridge cannot have to itself), nor where the
    MM2 offsets topic has no partition 1 to hold the takeover mark."""
    if not (positions and options and spec.bridge_ms) or uses_librdkafka(spec.target_producer):
        return False
    if producer.partition_count(spec.offsets_topic) < 2:
        return False
    body = functools.partial(_bridge, spec, options, positions, syncs)
    return bridge.start(spec, positions, body)


def _store(spec: MirrorCopySpec, copies: list[_Copy], *, progress: bool = True) -> None:
    """Store the MM2 offsets of what *copies* copied (all of it acknowledged and folded),
    and when following (and *progress*), record the progress the next micro-batch plans
    from."""
    copied = [(c.range.topic, c.range.partition, c.last) for c in copies if c.last >= 0]
    if copied:
        store_offsets(copies[0].producer, spec, copied)
        if spec.follow_ms and progress:
            record_progress(spec, copied)


def _follow_period(
    spec: MirrorCopySpec, options: SourceOptions, copies: list[_Copy], deadline: float
) -> dict[tuple[str, int], int]:
    """Follow the partitions of *copies* until *deadline*, storing what was copied and
    reading the driver's stop request about once a second; the positions still followed
    when the period ran out (empty where it ended otherwise: asked to stop, an error)."""
    follower = follow_partitions(options, _positions(copies), client_id=_follow_client(spec))
    ticked_at = -math.inf
    stored: list[int] = []

    def stopped() -> bool:  # at once, then every second
        nonlocal ticked_at, stored
        if time.monotonic() - ticked_at < _TICK_S:
            return False
        ticked_at = time.monotonic()
        if stop_requested(spec):
            return True
        if [c.last for c in copies] != stored:
            _store(spec, copies)  # a task cancelled or lost copies little again
            copies[0].syncs.promote()  # MM2 promotes delayed syncs on each offset commit
            stored = [c.last for c in copies]
        return False

    if follower is None or not _follow(spec, follower, copies, deadline, stopped, _FOLLOW_WAIT_MS):
        return {}
    return dict(follower.positions)


def _bridge(
    spec: MirrorCopySpec,
    options: SourceOptions,
    positions: dict[tuple[str, int], int],
    syncs: SyncSender,
    stopped: Callable[[], bool],
) -> list[RangeSummary]:
    """A bridge's copy (:mod:`~seaway.mirror.copy.bridge`): :func:`copy_until` *stopped*
    (``spec.bridge_ms`` at most), then release the partitions; what it copied."""
    copies = _copy_until(spec, options, positions, syncs, stopped, spec.bridge_ms / 1000)
    release(spec, _positions(copies))
    return [copy.summary() for copy in copies]


def copy_until(
    spec: MirrorCopySpec,
    options: SourceOptions,
    positions: dict[tuple[str, int], int],
    stopped: Callable[[], bool],
    seconds: float,
) -> list[RangeSummary]:
    """Copy what arrives on *positions* ``{(topic, partition): next offset}`` until
    *stopped* (asked before each ~20 ms poll) or *seconds* pass, on connections and a
    producer of a bridge's own, then store MM2's offsets of what was copied; what it copied.
    (The mirror driver's first copy while Spark starts; nothing where the batch client
    does not reach both clusters.)"""
    if uses_librdkafka(spec.target_producer):
        return []
    syncs = SyncSender(spec, hold=False)
    copies = _copy_until(spec, options, positions, syncs, stopped, seconds)
    return [copy.summary() for copy in copies]


def _copy_until(
    spec: MirrorCopySpec,
    options: SourceOptions,
    positions: dict[tuple[str, int], int],
    syncs: SyncSender,
    stopped: Callable[[], bool],
    seconds: float,
) -> list[_Copy]:
    """Follow *positions* on a bridge's own connections and producer until *stopped* or
    *seconds* pass; store MM2's offsets of what was copied and finish *syncs*."""
    client_id = f"{_follow_client(spec)}-bridge-{spec.target_alias}"
    producer = range_producer(spec.target_producer, client_id=client_id, librdkafka=False)
    copies = [
        _Copy(spec, OffsetRange(t, p, o, o), producer, syncs, False)
        for (t, p), o in positions.items()
    ]
    try:
        follower = follow_partitions(options, positions, client_id=client_id)
        if follower is not None:
            deadline = time.monotonic() + seconds
            _follow(spec, follower, copies, deadline, stopped, _BRIDGE_WAIT_MS)
        _store(spec, copies, progress=False)  # a bridge releases every partition after
    except BaseException:
        pool.drop(producer)
        raise
    finally:
        syncs.finish()
    return copies


def _follow_client(spec: MirrorCopySpec) -> str:
    return f"seaway-mirror-{spec.source_alias}"


def _positions(copies: list[_Copy]) -> dict[tuple[str, int], int]:
    """The next offset to copy of each copy's partition."""
    return {(c.range.topic, c.range.partition): max(c.range.end, c.last + 1) for c in copies}


def _follow(
    spec: MirrorCopySpec,
    follower: Follower,
    copies: list[_Copy],
    deadline: float,
    stopped: Callable[[], bool],
    wait_ms: int,
) -> bool:
    """Copy what arrives on the partitions of *copies* after their ranges, until *deadline*
    (then True) or *stopped* (asked before each poll).

    One Fetch per poll for all of them (:class:`~seaway.kafka.follower.Follower`: the
    broker answers as soon as a record is there, or after *wait_ms*); what came is sent,
    then acknowledged before the next poll. An error ends following: the next micro-batch
    plans from where the copies got to."""
    by_partition = {(c.range.topic, c.range.partition): c for c in copies}
    while follower.positions:
        left_ms = int((deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return True
        if stopped():
            return False
        follower.max_wait_ms = min(left_ms, wait_ms)
        before = dict(follower.positions)
        try:
            fetched = follower.poll()
        except (KafkaClientError, ProtocolError) as error:  # incl. a corrupt batch
            log.debug("%s: following ends: %s", spec.flow, error)
            return False
        if not fetched:
            continue
        batches = [
            b for tp, got in fetched.items() for b in by_partition[tp].followed(got, before[tp])
        ]
        try:  # the copies share the producer: one send and one wait for all of them
            copies[0].producer.send_all(batches)
        except ProduceError as error:
            raise _failed(copies, error) from error
        _acknowledge(copies)
    return False


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
