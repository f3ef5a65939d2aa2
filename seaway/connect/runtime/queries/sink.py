"""A sink connector as a Spark stream: Kafka records in, ``SinkTask.put`` on executors.

The query is ``seaway-connect-sink-read`` → Spark's ``noop`` sink:

* ``seaway-connect-sink-read`` plans micro-batches exactly as Seaway's Kafka source (the
  connector's topics from the group's offsets) and gives each connector task one Spark
  partition holding the offset ranges of its topic-partitions (a topic-partition always
  goes to the same task). ``read`` (executor) reads those ranges and hands them, without a
  round trip through Spark's JVM, to the task: it starts the task, converts and transforms
  each record into a :class:`~seaway.connect.api.SinkRecord`, calls ``put`` per Arrow batch,
  then ``pre_commit`` (by default ``flush``), commits the offsets the task made durable to
  the consumer group ``connect-<name>``, as a Connect worker commits each task's, and
  yields them as summary rows (the worker observes those for the task metrics).

Offsets are therefore committed only after the sink task has flushed, and a restarted
connector resumes from the group. The query needs no sink of its own: a Python sink's
commit would run in a Python process Spark starts on the driver for every micro-batch.
"""

from __future__ import annotations

import json
import logging
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Final, NamedTuple

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSource, InputPartition

from seaway.connect.api import SinkRecord, SinkTask, SinkTaskContext
from seaway.connect.api.batches import BatchSinkTask, SinkBatch
from seaway.connect.api.errors import ConnectError, RetriableError
from seaway.connect.api.structs import OffsetAndMetadata, TopicPartition
from seaway.connect.runtime.queries.conversion import (
    ConversionSpec,
    RecordConverter,
    TaskFailure,
    add_plugin_path,
)
from seaway.connect.runtime.queries.dead_letters import DeadLetterQueue, consumed_rows
from seaway.connect.runtime.queries.errant_records import SinkErrantRecordReporter
from seaway.connect.runtime.queries.source import load_task_class
from seaway.connect.runtime.queries.task_metrics import TaskMetrics
from seaway.kafka import pool
from seaway.kafka.admin import alter_offsets
from seaway.kafka.timeouts import API_TIMEOUT_S
from seaway.spark.kafka.options import SourceOptions, parse_source_options
from seaway.spark.kafka.reader import read_range
from seaway.spark.kafka.stream import KafkaMicroBatchReader, KafkaRangePartition

log = logging.getLogger(__name__)

READER_NAME: Final = "seaway-connect-sink-read"
SPEC_OPTION: Final = "spec"
SUMMARY_SCHEMA: Final = (
    "task int, topic string, partition int, offset bigint, records bigint, metrics string"
)
"""What Spark sees of a sink task's batch: the offsets it made durable, one row each (the
task's record count and :class:`TaskMetrics` JSON on the first; a row without a topic when
it made nothing durable)."""


@dataclass(frozen=True)
class SinkQuerySpec:
    """The driver's description of a sink connector run (JSON in the ``spec`` option)."""

    connector: str
    task_class: str
    task_configs: list[dict[str, str]]
    enabled_tasks: list[int]
    group_id: str
    client_config: dict[str, str]
    conversion: ConversionSpec

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SinkQuerySpec:
        raw = json.loads(text)
        conversion = ConversionSpec.from_dict(raw.pop("conversion"))
        return cls(conversion=conversion, **raw)


class _TaskContext(SinkTaskContext):
    """A sink task's view of the runtime inside one Spark task."""

    def __init__(
        self, config: dict[str, str], reporter: SinkErrantRecordReporter | None = None
    ) -> None:
        self._config = config
        self.partitions: set[TopicPartition] = set()
        self.reporter = reporter

    def errant_record_reporter(self) -> SinkErrantRecordReporter | None:
        return self.reporter

    def configs(self) -> dict[str, str]:
        return dict(self._config)

    def offset(self, offsets: Any, offset: int | None = None) -> None:
        log.warning("SinkTaskContext.offset() is not supported by Seaway yet; ignored")

    def timeout(self, timeout_ms: int) -> None:
        pass

    def assignment(self) -> set[TopicPartition]:
        return set(self.partitions)

    def pause(self, *partitions: TopicPartition) -> None:
        pass

    def resume(self, *partitions: TopicPartition) -> None:
        pass

    def request_commit(self) -> None:
        pass


