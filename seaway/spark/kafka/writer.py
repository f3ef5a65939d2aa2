"""The Kafka sink: rows (as Arrow batches) encoded into record batches and produced whole.

Input columns are Spark's: ``value`` (required), ``key``, ``topic`` (unless the ``topic``
option is set, which wins), ``partition``, ``headers``; and, beyond Spark, an optional
``timestamp`` column that becomes the record's CreateTime (so a read-then-write copy
keeps timestamps).

Every task hands its Arrow batches to :class:`~seaway.kafka.column_producer.ColumnProducer`
(record batches encoded from the columns in C, sent whole by Seaway's batch client; Kafka's
partitioner: the row's partition, murmur2 of the key, else sticky) and waits for all of
them to be acknowledged; a delivery error fails the task, so Spark retries it or fails the
query: nothing is dropped silently. That is at-least-once, as Spark's own Kafka sink; with
``exactlyOnce`` each task writes in one transaction (:mod:`seaway.spark.kafka.transactional`).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    StringType,
    StructType,
    TimestampType,
)

from seaway.kafka import pool
from seaway.kafka.column_producer import ColumnProducer, Rows
from seaway.kafka.connection import KafkaConnectionError
from seaway.kafka.producer import ProduceError
from seaway.kafka.ranges import range_producer
from seaway.kafka.transactions import write_range
from seaway.protocol.errors import KafkaError as ProtocolError
from seaway.spark.errors import SparkKafkaError
from seaway.spark.kafka.options import KafkaOptionError, SinkOptions
from seaway.spark.kafka.transactional import SequenceFence, TaskTransaction, client_config

log = logging.getLogger(__name__)

__all__ = ["KafkaBatchWriter", "KafkaCommitMessage", "KafkaStreamWriter", "check_sink_schema"]


def check_sink_schema(schema: StructType, options: SinkOptions) -> None:
    """Spark's Kafka sink rules for the input columns, with its messages."""
    fields = {f.name.lower(): f for f in schema.fields}
    value = fields.get("value")
    if value is None:
        raise KafkaOptionError("Required attribute 'value' not found in the rows written to Kafka.")
    if not isinstance(value.dataType, StringType | BinaryType):
        raise KafkaOptionError(
            f"value attribute type must be a string or binary, got {value.dataType.simpleString()}."
        )
    key = fields.get("key")
    if key is not None and not isinstance(key.dataType, StringType | BinaryType):
        raise KafkaOptionError(
            f"key attribute type must be a string or binary, got {key.dataType.simpleString()}."
        )
    topic = fields.get("topic")
    if options.topic is None and topic is None:
        raise KafkaOptionError(
            "topic option required when no 'topic' attribute is present. Use the topic "
            "option for setting a topic."
        )
    if topic is not None and not isinstance(topic.dataType, StringType):
        raise KafkaOptionError(
            f"topic attribute type must be a string, got {topic.dataType.simpleString()}."
        )
    partition = fields.get("partition")
    if partition is not None and not isinstance(partition.dataType, IntegerType):
        raise KafkaOptionError(
            f"partition attribute type must be an int, got {partition.dataType.simpleString()}."
        )
    timestamp = fields.get("timestamp")
    if timestamp is not None and not isinstance(timestamp.dataType, TimestampType):
        raise KafkaOptionError(
            "timestamp attribute type must be a timestamp, got "
            f"{timestamp.dataType.simpleString()}."
        )
    headers = fields.get("headers")
    if headers is not None and not isinstance(headers.dataType, ArrayType):
        raise KafkaOptionError(
            "headers attribute type must be an array<struct<key:string,value:binary>>, got "
            f"{headers.dataType.simpleString()}."
        )


@dataclass
class KafkaCommitMessage(WriterCommitMessage):
    records: int
    task: int
    skipped: bool = False  # exactly-once: this task's part of the batch was already committed


class DeliveryError(SparkKafkaError, RuntimeError):
    """Kafka did not acknowledge some records."""


CLIENT_ID: Final = "seaway-spark-sink"


class KafkaTaskWriter:
    """Produces one task's rows (Arrow batches of the sink's schema) and waits until every
    record is acknowledged."""

    def __init__(self, options: SinkOptions, producer: ColumnProducer) -> None:
        self.options = options
        self.producer = producer

    @property
    def records(self) -> int:
        return self.producer.acked

    def write(self, batch: pa.RecordBatch) -> None:
        if not batch.num_rows:
            return
        names = {n.lower(): i for i, n in enumerate(batch.schema.names)}
        rows = Rows(
            values=batch.column(names["value"]),
            keys=_column(batch, names, "key"),
            partitions=_column(batch, names, "partition"),
            timestamps=_millis(_column(batch, names, "timestamp")),
            headers=_column(batch, names, "headers"),
        )
        with self._delivery():
            if self.options.topic:
                self.producer.send(self.options.topic, rows)
                return
            topics = batch.column(names["topic"])
            if topics.null_count:
                raise KafkaOptionError(
                    "null topic present in the data. Use the topic option for setting a topic."
                )
            distinct = pc.unique(topics).to_pylist()
            if len(distinct) == 1:
                self.producer.send(str(distinct[0]), rows)
                return
            for topic in distinct:
                self.producer.send(str(topic), rows, pc.indices_nonzero(pc.equal(topics, topic)))

    def finish(self) -> int:
        """Wait for every acknowledgement; raise if any record failed."""
        with self._delivery():
            self.producer.flush()
        return self.records

    @contextmanager
    def _delivery(self) -> Iterator[None]:
        """Kafka's refusals as :class:`DeliveryError`, saying how many records it lacks."""
        try:
            yield
        except (ProduceError, KafkaConnectionError, ProtocolError) as error:
            lost = max(self.producer.unacknowledged, 1)
            hint = ""
            if "too_large" in str(error).lower():  # the batch client's and librdkafka's
                hint = (
                    " (a record is too large for the topic's max.message.bytes: raise that "
                    "topic setting, or write smaller records)"
                )
            raise DeliveryError(
                f"Kafka did not accept {lost} record(s); first errors: {error}{hint}"
            ) from error


