"""MM2's source offsets of what a copy task copied, written by the task itself.

A partition's offset record (:func:`~seaway.mirror.copy.spec.offset_record`) goes to
``mm2-offsets.<source>.internal`` on the target through the producer that copied the range,
partitioned as Connect partitions its offset records (murmur2 of the key). At least once the
task stores them after its ranges are acknowledged (:func:`store_offsets`): an offset only
ever covers records already on the target, so a restart from it copies some records again
and never leaves a gap. Exactly once the record is sent inside the range's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable

from seaway.kafka.partitioner import partition_for_key
from seaway.kafka.producer import Delivery, ProduceError
from seaway.kafka.ranges import RangeProducer
from seaway.mirror.copy.spec import MirrorCopySpec, offset_record
from seaway.mirror.metrics import now_ms
from seaway.protocol.record_codec import Record, build_batch

__all__ = ["send_offset", "store_offsets"]


def send_offset(
    producer: RangeProducer, spec: MirrorCopySpec, topic: str, partition: int, offset: int
) -> Delivery:
    """Send MM2's source offset of *topic*/*partition* (the last upstream offset copied)."""
    partitions = producer.partition_count(spec.offsets_topic)
    return producer.send_all([_offset_batch(spec, partitions, topic, partition, offset)])[0]


def store_offsets(
    producer: RangeProducer, spec: MirrorCopySpec, copied: Iterable[tuple[str, int, int]]
) -> None:
    """Store the offsets of *copied* ``(topic, partition, last offset)`` and wait for them:
    one Produce request per leader of the offsets topic."""
    try:
        partitions = producer.partition_count(spec.offsets_topic)
        producer.send_all([_offset_batch(spec, partitions, *c) for c in copied])
        producer.flush()
    except ProduceError as error:
        raise RuntimeError(
            f"Could not store mirror offsets in {spec.offsets_topic}: {error}; the ranges are "
            "copied again from the offsets stored before them"
        ) from error
    producer.take_acked()  # nothing to map: the copies folded theirs before


def _offset_batch(
    spec: MirrorCopySpec, partitions: int, topic: str, partition: int, offset: int
) -> tuple[str, int, bytes, None]:
    """The offset record of *topic*/*partition* as a batch, and where it goes (Connect
    partitions its offset records by murmur2 of the key)."""
    key, value = offset_record(spec, topic, partition, offset)
    batch = build_batch([Record(0, now_ms(), key, value)])
    return spec.offsets_topic, partition_for_key(key, partitions), batch, None
