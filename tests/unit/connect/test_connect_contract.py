"""The connector contract: connectors, tasks, contexts, replayable tasks, transforms."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pytest

from seaway.config import ConfigDef, Importance, NonEmptyString, Range, Type
from seaway.connect.api import (
    ConnectError,
    ConnectorContext,
    ConnectorTransactionBoundaries,
    OffsetAndMetadata,
    OffsetStorageReader,
    Predicate,
    ReplayableSourceTask,
    RetriableError,
    Schema,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceOffset,
    SourcePartition,
    SourceRecord,
    SourceTask,
    SourceTaskContext,
    Task,
    TopicPartition,
    TransactionBoundary,
    Transformation,
    errors,
    partition_from_key,
    partition_key,
)

CONFIG_DEF = (
    ConfigDef()
    .define("topic", Type.STRING, validator=NonEmptyString(), importance=Importance.HIGH)
    .define("batch.size", Type.INT, 2000, Range.at_least(1), Importance.LOW)
)


class LinesTask(SourceTask):
    def start(self, props: dict[str, str]) -> None:
        self.topic = props["topic"]

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None:
        pass


class LinesConnector(SourceConnector):
    def start(self, props: dict[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return LinesTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        self.props = {}

    def config(self) -> ConfigDef:
        return CONFIG_DEF


class RecordingContext(ConnectorContext):
    def __init__(self) -> None:
        self.requests = 0
        self.errors: list[Exception] = []

    def request_task_reconfiguration(self) -> None:
        self.requests += 1

    def raise_error(self, error: Exception) -> None:
        self.errors.append(error)


def test_error_taxonomy() -> None:
    for name in ("RetriableError", "DataError", "NotFoundError", "AlreadyExistsError"):
        assert issubclass(getattr(errors, name), errors.ConnectError)
    assert issubclass(errors.IllegalWorkerStateError, ConnectError)
    assert issubclass(RetriableError, Exception)


def test_connector_lifecycle() -> None:
    connector = LinesConnector()
    context = RecordingContext()
    connector.initialize(context)
    connector.start({"topic": "lines"})
    assert connector.task_class() is LinesTask
    assert connector.task_configs(3) == [{"topic": "lines"}]
    connector.reconfigure({"topic": "other"})
    assert connector.task_configs(1) == [{"topic": "other"}]
    assert connector.context is context
    assert connector.version() == "unknown"
    connector.context.request_task_reconfiguration()
    assert context.requests == 1


def test_connector_validate_collects_errors() -> None:
    result = LinesConnector().validate({"batch.size": "0"})
    assert not result.is_valid and result.error_count == 2
    assert result.errors() == {
        "topic": ['Missing required configuration "topic" which has no default value.'],
        "batch.size": ["Invalid value 0 for configuration batch.size: Value must be at least 1"],
    }
    assert [v.name for v in result] == ["topic", "batch.size"]
    assert LinesConnector().validate({"topic": "t"}).is_valid


def test_validate_requires_a_config_def() -> None:
    class NoConfig(LinesConnector):
        def config(self) -> ConfigDef:
            return None  # type: ignore[return-value]

    with pytest.raises(ConnectError, match=r"NoConfig.config\(\) must return a ConfigDef"):
        NoConfig().validate({})


def test_source_connector_defaults() -> None:
    connector = LinesConnector()
    assert connector.exactly_once_support({}) is None
    assert (
        connector.can_define_transaction_boundaries({})
        is ConnectorTransactionBoundaries.UNSUPPORTED
    )
    assert connector.alter_offsets({}, {partition_key({"f": 1}): {"position": 0}}) is False


def test_abstract_methods_are_enforced() -> None:
    with pytest.raises(TypeError):
        SourceTask()  # type: ignore[abstract]
    with pytest.raises(TypeError):
        SourceConnector()  # type: ignore[abstract]


def test_transaction_boundary() -> None:
    assert TransactionBoundary.from_property(" Interval ") is TransactionBoundary.INTERVAL
    assert str(TransactionBoundary.POLL) == "poll"
    with pytest.raises(ValueError):
        TransactionBoundary.from_property("sometimes")


# ---------------------------------------------------------------------------- sink


class BufferingSinkTask(SinkTask):
    def start(self, props: dict[str, str]) -> None:
        self.buffer: list[SinkRecord] = []
        self.flushed: list[SinkRecord] = []

    def put(self, records: Iterable[SinkRecord]) -> None:
        self.buffer.extend(records)

    def flush(self, current_offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> None:
        self.flushed, self.buffer = self.flushed + self.buffer, []

    def stop(self) -> None:
        pass


def test_sink_task_pre_commit_flushes() -> None:
    task = BufferingSinkTask()
    task.start({})
    task.put([SinkRecord(topic="t", kafka_partition=0, kafka_offset=0, value="v")])
    offsets = {TopicPartition("t", 0): OffsetAndMetadata(1)}
    assert task.pre_commit(offsets) == offsets
    assert [r.value for r in task.flushed] == ["v"] and task.buffer == []
    task.open([TopicPartition("t", 0)])
    task.close([TopicPartition("t", 0)])
    assert SinkTask.TOPICS_CONFIG == "topics" and SinkTask.TOPICS_REGEX_CONFIG == "topics.regex"


class BufferingSinkConnector(SinkConnector):
    def start(self, props: dict[str, str]) -> None:
        pass

    def task_class(self) -> type[Task]:
        return BufferingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{} for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


def test_sink_connector_defaults() -> None:
    connector = BufferingSinkConnector()
    assert connector.alter_offsets({}, {TopicPartition("t", 0): 5}) is False
    assert connector.task_configs(3) == [{}, {}, {}]
    assert SinkConnector.TOPICS_CONFIG == "topics"


# ---------------------------------------------------------------------------- offsets


def test_partition_key_is_canonical() -> None:
    assert (
        partition_key({"b": 1, "a": "x"}) == partition_key({"a": "x", "b": 1}) == '{"a":"x","b":1}'
    )
    assert partition_from_key(partition_key({"filename": "é.txt"})) == {"filename": "é.txt"}
    with pytest.raises(errors.DataError, match="not JSON-serialisable"):
        partition_key({"f": object()})
    with pytest.raises(errors.DataError, match="Not a source partition key"):
        partition_from_key("[1]")


class MemoryOffsetReader(OffsetStorageReader):
    def __init__(self, offsets: dict[str, SourceOffset]) -> None:
        self.stored = offsets

    def offsets(self, partitions: Iterable[Mapping[str, Any]]) -> dict[str, SourceOffset]:
        keys = [partition_key(p) for p in partitions]
        return {k: self.stored[k] for k in keys if k in self.stored}


class StubTaskContext(SourceTaskContext):
    def __init__(self, reader: OffsetStorageReader) -> None:
        self.reader = reader

    def configs(self) -> dict[str, str]:
        return {}

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.reader


def test_offset_storage_reader_single_offset() -> None:
    reader = MemoryOffsetReader({partition_key({"f": "a"}): {"position": 3}})
    assert reader.offset({"f": "a"}) == {"position": 3}
    assert reader.offset({"f": "b"}) is None


# ---------------------------------------------------------------------------- replayable tasks

LOG = {"a.log": ["a0", "a1", "a2", "a3", "a4"], "b.log": ["b0", "b1"]}


class LogTask(ReplayableSourceTask):
    """Reads append-only in-memory logs, at most two lines per partition per batch."""

    def start(self, props: dict[str, str]) -> None:
        self.files = props["files"].split(",")

    def known_partitions(self) -> list[SourcePartition]:
        return [{"file": f} for f in self.files]

    def plan(self, start_offsets: Mapping[str, SourceOffset]) -> dict[str, SourceOffset]:
        ends = {}
        for partition in self.known_partitions():
            key = partition_key(partition)
            done = (start_offsets.get(key) or {"line": 0})["line"]
            end = min(done + 2, len(LOG[partition["file"]]))
            if end > done:
                ends[key] = {"line": end}
        return ends

    def read(
        self,
        partition: SourcePartition,
        start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceRecord]:
        first = start_offset["line"] if start_offset else 0
        for line in range(first, end_offset["line"]):
            yield SourceRecord(
                source_partition=partition,
                source_offset={"line": line + 1},
                topic="logs",
                value_schema=Schema.STRING_SCHEMA,
                value=LOG[partition["file"]][line],
            )

    def stop(self) -> None:
        pass


def test_replayable_task_read_is_exact_and_repeatable() -> None:
    task = LogTask()
    task.start({"files": "a.log,b.log"})
    plan = task.plan({})
    key_a = partition_key({"file": "a.log"})
    assert plan == {key_a: {"line": 2}, partition_key({"file": "b.log"}): {"line": 2}}
    first = [r.value for r in task.read({"file": "a.log"}, None, plan[key_a])]
    again = [r.value for r in task.read({"file": "a.log"}, None, plan[key_a])]
    assert first == again == ["a0", "a1"]
    assert [r.value for r in task.read({"file": "a.log"}, {"line": 2}, {"line": 4})] == ["a2", "a3"]


def test_replayable_task_poll_runs_plan_and_read_on_the_caller() -> None:
    task = LogTask()
    task.start({"files": "a.log,b.log"})
    batches = []
    while (records := task.poll()) is not None:
        batches.append([r.value for r in records])
    assert batches == [["a0", "a1", "b0", "b1"], ["a2", "a3"], ["a4"]]


def test_replayable_task_poll_resumes_from_committed_offsets() -> None:
    task = LogTask()
    reader = MemoryOffsetReader({partition_key({"file": "a.log"}): {"line": 3}})
    task.initialize(StubTaskContext(reader))
    task.start({"files": "a.log"})
    records = task.poll()
    assert records is not None
    assert [(r.value, r.source_offset) for r in records] == [
        ("a3", {"line": 4}),
        ("a4", {"line": 5}),
    ]
    assert task.poll() is None


# ---------------------------------------------------------------------------- transforms


class RenameTopic(Transformation[SourceRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        self.prefix = configs["prefix"]

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return record.new_record(topic=self.prefix + record.topic)

    def config(self) -> ConfigDef:
        return ConfigDef().define("prefix", Type.STRING)


class IsTombstone(Predicate[SourceRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def test(self, record: SourceRecord) -> bool:
        return record.value is None

    def config(self) -> ConfigDef:
        return ConfigDef()


def test_transformation_and_predicate() -> None:
    rename = RenameTopic()
    rename.configure({"prefix": "x."})
    record = SourceRecord(source_partition={}, source_offset={}, topic="t", value=None)
    transformed = rename.apply(record)
    assert transformed is not None and transformed.topic == "x.t"
    assert "prefix" in rename.config()
    assert IsTombstone().test(record)
    rename.close()
    IsTombstone().close()