def _column(batch: pa.RecordBatch, names: dict[str, int], name: str) -> pa.Array | None:
    """A column, or None when it is absent or all null (nothing to set)."""
    if name not in names:
        return None
    column = batch.column(names[name])
    return None if column.null_count == len(column) else column


def _millis(column: pa.Array | None) -> pa.Array | None:
    """Spark's timestamps (check_sink_schema ensured the type) as int64 milliseconds."""
    if column is None:
        return None
    micros = column.cast(pa.timestamp("us", tz=column.type.tz)).cast(pa.int64())
    if (pc.min(micros).as_py() or 0) >= 0:  # the usual case: truncating is flooring
        return pc.divide(micros, 1000)
    return pa.array([None if m is None else m // 1000 for m in micros.to_pylist()], pa.int64())


def _write_all(options: SinkOptions, iterator: Iterator[pa.RecordBatch]) -> KafkaCommitMessage:
    from pyspark import TaskContext

    return write_rows(options, iterator, TaskContext.get())


def write_rows(
    options: SinkOptions,
    iterator: Iterator[pa.RecordBatch],
    context: Any,
    fence: SequenceFence | None = None,
) -> KafkaCommitMessage:
    """Produce Kafka rows (Arrow batches of the sink's schema) as one task of a Spark job:
    at-least-once, or in one transaction with ``exactlyOnce`` (the job's batch id from
    *context*, a ``TaskContext``; *fence* for a writer several incarnations may run). Also
    called where rows are made, so they skip the JVM."""
    if options.exactly_once:
        return _write_in_transaction(options, iterator, context, fence)
    config = options.producer_config()
    producer = range_producer(config, client_id=CLIENT_ID)
    writer = KafkaTaskWriter(options, ColumnProducer.of(producer, config))
    try:
        for batch in iterator:
            writer.write(batch)
        writer.finish()
    except BaseException:
        pool.drop(producer)  # what it holds unacknowledged is never sent later
        raise
    return KafkaCommitMessage(writer.records, context.partitionId() if context else 0)


def _write_in_transaction(
    options: SinkOptions,
    iterator: Iterator[pa.RecordBatch],
    context: Any,
    fence: SequenceFence | None,
) -> KafkaCommitMessage:
    """The exactly-once write of one task (:mod:`seaway.spark.kafka.transactional`)."""
    txn = TaskTransaction.of(options, context)
    # Take the first batch to learn the marker topic; later batches stream through.
    pending: list[pa.RecordBatch] = []
    for batch in iterator:
        pending.append(batch)
        if batch.num_rows:
            break
    topic = _first_topic(options, pending)
    if topic is None:  # no rows at all in this task
        return KafkaCommitMessage(0, txn.task)
    marker = txn.marker(topic, fence)
    config = options.producer_config()
    producer = range_producer(config, txn.transactional_id, client_id=CLIENT_ID)
    writer = KafkaTaskWriter(options, ColumnProducer.of(producer, config))

    def write(_committed: int) -> int | None:
        for batch in itertools.chain(pending, iterator):
            writer.write(batch)
        writer.finish()
        return None if marker is None else marker.next

    try:
        producer.init()  # fences older attempts of the task, aborts their open work
        written = write_range(producer, marker, write, client_config(options))
    except BaseException:
        pool.drop(producer)
        raise
    if not written:
        log.info(
            "Batch %d task %d already committed by an earlier attempt; skipping",
            txn.batch_id, txn.task,
        )  # fmt: skip
        for _ in iterator:
            pass
        return KafkaCommitMessage(0, txn.task, skipped=True)
    return KafkaCommitMessage(writer.records, txn.task)


def _first_topic(options: SinkOptions, batches: list[pa.RecordBatch]) -> str | None:
    if options.topic:
        return options.topic
    for batch in batches:
        names = {n.lower(): i for i, n in enumerate(batch.schema.names)}
        for topic in batch.column(names["topic"]).to_pylist():
            if topic is not None:
                return str(topic)
    return None


class KafkaStreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, options: SinkOptions) -> None:
        self.options = options

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        return _write_all(self.options, iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        total = sum(m.records for m in messages if isinstance(m, KafkaCommitMessage))
        log.info("Batch %d: %d records written to Kafka", batchId, total)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        if self.options.exactly_once:
            log.warning("Batch %d aborted; its open transactions were aborted", batchId)
        else:
            log.warning("Batch %d aborted; acknowledged records stay (at-least-once)", batchId)


class KafkaBatchWriter(DataSourceArrowWriter):
    def __init__(self, options: SinkOptions) -> None:
        self.options = options

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        return _write_all(self.options, iterator)
