"""The copy loop of a MirrorSource flow: one offset range of one source partition, A -> B.

:func:`copy_range` runs inside a Spark task (``seaway-mirror-copy``'s ``read``): it
consumes ``[start, end)`` of a source partition with the Kafka source's reader
(:func:`seaway.spark.kafka.reader.message_batches`: its pooled consumers, its end-of-log
and data-loss rules) and produces every record unchanged — same partition, key, value,
headers and timestamp, bytes never decoded — to the remote topic the replication policy
names (MirrorSourceTask's record mapping). Only a :class:`RangeSummary` leaves the task;
the records never cross into Spark's JVM.

Acknowledgements are folded as they come: one callable per range appends the downstream
offsets, and the i-th report is the i-th record produced (the idempotent producer keeps a
partition's reports in produce order). After each batch the acknowledged pairs feed MM2's
offset-sync rule (:meth:`OffsetSyncWriter.queue_offset_syncs_run`, one writer per Python
worker, so its "first record" and lag state last across tasks) and are dropped: memory is
bounded by one consumed batch plus the producer's queue, whatever the range's size. The
syncs due are sent at once to the offset-syncs topic, partition 0; at the end of the range
the delayed syncs are promoted, as on a Connect offset commit, and sent too. MM2's metrics
come from the same pass (:class:`~seaway.mirror.metrics.RunningStats`: counts, value bytes,
min/max/sum of the timestamps per batch).

With ``exactly_once`` (``exactly.once.source.support=enabled``, KIP-618 as MM2 uses it
since Kafka 3.5) the range's records, the partition's MM2 offset record and a marker
commit go to the target in one transaction (:func:`copy_in_transaction`, shared with the
batch path, on :func:`seaway.kafka.transactions.write_range`):
read_committed consumers of the remote topic see every source record exactly once, whatever
is killed when; its offset syncs wait for the commit (one per ``offset.lag.max`` records is
held). Producers (and the transactional ones by id) are pooled per Python worker
(:mod:`seaway.kafka.pool`); one that failed is purged and dropped.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

from seaway.connect.api.structs import TopicPartition
from seaway.kafka import pool
from seaway.kafka.transactions import LibrdkafkaTransactions, Marker, Transactional, write_range
from seaway.mirror.formats import OffsetSync
from seaway.mirror.metrics import PartitionStats, RunningStats, now_ms
from seaway.mirror.offset_syncs import OffsetSyncWriter
from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.planner import OffsetRange
from seaway.spark.kafka.reader import MessageBatch, message_batches

log = logging.getLogger(__name__)

CONNECTOR_NAME: Final = "MirrorSourceConnector"
"""The connector name of MM2's source offsets (``["MirrorSourceConnector", {...}]``)."""

_TIMEOUT_S: Final = 60.0
_PRODUCER_DEFAULTS: Final[dict[str, Any]] = {
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "reconnect.backoff.ms": 10,
}


@dataclass(frozen=True)
class MirrorCopySpec:
    """What a copy task needs, as JSON in the ``spec`` option of the copy source."""

    source_alias: str
    remote_topics: dict[str, str]  # source topic -> remote topic
    target_producer: dict[str, str]
    offsets_topic: str
    offset_lag_max: int = 100
    offset_syncs_topic: str | None = None  # None: emit.offset-syncs.enabled=false
    offset_syncs_producer: dict[str, str] = field(default_factory=dict)
    exactly_once: bool = False
    target_alias: str = ""
    metrics: bool = False  # compute MM2's metrics (the driver reads them from Spark's progress)

    @property
    def transactional_id_prefix(self) -> str:
        """Prefix of the stable transactional ids: ``<prefix>-<topic>-<partition>``."""
        return f"seaway-mirror-{self.source_alias}-{self.target_alias}"

    @property
    def marker_group(self) -> str:
        """The group on the target whose transactional commits say how far each remote
        partition is copied (``__`` keeps it out of MM2's default group filter)."""
        return f"__seaway-mirror-{self.source_alias}-{self.target_alias}"

    def transactional_id(self, topic: str, partition: int) -> str:
        """The id of every attempt, in every run, to copy *topic*/*partition*."""
        return f"{self.transactional_id_prefix}-{topic}-{partition}"

    def remote_topic(self, topic: str) -> str:
        remote = self.remote_topics.get(topic)
        if remote is None:
            raise RuntimeError(
                f"No remote topic known for source topic {topic}: the copy spec names "
                f"{sorted(self.remote_topics)}; restart the flow so it picks up new topics."
            )
        return remote

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> MirrorCopySpec:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class RangeSummary:
    """What one copy task did: the only row it hands to Spark."""

    topic: str
    partition: int
    start: int
    end: int
    last_offset: int  # the last upstream offset copied; -1: none
    records: int  # records produced (and acknowledged)
    skipped: int = 0  # exactly-once: offsets an earlier committed attempt copied
    stats: PartitionStats | None = None  # MM2's metrics of the remote partition

    @property
    def copied(self) -> list[tuple[str, int, int]]:
        """``[(topic, partition, last upstream offset)]``, empty when nothing was copied."""
        return [(self.topic, self.partition, self.last_offset)] if self.last_offset >= 0 else []

    def row(self) -> tuple[Any, ...]:
        """The summary as a row of :data:`SUMMARY_FIELDS`."""
        stats = None if self.stats is None else json.dumps(self.stats.to_dict())
        return (self.topic, self.partition, self.start, self.end, self.last_offset,
                self.records, self.skipped, stats)  # fmt: skip

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RangeSummary:
        stats = row.get("stats")
        return cls(
            str(row["topic"]),
            int(row["partition"]),
            int(row["start"]),
            int(row["end"]),
            int(row["last_offset"]),
            int(row["records"]),
            int(row["skipped"]),
            None if stats is None else PartitionStats.from_dict(json.loads(stats)),
        )


