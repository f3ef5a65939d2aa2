"""The ceiling of Spark's Python Data Source here: a stream of prebuilt Arrow batches.

A source with the Kafka source's schema, partitions and batch size whose tasks yield one
Arrow batch built once per Python worker, again and again: what remains is Spark's own
cost of taking Arrow batches from a Python Data Source (the hand-off to the JVM, Arrow to
rows, task scheduling), which bounds any reader built on it. ``bench/spark_kafka.py``
runs it next to the Kafka read and reports the reader's ratio to it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from seaway.spark.kafka.reader import BATCH_ROWS
from seaway.spark.kafka.schema import arrow_schema, spark_schema

__all__ = ["NAME", "PrebuiltArrowSource"]

NAME = "seaway-bench-arrow"
_TEMPLATE: dict[int, pa.RecordBatch] = {}


def _template(value_size: int) -> pa.RecordBatch:
    """BATCH_ROWS rows shaped as the Kafka source's: 8 B keys, values of *value_size*."""
    if value_size not in _TEMPLATE:
        n = BATCH_ROWS
        arrays = [
            pa.array([b"k%07d" % i for i in range(n)], pa.binary()),
            pa.array([b"v" * value_size] * n, pa.binary()),
            pa.repeat(pa.scalar("bench", pa.string()), n),
            pa.repeat(pa.scalar(0, pa.int32()), n),
            pa.array(range(n), pa.int64()),
            pa.array([1_700_000_000_000_000 + i for i in range(n)], pa.timestamp("us", tz="UTC")),
            pa.repeat(pa.scalar(0, pa.int32()), n),
        ]
        _TEMPLATE[value_size] = pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(False))
    return _TEMPLATE[value_size]


class _Rows(InputPartition):
    def __init__(self, rows: int) -> None:
        super().__init__(rows)
        self.rows = rows


class _Reader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, rows: int, partitions: int, value_size: int) -> None:
        self.rows, self.partition_count, self.value_size = rows, partitions, value_size

    def initialOffset(self) -> dict:
        return {"rows": 0}

    def prepareForTriggerAvailableNow(self) -> None:
        pass

    def latestOffset(self, start: dict, limit: object) -> dict:
        return {"rows": self.rows}

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        total = end["rows"] - start["rows"]
        share, extra = divmod(total, self.partition_count)
        return [_Rows(share + (i < extra)) for i in range(self.partition_count)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, _Rows)
        template = _template(self.value_size)
        left = partition.rows
        while left > 0:
            batch = template if left >= template.num_rows else template.slice(0, left)
            left -= batch.num_rows
            yield batch

    def commit(self, end: dict) -> None:
        pass


class PrebuiltArrowSource(DataSource):
    """Options: ``rows``, ``partitions``, ``valueSize``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> StructType:
        return spark_schema(False)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        options = self.options
        return _Reader(int(options["rows"]), int(options["partitions"]), int(options["valueSize"]))
