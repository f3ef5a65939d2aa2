"""Executor side of the source: read one offset range into Arrow record batches.

A task reads exactly ``[start, end)`` of one partition, fixed by the driver, so a retried
task yields the same records, as ``pyarrow.RecordBatch``es of bounded size: memory per
task does not grow with the range.

Two paths give the same rows. The batch path (PLAINTEXT, TLS, SASL PLAIN and SCRAM
clusters) fetches raw record batches with Seaway's batch client and decodes their records
straight into Arrow's column buffers in C (:mod:`seaway.protocol.record_columns`): no
Python object per record. The record path (other SASL mechanisms, which only librdkafka
speaks) copies records out of librdkafka's messages into column lists.
"""

from __future__ import annotations

import bisect
import logging
import time
from collections.abc import Iterator
from typing import Any, cast

import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from seaway.kafka import pool
from seaway.kafka.fetcher import CorruptBatchError, PartitionFetcher
from seaway.protocol.record_columns import BinaryColumn, Columns, decode_columns, section_of
from seaway.spark.errors import SparkKafkaError
from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.planner import OffsetRange
from seaway.spark.kafka.schema import HEADER_TYPE, arrow_schema

log = logging.getLogger(__name__)

__all__ = ["DataLossError", "MessageBatch", "data_loss", "message_batches", "read_range"]

BATCH_ROWS = 10_000
BATCH_BYTES = 16 << 20
_TIMESTAMP_TYPE = pa.timestamp("us", tz="UTC")

_EXECUTOR_GROUP = "seaway-spark-executor"


class DataLossError(SparkKafkaError, RuntimeError):
    """Offsets a batch planned to read are gone (retention, deletion, truncation)."""


def _consumer(options: SourceOptions) -> Consumer:
    """The Python worker's consumer for *options*, reused across tasks and micro-batches
    (:func:`seaway.kafka.pool.consumer`), as Spark's JVM source pools its consumers.
    Executor consumers only assign() and never commit, so the per-query group id is left
    out: queries share them."""
    config = options.consumer_config()
    if "group.id" not in options.kafka_params:
        config["group.id"] = _EXECUTOR_GROUP
    return pool.consumer(config)


class _Columns:
    """Column lists for one Arrow batch."""

    def __init__(self, topic: str, partition: int, include_headers: bool) -> None:
        self.topic = topic
        self.partition = partition
        self.include_headers = include_headers
        self.schema = arrow_schema(include_headers)
        self._reset()

    def _reset(self) -> None:
        self.keys: list[bytes | None] = []
        self.values: list[bytes | None] = []
        self.offsets: list[int] = []
        self.timestamps: list[int | None] = []
        self.types: list[int] = []
        self.headers: list[list[dict[str, Any]] | None] = []
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.offsets)

    def extend(self, messages: list[Any], offsets: list[int]) -> None:
        """Add a run of error-free messages at once (one C-level pass per field)."""
        values = [m.value() for m in messages]
        self.keys.extend([m.key() for m in messages])
        self.values.extend(values)
        self.offsets.extend(offsets)
        stamps = [m.timestamp() for m in messages]
        # librdkafka: type 0 none, 1 create, 2 append -> Java ids -1, 0, 1
        self.timestamps.extend([ts * 1000 if kind else None for kind, ts in stamps])
        self.types.extend([kind - 1 for kind, _ in stamps])
        if self.include_headers:
            self.headers.extend(
                [
                    [{"key": k, "value": v} for k, v in headers] if headers else None
                    for headers in (m.headers() for m in messages)
                ]
            )
        self.bytes += sum(map(len, filter(None, values)))

    def flush(self) -> pa.RecordBatch:
        n = len(self.offsets)
        arrays = [
            pa.array(self.keys, pa.binary()),
            pa.array(self.values, pa.binary()),
            pa.repeat(pa.scalar(self.topic, pa.string()), n),
            pa.repeat(pa.scalar(self.partition, pa.int32()), n),
            pa.array(self.offsets, pa.int64()),
            pa.array(self.timestamps, _TIMESTAMP_TYPE),
            pa.array(self.types, pa.int32()),
        ]
        if self.include_headers:
            arrays.append(pa.array(self.headers, pa.list_(HEADER_TYPE)))
        batch = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        self._reset()
        return batch


