"""``seaway-mirror-copy``: the streaming source of a MirrorSource flow, which copies as it reads.

It plans exactly as Seaway's Kafka source (:class:`~seaway.spark.kafka.stream.
KafkaMicroBatchReader`: the same options — ``subscribe``, ``startingOffsets``,
``failOnDataLoss``, ``maxOffsetsPerTrigger``, ``kafka.*`` — offset ranges per trigger, new
partitions, AvailableNow), and Spark keeps what it does for any source: the offset log,
retries, restarts from the checkpoint. But a task's ``read`` copies its offset range to the
target itself (:func:`seaway.mirror.copy.loop.copy_ranges`), stores MM2's offsets of what it
copied, and yields a summary row per range (:class:`~seaway.mirror.copy.spec.RangeSummary`):
the records never cross into Spark's JVM. A micro-batch's ranges are grouped into at most
``spec.tasks`` tasks (the session's cores), each copying its ranges one after the other
(:func:`group_ranges`). The rows need no sink of their own: the flow observes them for MM2's
metrics and ends the query in Spark's ``noop`` sink, so a micro-batch pays no commit step.

The copy spec (:class:`~seaway.mirror.copy.spec.MirrorCopySpec`) comes as JSON in the
``spec`` option::

    spark.readStream.format("seaway-mirror-copy")
        .option("spec", spec.to_json())
        .option("kafka.bootstrap.servers", "a:9092").option("subscribe", "orders")
        .option("startingOffsets", '{"orders":{"0":-2}}').load()
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, Final

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.ledger import copied_up_to
from seaway.mirror.copy.loop import copy_ranges
from seaway.mirror.copy.spec import SUMMARY_FIELDS, MirrorCopySpec
from seaway.spark.kafka.offsets import PartitionOffsets, from_json_dict
from seaway.spark.kafka.options import KafkaOptionError, SourceOptions, parse_source_options
from seaway.spark.kafka.stream import KafkaMicroBatchReader, KafkaRangePartition

__all__ = [
    "SOURCE_NAME",
    "SUMMARY_SCHEMA",
    "MirrorCopyDataSource",
    "MirrorCopyReader",
    "RangeGroup",
    "group_ranges",
    "parse_copy_options",
]

SOURCE_NAME: Final = "seaway-mirror-copy"
SPEC_OPTION: Final = "spec"
SUMMARY_SCHEMA: Final = ", ".join(f"`{name}` {kind}" for name, kind in SUMMARY_FIELDS)
"""The rows the source yields, one per copied offset range (DDL)."""


class MirrorCopyReader(KafkaMicroBatchReader):
    """The Kafka source's planning; ``read`` copies the range and yields its summary."""

    def __init__(self, options: SourceOptions, spec: MirrorCopySpec) -> None:
        super().__init__(options)
        self.spec = spec

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        ranges = [p for p in super().partitions(start, end) if isinstance(p, KafkaRangePartition)]
        if self.spec.follow_ms and not self.spec.exactly_once:
            ranges = self._following(ranges, from_json_dict(end))
        return [RangeGroup(group) for group in group_ranges(ranges, self.spec.tasks)]

    def _following(
        self, ranges: list[KafkaRangePartition], end: PartitionOffsets
    ) -> list[KafkaRangePartition]:
        """Follow mode: every partition gets a task (an empty range at its end where nothing
        is planned, for its task to follow), and each range starts after what this run's
        following tasks already copied past Spark's plan (:mod:`~seaway.mirror.copy.ledger`).
        """
        planned = {(p.range.topic, p.range.partition) for p in ranges}
        ranges = ranges + [
            KafkaRangePartition(self.options, OffsetRange(t, p, o, o))
            for (t, p), o in sorted(end.items())
            if (t, p) not in planned
        ]
        done = copied_up_to(self.spec, [(p.range.topic, p.range.partition) for p in ranges])
        moved = []
        for part in ranges:
            r = part.range
            after = done.get((r.topic, r.partition), r.start)
            if after > r.start:
                r = replace(r, start=after, end=max(after, r.end))
                part = KafkaRangePartition(part.options, r)
            moved.append(part)
        return moved

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, RangeGroup)
        for summary in copy_ranges(self.spec, [(p.options, p.range) for p in partition.parts]):
            yield summary.row()


class RangeGroup(InputPartition):
    """One task's work: the ranges it copies, one after the other."""

    def __init__(self, parts: list[KafkaRangePartition]) -> None:
        super().__init__([p.range for p in parts])
        self.parts = parts


def group_ranges(
    parts: Sequence[KafkaRangePartition], tasks: int
) -> list[list[KafkaRangePartition]]:
    """*parts* in at most *tasks* groups of about equal records (0: one group each).

    Every task costs Spark's launch and a Python worker's hand-over, and only as many run
    at once as there are cores: 8 partitions on 2 cores copied as 8 tasks pay that cost in
    4 waves each micro-batch, which is most of a small batch's time (and of a record's
    latency). The largest range goes to the least loaded group first."""
    if tasks <= 0 or len(parts) <= tasks:
        return [[p] for p in parts]
    groups: list[list[KafkaRangePartition]] = [[] for _ in range(tasks)]
    loads = [0] * tasks
    for part in sorted(parts, key=lambda p: p.range.size, reverse=True):
        least = loads.index(min(loads))
        groups[least].append(part)
        loads[least] += part.range.size
    return [g for g in groups if g]


def parse_copy_options(options: dict[str, str]) -> tuple[SourceOptions, MirrorCopySpec]:
    """The Kafka source options and the copy spec, checked together."""
    kafka = {k: v for k, v in options.items() if k.lower() != SPEC_OPTION}
    raw = next((v for k, v in options.items() if k.lower() == SPEC_OPTION), None)
    if raw is None:
        raise KafkaOptionError(
            f"Option '{SPEC_OPTION}' must be specified for {SOURCE_NAME}: the copy spec as "
            "JSON (seaway.mirror.copy.spec.MirrorCopySpec(...).to_json())."
        )
    try:
        spec = MirrorCopySpec.from_json(raw)
    except (ValueError, TypeError) as error:
        raise KafkaOptionError(
            f"Option '{SPEC_OPTION}' is not a MirrorCopySpec as JSON ({error}); build it "
            "with MirrorCopySpec(...).to_json()."
        ) from None
    source = parse_source_options(kafka, streaming=True)
    if source.min_partitions or source.max_records_per_partition:
        raise KafkaOptionError(
            "Options 'minPartitions' and 'maxRecordsPerPartition' split a partition's range "
            "across tasks, which a mirror copy cannot do: the pieces would reach the remote "
            "partition out of order, and a piece's stored offset would pass over an earlier "
            "piece not yet copied (exactly once: one transactional id per partition). Remove "
            "them; 'maxOffsetsPerTrigger' bounds a batch."
        )
    return source, spec


class MirrorCopyDataSource(DataSource):
    """``readStream.format("seaway-mirror-copy").option("spec", ...)`` + Kafka options."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return SUMMARY_SCHEMA

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return MirrorCopyReader(*parse_copy_options(dict(self.options)))
