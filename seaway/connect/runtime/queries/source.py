"""A source connector as a Spark stream: the ``seaway-connect-source`` Python data source.

Each micro-batch is planned on the driver and read on executors:

* The Spark offset is ``{partition_key: [task, source_offset]}`` over every source partition
  of the connector (JSON with sorted keys, so Spark compares it reliably). It starts from the
  offsets in Connect's offset store, handed over in the query spec.
* ``latestOffset`` asks every running task to ``plan()`` the next batch
  (:class:`~seaway.connect.api.replay.ReplayableSourceTask`); a plain ``poll()`` task is
  polled here instead and its records travel to the executor inside the input partition.
* ``partitions`` makes one input partition per connector task, in task order, so Spark
  partition *i* is task *i* (the exactly-once writer's transactional ids rely on it).
* ``read`` runs on an executor: a fresh task instance replays each planned range, the
  records go through the transformation chain and the converters into Kafka rows, and
  the same task produces them to Kafka with the Spark Kafka sink's writer
  (:func:`seaway.spark.kafka.writer.write_rows`), so records never cross into Spark's JVM
  and back; Spark gets one summary row per topic written (``topic, records``). With
  exactly-once support the end offset of every range follows its records as a record for
  the offsets topic, and the writer commits records and offsets in one transaction with
  the task's stable id, skipping a micro-batch an earlier attempt committed (KIP-618).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

from seaway.config.plugins import load_class
from seaway.connect.api import ReplayableSourceTask, SourceRecord, SourceTask, SourceTaskContext
from seaway.connect.api.batches import BatchSourceTask, SourceBatch
from seaway.connect.api.data.arrow import connect_values
from seaway.connect.api.offsets import (
    OffsetStorageReader,
    PartitionKey,
    SourceOffset,
    partition_from_key,
    partition_key,
)
from seaway.connect.runtime.queries.conversion import (
    ConversionSpec,
    RecordConverter,
    TaskFailure,
    add_plugin_path,
)
from seaway.connect.runtime.queries.task_metrics import TaskMetrics

log = logging.getLogger(__name__)

SOURCE_NAME: Final = "seaway-connect-source"
SPEC_OPTION: Final = "spec"
BATCH_ROWS: Final = 10_000

HEADER_TYPE: Final = pa.struct([("key", pa.string()), ("value", pa.binary())])
ARROW_SCHEMA: Final = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("key", pa.binary()),
        ("value", pa.binary()),
        ("headers", pa.list_(HEADER_TYPE)),
        ("timestamp", pa.timestamp("us", tz="UTC")),
    ]
)
SPARK_SCHEMA: Final = "task int, topic string, records bigint, metrics string"
"""What Spark sees of a micro-batch: per task, the records it wrote to each topic, and the
task's :class:`TaskMetrics` JSON on its first row (a row without a topic if it wrote none)."""

# {partition_key: [task index, source offset]}, and with exactly-once support
# {"#seq-<task>": [task index, the id of the task's last batch]} (see next_batch_id); and
# {"#polled-<task>": [task index, [an id, records]]} when a plain task polled records: the
# end offset moves even when the records moved no offset (a heartbeat at the same position,
# records without a source partition), or Spark would run no batch and the records be lost,
# and a batch planned before a restart can be polled again (polled_count)
SparkOffset = dict[str, list[Any]]
_MARKER: Final = "#"
_SEQUENCE: Final = "#seq-"
_POLLED: Final = "#polled-"


@dataclass(frozen=True)
class SourceQuerySpec:
    """The driver's description of a source connector run (JSON in the ``spec`` option)."""

    connector: str
    task_class: str
    task_configs: list[dict[str, str]]
    enabled_tasks: list[int]
    start_offsets: dict[str, Any]
    conversion: ConversionSpec
    offsets_topic: str | None = None  # set when records and offsets share a transaction
    plans_per_batch: int = 500
    kafka: dict[str, str] = field(default_factory=dict)  # the Spark Kafka sink's options
    # exactly-once: each task's committed batch id when the run starts (SequenceFence)
    start_sequences: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> str:
        from dataclasses import asdict

        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SourceQuerySpec:
        raw = json.loads(text)
        conversion = ConversionSpec.from_dict(raw.pop("conversion"))
        return cls(conversion=conversion, **raw)


