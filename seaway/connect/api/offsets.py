"""Source partitions and offsets: plain JSON dicts, their canonical key, and the reader.

A source partition (``{"filename": "in.txt"}``) names a part of the source system and a
source offset (``{"position": 28}``) a position in it. Both are JSON-serialisable dicts.
Dicts cannot be dictionary keys, so mappings *of* partitions use :func:`partition_key`,
the partition's canonical compact JSON text (sorted keys); it also works directly as a
key of Spark's offset dicts.

>>> partition_key({"filename": "in.txt"})
'{"filename":"in.txt"}'
>>> partition_from_key('{"filename":"in.txt"}')
{'filename': 'in.txt'}
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from seaway.connect.api.errors import DataError

SourcePartition = dict[str, Any]
"""Names a part of the source system, e.g. ``{"filename": "in.txt"}``."""

SourceOffset = dict[str, Any]
"""A position within a source partition, e.g. ``{"position": 28}``."""

PartitionKey = str
"""The canonical JSON text of a :data:`SourcePartition` (see :func:`partition_key`)."""


def partition_key(partition: Mapping[str, Any]) -> PartitionKey:
    """Canonical compact JSON of *partition* with sorted keys; equal dicts give equal keys."""
    try:
        return json.dumps(
            partition, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise DataError(f"Source partition is not JSON-serialisable: {partition!r}") from exc


def partition_from_key(key: PartitionKey) -> SourcePartition:
    """The partition dict a :func:`partition_key` stands for."""
    partition = json.loads(key)
    if not isinstance(partition, dict):
        raise DataError(f"Not a source partition key: {key!r}")
    return partition


class OffsetStorageReader(ABC):
    """Reads the last committed offsets of a connector's source partitions."""

    @abstractmethod
    def offsets(self, partitions: Iterable[Mapping[str, Any]]) -> dict[PartitionKey, SourceOffset]:
        """Committed offsets of *partitions*, keyed by :func:`partition_key`.

        Partitions without a committed offset are left out.
        """

    def offset(self, partition: Mapping[str, Any]) -> SourceOffset | None:
        """The committed offset of one partition, or None."""
        return self.offsets([partition]).get(partition_key(partition))


__all__ = [
    "OffsetStorageReader",
    "PartitionKey",
    "SourceOffset",
    "SourcePartition",
    "partition_from_key",
    "partition_key",
]