SUMMARY_FIELDS: Final = (
    ("topic", "string"),
    ("partition", "int"),
    ("start", "bigint"),
    ("end", "bigint"),
    ("last_offset", "bigint"),
    ("records", "bigint"),
    ("skipped", "bigint"),
    ("stats", "string"),
)
"""The columns of a :class:`RangeSummary` row (name, Spark SQL type)."""


# --- per-worker clients ------------------------------------------------------------------------

# Spark reuses its Python workers: producers, transactional producers (by id) and offset-sync
# writers live as long as the worker (:mod:`seaway.kafka.pool`), as the reader's consumers do.


def _producer(config: dict[str, Any]) -> Any:
    """The worker's producer for *config* (created and connected on first use)."""
    return pool.producer({**_PRODUCER_DEFAULTS, **config}, connected=True)


def _target_producer(spec: MirrorCopySpec) -> Any:
    # Idempotence keeps each partition's acks in produce order, which the folding needs.
    return _producer({"acks": "all", "enable.idempotence": True, **spec.target_producer})


def _sync_writer(spec: MirrorCopySpec) -> OffsetSyncWriter:
    key = ("offset-sync writer", spec.source_alias, spec.offset_syncs_topic)
    return pool.shared(key, lambda: OffsetSyncWriter(spec.offset_lag_max))


# --- the copy loop -----------------------------------------------------------------------------


class _Acks:
    """The delivery reports of one range: one callable for all of them.

    ``upstream`` holds the upstream offsets of the records produced and not yet folded;
    each report appends its downstream offset to ``downstream``. :meth:`fold` pairs what
    was acknowledged so far, runs MM2's sync rule over it and forgets it.
    """

    __slots__ = (
        "downstream", "errors", "last", "last_downstream", "partition", "topic", "upstream"
    )  # fmt: skip

    def __init__(self, topic: str, partition: int) -> None:
        self.topic = topic
        self.partition = partition
        self.upstream: list[int] = []
        self.downstream: list[int] = []
        self.errors: list[str] = []
        self.last = -1  # last upstream offset acknowledged
        self.last_downstream = -1

    def __call__(self, err: Any, msg: Any) -> None:
        if err is None:
            self.downstream.append(msg.offset())
            return
        index = len(self.downstream) + len(self.errors)
        upstream = self.upstream[index] if index < len(self.upstream) else "?"
        self.errors.append(f"{self.topic}[{self.partition}]@{upstream}: {err}")

    def fold(self, writer: OffsetSyncWriter | None) -> list[OffsetSync]:
        """Pair the acknowledged records with their upstream offsets; the syncs due now."""
        down = self.downstream
        if not down or self.errors:
            return []
        count = len(down)
        if down[0] <= self.last_downstream or down[-1] - down[0] < count - 1:
            raise RuntimeError(
                f"Delivery reports of {self.topic}[{self.partition}] came out of order; the "
                "target producer must keep enable.idempotence=true"
            )
        up = self.upstream[:count]
        del self.upstream[:count]
        self.downstream = []
        self.last, self.last_downstream = up[-1], down[-1]
        if writer is None:
            return []
        return writer.queue_offset_syncs_run(TopicPartition(self.topic, self.partition), up, down)