def _sink_batch(converter: RecordConverter, batch: pa.RecordBatch) -> SinkBatch | None:
    """Consumed rows of one topic-partition as a :class:`SinkBatch`, converted whole; None
    when they need the per-record path (headers, several partitions, a converter that
    cannot take the column)."""
    n = batch.num_rows
    if not n:
        return None
    names = batch.schema.names
    if "headers" in names and pc.sum(pc.list_value_length(batch["headers"])).as_py():
        return None
    topics, partitions = batch["topic"], batch["partition"]
    if pc.count_distinct(topics).as_py() != 1 or pc.count_distinct(partitions).as_py() != 1:
        return None
    topic = topics[0].as_py()
    value = converter.value.to_connect_column(topic, batch["value"])
    key = converter.key.to_connect_column(topic, batch["key"])
    if value is None or key is None:
        return None
    millis = pc.divide(batch["timestamp"].cast(pa.int64()), 1000)
    records = pa.RecordBatch.from_arrays(
        [batch["offset"], millis, key[1], value[1]], names=["offset", "timestamp", "key", "value"]
    )
    return SinkBatch(topic, partitions[0].as_py(), records, key[0], value[0])


class TaskWrite(NamedTuple):
    """What a sink task did with its batches."""

    durable: list[tuple[str, int, int]]  # (topic, partition, next offset) pre_commit gave
    records: int
    metrics: TaskMetrics
    given: dict[tuple[str, int], int]  # the offset after the last record of each


def write_task(
    spec: SinkQuerySpec, task_index: int, batches: Iterator[pa.RecordBatch]
) -> TaskWrite:
    """Run task *task_index* over *batches*: what it made durable, of what it was given."""
    config = spec.task_configs[task_index]
    add_plugin_path(spec.conversion.plugin_path)  # the task class may live there
    task: SinkTask = load_task_class(spec.task_class)()
    dead_letters = (  # only records skipped under errors.tolerance=all go there
        DeadLetterQueue.of(
            spec.connector, task_index, spec.conversion.connector_config, spec.client_config
        )
        if spec.conversion.tolerate_all
        else None
    )
    metrics = TaskMetrics(task=task_index)
    reporter = (
        SinkErrantRecordReporter(spec.conversion, spec.task_class, dead_letters, metrics)
        if SinkErrantRecordReporter.wanted(spec.conversion)
        else None
    )
    context = _TaskContext(config, reporter)
    task.initialize(context)
    task.start(dict(config))

    def report(*failed: Any) -> None:
        metrics.dlq_requests += 1
        assert dead_letters is not None
        dead_letters.report(*failed)

    converter = RecordConverter(spec.conversion, report if dead_letters else None, metrics)
    consumed: dict[TopicPartition, int] = {}
    count = 0
    batch_task = task if isinstance(task, BatchSinkTask) and not converter.transforms else None
    try:
        for batch in batches:
            if reporter is not None:  # a task may report any record it took until pre_commit
                reporter.consumed_batch(batch)
            try:
                whole = _sink_batch(converter, batch) if batch_task is not None else None
            except Exception:
                if not spec.conversion.tolerate_all:
                    raise
                whole = None  # record by record: only the bad records are skipped
            if batch_task is not None and whole is not None:
                tp = TopicPartition(whole.topic, whole.partition)
                if tp not in context.partitions:
                    context.partitions.add(tp)
                    task.open([tp])
                consumed[tp] = whole.records.column("offset")[-1].as_py() + 1
                count += whole.records.num_rows
                metrics.records_in += whole.records.num_rows
                _timed(metrics, partial(batch_task.put_batch, whole))
                metrics.records_out += whole.records.num_rows
                continue
            records: list[SinkRecord] = []
            metrics.records_in += batch.num_rows
            for row in consumed_rows(batch):
                tp = TopicPartition(row[0], row[1])
                if tp not in context.partitions:
                    context.partitions.add(tp)
                    task.open([tp])
                consumed[tp] = row[2] + 1
                record = converter.sink_record(*row)
                if record is not None:
                    records.append(record)
                    if reporter is not None:
                        reporter.consumed(record, row)
            count += len(records)
            if records:
                _timed(metrics, partial(_put, task, records, converter, spec, task_index))
                metrics.records_out += len(records)
            if reporter is not None:
                reporter.forget()
        if dead_letters is not None:  # skipped records are in the queue before any commit
            dead_letters.flush()
            _check_dead_letters(spec, task_index, dead_letters, metrics)
        current = {tp: OffsetAndMetadata(offset) for tp, offset in consumed.items()}
        committable = task.pre_commit(current) if current else {}
        if context.partitions:
            task.close(list(context.partitions))
        if dead_letters is not None:  # what pre_commit reported is in the queue before the commit
            dead_letters.flush()
            _check_dead_letters(spec, task_index, dead_letters, metrics)
    finally:
        if reporter is not None:
            reporter.release_batches()
        task.stop()
    metrics.partitions = len(context.partitions)
    offsets = [(tp.topic, tp.partition, om.offset) for tp, om in committable.items()]
    return TaskWrite(
        offsets, count, metrics, {(tp.topic, tp.partition): o for tp, o in consumed.items()}
    )


