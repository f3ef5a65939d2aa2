"""A DataFrame into a sink connector: ``df.writeStream.format("connect")`` and ``df.write``.

Each Spark task of a micro-batch runs one of the connector's tasks over its rows
(partition *i* is task *i* modulo the task count) through the Connect worker's own path
(:func:`~seaway.connect.runtime.queries.sink.write_task`): the converters and
transformations, ``put()`` (or ``put_batch()``), then ``pre_commit()``, whose flush makes the
rows durable before Spark commits the micro-batch. What Spark replays after a failure is put
again: with an idempotent sink (Elasticsearch documents named by topic+partition+offset,
JDBC upserts, the HDFS sink's offset-named files) the result is exactly once.

The rows are the Kafka source's (``key``, ``value``, ``topic``, ``partition``, ``offset``,
``timestamp``, ``timestampType``, ``headers``): only ``value`` is needed. ``key`` and
``value`` are bytes (or strings) the connector's converters read, or typed columns (a struct
of a table's columns...) that reach the connector with the Connect schema of their Spark
type, without a converter (:mod:`~seaway.connect.spark_format.typed_converter`). A row
without ``topic`` goes to the first of the connector's ``topics``, without ``partition`` to
0, and without ``offset`` is numbered by its position in the Spark task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import BinaryType, StringType, StructType

from seaway.connect.api.errors import ConnectError
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.queries.conversion import ConverterSpec, TaskFailure
from seaway.connect.runtime.queries.sink import SinkQuerySpec, write_task
from seaway.connect.runtime.queries.source import class_path
from seaway.connect.spark_format.columns import connect_schema
from seaway.connect.spark_format.connector import ConnectFormatError, FormatConnector
from seaway.connect.spark_format.typed_converter import TypedColumnConverter, converter_configs

__all__ = [
    "ConnectBatchWriter",
    "ConnectStreamWriter",
    "TaskWritten",
    "foreach_batch",
    "sink_spec",
    "write_rows",
]

_BYTES: Final = ("key", "value")
_NONE: Final = frozenset[str]()
_HEADERS: Final = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))
_TIMESTAMP: Final = pa.timestamp("us", tz="UTC")


@dataclass
class TaskWritten(WriterCommitMessage):
    """What one Spark task put into its connector task."""

    task: int
    records: int


def sink_spec(connector: FormatConnector, schema: StructType) -> SinkQuerySpec:
    """The spec of a sink connector fed by a DataFrame of *schema* (checked here, on the
    driver, so a wrong column fails before the query starts)."""
    fields = {f.name: f.dataType for f in schema.fields}
    if "value" not in fields:
        raise ConnectFormatError(
            f'format("connect") into {connector.connector_class} needs a value column (bytes '
            "or a string that value.converter reads, or a typed column); the DataFrame has "
            f'{sorted(fields)}: select one, e.g. df.selectExpr("struct(*) AS value")'
        )
    conversion = connector.conversion
    for name in _BYTES:
        if name not in fields or isinstance(fields[name], BinaryType | StringType):
            continue
        if connector.config.get(f"{name}.converter"):
            raise ConnectFormatError(
                f"column {name} is {fields[name].simpleString()}, and option {name}.converter "
                "reads bytes: drop the option to write the column as it is typed, or make "
                f"it bytes (e.g. to_json({name}) with {name}.converter=org.apache.kafka."
                f"connect.json.JsonConverter and {name}.converter.schemas.enable=false)"
            )
        try:
            column_schema = connect_schema(fields[name])
        except ValueError as error:
            raise ConnectFormatError(f"column {name}: {error}: cast it") from None
        typed = ConverterSpec(class_path(TypedColumnConverter), converter_configs(column_schema))
        if name == "key":
            conversion = replace(conversion, key=typed)
        else:
            conversion = replace(conversion, value=typed)
    topics = _topics(connector.config)
    if "topic" not in fields and not topics:
        raise ConnectFormatError(
            "the DataFrame has no topic column and the connector's option topics names none "
            "(topics.regex cannot name a row's topic): set option topics, or add a topic column"
        )
    return SinkQuerySpec(
        connector=connector.name,
        task_class=connector.task_class,
        task_configs=connector.task_configs,
        enabled_tasks=list(range(len(connector.task_configs))),
        group_id=f"connect-{connector.name}",
        client_config=_client_config(connector.config),
        conversion=conversion,
    )


def _topics(config: Mapping[str, str]) -> list[str]:
    return [t.strip() for t in config.get(cc.TOPICS, "").split(",") if t.strip()]


def _client_config(config: Mapping[str, str]) -> dict[str, str]:
    """The dead letter queue's Kafka client settings (``producer.override.*``,
    ``bootstrap.servers`` for the cluster), when the connector has a queue."""
    prefix = "producer.override."
    client = {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}
    if config.get("bootstrap.servers"):
        client.setdefault("bootstrap.servers", config["bootstrap.servers"])
    return client


def consumed(
    batch: pa.RecordBatch, topic: str | None, first_offset: int, typed: frozenset[str] = _NONE
) -> pa.RecordBatch:
    """*batch* with every column a sink task reads from Kafka, the missing ones made up;
    the *typed* columns (``key``, ``value``) left as they are."""
    n = batch.num_rows
    names = batch.schema.names

    def column(name: str, kind: pa.DataType, default: Any) -> pa.Array:
        if name in names:
            return batch.column(name) if name in typed else batch.column(name).cast(kind)
        return pa.nulls(n, kind) if default is None else pa.array([default] * n, kind)

    offsets = (
        batch.column("offset").cast(pa.int64())
        if "offset" in names
        else pa.array(range(first_offset, first_offset + n), pa.int64())
    )
    stamped = "timestamp" in names
    columns = {
        "topic": column("topic", pa.string(), topic),
        "partition": column("partition", pa.int32(), 0),
        "offset": offsets,
        "key": column("key", pa.binary(), None),
        "value": column("value", pa.binary(), None),
        "timestamp": column("timestamp", _TIMESTAMP, None),
        "timestampType": column("timestampType", pa.int32(), 0 if stamped else None),
        "headers": column("headers", _HEADERS, None),
    }
    return pa.RecordBatch.from_arrays(list(columns.values()), names=list(columns))


def write_rows(spec: SinkQuerySpec, batches: Iterator[pa.RecordBatch]) -> TaskWritten:
    """One Spark task's rows through connector task *i* (its partition modulo the task
    count); what it wrote."""
    from pyspark import TaskContext

    context = TaskContext.get()
    index = (context.partitionId() if context else 0) % len(spec.task_configs)
    topics = _topics(spec.conversion.connector_config)
    topic = topics[0] if topics else None

    typed = frozenset(
        name
        for name in _BYTES
        if getattr(spec.conversion, name).class_name == class_path(TypedColumnConverter)
    )

    def rows() -> Iterator[pa.RecordBatch]:
        position = 0
        for batch in batches:
            if batch.num_rows:
                yield consumed(batch, topic, position, typed)
                position += batch.num_rows

    try:
        written = write_task(spec, index, rows())
        _check_durable(spec, index, written.given, {(t, p): o for t, p, o in written.durable})
    except Exception as error:
        raise TaskFailure.of(spec.connector, index, error) from error
    return TaskWritten(index, written.records)


def _check_durable(
    spec: SinkQuerySpec,
    index: int,
    given: Mapping[tuple[str, int], int],
    durable: Mapping[tuple[str, int], int],
) -> None:
    """Fail the Spark task when the sink task's ``pre_commit`` kept back rows it was given:
    Spark commits the micro-batch when the task returns, and would never give them again."""
    short = {tp: end for tp, end in given.items() if durable.get(tp, -1) < end}
    if short:
        (topic, partition), end = next(iter(short.items()))
        raise ConnectError(
            f"Task {spec.connector}-{index} made {topic}-{partition} durable only up to offset "
            f"{durable.get((topic, partition))} of {end} when its rows ended (pre_commit), and "
            "Spark does not give a committed micro-batch again: the rest would be lost. A "
            'sink used with format("connect") must write what it was given by the end of '
            "each micro-batch (flush): set it to, or run the connector on a Connect worker"
        )


class ConnectStreamWriter(DataSourceStreamArrowWriter):
    """Each micro-batch's rows through the sink connector's tasks."""

    def __init__(self, spec: SinkQuerySpec) -> None:
        self.spec = spec

    def write(self, iterator: Iterator[pa.RecordBatch]) -> TaskWritten:
        return write_rows(self.spec, iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Nothing to do: each task flushed (``pre_commit``) before it returned."""


class ConnectBatchWriter(DataSourceArrowWriter):
    """A DataFrame's rows through the sink connector's tasks, once."""

    def __init__(self, spec: SinkQuerySpec) -> None:
        self.spec = spec

    def write(self, iterator: Iterator[pa.RecordBatch]) -> TaskWritten:
        return write_rows(self.spec, iterator)


def foreach_batch(**config: str) -> Callable[[DataFrame, int], None]:
    """A ``foreachBatch`` function that puts each micro-batch into the sink connector
    *config* describes: ``writeStream.foreachBatch(foreach_batch(**{"connector.class":
    ...}))``, for a job that does more with its batches than write them."""

    def put(batch: DataFrame, batch_id: int) -> None:
        batch.write.format("connect").options(**config).mode("append").save()

    return put
