"""A sink connector as a Spark stream: Kafka rows in, ``SinkTask.put`` on executors.

The query reads the connector's topics with Seaway's Kafka source (coalesced to
``tasks.max`` Spark partitions, so at most that many task instances run at once) and writes
with the ``seaway-connect-sink`` data source:

* ``write`` (executor, Spark partition *i* = task *i*) starts the task, converts and
  transforms each row into a :class:`~seaway.connect.api.SinkRecord`, calls ``put`` per Arrow
  batch, then ``pre_commit`` (by default ``flush``) and returns the offsets the task made
  durable.
* ``commit`` (driver, after every task of the batch succeeded) commits those offsets to the
  consumer group ``connect-<name>``. Offsets are therefore committed only after the sink
  task has flushed, and a restarted connector resumes from the group.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Final

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage

from seaway.connect.api import SinkRecord, SinkTask, SinkTaskContext
from seaway.connect.api.structs import OffsetAndMetadata, TopicPartition
from seaway.connect.runtime.queries.conversion import (
    ConversionSpec,
    RecordConverter,
    TaskFailure,
)
from seaway.connect.runtime.queries.source import load_task_class

log = logging.getLogger(__name__)

SINK_NAME: Final = "seaway-connect-sink"
SPEC_OPTION: Final = "spec"
_TIMEOUT_S: Final = 60.0


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


@dataclass
class SinkCommitMessage(WriterCommitMessage):  # type: ignore[misc]
    """Offsets (next to consume) one task made durable: ``[[topic, partition, offset]]``."""

    task: int
    offsets: list[tuple[str, int, int]]
    records: int


class _TaskContext(SinkTaskContext):
    """A sink task's view of the runtime inside one Spark task."""

    def __init__(self, config: dict[str, str]) -> None:
        self._config = config
        self.partitions: set[TopicPartition] = set()

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


def _rows(batch: pa.RecordBatch) -> Iterator[tuple[Any, ...]]:
    names = batch.schema.names
    cols = {
        name: (
            batch.column(i).cast(pa.int64()) if name == "timestamp" else batch.column(i)
        ).to_pylist()
        for i, name in enumerate(names)
    }
    timestamps = [None if t is None else t // 1000 for t in cols.get("timestamp", [])]
    headers = cols.get("headers") or [None] * batch.num_rows
    yield from zip(
        cols["topic"],
        cols["partition"],
        cols["offset"],
        cols["key"],
        cols["value"],
        timestamps,
        cols["timestampType"],
        headers,
        strict=True,
    )


def write_task(spec: SinkQuerySpec, task_index: int, batches: Iterator[pa.RecordBatch]) -> Any:
    """Run task *task_index* over *batches*; the offsets it made durable."""
    config = spec.task_configs[task_index]
    task: SinkTask = load_task_class(spec.task_class)()
    context = _TaskContext(config)
    task.initialize(context)
    task.start(dict(config))
    converter = RecordConverter(spec.conversion)
    consumed: dict[TopicPartition, int] = {}
    count = 0
    try:
        for batch in batches:
            records: list[SinkRecord] = []
            for row in _rows(batch):
                tp = TopicPartition(row[0], row[1])
                if tp not in context.partitions:
                    context.partitions.add(tp)
                    task.open([tp])
                consumed[tp] = row[2] + 1
                record = converter.sink_record(*row)
                if record is not None:
                    records.append(record)
            count += len(records)
            if records:
                task.put(records)
        current = {tp: OffsetAndMetadata(offset) for tp, offset in consumed.items()}
        committable = task.pre_commit(current) if current else {}
        if context.partitions:
            task.close(list(context.partitions))
    finally:
        converter.close()
        task.stop()
    offsets = [(tp.topic, tp.partition, om.offset) for tp, om in committable.items()]
    return offsets, count


class ConnectSinkStreamWriter(DataSourceStreamArrowWriter):  # type: ignore[misc]
    """Hands each Spark partition's rows to one sink task; commits the group on the driver."""

    def __init__(self, spec: SinkQuerySpec) -> None:
        self.spec = spec

    def write(self, iterator: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        from pyspark import TaskContext

        context = TaskContext.get()
        partition = context.partitionId() if context else 0
        index = self.spec.enabled_tasks[partition % len(self.spec.enabled_tasks)]
        try:
            offsets, count = write_task(self.spec, index, iterator)
        except Exception as error:
            raise TaskFailure(self.spec.connector, index, traceback.format_exc()) from error
        return SinkCommitMessage(index, offsets, count)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        offsets = [o for m in messages if isinstance(m, SinkCommitMessage) for o in m.offsets]
        if offsets:
            commit_group_offsets(self.spec.client_config, self.spec.group_id, offsets)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.warning("Batch %d of sink connector %s aborted", batchId, self.spec.connector)


def commit_group_offsets(
    client_config: dict[str, str], group: str, offsets: list[tuple[str, int, int]]
) -> None:
    """Commit *offsets* for *group* (which has no active members) with the admin API."""
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka import TopicPartition as KafkaTopicPartition
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(dict(client_config))
    request = ConsumerGroupTopicPartitions(
        group, [KafkaTopicPartition(t, p, o) for t, p, o in offsets]
    )
    result = admin.alter_consumer_group_offsets([request])[group].result(_TIMEOUT_S)
    for tp in result.topic_partitions:
        if tp.error is not None:
            raise RuntimeError(
                f"Committing offset {tp.offset} of {tp.topic}-{tp.partition} for group "
                f"{group} failed: {tp.error}"
            )


class ConnectSinkDataSource(DataSource):  # type: ignore[misc]
    """``df.writeStream.format("seaway-connect-sink").option("spec", ...)``."""

    @classmethod
    def name(cls) -> str:
        return SINK_NAME

    def streamWriter(self, schema: Any, overwrite: bool) -> ConnectSinkStreamWriter:
        return ConnectSinkStreamWriter(SinkQuerySpec.from_json(self.options[SPEC_OPTION]))


__all__ = [
    "SINK_NAME",
    "ConnectSinkDataSource",
    "SinkCommitMessage",
    "SinkQuerySpec",
    "commit_group_offsets",
    "write_task",
]