def read_range(
    options: SourceOptions, r: OffsetRange, *, batch_client: bool | None = None
) -> Iterator[pa.RecordBatch]:
    """Yield the records of ``r`` as Arrow batches of at most BATCH_ROWS rows (or, on the
    batch path, the records of one source batch if it holds more).

    The batch path is taken where the batch client reaches the cluster (or as
    *batch_client* says), the record path otherwise; both yield the same rows."""
    if batch_client is None:
        batch_client = pool.batch_client_reaches(options.kafka_params)
    if batch_client:
        return _read_range_batches(options, r)
    return _read_range_records(options, r)


def _read_range_batches(options: SourceOptions, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    """The batch path: raw batches fetched, their records decoded into Arrow buffers."""
    cluster = pool.shared_cluster(
        options.bootstrap_servers,
        options.kafka_params.get("client.id", "seaway-spark"),
        options.kafka_params,
    )
    fetcher = PartitionFetcher(
        cluster,
        r.topic,
        r.partition,
        read_committed=options.kafka_params.get("isolation.level") == "read_committed",
    )

    def on_data_loss(position: int, what: str, skip_to: int) -> int:
        return data_loss(options, r, position, what, skip_to=skip_to)

    def columns(sections: list[Any]) -> Iterator[pa.RecordBatch]:
        try:
            decoded = decode_columns(sections, r.start, r.end, headers=options.include_headers)
        except ValueError as error:
            raise CorruptBatchError(
                f"Corrupt record batch in {r.topic}[{r.partition}]: {error}. Nothing at or "
                "after it is read."
            ) from None
        if decoded.rows:  # a compacted batch may hold nothing of the range
            yield _record_batch(decoded, r.topic, r.partition, options.include_headers)

    sections: list[Any] = []
    rows = size = 0
    batches = fetcher.batches(
        r.start, r.end, timeout_s=options.poll_timeout_ms / 1000, on_data_loss=on_data_loss
    )
    for batch in batches:
        count = batch.header.records_count
        if sections and rows + count > BATCH_ROWS:
            yield from columns(sections)
            sections, rows, size = [], 0, 0
        section = section_of(batch.header, batch.data)
        sections.append(section)
        rows += count
        size += len(section[0])
        if rows >= BATCH_ROWS or size >= BATCH_BYTES:
            yield from columns(sections)
            sections, rows, size = [], 0, 0
    if sections:
        yield from columns(sections)


def _binary(column: BinaryColumn, rows: int, kind: pa.DataType) -> pa.Array:
    validity = pa.py_buffer(column.validity) if column.nulls else None
    buffers = [validity, pa.py_buffer(column.offsets), pa.py_buffer(column.data)]
    return pa.Array.from_buffers(kind, rows, buffers, null_count=column.nulls)


def _record_batch(
    columns: Columns, topic: str, partition: int, include_headers: bool
) -> pa.RecordBatch:
    """Spark's Kafka rows over the decoded buffers (no copy)."""
    n = columns.rows
    arrays = [
        _binary(columns.keys, n, pa.binary()),
        _binary(columns.values, n, pa.binary()),
        pa.repeat(pa.scalar(topic, pa.string()), n),
        pa.repeat(pa.scalar(partition, pa.int32()), n),
        pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(columns.offsets)]),
        pa.Array.from_buffers(_TIMESTAMP_TYPE, n, [None, pa.py_buffer(columns.timestamps)]),
        pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(columns.timestamp_types)]),
    ]
    if include_headers:
        headers = columns.headers
        assert headers is not None
        count = len(headers.keys.offsets) // 4 - 1  # headers in all
        names = _binary(headers.keys, count, pa.string())
        values = _binary(headers.values, count, pa.binary())
        entries = pa.StructArray.from_arrays([names, values], fields=list(HEADER_TYPE))
        validity = pa.py_buffer(headers.validity) if headers.nulls else None
        arrays.append(
            pa.Array.from_buffers(
                pa.list_(HEADER_TYPE),
                n,
                [validity, pa.py_buffer(headers.offsets)],
                null_count=headers.nulls,
                children=[entries],
            )
        )
    return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(include_headers))