def load_task_class(name: str) -> type[Any]:
    """A task class by its Python path (what the driver sends: no entry points needed)."""
    return load_class(name)


def class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _FixedOffsets(OffsetStorageReader):
    """Offsets as of the start of the batch (what a task sees on an executor)."""

    def __init__(self, offsets: Mapping[PartitionKey, SourceOffset]) -> None:
        self._offsets = offsets

    def offsets(self, partitions: Any) -> dict[PartitionKey, SourceOffset]:
        keys = (partition_key(p) for p in partitions)
        return {k: self._offsets[k] for k in keys if k in self._offsets}


class _TaskContext(SourceTaskContext):
    def __init__(self, config: dict[str, str], offsets: Mapping[PartitionKey, SourceOffset]):
        self._config = config
        self._reader = _FixedOffsets(offsets)

    def configs(self) -> dict[str, str]:
        return dict(self._config)

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self._reader


def source_offsets(offset: SparkOffset) -> dict[PartitionKey, SourceOffset]:
    """The connector's source offsets in a Spark offset (without the markers)."""
    return {k: v[1] for k, v in offset.items() if not k.startswith(_MARKER)}


def polled_ends(records: list[SourceRecord]) -> dict[PartitionKey, SourceOffset | None]:
    """The source offset each source partition of *records* ends at."""
    return {
        partition_key(r.source_partition): r.source_offset
        for r in records
        if r.source_partition is not None
    }


def polled_count(start: SparkOffset, end: SparkOffset, task: int) -> int:
    """How many records plain task *task* polled for the batch from *start* to *end*."""
    marker = end.get(f"{_POLLED}{task}")
    if marker is None or marker == start.get(f"{_POLLED}{task}"):
        return 0
    return int(marker[1][1])


def next_batch_id() -> int:
    """The id a planned batch commits as its task's sequence marker: random, so that two
    runs of a task (a frozen worker's and its successor's) planning from the same committed
    id never plan the same next one. A committed id equal to a batch's own then means that
    very batch committed (a retried Spark task skips it); any id but the one it was planned
    after means another run has written since (the batch is fenced). A counter could not
    tell the two runs' batches apart, and a retry would skip a range it never wrote."""
    return secrets.randbits(62) + 1


def sequence_group(transactional_id_prefix: str, task: int) -> str:
    """The group whose offset is task *task*'s commit sequence: its transactional id."""
    return f"{transactional_id_prefix}-{task}"


@dataclass
class TaskBatch(InputPartition):
    """One connector task's share of a micro-batch."""

    task: int
    ranges: list[tuple[str, Any, Any]] = field(default_factory=list)
    polled: list[SourceRecord] | None = None
    offsets: dict[str, Any] = field(default_factory=dict)
    sequence: tuple[int, int] | None = None  # (committed before, committed after) the batch


def started_task(spec: SourceQuerySpec, index: int, offsets: Mapping[str, Any]) -> SourceTask:
    add_plugin_path(spec.conversion.plugin_path)
    task: SourceTask = load_task_class(spec.task_class)()
    config = spec.task_configs[index]
    task.initialize(_TaskContext(config, offsets))
    task.start(dict(config))
    return task


