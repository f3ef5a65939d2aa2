"""The Kafka sink: rows (as Arrow batches) produced with librdkafka.

Input columns are Spark's: ``value`` (required), ``key``, ``topic`` (unless the ``topic``
option is set, which wins), ``partition``, ``headers``; and, beyond Spark, an optional
``timestamp`` column that becomes the record's CreateTime (so a read-then-write copy
keeps timestamps).

Every task produces its rows and waits for all of them to be acknowledged; a delivery
error fails the task, so Spark retries it or fails the query: nothing is dropped
silently. That is at-least-once, as Spark's own Kafka sink; with ``exactlyOnce`` each task
writes in one transaction (:mod:`seaway.spark.kafka.transactional`).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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

from seaway.kafka import clients, pool
from seaway.kafka.timeouts import TASK_WRITE_TIMEOUT_S
from seaway.kafka.transactions import LibrdkafkaTransactions, write_range
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


class TrackedProducer:
    """A librdkafka producer with the delivery errors of the task using it."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.errors: list[str] = []
        self.fatal: Any = None  # the KafkaError that made the producer unusable, if any
        self.producer = clients.producer(
            config,
            {
                "delivery.report.only.error": True,
                "on_delivery": self._on_delivery,
                "error_cb": self._on_error,
            },
        )

    def _on_delivery(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.errors.append(f"{msg.topic()}[{msg.partition()}]: {err.str()}")

    def _on_error(self, err: Any) -> None:
        if err.fatal():
            self.fatal = err
        else:  # librdkafka's own retries handle the rest; say what happened
            log.debug("Producer: %s", err.str())

    def fatal_error(self) -> Any:
        """Why the producer became unusable (librdkafka's ``produce()`` says only "Fatal
        error"; the cause, e.g. fenced by another producer, comes with an error callback)."""
        self.producer.poll(0)  # serves a pending error callback
        return self.fatal


def pooled_producer(options: SinkOptions) -> TrackedProducer:
    """The Python worker's producer for *options*: Spark reuses its workers across tasks
    and batches, as the JVM's sink caches its producers. Tasks in one worker run one at a
    time."""
    config = options.producer_config()
    return pool.shared(
        ("tracked producer", tuple(sorted(config.items()))), lambda: TrackedProducer(config)
    )


class KafkaTaskWriter:
    """Produces one task's rows and waits until every record is acknowledged."""

    def __init__(self, options: SinkOptions, tracked: TrackedProducer) -> None:
        self.options = options
        tracked.errors.clear()
        self.producer = tracked.producer
        self.errors = tracked.errors
        self.records = 0

    def write(self, batch: pa.RecordBatch) -> None:
        names = {n.lower(): i for i, n in enumerate(batch.schema.names)}
        n = batch.num_rows
        values = _bytes_column(batch, names["value"])
        keys = _bytes_column(batch, names["key"]) if "key" in names else [None] * n
        topic_option = self.options.topic
        topics = [topic_option] * n if topic_option else batch.column(names["topic"]).to_pylist()
        partitions = _optional_column(batch, names, "partition")
        headers = _optional_column(batch, names, "headers")
        timestamps = (
            _millis_column(batch, names["timestamp"])
            if "timestamp" in names and batch.column(names["timestamp"]).null_count < n
            else None
        )
        produce = self.producer.produce
        poll = self.producer.poll
        for i in range(n):
            topic = topics[i]
            if topic is None:
                raise KafkaOptionError(
                    "null topic present in the data. Use the topic option for setting a topic."
                )
            partition = -1 if partitions is None or partitions[i] is None else partitions[i]
            record_headers = (
                [(h["key"], h["value"]) for h in headers[i]]
                if headers is not None and headers[i]
                else None
            )
            timestamp = 0 if timestamps is None else timestamps[i] or 0
            # Positional (topic, value, key, partition, callback, on_delivery, timestamp,
            # headers): no keyword dict per record. -1: the partitioner's; 0: produce time.
            while True:
                try:
                    produce(
                        topic, values[i], keys[i], partition, None, None, timestamp, record_headers
                    )
                    break
                except BufferError:
                    poll(0.005)
        poll(0)
        self.records += n

    def finish(self) -> int:
        """Wait for every acknowledgement; raise if any record failed."""
        deadline = time.monotonic() + TASK_WRITE_TIMEOUT_S
        remaining = self.producer.flush(0.5)
        # Stop waiting at the first error: a transactional producer in error keeps the rest
        # queued until the transaction is aborted.
        while remaining and not self.errors and time.monotonic() < deadline:
            remaining = self.producer.flush(0.5)
        if remaining and not self.errors:
            self.errors.append(
                f"{remaining} records not acknowledged within {TASK_WRITE_TIMEOUT_S:.0f}s"
            )
        if self.errors:
            raise DeliveryError(
                f"Kafka did not accept {len(self.errors)} record(s); first errors: "
                f"{'; '.join(self.errors[:3])}"
            )
        return self.records


def _optional_column(batch: pa.RecordBatch, names: dict[str, int], name: str) -> list[Any] | None:
    """A column's values, or None when it is absent or all null (nothing to set)."""
    if name not in names:
        return None
    column = batch.column(names[name])
    return None if column.null_count == len(column) else column.to_pylist()


def _bytes_column(batch: pa.RecordBatch, index: int) -> list[bytes | None]:
    column = batch.column(index)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = column.cast(pa.binary())
    values: list[bytes | None] = column.to_pylist()
    return values


def _millis_column(batch: pa.RecordBatch, index: int) -> list[int | None]:
    column = batch.column(index)  # a timestamp column: check_sink_schema ensured it
    micros = column.cast(pa.timestamp("us", tz=column.type.tz)).cast(pa.int64())
    if (pc.min(micros).as_py() or 0) >= 0:  # the usual case: truncating is flooring
        return pc.divide(micros, 1000).to_pylist()  # type: ignore[no-any-return]
    return [None if m is None else m // 1000 for m in micros.to_pylist()]


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
    writer = KafkaTaskWriter(options, pooled_producer(options))
    for batch in iterator:
        writer.write(batch)
    return KafkaCommitMessage(writer.finish(), context.partitionId() if context else 0)


def _write_in_transaction(
    options: SinkOptions,
    iterator: Iterator[pa.RecordBatch],
    context: Any,
    fence: SequenceFence | None,
) -> KafkaCommitMessage:
    """The exactly-once write of one task (:mod:`seaway.spark.kafka.transactional`)."""
    txn = TaskTransaction.of(options, context)
    tracked = TrackedProducer(
        {
            "reconnect.backoff.ms": 10,
            **options.producer_config(),
            "transactional.id": txn.transactional_id,
        }
    )
    pool.init_transactions(tracked.producer)  # fences older attempts, aborts their open work
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
    writer = KafkaTaskWriter(options, tracked)

    def write(_committed: int) -> int | None:
        for batch in itertools.chain(pending, iterator):
            writer.write(batch)
        writer.finish()
        return None if marker is None else marker.next

    config = client_config(options)
    producer = LibrdkafkaTransactions(
        tracked.producer, txn.transactional_id, config, fatal_error=tracked.fatal_error
    )
    if not write_range(producer, marker, write, config):
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