def _produce_waiting(producer: Any, args: tuple[Any, ...]) -> None:
    """Produce once the producer's queue has room (``BufferError`` means it is full)."""
    while True:
        producer.poll(0.05)
        try:
            producer.produce(*args)
            return
        except BufferError:
            continue


def _copy_batches(
    producer: Any,
    remote: str,
    partition: int,
    batches: Iterator[MessageBatch],
    acks: _Acks,
    stats: RunningStats | None,
    syncs: SyncSender,
) -> int:
    """Produce every message of *batches* unchanged to *remote*/*partition*; the count."""
    produce, poll, upstream = producer.produce, producer.poll, acks.upstream
    count = 0
    for messages, offsets in batches:
        upstream += offsets
        values = [m.value() for m in messages]
        stamps = [m.timestamp() for m in messages]
        if stats is not None:  # MM2's record age is taken when the record is read
            timed = [ts for kind, ts in stamps if kind and ts >= 0]
            stats.add(len(offsets), sum(map(len, filter(None, values))), timed, now_ms())
        for message, value, (kind, ts) in zip(messages, values, stamps, strict=True):
            # Positional: topic, value, key, partition, callback, on_delivery, timestamp
            # (0: none, librdkafka stamps it), headers. No kwargs dict per record.
            try:
                produce(remote, value, message.key(), partition, acks, None,
                        ts if kind else 0, message.headers())  # fmt: skip
            except BufferError:
                args = (remote, value, message.key(), partition, acks, None,
                        ts if kind else 0, message.headers())  # fmt: skip
                _produce_waiting(producer, args)
        count += len(offsets)
        poll(0)
        _check_errors(acks)  # fail fast: the rest would not be delivered either
        syncs.add(acks.fold(syncs.writer))
    return count


def _check_errors(acks: _Acks, remaining: int = 0) -> None:
    if remaining or acks.errors:
        raise RuntimeError(
            f"Mirroring {acks.topic}[{acks.partition}] failed: "
            f"{acks.errors[:5] or f'{remaining} records unacknowledged after {_TIMEOUT_S:.0f} s'}"
        )


def _finish(producer: Any, acks: _Acks, syncs: SyncSender) -> None:
    """Wait for every report; fail on the first delivery error (the records after a failed
    one may never be sent: the idempotent producer holds them back)."""
    deadline = time.monotonic() + _TIMEOUT_S
    remaining = producer.flush(0.2)
    while remaining and not acks.errors and time.monotonic() < deadline:
        remaining = producer.flush(0.2)
    _check_errors(acks, remaining)
    syncs.add(acks.fold(syncs.writer))
    if acks.upstream:
        raise RuntimeError(
            f"{len(acks.upstream)} records of {acks.topic}[{acks.partition}] were flushed "
            "without a delivery report"
        )


class SyncSender:
    """Where a range's offset syncs go: sent as they come (at least once, as MM2 sends
    each sync once its record is acknowledged), or held until the range's transaction has
    committed (exactly once: a sync must never point at an aborted copy)."""

    def __init__(self, spec: MirrorCopySpec, hold: bool) -> None:
        self.spec = spec
        self.writer = _sync_writer(spec) if spec.offset_syncs_topic else None
        self.hold = hold
        self.held: list[OffsetSync] = []
        self.producer: Any = None

    def add(self, syncs: list[OffsetSync]) -> None:
        if not syncs or not self.spec.offset_syncs_topic:
            return
        if self.hold:
            self.held += syncs
            return
        if self.producer is None:
            self.producer = _producer(self.spec.offset_syncs_producer)
        topic, produce = self.spec.offset_syncs_topic, self.producer.produce
        for sync in syncs:
            try:
                produce(topic, sync.record_value(), sync.record_key(), 0)
            except BufferError:
                _produce_waiting(self.producer, (topic, sync.record_value(), sync.record_key(), 0))

    def finish(self) -> None:
        """Promote the delayed syncs, as on a Connect offset commit, and send everything."""
        if self.writer is None:
            return
        self.writer.promote_delayed_offset_syncs()
        self.hold, held = False, self.held
        self.add(held + self.writer.take_pending_offset_syncs())
        if self.producer is not None and self.producer.flush(_TIMEOUT_S):
            log.warning("Could not send offset syncs to %s", self.spec.offset_syncs_topic)
            pool.drop(self.producer)


