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
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage

from seaway.connect.api.structs import TopicPartition
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


def copy_batches(spec: MirrorSinkSpec, batches: Iterator[pa.RecordBatch]) -> MirrorCommitMessage:
    """Produce every row, wait for every ack, emit offset syncs; what was copied."""
    producer = _producer({"acks": "all", **spec.target_producer})
    acked: list[tuple[str, int, int, int]] = []  # source topic, partition, upstream, downstream
    errors: list[str] = []

    def delivered(topic: str, partition: int, upstream: int) -> Any:
        def on_delivery(err: Any, msg: Any) -> None:
            if err is not None:
                errors.append(f"{topic}-{partition}@{upstream}: {err}")
            else:
                acked.append((topic, partition, upstream, msg.offset()))

        return on_delivery

    count = 0
    for batch in batches:
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
                        remote, on_delivery=delivered(topic, partition, offset), **kwargs
                    )
                    break
                except BufferError:
                    producer.poll(0.05)
            producer.poll(0)
            count += 1
    remaining = producer.flush(_TIMEOUT_S)
    if remaining or errors:
        raise RuntimeError(
            f"Mirroring to {sorted(set(spec.remote_topics.values()))} failed: "
            f"{errors[:5] or f'{remaining} records unacknowledged after {_TIMEOUT_S}s'}"
        )
    last: dict[tuple[str, int], int] = {}
    if spec.offset_syncs_topic:
        _emit_offset_syncs(spec, sorted(acked, key=lambda a: (a[0], a[1], a[2])))
    for topic, partition, upstream, _ in acked:
        last[(topic, partition)] = max(upstream, last.get((topic, partition), -1))
    return MirrorCommitMessage([(t, p, o) for (t, p), o in sorted(last.items())], count)


def _emit_offset_syncs(spec: MirrorSinkSpec, acked: list[tuple[str, int, int, int]]) -> None:
    assert spec.offset_syncs_topic is not None
    writer = _sync_writer(spec)
    syncs = []
    for topic, partition, upstream, downstream in acked:
        tp = TopicPartition(topic, partition)
        if writer.maybe_queue_offset_syncs(tp, upstream, downstream):
            # MM2 sends these at once; taking them now keeps every one, not only the latest
            # of the partition, which the translation needs to go back in time.
            syncs += writer.take_pending_offset_syncs()
    writer.promote_delayed_offset_syncs()  # as on a Connect offset commit
    syncs += writer.take_pending_offset_syncs()
    if not syncs:
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
        return copy_batches(self.spec, iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        copied = [c for m in messages if isinstance(m, MirrorCommitMessage) for c in m.copied]
        if copied:
            store_copied_offsets(self.spec, copied)

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
    "store_copied_offsets",
]