class ConnectSourceStreamReader(DataSourceStreamReader):
    """Plans batches with the connector's tasks on the driver; replays them on executors."""

    def __init__(self, spec: SourceQuerySpec) -> None:
        self.spec = spec
        self._tasks: dict[int, SourceTask] = {}
        self._polled: dict[str, dict[int, list[SourceRecord]]] = {}

    def initialOffset(self) -> SparkOffset:
        offsets = {k: [-1, v] for k, v in sorted(self.spec.start_offsets.items())}
        for task, sequence in self.spec.start_sequences.items():
            offsets[f"{_SEQUENCE}{task}"] = [int(task), sequence]
        return offsets

    def _task(self, index: int, start: SparkOffset) -> SourceTask:
        if index not in self._tasks:
            self._tasks[index] = started_task(self.spec, index, source_offsets(start))
        return self._tasks[index]

    def latestOffset(self, start: SparkOffset | None = None, limit: Any = None) -> SparkOffset:
        start = start if start is not None else self.initialOffset()
        end: SparkOffset = dict(start)
        plain = source_offsets(start)
        polled: dict[int, list[SourceRecord]] = {}
        for index in self.spec.enabled_tasks:
            try:
                task = self._task(index, start)
                if isinstance(task, ReplayableSourceTask):
                    planned = self._plan(task, plain)
                else:
                    planned, polled[index] = self._poll(task)
            except Exception as error:
                raise TaskFailure.of(self.spec.connector, index, error) from error
            moved = False
            for key, offset in planned.items():
                if offset != plain.get(key):
                    end[key] = [index, offset]
                    moved = True
            sequence = start.get(f"{_SEQUENCE}{index}")
            if sequence is not None and (moved or polled.get(index)):
                end[f"{_SEQUENCE}{index}"] = [index, next_batch_id()]
            if polled.get(index):
                end[f"{_POLLED}{index}"] = [index, [next_batch_id(), len(polled[index])]]
        ordered = dict(sorted(end.items()))
        if polled:
            self._polled[json.dumps(ordered, sort_keys=True)] = polled
        return ordered

    def _plan(self, task: ReplayableSourceTask, start: Mapping[str, Any]) -> dict[str, Any]:
        """Chain up to ``plans_per_batch`` plans: a task's ``plan()`` covers one ``poll()``
        worth of records (``batch.size``), a micro-batch can carry many."""
        planned: dict[str, Any] = {}
        current = dict(start)
        steps: dict[str, list[Any]] = {}
        for _ in range(max(1, self.spec.plans_per_batch)):
            step = task.plan(dict(current))
            step = {k: v for k, v in step.items() if current.get(k) != v}
            if not step:
                break
            planned.update(step)
            current.update(step)
            for key, offset in step.items():
                steps.setdefault(key, []).append(offset)
        self._planned(steps)
        return planned

    def _planned(self, steps: dict[str, list[Any]]) -> None:
        """The offsets each chained plan step ended at, by partition key (a hook: a reader
        that cuts planned ranges keeps them)."""

    def _poll(self, task: SourceTask) -> tuple[dict[str, Any], list[SourceRecord]]:
        records = list(task.poll() or [])
        return polled_ends(records), records

    def partitions(self, start: SparkOffset, end: SparkOffset) -> list[TaskBatch]:
        batches = [
            TaskBatch(task=i, offsets=source_offsets(start))
            for i in range(len(self.spec.task_configs))
        ]
        for key, (owner, offset) in end.items():
            before = start.get(key)
            if before is not None and before[1] == offset:
                continue
            if not 0 <= owner < len(batches):
                continue
            if key.startswith(_SEQUENCE):
                batches[owner].sequence = (0 if before is None else before[1], offset)
            elif not key.startswith(_MARKER):
                batches[owner].ranges.append((key, None if before is None else before[1], offset))
        polled = self._polled.get(json.dumps(end, sort_keys=True), {})
        for index, records in polled.items():
            batches[index].polled = records
        return batches

    def commit(self, end: SparkOffset) -> None:
        """Batches up to *end* are written: tell the tasks that were polled for them."""
        key = json.dumps(end, sort_keys=True)
        if key not in self._polled:
            return
        done = list(self._polled)[: list(self._polled).index(key) + 1]
        for planned in done:
            for index in self._polled.pop(planned):
                self._tasks[index].commit()

    def stop(self) -> None:
        for task in self._tasks.values():
            try:
                task.stop()
            except Exception:
                log.warning("Stopping a source task failed", exc_info=True)
        self._tasks.clear()

    # Spark passes back the partitions partitions() made: always TaskBatch.
    def read(self, partition: TaskBatch) -> Iterator[tuple[Any, ...]]:  # type: ignore[override]
        if not partition.ranges and not partition.polled:
            return
        try:
            yield from _write_batch(self.spec, partition)
        except TaskFailure:
            raise
        except Exception as error:
            raise TaskFailure.of(self.spec.connector, partition.task, error) from error


