"""Rows given as Arrow columns, produced as whole record batches.

Rows made in Python (Spark's Kafka sink, Connect's source tasks) are encoded straight into
v2 record batches, one pass over the columns in C with no object per record
(:mod:`seaway.protocol.column_records`), and sent whole by a
:class:`~seaway.kafka.ranges.RangeProducer`: Seaway's batch client, or librdkafka behind
the same interface for the SASL mechanisms only it speaks. So this is the one produce loop
and :class:`~seaway.kafka.producer.ProduceError` its one error.

Partitions are picked as Kafka's producer picks them: the row's own partition if it has
one, else murmur2 of its key, else sticky: each batch of keyless records goes to the next
partition in turn (Kafka's built-in partitioner also moves on once a batch is full).
Batches are cut at ``batch.size`` bytes, and within the topic's ``max.message.bytes``
(:mod:`~seaway.kafka.topic_limits`), and compressed with ``compression.type``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from seaway.kafka import topic_limits
from seaway.kafka.errors import KafkaClientError
from seaway.kafka.partitioner import partitions_for_keys
from seaway.kafka.producer import ProduceError
from seaway.kafka.ranges import RangeProducer
from seaway.protocol.column_records import (
    binary_buffers,
    encode_records,
    header_buffers,
    millis_buffers,
)
from seaway.protocol.compression import CODECS
from seaway.protocol.record_codec import batch_from_section

__all__ = ["ColumnProducer", "InvalidPartition", "Rows"]

DEFAULT_BATCH_BYTES: Final = 1_000_000
"""librdkafka's ``batch.size``: the settings given are librdkafka's."""


class InvalidPartition(KafkaClientError, ValueError):
    """A row names a partition its topic does not have."""


@dataclass(frozen=True, slots=True)
class Rows:
    """Rows to produce, as Arrow arrays of equal length: ``values`` (binary or string),
    and optionally ``keys`` (binary or string), ``partitions`` (int32; null: the
    partitioner's), ``timestamps`` (int64 ms; null: now) and ``headers``
    (``list<struct<key: string, value: binary>>``)."""

    values: pa.Array
    keys: pa.Array | None = None
    partitions: pa.Array | None = None
    timestamps: pa.Array | None = None
    headers: pa.Array | None = None

    def __len__(self) -> int:
        return len(self.values)


class ColumnProducer:
    """Sends :class:`Rows` to topics through *producer*; counts what was sent and acked."""

    def __init__(
        self,
        producer: RangeProducer,
        cluster: str,
        *,
        batch_bytes: int = DEFAULT_BATCH_BYTES,
        compression: str = "none",
    ) -> None:
        if compression not in CODECS:
            raise ValueError(f"compression.type={compression!r} is not one of {', '.join(CODECS)}")
        self.producer = producer
        self.cluster = cluster
        self.batch_bytes = batch_bytes
        self.codec = CODECS[compression]
        self.sent = 0  # records handed to the producer
        self.acked = 0  # records it has acknowledged
        self._partition_counts: dict[str, int] = {}
        self._sticky: dict[str, int] = {}

    @classmethod
    def of(cls, producer: RangeProducer, config: Mapping[str, Any]) -> ColumnProducer:
        """One for librdkafka settings *config* (``bootstrap.servers``, ``batch.size``,
        ``compression.type`` or ``compression.codec``)."""
        compression = config.get("compression.type", config.get("compression.codec", "none"))
        return cls(
            producer,
            str(config["bootstrap.servers"]),
            batch_bytes=int(config.get("batch.size", DEFAULT_BATCH_BYTES)),
            compression=str(compression).lower(),
        )

    @property
    def unacknowledged(self) -> int:
        """Records sent and not (yet) acknowledged."""
        return self.sent - self.acked

    def send(self, topic: str, rows: Rows, selection: pa.Array | None = None) -> None:
        """Send *rows* (only those at the indices *selection*, in its order, if given) to
        *topic*, in as few batches as the limits allow."""
        with self._forgetting_limits():
            self._send(topic, rows, selection)

    def flush(self) -> None:
        """Wait until everything sent is acknowledged; ProduceError if it is not."""
        with self._forgetting_limits():
            self.producer.flush()
        self._take_acked()

    @contextmanager
    def _forgetting_limits(self) -> Iterator[None]:
        """After a failed write the topics' limits are read again (they may have changed)."""
        try:
            yield
        except ProduceError:
            for topic in self._partition_counts:
                topic_limits.forget(self.cluster, topic)
            raise

    def _send(self, topic: str, rows: Rows, selection: pa.Array | None) -> None:
        count = self._partition_count(topic)
        limit = min(
            self.batch_bytes, topic_limits.max_message_bytes(self.cluster, topic, self.producer)
        )
        columns = (
            binary_buffers(rows.values),
            None if rows.keys is None else binary_buffers(rows.keys),
            None if rows.timestamps is None else millis_buffers(rows.timestamps),
            None if rows.headers is None else header_buffers(rows.headers),
        )
        now = int(time.time() * 1000)
        batches: list[tuple[str, int, bytes, Any]] = []  # sent together: packed per leader
        for partition, chosen in _groups(rows, count, selection):
            indices = None if chosen is None else _int32_buffer(chosen)
            total = len(rows) if chosen is None else len(chosen)
            position = 0
            while position < total:
                encoded = encode_records(*columns, indices, position, limit, now)
                batch = batch_from_section(
                    encoded.section,
                    encoded.records,
                    encoded.base_timestamp,
                    encoded.max_timestamp,
                    compression=self.codec,
                )
                target = partition if partition >= 0 else self._next_sticky(topic, count)
                batches.append((topic, target, batch, None))
                self.sent += encoded.records
                position = encoded.next
        self.producer.send_all(batches)
        self._take_acked()

    def _take_acked(self) -> None:
        for delivery in self.producer.take_acked():
            self.acked += delivery.offsets

    def _partition_count(self, topic: str) -> int:
        count = self._partition_counts.get(topic)
        if count is None:
            count = self._partition_counts[topic] = self.producer.partition_count(topic)
        return count

    def _next_sticky(self, topic: str, count: int) -> int:
        current = self._sticky.get(topic)
        chosen = random.randrange(count) if current is None else (current + 1) % count
        self._sticky[topic] = chosen
        return chosen


_Groups = list[tuple[int, pa.Array | None]]


def _groups(rows: Rows, count: int, selection: pa.Array | None) -> _Groups:
    """``(partition, row indices)`` to send, partition -1 for the sticky rows; indices None:
    every row."""
    partitions = _partitions(rows, count)
    if partitions is None:  # no row has a partition or a key: all sticky
        return [(-1, selection)]
    if selection is not None:
        partitions = partitions.take(selection)
    distinct = pc.unique(partitions).to_pylist()
    if len(distinct) == 1:  # one partition: no grouping
        return [(distinct[0], selection)]
    groups: _Groups = []
    for partition in distinct:
        where = pc.indices_nonzero(pc.equal(partitions, partition))
        groups.append((partition, where if selection is None else selection.take(where)))
    return groups


def _partitions(rows: Rows, count: int) -> pa.Array | None:
    """Each row's partition (int32, -1: sticky), or None when every row is sticky."""
    explicit = rows.partitions
    if explicit is not None and explicit.null_count == len(explicit):
        explicit = None
    keys = rows.keys if rows.keys is not None and rows.keys.null_count < len(rows) else None
    if explicit is None and keys is None:
        return None
    if explicit is not None:
        explicit = explicit.cast(pa.int32())
        low, high = (s.as_py() for s in pc.min_max(explicit).values())
        if low < 0 or high >= count:
            bad = low if low < 0 else high
            raise InvalidPartition(
                f"Invalid partition given with record: {bad} is not in the range [0...{count}]."
            )
        if explicit.null_count == 0:
            return explicit
    if keys is None:
        return pc.coalesce(explicit, pa.scalar(-1, pa.int32()))
    by_key_buffer = pa.py_buffer(partitions_for_keys(binary_buffers(keys), count))
    by_key = pa.Array.from_buffers(pa.int32(), len(rows), [None, by_key_buffer])
    return by_key if explicit is None else pc.coalesce(explicit, by_key)


def _int32_buffer(indices: pa.Array) -> memoryview:
    """The int32 values of *indices* as one contiguous buffer."""
    array = indices.cast(pa.int32())
    buffer = array.buffers()[1]
    return memoryview(buffer)[array.offset * 4 : (array.offset + len(array)) * 4]
