"""``format("connect")`` without Spark running: a polled micro-batch planned before a restart is
polled again from its start offsets (and refused when the task gives other records), the
connector's configuration out of Spark's lowercased options, Connect types as Spark's, and a
DataFrame's rows completed into what a sink task reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pyarrow as pa
import pytest
from pyspark.sql.types import (
    ArrayType,
    DateType,
    DecimalType,
    IntegerType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from seaway.config import ConfigDef
from seaway.connect.api import (
    ReplayableSourceTask,
    Schema,
    SchemaBuilder,
    SinkConnector,
    SinkTask,
    SourceRecord,
    SourceTask,
)
from seaway.connect.api.data.logical import Date, Decimal, Timestamp
from seaway.connect.api.offsets import partition_key
from seaway.connect.runtime.queries.conversion import ConversionSpec, ConverterSpec, TaskFailure
from seaway.connect.runtime.queries.source import SourceQuerySpec, class_path
from seaway.connect.spark_format.columns import RowColumns, connect_schema, spark_type
from seaway.connect.spark_format.connector import FormatConnector, connector_config
from seaway.connect.spark_format.reader import ConnectStreamReader, record_rows
from seaway.connect.spark_format.writer import consumed, sink_spec, write_rows

PARTITION = {"log": "a"}
STRINGS = ConverterSpec("org.apache.kafka.connect.storage.StringConverter", {})


class CountingTask(SourceTask):
    """Polls two records a time from its offset on: ``{"n": 1}``, ``{"n": 2}``, ...; with
    ``skip`` set (a log whose records changed), it starts one record further."""

    skip: ClassVar[int] = 0

    def start(self, props: dict[str, str]) -> None:
        assert self.context is not None
        stored = self.context.offset_storage_reader().offset(PARTITION) or {"n": 0}
        self.position = stored["n"] + self.skip

    def poll(self) -> list[SourceRecord]:
        records = [
            SourceRecord(
                source_partition=PARTITION, source_offset={"n": n}, topic="t", value=f"r{n}"
            )
            for n in (self.position + 1, self.position + 2)
        ]
        self.position += 2
        return records

    def stop(self) -> None:
        pass

    def version(self) -> str:
        return "1"


def _reader() -> ConnectStreamReader:
    conversion = ConversionSpec("c", STRINGS, STRINGS, STRINGS, {})
    spec = SourceQuerySpec("c", class_path(CountingTask), [{}], [0], {}, conversion)
    return ConnectStreamReader(spec, RowColumns(value=Schema.STRING_SCHEMA))


def _values(reader: ConnectStreamReader, start: Any, end: Any) -> list[Any]:
    [batch] = reader.partitions(start, end)
    rows = pa.Table.from_batches(list(record_rows(reader.spec, batch, reader.columns)))
    return rows.column("value").to_pylist()


def test_a_polled_batch_is_polled_again_after_a_restart() -> None:
    planning = _reader()
    start = planning.initialOffset()
    first = planning.latestOffset(start)
    second = planning.latestOffset(first)
    assert _values(planning, first, second) == ["r3", "r4"]
    restarted = _reader()  # a new driver: Spark replays the batch from its offset log
    assert _values(restarted, first, second) == ["r3", "r4"]
    [batch] = restarted.partitions(first, second)
    assert batch.ranges == [(partition_key(PARTITION), {"n": 2}, {"n": 4})]


def test_a_batch_polled_differently_goes_on_from_the_replay(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    planning = _reader()
    start = planning.initialOffset()
    end = planning.latestOffset(start)
    monkeypatch.setattr(CountingTask, "skip", 1)  # the source changed meanwhile
    restarted = _reader()
    assert _values(restarted, start, end) == ["r2", "r3"]
    assert "polled other records" in caplog.text and "at least once" in caplog.text
    after = restarted.latestOffset(end)  # the replay's task goes on: nothing lost from it
    assert _values(restarted, end, after) == ["r4", "r5"]


def test_what_a_replay_polled_beyond_its_batch_comes_next() -> None:
    planning = _reader()
    start = planning.initialOffset()
    first = planning.latestOffset(start)
    restarted = _reader()
    first = {**first, "#polled-0": [0, [first["#polled-0"][1][0], 1]]}  # one of the two
    assert _values(restarted, start, first) == ["r1"]
    assert _values(restarted, first, restarted.latestOffset(first)) == ["r2"]


def test_connector_config_from_spark_options() -> None:
    options = {  # as Spark hands them over: names lowercased
        "connector.class": "FileStreamSource", "file": "/f", "transforms": "Wrap,keep",
        "transforms.wrap.type": "HoistField$Value", "transforms.keep.type": "X",
        "predicates": "IsA", "predicates.isa.type": "TopicNameMatches",
        "plugin.path": "/plugins", "checkpointlocation": "/c", "path": "/p",
    }  # fmt: skip
    assert connector_config(options) == {
        "connector.class": "FileStreamSource", "file": "/f", "transforms": "Wrap,keep",
        "transforms.Wrap.type": "HoistField$Value", "transforms.keep.type": "X",
        "predicates": "IsA", "predicates.IsA.type": "TopicNameMatches",
        "name": "spark-FileStreamSource",
    }  # fmt: skip
    assert connector_config({**options, "name": "mine"})["name"] == "mine"


def test_connect_types_as_spark_types() -> None:
    amount = Decimal.builder(2).parameter("connect.decimal.precision", "10").build()
    schema = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32_SCHEMA)
        .field("amount", amount)
        .field("day", Date.SCHEMA)
        .field("at", Timestamp.builder().optional().build())
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
        .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
        .build()
    )
    assert connect_schema(spark_type(schema), optional=False) == schema  # and back
    assert spark_type(schema) == StructType(
        [
            StructField("id", IntegerType(), False),
            StructField("amount", DecimalType(10, 2), False),
            StructField("day", DateType(), False),
            StructField("at", TimestampType(), True),
            StructField("tags", ArrayType(StringType(), False), True),
            StructField("attrs", MapType(StringType(), IntegerType(), False), False),
        ]
    )


def test_typed_columns_only_without_converters_or_transformations() -> None:
    from seaway.connect.api import RecordSchemas

    schemas = RecordSchemas(key=Schema.STRING_SCHEMA, value=Schema.INT64_SCHEMA)
    assert RowColumns.of({}, schemas) == RowColumns(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA)
    assert RowColumns.of({"value.converter": "x"}, schemas) == RowColumns(Schema.STRING_SCHEMA)
    assert RowColumns.of({"transforms": "a"}, schemas) == RowColumns()
    assert RowColumns.of({}, None) == RowColumns()


def test_dataframe_rows_completed_for_a_sink_task() -> None:
    rows = pa.RecordBatch.from_pydict({"value": ["a", "b"], "key": [b"k", None]})
    batch = consumed(rows, "orders", 10)
    assert batch.schema.names == ["topic", "partition", "offset", "key", "value", "timestamp",
                                  "timestampType", "headers"]  # fmt: skip
    assert batch.to_pydict() == {
        "topic": ["orders", "orders"], "partition": [0, 0], "offset": [10, 11],
        "key": [b"k", None], "value": [b"a", b"b"], "timestamp": [None, None],
        "timestampType": [None, None], "headers": [None, None],
    }  # fmt: skip
    kafka = pa.RecordBatch.from_pydict(
        {"value": [b"x"], "topic": ["t"], "partition": [3], "offset": [7]}
    )
    assert consumed(kafka, "orders", 0).to_pylist() == [
        {
            "topic": "t",
            "partition": 3,
            "offset": 7,
            "key": None,
            "value": b"x",
            "timestamp": None,
            "timestampType": None,
            "headers": None,
        }
    ]


class CountingTable(ReplayableSourceTask):
    """Rows 1..95 of one table, planned ten at a time."""

    def start(self, props: dict[str, str]) -> None:
        self.key = partition_key(PARTITION)

    def plan(self, start_offsets: Any) -> dict[str, Any]:
        last = (start_offsets.get(self.key) or {"n": 0})["n"]
        return {} if last >= 95 else {self.key: {"n": min(95, last + 10)}}

    def read(self, partition: Any, start_offset: Any, end_offset: Any) -> Iterator[SourceRecord]:
        first = (start_offset or {"n": 0})["n"] + 1
        for n in range(first, end_offset["n"] + 1):
            yield SourceRecord(source_partition=partition, source_offset={"n": n}, topic="t",
                               value=f"r{n}")  # fmt: skip

    def stop(self) -> None:
        pass

    def version(self) -> str:
        return "1"


def test_a_planned_range_is_shared_among_min_partitions() -> None:
    conversion = ConversionSpec("c", STRINGS, STRINGS, STRINGS, {})
    spec = SourceQuerySpec("c", class_path(CountingTable), [{}], [0], {}, conversion)
    reader = ConnectStreamReader(spec, RowColumns(value=Schema.STRING_SCHEMA), 3)
    start = reader.initialOffset()
    end = reader.latestOffset(start)
    parts = reader.partitions(start, end)
    assert [len(p.ranges) for p in parts] == [4, 4, 2]  # ten plans in three shares, in order
    rows = [
        value
        for part in parts
        for batch in record_rows(spec, part, reader.columns)
        for value in batch.column("value").to_pylist()
    ]
    assert rows == [f"r{n}" for n in range(1, 96)]
    replayed = ConnectStreamReader(spec, reader.columns, 3).partitions(start, end)
    assert [p.ranges for p in replayed] == [[(partition_key(PARTITION), None, {"n": 95})]]


class HoldingSinkTask(SinkTask):
    """Keeps what it is given and never says any of it is durable."""

    def start(self, props: dict[str, str]) -> None:
        pass

    def put(self, records: Any) -> None:
        pass

    def pre_commit(self, current_offsets: Any) -> dict[Any, Any]:
        return {}

    def stop(self) -> None:
        pass


class HoldingSinkConnector(SinkConnector):
    def start(self, props: dict[str, str]) -> None:
        self.props = props

    def task_class(self) -> type[SinkTask]:
        return HoldingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


def test_rows_a_sink_keeps_back_fail_the_spark_task() -> None:
    options = {"connector.class": class_path(HoldingSinkConnector), "topics": "t",
               "value.converter": STRINGS.class_name}  # fmt: skip
    spec = sink_spec(
        FormatConnector.of(options, "sink"), StructType([StructField("value", StringType())])
    )
    rows = pa.RecordBatch.from_pydict({"value": ["a", "b"]})
    with pytest.raises(TaskFailure, match=r"t-0 durable only up to offset None of 2.*be lost"):
        write_rows(spec, iter([rows]))
