"""Turning offsets into work: start positions, per-trigger limits, and offset ranges.

All of it runs on the driver and is deterministic given its inputs, so the ranges Spark
records for a batch in its offset log are exactly the records the tasks read, on a retry
or after a restart alike.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Mapping

from seaway.kafka.ranges import OffsetRange
from seaway.spark.kafka.client import KafkaOffsetReader
from seaway.spark.kafka.offsets import PartitionOffsets, TopicPartition
from seaway.spark.kafka.options import EARLIEST, LATEST, KafkaOptionError, StartSpec

log = logging.getLogger(__name__)

__all__ = ["plan_ranges", "rate_limit", "resolve"]


def resolve(
    spec: StartSpec,
    partitions: set[TopicPartition],
    reader: KafkaOffsetReader,
    *,
    strategy: str = "error",
    option: str = "startingOffsets",
    keep_latest_symbolic: bool = False,
) -> PartitionOffsets:
    """Concrete offsets for ``spec`` over ``partitions``.

    With ``keep_latest_symbolic`` a "latest" start stays -1: the stream resolves it when it
    plans the first batch, so a restart before the first commit cannot move it (Spark asks
    for the initial offset again then).
    """
    if spec.kind == "earliest":
        return reader.earliest(partitions)
    if spec.kind == "latest":
        return (
            dict.fromkeys(partitions, LATEST) if keep_latest_symbolic else reader.latest(partitions)
        )
    if spec.kind == "offsets":
        wanted = {(t, p): o for t, parts in spec.offsets.items() for p, o in parts.items()}
        unknown = set(wanted) - partitions
        if unknown:
            raise KafkaOptionError(
                f"Option '{option}' names partitions the source does not read: "
                f"{sorted(unknown)}. It must cover exactly the subscribed partitions."
            )
        missing = partitions - set(wanted)
        if missing:
            raise KafkaOptionError(
                f"Option '{option}' has no offset for {sorted(missing)}: give an offset for "
                "every partition (-2 for earliest, -1 for latest)."
            )
        out: PartitionOffsets = {}
        lows_highs = reader.watermarks(partitions)
        for tp, offset in wanted.items():
            low, high = lows_highs[tp]
            if offset == EARLIEST:
                out[tp] = low
            elif offset == LATEST:
                out[tp] = LATEST if keep_latest_symbolic else high
            else:
                out[tp] = offset
        return out
    if spec.kind == "timestamp":
        timestamps = dict.fromkeys(partitions, spec.timestamp)
    else:
        timestamps = {(t, p): ts for t, parts in spec.offsets.items() for p, ts in parts.items()}
        unknown = set(timestamps) - partitions
        if unknown:
            raise KafkaOptionError(
                f"Option '{option}' names partitions the source does not read: {sorted(unknown)}."
            )
    found = reader.for_timestamps(timestamps)
    out = {}
    latest = None
    for tp, at in found.items():
        if at is None:
            if strategy != "latest":
                raise KafkaOptionError(
                    f"No offset in {tp[0]}[{tp[1]}] has a timestamp >= {timestamps[tp]} "
                    f"({option}); set startingOffsetsByTimestampStrategy=latest to start at "
                    "the end instead."
                )
            latest = latest or reader.latest(partitions)
            at = latest[tp]
        out[tp] = at
    for tp in partitions - set(out):
        out[tp] = reader.earliest({tp})[tp]
    return out


def rate_limit(
    start: Mapping[TopicPartition, int], latest: Mapping[TopicPartition, int], limit: int
) -> PartitionOffsets:
    """Cap a batch at ``limit`` records, shared across partitions by their backlog.

    Spark's KafkaMicroBatchStream does the same: each partition gets
    ``limit * backlog / total`` (at least one record when it has any).
    """
    sizes = {tp: latest[tp] - start.get(tp, latest[tp]) for tp in latest}
    total = sum(s for s in sizes.values() if s > 0)
    if total <= limit:
        return dict(latest)
    out: PartitionOffsets = {}
    for tp, end in latest.items():
        begin = start.get(tp, end)
        size = sizes[tp]
        if size <= 0:
            out[tp] = end
            continue
        share = limit * (size / total)
        out[tp] = min(end, begin + (math.ceil(share) if share < 1 else math.floor(share)))
    return out


def plan_ranges(
    start: Mapping[TopicPartition, int],
    end: Mapping[TopicPartition, int],
    *,
    min_partitions: int | None = None,
    max_records_per_partition: int | None = None,
) -> list[OffsetRange]:
    """Offset ranges for a batch: one per partition with data, split by the size options."""
    ranges = [
        OffsetRange(t, p, start[t, p], e)
        for (t, p), e in sorted(end.items())
        if (t, p) in start and e > start[t, p]
    ]
    if max_records_per_partition:
        ranges = [
            piece
            for r in ranges
            for piece in _split(r, math.ceil(r.size / max_records_per_partition))
        ]
    if min_partitions and len(ranges) < min_partitions:
        total = sum(r.size for r in ranges)
        ideal = total / min_partitions
        ranges = [piece for r in ranges for piece in _split(r, max(round(r.size / ideal), 1))]
    return ranges


def _split(r: OffsetRange, parts: int) -> list[OffsetRange]:
    parts = max(1, min(parts, r.size))
    bounds = [r.start + (r.size * i) // parts for i in range(parts + 1)]
    return [OffsetRange(r.topic, r.partition, a, b) for a, b in itertools.pairwise(bounds)]