def copy_range(spec: MirrorCopySpec, options: SourceOptions, r: OffsetRange) -> RangeSummary:
    """Copy the records of *r* from the source cluster to the target; what was done.

    At-least-once unless ``spec.exactly_once``: the caller stores the MM2 offset of
    :attr:`RangeSummary.copied` once the whole micro-batch succeeded.
    """
    if spec.exactly_once:
        return _copy_in_transaction(spec, options, r)
    remote = spec.remote_topic(r.topic)
    producer = _target_producer(spec)
    stats = RunningStats() if spec.metrics else None
    acks = _Acks(r.topic, r.partition)
    syncs = SyncSender(spec, hold=False)
    try:
        batches = message_batches(options, r)
        count = _copy_batches(producer, remote, r.partition, batches, acks, stats, syncs)
        _finish(producer, acks, syncs)
    except BaseException:
        pool.drop(producer)
        raise
    summary = RangeSummary(r.topic, r.partition, r.start, r.end, acks.last, count)
    if stats is not None:
        summary = replace(summary, stats=stats.acked(now_ms()))
    syncs.finish()
    return summary


# --- exactly once ------------------------------------------------------------------------------


def copy_in_transaction(
    spec: MirrorCopySpec,
    r: OffsetRange,
    producer: Transactional,
    copy: Callable[[int], int],
    send_offset: Callable[[bytes, bytes | None], None],
) -> int:
    """Copy *r*, its partition's MM2 offset and a marker in one transaction; how many
    offsets of *r* an earlier committed attempt copied.

    The transactional id (:meth:`MirrorCopySpec.transactional_id`) is the same for every
    attempt and every run, so the first thing a new attempt does (initialize its producer)
    fences the older ones and aborts what they left open. The marker (a transactional
    commit of ``upstream + 1`` for the remote partition in
    :attr:`MirrorCopySpec.marker_group`) says how far the partition is copied: offsets
    below it were copied by a committed attempt and are not read again. ``copy(start)``
    copies ``[start, r.end)`` and returns the last upstream offset acknowledged (-1:
    none); ``send_offset(key, value)`` adds the MM2 offset record to the transaction.
    """
    from seaway.connect.runtime.storage.offsets import offset_key, offset_value

    remote = spec.remote_topic(r.topic)
    start = r.start

    def write(committed: int) -> int | None:
        nonlocal start
        start = max(r.start, committed)
        last = copy(start) if start < r.end else -1
        if last < 0:
            return None
        partition = {"cluster": spec.source_alias, "partition": r.partition, "topic": r.topic}
        send_offset(offset_key(CONNECTOR_NAME, partition), offset_value({"offset": last}))
        return last + 1

    write_range(producer, Marker(spec.marker_group, remote, r.partition), write,
                spec.target_producer)  # fmt: skip
    skipped = min(start, r.end) - r.start
    if skipped:
        log.info(
            "%s[%d]: offsets [%d, %d) committed by an earlier attempt, not copied again",
            r.topic, r.partition, r.start, r.start + skipped,
        )  # fmt: skip
    return skipped


def _copy_in_transaction(
    spec: MirrorCopySpec, options: SourceOptions, r: OffsetRange
) -> RangeSummary:
    """Copy *r* in one transaction (:func:`copy_in_transaction`) on the record path."""
    remote = spec.remote_topic(r.topic)
    transactional_id = spec.transactional_id(r.topic, r.partition)
    config = {**_PRODUCER_DEFAULTS, **spec.target_producer, "transactional.id": transactional_id}
    producer = pool.transactional_producer(config)
    stats = RunningStats() if spec.metrics else None
    acks = _Acks(r.topic, r.partition)
    syncs = SyncSender(spec, hold=True)
    count = 0

    def copy(start: int) -> int:
        nonlocal count
        batches = message_batches(options, replace(r, start=start))
        count = _copy_batches(producer, remote, r.partition, batches, acks, stats, syncs)
        _finish(producer, acks, syncs)
        return acks.last

    def send_offset(key: bytes, value: bytes | None) -> None:
        producer.produce(spec.offsets_topic, value, key)

    transactions = LibrdkafkaTransactions(producer, transactional_id, spec.target_producer)
    try:
        skipped = copy_in_transaction(spec, r, transactions, copy, send_offset)
    except BaseException:
        pool.drop(producer)
        raise
    summary = RangeSummary(r.topic, r.partition, r.start, r.end, acks.last, count, skipped)
    if stats is not None:
        summary = replace(summary, stats=stats.acked(now_ms()))
    syncs.finish()  # outside the transaction, once it committed
    return summary


__all__ = [
    "CONNECTOR_NAME",
    "SUMMARY_FIELDS",
    "MirrorCopySpec",
    "RangeSummary",
    "SyncSender",
    "copy_in_transaction",
    "copy_range",
]