def _read_range_records(options: SourceOptions, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    """The record path: records copied out of librdkafka's messages."""
    columns = _Columns(r.topic, r.partition, options.include_headers)
    for messages, offsets in message_batches(options, r):
        if len(columns) and len(columns) + len(offsets) > BATCH_ROWS:
            yield columns.flush()
        columns.extend(messages, offsets)
        if len(columns) >= BATCH_ROWS or columns.bytes >= BATCH_BYTES:
            yield columns.flush()
    if len(columns):
        yield columns.flush()


MessageBatch = tuple[list[Any], list[int]]
"""Error-free ``confluent_kafka.Message``\\ s of one partition, in offset order, and their
offsets."""


def message_batches(
    options: SourceOptions, r: OffsetRange, max_messages: int = BATCH_ROWS
) -> Iterator[MessageBatch]:
    """Yield the records of ``r`` as they come from librdkafka, at most *max_messages* at a
    time, never one outside ``[r.start, r.end)``.

    Consumer events are handled on the way: end of log, offsets gone (``failOnDataLoss``
    decides between :class:`DataLossError` and skipping ahead) and no progress for
    ``kafkaConsumer.pollTimeoutMs`` (:class:`TimeoutError`). The pooled consumer is
    assigned to the partition for the iteration only.
    """
    consumer = _consumer(options)
    consumer.assign([TopicPartition(r.topic, r.partition, r.start)])
    position = r.start
    timeout_s = options.poll_timeout_ms / 1000
    last_progress = time.monotonic()
    try:
        while position < r.end:
            messages = consumer.consume(
                num_messages=min(max_messages, r.end - position), timeout=0.5
            )
            if not messages:
                if time.monotonic() - last_progress > timeout_s:
                    raise TimeoutError(
                        f"No record of {r.topic}[{r.partition}] arrived in "
                        f"{options.poll_timeout_ms} ms (kafkaConsumer.pollTimeoutMs) while "
                        f"reading offsets [{position}, {r.end})"
                    )
                continue
            last_progress = time.monotonic()
            if not any([m.error() for m in messages]):  # the common case: only records
                # Records always have an offset (confluent-kafka types it int | None).
                offsets = cast("list[int]", [m.offset() for m in messages])
                if offsets[-1] >= r.end:
                    keep = bisect.bisect_left(offsets, r.end)
                    messages, offsets = messages[:keep], offsets[:keep]
                    position = r.end
                else:
                    position = offsets[-1] + 1
                if offsets:
                    yield messages, offsets
                continue
            run: list[Any] = []
            for message in messages:
                error = message.error()
                if error is not None:
                    position = _on_error(consumer, options, r, position, error, message)
                    if position >= r.end:
                        break
                    continue
                offset = cast(int, message.offset())
                if offset >= r.end:
                    position = r.end
                    break
                run.append(message)
                position = offset + 1
            if run:
                yield run, cast("list[int]", [m.offset() for m in run])
    finally:
        consumer.unassign()


def _on_error(
    consumer: Consumer,
    options: SourceOptions,
    r: OffsetRange,
    position: int,
    error: KafkaError,
    message: Any,
) -> int:
    """Handle a consumer event; return the position to continue from."""
    code = error.code()
    if code == KafkaError._PARTITION_EOF:
        end_of_log = message.offset()
        if end_of_log >= r.end or end_of_log >= position:
            # Everything up to the log end was read: offsets left in the range were
            # transaction markers or compacted away. Below the range end means truncation.
            if end_of_log >= r.end:
                return r.end
            return data_loss(
                options,
                r,
                position,
                f"the log of {r.topic}[{r.partition}] ends at {end_of_log}, before the "
                f"planned end {r.end} (was it truncated or recreated?)",
                skip_to=r.end,
            )
        return position
    if code == KafkaError._AUTO_OFFSET_RESET or code == KafkaError.OFFSET_OUT_OF_RANGE:
        low, high = consumer.get_watermark_offsets(
            TopicPartition(r.topic, r.partition), timeout=options.api_timeout_s
        )
        resume = min(max(low, position), r.end)
        position = data_loss(
            options,
            r,
            position,
            f"offsets [{position}, {low}) of {r.topic}[{r.partition}] are no longer in the log "
            f"(log start {low}, end {high}): deleted by retention or DeleteRecords",
            skip_to=resume,
        )
        if position < r.end:
            consumer.assign([TopicPartition(r.topic, r.partition, position)])
        return position
    raise KafkaException(error)


def data_loss(
    options: SourceOptions, r: OffsetRange, position: int, what: str, *, skip_to: int
) -> int:
    if options.fail_on_data_loss:
        raise DataLossError(
            f"Some data may have been lost: {what}. If you want the query to go on, skipping "
            "what is gone, set the source option 'failOnDataLoss' to 'false'."
        )
    log.warning("Skipping lost data (failOnDataLoss=false): %s", what)
    return skip_to