class _Rows:
    """Column lists for one Arrow batch."""

    def __init__(self) -> None:
        self.columns: list[list[Any]] = [[] for _ in ARROW_SCHEMA]

    def add(self, row: tuple[Any, ...]) -> None:
        for column, value in zip(self.columns, row, strict=True):
            column.append(value)

    def __len__(self) -> int:
        return len(self.columns[0])

    def flush(self) -> pa.RecordBatch:
        timestamps = [None if t is None else t * 1000 for t in self.columns[5]]
        arrays = [
            pa.array(self.columns[0], pa.string()),
            pa.array(self.columns[1], pa.int32()),
            pa.array(self.columns[2], pa.binary()),
            pa.array(self.columns[3], pa.binary()),
            pa.array(self.columns[4], pa.list_(HEADER_TYPE)),
            pa.array(timestamps, ARROW_SCHEMA.field("timestamp").type),
        ]
        self.columns = [[] for _ in ARROW_SCHEMA]
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


RANGE: Final = "range"
OFFSET: Final = "offset"


def task_records(
    spec: SourceQuerySpec, batch: TaskBatch, columns: bool
) -> Iterator[SourceRecord | SourceBatch | tuple[str, Any]]:
    r"""The batch's records, a replayed range's preceded by ``("range", (key, end))``, each
    range followed by ``("offset", (key, end))``; with *columns*, a
    :class:`BatchSourceTask`'s ranges come as :class:`SourceBatch`\ es."""
    if batch.polled is not None:
        yield from batch.polled
        for key, _, end in batch.ranges:
            yield (OFFSET, (key, end))
        return
    task = started_task(spec, batch.task, batch.offsets)
    if not isinstance(task, ReplayableSourceTask):  # polled tasks arrive with their records
        raise TypeError(f"{spec.task_class} is not a ReplayableSourceTask")
    read = task.read_batches if columns and isinstance(task, BatchSourceTask) else task.read
    try:
        for key, start, end in batch.ranges:
            yield (RANGE, (key, end))
            yield from read(partition_from_key(key), start, end)
            yield (OFFSET, (key, end))
    finally:
        task.stop()


def source_records(batch: SourceBatch) -> Iterator[SourceRecord]:
    """A batch's records one by one (for what needs records: the per-record fallback)."""
    records, n = batch.records, batch.records.num_rows
    names = records.schema.names
    values = connect_values(batch.value_schema, records.column("value"))
    keys = connect_values(batch.key_schema, records.column("key")) if "key" in names else [None] * n
    stamps = records.column("timestamp").to_pylist() if "timestamp" in names else [None] * n
    for key, value, timestamp in zip(keys, values, stamps, strict=True):
        yield SourceRecord(
            source_partition=None,
            source_offset=None,
            topic=batch.topic,
            kafka_partition=batch.kafka_partition,
            key_schema=batch.key_schema,
            key=key,
            value_schema=batch.value_schema,
            value=value,
            timestamp=timestamp,
        )


def converted_column(converter: RecordConverter, batch: SourceBatch, which: str) -> pa.Array | None:
    """A :class:`SourceBatch`'s ``key`` or ``value`` column as its converter's bytes (no key
    column and no key schema: null keys); None when the converter cannot take the column."""
    records = batch.records
    if which == "value":
        return converter.value.from_connect_column(batch.topic, batch.value_schema, records[which])
    if "key" in records.schema.names:
        return converter.key.from_connect_column(batch.topic, batch.key_schema, records[which])
    return pa.nulls(records.num_rows, pa.binary()) if batch.key_schema is None else None


def batch_timestamps(batch: SourceBatch) -> pa.Array:
    """A :class:`SourceBatch`'s timestamps (ms) as a row's (µs, UTC; null: none)."""
    kind = ARROW_SCHEMA.field("timestamp").type
    records = batch.records
    if "timestamp" not in records.schema.names:
        return pa.nulls(records.num_rows, kind)
    return pc.multiply(records["timestamp"].cast(pa.int64()), 1000).cast(kind)


