"""Partition offsets as Spark checkpoints them: ``{"topic": {"0": 42}}``.

The JSON layout is the one Spark's own Kafka source writes (partition ids as strings,
topics and partitions sorted), so checkpoints read naturally and compare stably: Spark
compares offsets as JSON strings.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["PartitionOffsets", "TopicPartition", "from_json_dict", "to_json_dict"]

TopicPartition = tuple[str, int]
PartitionOffsets = dict[TopicPartition, int]


def to_json_dict(offsets: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in sorted(offsets.items()):
        out.setdefault(topic, {})[str(partition)] = int(offset)
    return out


def from_json_dict(value: Mapping[str, Mapping[str, int]] | None) -> PartitionOffsets:
    if not value:
        return {}
    return {(t, int(p)): int(o) for t, parts in value.items() for p, o in parts.items()}
