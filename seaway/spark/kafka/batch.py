"""Batch reads: ``spark.read.format("kafka")`` between starting and ending offsets."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql.datasource import DataSourceReader, InputPartition

from seaway.spark.kafka.client import KafkaOffsetReader
from seaway.spark.kafka.options import LATEST, SourceOptions
from seaway.spark.kafka.planner import plan_ranges, resolve
from seaway.spark.kafka.reader import read_range
from seaway.spark.kafka.stream import KafkaRangePartition

__all__ = ["KafkaBatchReader"]


class KafkaBatchReader(DataSourceReader):
    """Reads the offset ranges fixed on the driver when the query is planned."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options

    def partitions(self) -> Sequence[InputPartition]:
        client = KafkaOffsetReader(self.options)
        try:
            partitions = client.partitions()
            start = resolve(
                self.options.starting, partitions, client, strategy=self.options.timestamp_strategy
            )
            ending = self.options.ending
            if ending.kind in ("timestamp", "timestamps"):
                # No offset at or after an ending timestamp means "up to the latest".
                end = resolve(
                    ending, partitions, client, strategy="latest", option="endingOffsetsByTimestamp"
                )
            else:
                end = resolve(ending, partitions, client, option="endingOffsets")
            latest = client.latest(partitions)
            end = {tp: (latest[tp] if o == LATEST else o) for tp, o in end.items()}
        finally:
            client.close()
        ranges = plan_ranges(
            start,
            end,
            min_partitions=self.options.min_partitions,
            max_records_per_partition=self.options.max_records_per_partition,
        )
        return [KafkaRangePartition(self.options, r) for r in ranges]

    def read(self, partition: InputPartition):  # type: ignore[no-untyped-def]
        assert isinstance(partition, KafkaRangePartition)
        return read_range(partition.options, partition.range)
