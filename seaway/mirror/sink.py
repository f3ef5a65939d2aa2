"""The write side of a MirrorSource flow: the ``seaway-mirror-sink`` Spark data source.

Each Spark task produces its rows to the target cluster exactly as they were read — same
partition, key, value, headers and timestamp, bytes never decoded — into the remote topic
the replication policy names (MirrorSourceTask's record mapping). Every acknowledgement
feeds MM2's offset-sync rule (:class:`~seaway.mirror.offset_syncs.OffsetSyncWriter`, one
per Python worker, so its "first record" and lag state last across batches); at the end of
the task the delayed syncs are promoted, as on a Connect offset commit, and the syncs are
written to the offset-syncs topic, partition 0.

``commit`` (on the driver, once every task of the batch has flushed) stores each source
partition's last copied offset in MM2's Connect offsets format
(``["MirrorSourceConnector",{"cluster","partition","topic"}]`` → ``{"offset": n}``) in
``mm2-offsets.<source>.internal`` on the target, where a restarted flow resumes from
(``offset + 1``): at-least-once, never a gap.

With ``exactly_once`` (``exactly.once.source.support=enabled``, KIP-618 as MM2 uses it
since Kafka 3.5) each task writes its source partition's rows, the partition's MM2 offset
record and a marker in one transaction on the target (:func:`copy_in_transaction`):
read_committed consumers of the remote topic then see every source record exactly once,
whatever is killed when.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage

from seaway.connect.api.structs import TopicPartition
from seaway.mirror.metrics import PartitionStats, StatsCollector, merge_stats
from seaway.mirror.offset_syncs import OffsetSyncWriter

log = logging.getLogger(__name__)

SINK_NAME: Final = "seaway-mirror-sink"
CONNECTOR_NAME: Final = "MirrorSourceConnector"
_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True)
class MirrorSinkSpec:
    """What the writer needs, as JSON in the ``spec`` option."""

    source_alias: str
    remote_topics: dict[str, str]  # source topic -> remote topic
    target_producer: dict[str, str]
    offsets_topic: str
    offset_lag_max: int = 100
    offset_syncs_topic: str | None = None  # None: emit.offset-syncs.enabled=false
    offset_syncs_producer: dict[str, str] = field(default_factory=dict)
    exactly_once: bool = False
    target_alias: str = ""
    metrics_url: str | None = None  # the driver's MetricsServer.report_url; None: no metrics

    @property
    def transactional_id_prefix(self) -> str:
        """Prefix of the stable transactional ids: ``<prefix>-<topic>-<partition>``."""
        return f"seaway-mirror-{self.source_alias}-{self.target_alias}"

    @property
    def marker_group(self) -> str:
        """The group on the target whose transactional commits say how far each remote
        partition is copied (``__`` keeps it out of MM2's default group filter)."""
        return f"__seaway-mirror-{self.source_alias}-{self.target_alias}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> MirrorSinkSpec:
        return cls(**json.loads(text))


@dataclass
class MirrorCommitMessage(WriterCommitMessage):  # type: ignore[misc]
    """The last upstream offset copied per source partition: ``[[topic, partition, offset]]``."""

    copied: list[tuple[str, int, int]]
    records: int
    stats: dict[tuple[str, int], PartitionStats] = field(default_factory=dict)


_SYNC_WRITERS: dict[str, OffsetSyncWriter] = {}
_SYNC_LOCK = threading.Lock()


def _sync_writer(spec: MirrorSinkSpec) -> OffsetSyncWriter:
    key = f"{spec.source_alias}|{spec.offset_syncs_topic}"
    with _SYNC_LOCK:
        if key not in _SYNC_WRITERS:
            _SYNC_WRITERS[key] = OffsetSyncWriter(spec.offset_lag_max)
        return _SYNC_WRITERS[key]


def _producer(config: dict[str, str]) -> Any:
    from confluent_kafka import Producer

    return Producer({"linger.ms": 5, "batch.size": 1_000_000, "reconnect.backoff.ms": 10, **config})


class _Acks:
    """Delivery reports of one task, folded as they arrive so memory stays constant
    whatever the batch size: the last upstream offset acknowledged per source partition,
    the offset syncs MM2's rule asks for, the errors."""

    def __init__(self, spec: MirrorSinkSpec) -> None:
        self.last: dict[tuple[str, int], int] = {}
        self.errors: list[str] = []
        self.syncs: list[Any] = []
        self.writer = _sync_writer(spec) if spec.offset_syncs_topic else None
        self.stats = StatsCollector(spec.remote_topics) if spec.metrics_url else None

    def acked_stats(self) -> dict[tuple[str, int], PartitionStats]:
        """MM2's metrics per remote partition of what was produced; once all is acked."""
        return self.stats.acked() if self.stats is not None else {}

    def callback(self, topic: str, partition: int, upstream: int) -> Any:
        def on_delivery(err: Any, msg: Any) -> None:
            if err is not None:
                self.errors.append(f"{topic}-{partition}@{upstream}: {err}")
                return
            key = (topic, partition)
            if upstream > self.last.get(key, -1):
                self.last[key] = upstream
            writer = self.writer
            if writer is not None and writer.maybe_queue_offset_syncs(
                TopicPartition(topic, partition), upstream, msg.offset()
            ):
                # MM2 sends these at once; taking them now keeps every one, not only the
                # latest of the partition, which the translation needs to go back in time.
                self.syncs += writer.take_pending_offset_syncs()

        return on_delivery

    def copied(self) -> list[tuple[str, int, int]]:
        """The last acknowledged upstream offset per source partition."""
        return [(t, p, o) for (t, p), o in sorted(self.last.items())]

    def final_syncs(self) -> list[Any]:
        """Every sync to send once the task's records are committed."""
        if self.writer is None:
            return []
        self.writer.promote_delayed_offset_syncs()  # as on a Connect offset commit
        return self.syncs + self.writer.take_pending_offset_syncs()


def _produce_batch(producer: Any, spec: MirrorSinkSpec, batch: pa.RecordBatch, acks: _Acks) -> int:
    """Produce every row of *batch* unchanged to its remote topic; the rows produced."""
    if acks.stats is not None:
        acks.stats.add(batch)  # a few vectorised Arrow kernels per batch
    cols = {name: batch.column(i) for i, name in enumerate(batch.schema.names)}
    timestamps = cols["timestamp"].cast(pa.int64()).to_pylist()
    headers = cols["headers"].to_pylist() if "headers" in cols else [None] * batch.num_rows
    for topic, partition, offset, key, value, ts, hdrs in zip(
        cols["topic"].to_pylist(),
        cols["partition"].to_pylist(),
        cols["offset"].to_pylist(),
        cols["key"].to_pylist(),
        cols["value"].to_pylist(),
        timestamps,
        headers,
        strict=True,
    ):
        remote = spec.remote_topics.get(topic)
        if remote is None:
            raise RuntimeError(f"No remote topic known for source topic {topic}")
        kwargs: dict[str, Any] = {"partition": partition, "key": key, "value": value}
        if ts is not None:
            kwargs["timestamp"] = ts // 1000
        if hdrs:
            kwargs["headers"] = [(h["key"], h["value"]) for h in hdrs]
        while True:
            try:
                producer.produce(
                    remote, on_delivery=acks.callback(topic, partition, offset), **kwargs
                )
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
    return batch.num_rows


def _check_delivered(spec: MirrorSinkSpec, acks: _Acks, remaining: int) -> None:
    if remaining or acks.errors:
        raise RuntimeError(
            f"Mirroring to {sorted(set(spec.remote_topics.values()))} failed: "
            f"{acks.errors[:5] or f'{remaining} records unacknowledged after {_TIMEOUT_S}s'}"
        )


def copy_batches(spec: MirrorSinkSpec, batches: Iterator[pa.RecordBatch]) -> MirrorCommitMessage:
    """Produce every row, wait for every ack, emit offset syncs; what was copied."""
    # Idempotence keeps each partition's acks in produce order, which the sync rule needs.
    producer = _producer({"acks": "all", "enable.idempotence": True, **spec.target_producer})
    acks = _Acks(spec)
    count = sum(_produce_batch(producer, spec, batch, acks) for batch in batches)
    _check_delivered(spec, acks, producer.flush(_TIMEOUT_S))
    _send_offset_syncs(spec, acks.final_syncs())
    return MirrorCommitMessage(acks.copied(), count, acks.acked_stats())


# Transactional producers and marker-group handles per Python worker, by transactional
# id: a worker reused by the next batch's task for the same partition skips the
# init_transactions round trips (a fenced one is dropped and the task fails).
_TXN_PRODUCERS: dict[str, Any] = {}
_GROUP_METADATA: dict[str, Any] = {}


def _transactional_producer(spec: MirrorSinkSpec, transactional_id: str) -> Any:
    producer = _TXN_PRODUCERS.get(transactional_id)
    if producer is None:
        producer = _producer({**spec.target_producer, "transactional.id": transactional_id})
        # librdkafka asks for a producer id before a broker connection is up and then
        # waits 500 ms; metadata first makes it connect.
        producer.list_topics(timeout=_TIMEOUT_S)
        producer.init_transactions(_TIMEOUT_S)  # fences older attempts, aborts their work
        _TXN_PRODUCERS[transactional_id] = producer
    return producer


def _group_metadata(spec: MirrorSinkSpec) -> Any:
    from confluent_kafka import Consumer

    if spec.marker_group not in _GROUP_METADATA:
        consumer = Consumer({**spec.target_producer, "group.id": spec.marker_group})
        _GROUP_METADATA[spec.marker_group] = (consumer, consumer.consumer_group_metadata())
    return _GROUP_METADATA[spec.marker_group][1]


def _next_to_copy(spec: MirrorSinkSpec, remote: str, partition: int) -> int:
    """The first upstream offset not yet committed for *remote*/*partition* (-1: none)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    from seaway.admin import admin_client

    admin = admin_client(spec.target_producer)
    request = ConsumerGroupTopicPartitions(
        spec.marker_group, [KafkaTopicPartition(remote, partition)]
    )
    deadline = time.monotonic() + _TIMEOUT_S
    while True:
        try:
            result = admin.list_consumer_group_offsets([request], require_stable=True)
            offsets = result[spec.marker_group].result(_TIMEOUT_S).topic_partitions
            return max((tp.offset for tp in offsets), default=-1)
        except KafkaException as error:
            # UNSTABLE_OFFSET_COMMIT while an older attempt's transaction completes: wait.
            if time.monotonic() > deadline or not error.args[0].retriable():
                raise
            time.sleep(0.1)


def copy_in_transaction(
    spec: MirrorSinkSpec, batches: Iterator[pa.RecordBatch]
) -> MirrorCommitMessage:
    """Copy one source partition's rows, its MM2 offset and a marker in one transaction.

    The transactional id ``<prefix>-<topic>-<partition>`` is the same for every attempt
    and every run, so the first thing a new attempt does fences the older ones and aborts
    what they left open. The marker (a transactional commit of ``upstream + 1`` for the
    remote partition in :attr:`MirrorSinkSpec.marker_group`) says how far the partition is
    copied: rows below it are a replay of a committed attempt and are skipped.
    """
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    from seaway.connect.runtime.storage.offsets import offset_key, offset_value

    rows = (b for b in batches if b.num_rows)
    first = next(rows, None)
    if first is None:
        return MirrorCommitMessage([], 0)
    topic = first.column(first.schema.get_field_index("topic"))[0].as_py()
    partition = first.column(first.schema.get_field_index("partition"))[0].as_py()
    remote = spec.remote_topics[topic]
    transactional_id = f"{spec.transactional_id_prefix}-{topic}-{partition}"
    producer = _transactional_producer(spec, transactional_id)
    skip_below = _next_to_copy(spec, remote, partition)
    acks = _Acks(spec)
    count = skipped = 0
    producer.begin_transaction()
    try:
        for batch in itertools.chain([first], rows):
            names = batch.schema.names
            same = pc.and_(
                pc.equal(batch.column(names.index("topic")), topic),
                pc.equal(batch.column(names.index("partition")), partition),
            )
            if not pc.all(same).as_py():
                raise RuntimeError(
                    f"An exactly-once mirror task got rows of more than {topic}-{partition}; "
                    "do not set minPartitions or maxRecordsPerPartition on an exactly-once flow."
                )
            if skip_below >= 0:
                offsets = batch.column(names.index("offset"))
                kept = batch.filter(pc.greater_equal(offsets, skip_below))
                skipped += batch.num_rows - kept.num_rows
                batch = kept
            if batch.num_rows:
                count += _produce_batch(producer, spec, batch, acks)
        _check_delivered(spec, acks, producer.flush(_TIMEOUT_S))
        copied = acks.copied()
        if copied:
            last = copied[0][2]
            key = offset_key(
                CONNECTOR_NAME,
                {"cluster": spec.source_alias, "partition": partition, "topic": topic},
            )
            producer.produce(spec.offsets_topic, key=key, value=offset_value({"offset": last}))
            producer.send_offsets_to_transaction(
                [KafkaTopicPartition(remote, partition, last + 1)],
                _group_metadata(spec),
                _TIMEOUT_S,
            )
        producer.commit_transaction(_TIMEOUT_S)
    except BaseException:
        _TXN_PRODUCERS.pop(transactional_id, None)
        try:
            producer.abort_transaction(_TIMEOUT_S)
        except Exception:  # fenced or fatal: the coordinator aborts it anyway
            log.warning("Could not abort the transaction of %s", transactional_id, exc_info=True)
        raise
    if skipped:
        log.info(
            "%s-%d: %d rows committed by an earlier attempt skipped", topic, partition, skipped
        )
    _send_offset_syncs(spec, acks.final_syncs())  # outside the transaction, as in MM2
    return MirrorCommitMessage(copied, count, acks.acked_stats())


def _send_offset_syncs(spec: MirrorSinkSpec, syncs: list[Any]) -> None:
    if not syncs or not spec.offset_syncs_topic:
        return
    producer = _producer(spec.offset_syncs_producer)
    for sync in syncs:
        producer.produce(
            spec.offset_syncs_topic, key=sync.record_key(), value=sync.record_value(), partition=0
        )
    if producer.flush(_TIMEOUT_S):
        log.warning("Could not send %d offset syncs to %s", len(syncs), spec.offset_syncs_topic)


def store_copied_offsets(spec: MirrorSinkSpec, copied: list[tuple[str, int, int]]) -> None:
    """Write MM2's source offsets for *copied* to the target's offsets topic."""
    from seaway.connect.runtime.storage.offsets import offset_key, offset_value

    producer = _producer({"acks": "all", "partitioner": "murmur2_random", **spec.target_producer})
    for topic, partition, offset in copied:
        key = offset_key(
            CONNECTOR_NAME, {"cluster": spec.source_alias, "partition": partition, "topic": topic}
        )
        producer.produce(spec.offsets_topic, key=key, value=offset_value({"offset": offset}))
    if producer.flush(_TIMEOUT_S):
        raise RuntimeError(f"Could not store mirror offsets in {spec.offsets_topic}")


class MirrorSinkWriter(DataSourceStreamArrowWriter):  # type: ignore[misc]
    def __init__(self, spec: MirrorSinkSpec) -> None:
        self.spec = spec

    def write(self, iterator: Iterator[pa.RecordBatch]) -> MirrorCommitMessage:
        if self.spec.exactly_once:
            return copy_in_transaction(self.spec, iterator)
        return copy_batches(self.spec, iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        copied = [c for m in messages if isinstance(m, MirrorCommitMessage) for c in m.copied]
        if copied and not self.spec.exactly_once:  # exactly-once tasks stored their own
            store_copied_offsets(self.spec, copied)
        if self.spec.metrics_url:  # this runs in a Python worker, not the driver's process
            from seaway.mirror.metrics_server import send_report

            stats = merge_stats(*(m.stats for m in messages if isinstance(m, MirrorCommitMessage)))
            spec = self.spec
            send_report(spec.metrics_url, spec.source_alias, spec.target_alias, stats, copied)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.warning("Mirror batch %d aborted; it is copied again from the stored offsets", batchId)


class MirrorSinkDataSource(DataSource):  # type: ignore[misc]
    """``writeStream.format("seaway-mirror-sink").option("spec", ...)``."""

    @classmethod
    def name(cls) -> str:
        return SINK_NAME

    def streamWriter(self, schema: Any, overwrite: bool) -> MirrorSinkWriter:
        return MirrorSinkWriter(MirrorSinkSpec.from_json(self.options["spec"]))


__all__ = [
    "CONNECTOR_NAME",
    "SINK_NAME",
    "MirrorSinkDataSource",
    "MirrorSinkSpec",
    "copy_batches",
    "copy_in_transaction",
    "store_copied_offsets",
]
