"""A source connector's records as a DataFrame: ``spark.readStream.format("connect")``.

The planning is the Connect worker's (:class:`ConnectSourceStreamReader`): the Spark offset
holds the connector's source offsets, so they live in the query's checkpoint and a restarted
query goes on from its last committed micro-batch. Instead of producing to Kafka, an
executor's task yields the records as rows (:class:`RowColumns`: typed, or converted by the
connector's key, value and header converters after its transformations, as a worker would
write them).

A micro-batch is replayed after a restart (Spark runs the last planned one again): a
replayable task reads its ranges again; a plain ``poll()`` task, whose records the planning
driver held, is started from the batch's start offsets and polled for as many records as it
had given (a task that polls the same records from the same offsets, as Debezium's do once
their snapshot is over, is then exactly once).
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Final

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition

from seaway.connect.api import SourceRecord, SourceTask
from seaway.connect.api.batches import SourceBatch
from seaway.connect.api.offsets import partition_key
from seaway.connect.runtime.queries.conversion import RecordConverter, TaskFailure
from seaway.connect.runtime.queries.source import (
    BATCH_ROWS,
    RANGE,
    ConnectSourceStreamReader,
    SourceQuerySpec,
    SparkOffset,
    TaskBatch,
    batch_timestamps,
    converted_column,
    polled_count,
    polled_ends,
    source_offsets,
    source_records,
    started_task,
    task_records,
)
from seaway.connect.runtime.queries.task_metrics import TaskMetrics
from seaway.connect.spark_format.columns import RowColumns
from seaway.connect.spark_format.connector import FormatConnector
from seaway.java.lru_cache import LruCache

__all__ = [
    "ConnectBatchReader",
    "ConnectStreamReader",
    "min_partitions",
    "record_rows",
    "source_spec",
]

PLANS_PER_BATCH: Final = "plans.per.batch"
MIN_PARTITIONS: Final = "minPartitions"
PARALLELISM: Final = "seaway.parallelism"  # the session's, given by seaway.spark's format()
_IDLE_POLLS: Final = 100  # empty polls in a row that end a replay short of its records

log = logging.getLogger(__name__)


def source_spec(connector: FormatConnector, options: Any) -> SourceQuerySpec:
    """The query spec of a source connector read as a DataFrame: from no offsets (the
    checkpoint keeps them), never into Kafka."""
    return SourceQuerySpec(
        connector=connector.name,
        task_class=connector.task_class,
        task_configs=connector.task_configs,
        enabled_tasks=list(range(len(connector.task_configs))),
        start_offsets={},
        conversion=connector.conversion,
        plans_per_batch=int(options.get(PLANS_PER_BATCH) or 500),
    )


class ConnectStreamReader(ConnectSourceStreamReader):
    """The worker's planning; ``read`` yields the records instead of producing them."""

    def __init__(self, spec: SourceQuerySpec, columns: RowColumns, min_partitions: int = 1) -> None:
        super().__init__(spec)
        self.columns = columns
        self.min_partitions = min_partitions
        self._pending: dict[int, list[SourceRecord]] = {}  # by id() of the running task
        # the offsets a chained plan passed on its way to each planned end, by (partition
        # key, end offset as JSON): where a planned range may be cut (_step_ranges)
        self._steps: LruCache[tuple[str, str], list[Any]] = LruCache(1024)

    def _planned(self, steps: dict[str, list[Any]]) -> None:
        for key, offsets in steps.items():
            self._steps.put((key, json.dumps(offsets[-1], sort_keys=True)), offsets[:-1])

    def _step_ranges(self, key: str, start: Any, end: Any) -> list[tuple[str, Any, Any]]:
        """A planned range cut where its chained plans ended (one range when this process
        did not plan it: a micro-batch replayed after a restart)."""
        inner = self._steps.get((key, json.dumps(end, sort_keys=True))) or []
        return [(key, a, b) for a, b in itertools.pairwise([start, *inner, end])]

    def partitions(self, start: SparkOffset, end: SparkOffset) -> list[TaskBatch]:
        batches = super().partitions(start, end)
        for batch in batches:
            count = polled_count(start, end, batch.task)
            if count and batch.polled is None:  # planned before a restart: poll again
                batch.polled = self._poll_again(batch.task, start, end, count)
        return self._spread(batches)

    def _spread(self, batches: list[TaskBatch]) -> list[TaskBatch]:
        """Cut the replayable tasks' ranges where their chained plans ended and share the
        pieces, in order, among at least ``min_partitions`` Spark partitions (no Kafka
        transaction ties Spark partition *i* to task *i* here; rows of one source partition
        then come in several Spark partitions, as a file's do in Spark's file sources)."""
        reading = [b for b in batches if b.ranges and b.polled is None]
        if self.min_partitions <= len(batches) or not reading:
            return batches
        share = -(-self.min_partitions // len(reading))  # pieces per task, rounded up
        spread = [b for b in batches if b not in reading]
        for batch in reading:
            pieces = [p for r in batch.ranges for p in self._step_ranges(*r)]
            size = -(-len(pieces) // share)
            for at in range(0, len(pieces), size):
                spread.append(replace(batch, ranges=pieces[at : at + size]))
        return spread

    def _poll_again(
        self, index: int, start: SparkOffset, end: SparkOffset, count: int
    ) -> list[SourceRecord]:
        """The *count* records task *index* polled from *start*, from a task started there,
        which then goes on as the running task (what it polled beyond them is the next
        micro-batch's). A task that polls other records (a snapshot begun again, a source
        that changed) is warned of: that micro-batch is then at least once."""
        running = self._tasks.pop(index, None)
        if running is not None:
            running.stop()
        task = self._tasks[index] = started_task(self.spec, index, source_offsets(start))
        records: list[SourceRecord] = []
        idle = 0
        try:
            while len(records) < count and idle < _IDLE_POLLS:
                polled = task.poll() or []
                records.extend(polled)
                idle = 0 if polled else idle + 1
        except Exception as error:
            raise TaskFailure.of(self.spec.connector, index, error) from error
        records, self._pending[id(task)] = records[:count], records[count:]
        ends = polled_ends(records)
        planned = {k: v for k, v in source_offsets(end).items() if end[k][0] == index}
        if len(records) < count or any(planned.get(k) != v for k, v in ends.items()):
            log.warning(
                "Task %s-%d polled other records from the start of the micro-batch ending at "
                "%s than before the restart (%d of %d, ending at %s): the stream goes on from "
                "them, that micro-batch at least once", self.spec.connector, index,
                json.dumps(planned), len(records), count, json.dumps(ends),
            )  # fmt: skip
        return records

    def _poll(self, task: SourceTask) -> tuple[dict[str, Any], list[SourceRecord]]:
        """What a replay polled beyond its micro-batch first, then the task's next poll."""
        pending = self._pending.pop(id(task), None)
        return super()._poll(task) if not pending else (polled_ends(pending), pending)

    def read(self, partition: TaskBatch) -> Iterator[pa.RecordBatch]:  # type: ignore[override]
        if not partition.ranges and not partition.polled:
            return
        try:
            yield from record_rows(self.spec, partition, self.columns)
        except TaskFailure:
            raise
        except Exception as error:
            raise TaskFailure.of(self.spec.connector, partition.task, error) from error


def record_rows(
    spec: SourceQuerySpec, batch: TaskBatch, columns: RowColumns
) -> Iterator[pa.RecordBatch]:
    """A task's records of one micro-batch as rows of ``columns.arrow_schema``: whole
    columns where the task and the converters allow it, else record by record."""
    converter = RecordConverter(spec.conversion, metrics=TaskMetrics(task=batch.task))
    schema = columns.arrow_schema
    rows = _Rows(columns, schema)
    where: tuple[str | None, str | None] = (None, None)
    for item in task_records(spec, batch, columns=not converter.transforms):
        if isinstance(item, tuple):
            if item[0] == RANGE:
                key, end = item[1]
                where = (key, json.dumps(end, sort_keys=True))
            continue
        if isinstance(item, SourceBatch):
            whole = _batch_rows(converter, columns, schema, item, *where)
            if whole is not None:
                if len(rows):
                    yield rows.flush()
                yield whole
                continue
            records: Iterator[SourceRecord] = source_records(item)
        else:
            records = iter((item,))
        for record in records:
            rows.add(converter, record, *where)
            if len(rows) >= BATCH_ROWS:
                yield rows.flush()
    if len(rows):
        yield rows.flush()


class _Rows:
    """Rows made record by record, kept as column lists until flushed as one Arrow batch."""

    def __init__(self, columns: RowColumns, schema: pa.Schema) -> None:
        self.columns = columns
        self.schema = schema
        self.typed = columns.key is not None or columns.value is not None
        self.lists: list[list[Any]] = [[] for _ in schema]

    def __len__(self) -> int:
        return len(self.lists[0])

    def add(
        self,
        converter: RecordConverter,
        record: SourceRecord,
        partition: str | None,
        offset: str | None,
    ) -> None:
        """A record (transformed, converted where its column takes bytes); a record the
        transformations drop, or ``errors.tolerance=all`` skips, adds nothing."""
        if self.typed:  # no transformation: RowColumns.of
            row = converter.guarded("VALUE_CONVERTER", lambda: self._typed(converter, record),
                                    record)  # fmt: skip
        else:
            row = converter.source_rows(record)
        if row is None:
            return
        topic, _kafka_partition, key, value, headers, timestamp = row
        if record.source_partition is not None:
            partition = partition_key(record.source_partition)
            offset = json.dumps(record.source_offset, sort_keys=True)
        items = (topic, partition, offset, key, value, headers, timestamp)
        for column, item in zip(self.lists, items, strict=True):
            column.append(item)

    def _typed(self, converter: RecordConverter, record: SourceRecord) -> tuple[Any, ...]:
        """:meth:`RecordConverter.source_row` with a typed key or value left as it is."""
        topic, columns = record.topic, self.columns
        key, value = record.key, record.value
        if columns.key is None:
            key = converter.key.from_connect_data(topic, record.key_schema, key, record.headers)
        if columns.value is None:
            value = converter.value.from_connect_data(
                topic, record.value_schema, value, record.headers
            )
        headers = converter.source_headers(record)
        return topic, record.kafka_partition, key, value, headers, record.timestamp

    def flush(self) -> pa.RecordBatch:
        topic, partition, offset, key, value, headers, timestamp = self.lists
        arrays = [
            pa.array(topic, pa.string()),
            pa.array(partition, pa.string()),
            pa.array(offset, pa.string()),
            self._column("key", key),
            self._column("value", value),
            pa.array(headers, self.schema.field("headers").type),
            pa.array(
                [None if t is None else t * 1000 for t in timestamp],
                self.schema.field("timestamp").type,
            ),
        ]
        self.lists = [[] for _ in self.schema]
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _column(self, which: str, values: list[Any]) -> pa.Array:
        if getattr(self.columns, which) is None:
            return pa.array(values, pa.binary())
        return self.columns.typed(which, values)


def _batch_rows(
    converter: RecordConverter,
    columns: RowColumns,
    schema: pa.Schema,
    batch: SourceBatch,
    partition: str | None,
    offset: str | None,
) -> pa.RecordBatch | None:
    """A :class:`SourceBatch` as rows, its columns converted whole, with its source
    partition and the offset its range ends at (a batch has no offset per record); None
    when a converter cannot take a column (the records then go one by one)."""
    key = _batch_column(converter, columns, batch, "key")
    value = _batch_column(converter, columns, batch, "value")
    if key is None or value is None:
        return None
    n = batch.records.num_rows
    text = pa.nulls(n, pa.string())
    arrays = [
        text.fill_null(batch.topic),
        text.fill_null(partition) if partition else text,
        text.fill_null(offset) if offset else text,
        key,
        value,
        pa.array([[]] * n, schema.field("headers").type),
        batch_timestamps(batch).cast(schema.field("timestamp").type),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _batch_column(
    converter: RecordConverter, columns: RowColumns, batch: SourceBatch, which: str
) -> pa.Array | None:
    """A batch's key or value column as its row column: typed (cast whole; null where the
    batch has no such column), or the converter's bytes (None when it cannot take a
    column)."""
    if getattr(columns, which) is None:
        return converted_column(converter, batch, which)
    if which not in batch.records.schema.names:
        return pa.nulls(batch.records.num_rows, columns.arrow_schema.field(which).type)
    return columns.conformed(which, batch.records.column(which))


def min_partitions(options: Any) -> int:
    """``minPartitions``, else the session's default parallelism, else 1."""
    return max(1, int(options.get(MIN_PARTITIONS) or options.get(PARALLELISM) or 1))


class ConnectBatchReader(DataSourceReader):
    """``spark.read.format("connect")``: what the connector has now, planned as micro-batches
    until one would be empty, read as one job."""

    def __init__(self, spec: SourceQuerySpec, columns: RowColumns, partitions: int = 1) -> None:
        self.stream = ConnectStreamReader(spec, columns, partitions)

    def partitions(self) -> list[InputPartition]:
        parts: list[InputPartition] = []
        start = self.stream.initialOffset()
        try:
            while True:
                end = self.stream.latestOffset(start)
                if end == start:
                    return parts
                parts.extend(self.stream.partitions(start, end))
                start = end
        finally:
            self.stream.stop()

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, TaskBatch)
        return self.stream.read(partition)