def kafka_rows(converter: RecordConverter, batch: SourceBatch) -> pa.RecordBatch | None:
    """A :class:`SourceBatch` as Kafka rows, its columns converted whole; None when a
    converter cannot take a column (the records then go one by one)."""
    records, topic = batch.records, batch.topic
    n = records.num_rows
    values = converted_column(converter, batch, "value")
    keys = converted_column(converter, batch, "key")
    if values is None or keys is None:
        return None
    timestamps = batch_timestamps(batch)
    partition = pa.nulls(n, pa.int32())
    if batch.kafka_partition is not None:
        partition = partition.fill_null(batch.kafka_partition)
    columns = [
        pa.nulls(n, pa.string()).fill_null(topic),
        partition,
        keys,
        values,
        pa.nulls(n, ARROW_SCHEMA.field("headers").type),
        timestamps,
    ]
    return pa.RecordBatch.from_arrays(columns, schema=ARROW_SCHEMA)


def _read_batch(
    spec: SourceQuerySpec, batch: TaskBatch, metrics: TaskMetrics
) -> Iterator[pa.RecordBatch]:
    """The task's records as Kafka rows: whole columns where the task and the converters
    allow it (the batch contract, no transformation), else record by record."""
    from seaway.connect.runtime.storage.offsets import offset_key, offset_value

    converter = RecordConverter(spec.conversion, metrics=metrics)
    rows = _Rows()
    for item in task_records(spec, batch, columns=not converter.transforms):
        if isinstance(item, SourceBatch):
            metrics.records_in += item.records.num_rows
            converted = kafka_rows(converter, item)
            if converted is not None:
                if len(rows):
                    yield rows.flush()
                yield converted
                continue
            for record in source_records(item):
                row = converter.source_rows(record)
                if row is not None:
                    rows.add(row)
        elif isinstance(item, tuple):
            if spec.offsets_topic and item[0] == OFFSET:
                key, end = item[1]
                partition = partition_from_key(key)
                rows.add(
                    (
                        spec.offsets_topic,
                        None,
                        offset_key(spec.connector, partition),
                        offset_value(end),
                        [],
                        None,
                    )
                )
        else:
            metrics.records_in += 1
            row = converter.source_rows(item)
            if row is not None:
                rows.add(row)
        if len(rows) >= BATCH_ROWS:
            yield rows.flush()
    if len(rows):
        yield rows.flush()


def _write_batch(
    spec: SourceQuerySpec, batch: TaskBatch
) -> Iterator[tuple[int, str | None, int, str | None]]:
    """Produce the task's converted records to Kafka; ``(task, topic, records, metrics)``
    per topic (the task's metrics on the first)."""
    from pyspark import TaskContext

    from seaway.spark.kafka.options import parse_sink_options
    from seaway.spark.kafka.writer import write_rows

    counts: dict[str, int] = {}
    metrics = TaskMetrics(task=batch.task)
    started = time.perf_counter()

    def counted(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for rows in batches:
            for item in pc.value_counts(rows.column(0)).to_pylist():
                if item["values"] != spec.offsets_topic:
                    counts[item["values"]] = counts.get(item["values"], 0) + item["counts"]
            yield rows

    options = parse_sink_options(spec.kafka)
    fence = None
    if batch.sequence is not None and spec.offsets_topic:
        from seaway.spark.kafka.transactional import SequenceFence

        group = sequence_group(options.transactional_id_prefix, batch.task)
        fence = SequenceFence(group, spec.offsets_topic, *batch.sequence)
    rows = counted(_read_batch(spec, batch, metrics))
    write_rows(options, rows, TaskContext.get(), fence)
    metrics.records_out = sum(counts.values())
    metrics.batch_ms = (time.perf_counter() - started) * 1000
    summary = metrics.to_json()
    if not counts:
        yield (batch.task, None, 0, summary)
    for i, (topic, count) in enumerate(counts.items()):
        yield (batch.task, topic, count, summary if i == 0 else None)


class ConnectSourceDataSource(DataSource):
    """``spark.readStream.format("seaway-connect-source").option("spec", ...)``."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return SPARK_SCHEMA

    def streamReader(self, schema: Any) -> ConnectSourceStreamReader:
        return ConnectSourceStreamReader(SourceQuerySpec.from_json(self.options[SPEC_OPTION]))


__all__ = [
    "SOURCE_NAME",
    "ConnectSourceDataSource",
    "ConnectSourceStreamReader",
    "SourceQuerySpec",
    "batch_timestamps",
    "class_path",
    "converted_column",
    "polled_count",
    "polled_ends",
    "sequence_group",
    "source_offsets",
]
