"""The batch contract: connectors that move Arrow columns instead of records.

A task that moves many plain records (lines of a file, rows of a table) spends most of its
time making one Python object per record, and the runtime as much again converting each.
A task may instead implement the batch contract beside the per-record one, which keeps
working and stays the reference:

* a :class:`BatchSourceTask` (a :class:`~seaway.connect.api.replay.ReplayableSourceTask`)
  implements :meth:`BatchSourceTask.read_batches`, the same records as ``read()`` as
  :class:`SourceBatch`\\ es (and as records, in order, those columns cannot hold);
* a :class:`BatchSinkTask` implements :meth:`BatchSinkTask.put_batch`, taking what
  ``put()`` would take as one :class:`SinkBatch` per topic-partition at a time.

The runtime uses a batch method only when nothing needs the records one by one: no
transformation is configured and the converters convert whole columns
(:meth:`~seaway.connect.api.storage.Converter.from_connect_column`; Kafka's String,
ByteArray and JSON converters do). Otherwise it falls back to ``read()`` / ``put()``, so a
batch method must mean exactly what its per-record twin means.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from seaway.connect.api.data import Schema
from seaway.connect.api.data.arrow import connect_values
from seaway.connect.api.offsets import SourceOffset, SourcePartition
from seaway.connect.api.records import SinkRecord, SourceRecord
from seaway.connect.api.replay import ReplayableSourceTask
from seaway.connect.api.sink import SinkTask

__all__ = ["BatchSinkTask", "BatchSourceTask", "SinkBatch", "SourceBatch"]


@dataclass(frozen=True)
class SourceBatch:
    """Records of one source partition for one topic, as columns.

    ``records`` has a ``value`` column (Connect values of ``value_schema``: ``string`` for
    a STRING schema, ``binary`` for BYTES ...) and optionally ``key`` (of ``key_schema``)
    and ``timestamp`` (int64, ms since the epoch; null: none). Every record goes to
    ``topic`` (and ``kafka_partition``, None: the partitioner's choice), with no headers.
    """

    topic: str
    records: pa.RecordBatch
    value_schema: Schema | None
    key_schema: Schema | None = None
    kafka_partition: int | None = None


@dataclass(frozen=True)
class SinkBatch:
    """Consecutive records of one topic-partition, converted, as columns.

    ``records`` has the columns ``offset`` (int64), ``timestamp`` (int64 ms, null: none),
    ``key`` (of ``key_schema``) and ``value`` (of ``value_schema``), in offset order.
    """

    topic: str
    partition: int
    records: pa.RecordBatch
    key_schema: Schema | None
    value_schema: Schema | None

    def sink_records(self) -> list[SinkRecord]:
        """The batch's records one by one, as ``put()`` would take them (structs as
        :class:`~seaway.connect.api.data.Struct`, logical types as their Python values)."""
        columns = self.records
        keys = connect_values(self.key_schema, columns.column("key"))
        values = connect_values(self.value_schema, columns.column("value"))
        offsets = columns.column("offset").to_pylist()
        timestamps = columns.column("timestamp").to_pylist()
        rows = zip(offsets, timestamps, keys, values, strict=True)
        return [
            SinkRecord(
                topic=self.topic,
                kafka_partition=self.partition,
                key_schema=self.key_schema,
                key=key,
                value_schema=self.value_schema,
                value=value,
                kafka_offset=offset,
                timestamp=timestamp,
            )
            for offset, timestamp, key, value in rows
        ]


class BatchSourceTask(ReplayableSourceTask):
    """A replayable source task that can also read its ranges as Arrow batches."""

    @abstractmethod
    def read_batches(
        self,
        partition: SourcePartition,
        start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceBatch | SourceRecord]:
        """The records ``read(partition, start_offset, end_offset)`` yields, in order, as
        batches (any that Arrow columns cannot hold as records)."""


class BatchSinkTask(SinkTask):
    """A sink task that can also take its records as Arrow batches."""

    @abstractmethod
    def put_batch(self, batch: SinkBatch) -> None:
        """Take *batch*, as ``put()`` would take its records."""