def _check_dead_letters(
    spec: SinkQuerySpec, task_index: int, dead_letters: DeadLetterQueue, metrics: TaskMetrics
) -> None:
    """Fail the task when a record could not be written to the dead letter queue."""
    metrics.dlq_failures += len(dead_letters.failures)
    if dead_letters.failures:
        raise ConnectError(
            f"Records of {spec.connector}-{task_index} could not be written to the dead "
            f"letter queue {dead_letters.topic}: {dead_letters.failures[0]}"
        )
    dead_letters.failures.clear()


def _timed(metrics: TaskMetrics, put: Callable[[], None]) -> None:
    """Run one ``put``; the batch's longest is its ``put-batch-max-time-ms``."""
    started = time.perf_counter()
    put()
    metrics.batch_ms = max(metrics.batch_ms, (time.perf_counter() - started) * 1000)


def _put(
    task: SinkTask,
    records: list[SinkRecord],
    converter: RecordConverter,
    spec: SinkQuerySpec,
    index: int,
) -> None:
    """``put()``, retried with backoff while it raises RetriableError (as Kafka's worker
    redelivers the batch; for ever unless ``errors.retry.timeout`` bounds it)."""

    def retrying(attempt: int, error: RetriableError) -> None:
        converter.metrics.failed()
        converter.metrics.retries += 1
        log.warning("Task %s-%d put() failed (attempt %d), retrying: %s",
                    spec.connector, index, attempt, error)  # fmt: skip

    converter.retry.call(lambda: task.put(records), forever=True, on_retry=retrying)


class SinkTaskRanges(InputPartition):
    """The offset ranges one connector task puts in one micro-batch."""

    def __init__(self, task: int, ranges: list[KafkaRangePartition]) -> None:
        super().__init__(task)
        self.task = task
        self.ranges = ranges


class ConnectSinkReader(KafkaMicroBatchReader):
    """The Kafka source's planning; ``read`` puts a task's ranges into the sink task."""

    def __init__(self, options: SourceOptions, spec: SinkQuerySpec) -> None:
        super().__init__(options)
        self.spec = spec

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[SinkTaskRanges]:
        tasks = self.spec.enabled_tasks or [0]
        shares: list[list[KafkaRangePartition]] = [[] for _ in tasks]
        for part in super().partitions(start, end):
            assert isinstance(part, KafkaRangePartition)
            r = part.range
            shares[zlib.crc32(f"{r.topic}-{r.partition}".encode()) % len(tasks)].append(part)
        return [SinkTaskRanges(index, share) for index, share in zip(tasks, shares, strict=True)]

    def read(self, partition: SinkTaskRanges) -> Iterator[tuple[Any, ...]]:  # type: ignore[override]
        if not partition.ranges:
            return
        batches = (b for part in partition.ranges for b in read_range(part.options, part.range))
        try:
            offsets, count, metrics, _ = write_task(self.spec, partition.task, batches)
            if offsets:  # as a Connect worker commits a task's offsets after its flush
                _commit(self.spec, offsets)
        except Exception as error:
            raise TaskFailure.of(self.spec.connector, partition.task, error) from error
        if not offsets:  # nothing to commit, the counts still go to the worker
            yield (partition.task, None, None, None, count, metrics.to_json())
        for i, (topic, p, offset) in enumerate(offsets):
            yield (partition.task, topic, p, offset, count if i == 0 else 0,
                   metrics.to_json() if i == 0 else None)  # fmt: skip


def _commit(spec: SinkQuerySpec, offsets: list[tuple[str, int, int]]) -> None:
    """Commit the offsets a task made durable to the connector's group (no active members)."""
    from confluent_kafka import KafkaException

    try:
        admin = pool.admin(spec.client_config)
        alter_offsets(admin, spec.group_id, {(t, p): o for t, p, o in offsets}, API_TIMEOUT_S)
    except KafkaException as error:
        message = f"Committing offsets for group {spec.group_id} failed: {error}"
        raise ConnectError(message) from error


class ConnectSinkReadSource(DataSource):
    """``readStream.format("seaway-connect-sink-read").option("spec", ...)`` + Kafka options."""

    @classmethod
    def name(cls) -> str:
        return READER_NAME

    def schema(self) -> str:
        return SUMMARY_SCHEMA

    def streamReader(self, schema: Any) -> ConnectSinkReader:
        options = dict(self.options)
        spec = SinkQuerySpec.from_json(options.pop(SPEC_OPTION))
        return ConnectSinkReader(parse_source_options(options, streaming=True), spec)


__all__ = [
    "READER_NAME",
    "ConnectSinkReadSource",
    "SinkQuerySpec",
    "TaskWrite",
    "write_task",
]
