"""``seaway-mirror-copy``: the streaming source of a MirrorSource flow, which copies as it reads.

It plans exactly as Seaway's Kafka source (:class:`~seaway.spark.kafka.stream.
KafkaMicroBatchReader`: the same options — ``subscribe``, ``startingOffsets``,
``failOnDataLoss``, ``maxOffsetsPerTrigger``, ``kafka.*`` — offset ranges per trigger, new
partitions, AvailableNow), and Spark keeps what it does for any source: the offset log,
retries, restarts from the checkpoint. But a task's ``read`` copies its offset range to the
target itself (:func:`seaway.mirror.copy.loop.copy_range`) and yields a single summary row
(:class:`~seaway.mirror.copy.spec.RangeSummary`): the records never cross into Spark's JVM.
``seaway-mirror-sink`` then turns the summaries into MM2's stored offsets and metrics.

The copy spec (:class:`~seaway.mirror.copy.spec.MirrorCopySpec`) comes as JSON in the
``spec`` option::

    spark.readStream.format("seaway-mirror-copy")
        .option("spec", spec.to_json())
        .option("kafka.bootstrap.servers", "a:9092").option("subscribe", "orders")
        .option("startingOffsets", '{"orders":{"0":-2}}').load()
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from seaway.mirror.copy.loop import copy_range
from seaway.mirror.copy.spec import SUMMARY_FIELDS, MirrorCopySpec
from seaway.spark.kafka.options import KafkaOptionError, SourceOptions, parse_source_options
from seaway.spark.kafka.stream import KafkaMicroBatchReader, KafkaRangePartition

__all__ = [
    "SOURCE_NAME",
    "SUMMARY_SCHEMA",
    "MirrorCopyDataSource",
    "MirrorCopyReader",
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

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, KafkaRangePartition)
        yield copy_range(self.spec, partition.options, partition.range).row()


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
    if spec.exactly_once and (source.min_partitions or source.max_records_per_partition):
        raise KafkaOptionError(
            "Options 'minPartitions' and 'maxRecordsPerPartition' split a partition's range "
            "across tasks, which an exactly-once copy cannot do (one transactional id per "
            "partition): remove them, or use 'maxOffsetsPerTrigger' to bound a batch."
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
