"""Executor side of the source: read one offset range into Arrow record batches.

A task reads exactly ``[start, end)`` of one partition, fixed by the driver, so a retried
task yields the same records. Records are copied out of librdkafka once, into column
lists, and leave as ``pyarrow.RecordBatch``es of bounded size: memory per task does not
grow with the range.
"""

from __future__ import annotations

import bisect
import logging
import time
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.planner import OffsetRange
from seaway.spark.kafka.schema import HEADER_TYPE, arrow_schema

log = logging.getLogger(__name__)

__all__ = ["DataLossError", "MessageBatch", "data_loss", "message_batches", "read_range"]

BATCH_ROWS = 10_000
BATCH_BYTES = 16 << 20
_TIMESTAMP_TYPE = pa.timestamp("us", tz="UTC")

# One consumer per client config per Python worker, reused across tasks and micro-batches
# (Spark reuses its Python workers), as Spark's JVM source pools its consumers. Executor
# consumers only assign() and never commit, so the per-query group id is left out of the
# key: queries share them. The pool is bounded; the least recently used is closed.
_CONSUMERS: OrderedDict[tuple[tuple[str, Any], ...], Consumer] = OrderedDict()
_POOL_SIZE = 8
_EXECUTOR_GROUP = "seaway-spark-executor"


class DataLossError(RuntimeError):
    """Offsets a batch planned to read are gone (retention, deletion, truncation)."""


def _consumer(options: SourceOptions) -> Consumer:
    config = options.consumer_config()
    if "group.id" not in options.kafka_params:
        config["group.id"] = _EXECUTOR_GROUP
    key = tuple(sorted(config.items()))
    consumer = _CONSUMERS.get(key)
    if consumer is None:
        consumer = _CONSUMERS[key] = Consumer(config)
        while len(_CONSUMERS) > _POOL_SIZE:
            _, evicted = _CONSUMERS.popitem(last=False)
            evicted.close()
    _CONSUMERS.move_to_end(key)
    return consumer


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


def read_range(options: SourceOptions, r: OffsetRange) -> Iterator[pa.RecordBatch]:
    """Yield the records of ``r`` as Arrow batches of at most BATCH_ROWS rows."""
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
                offsets = [m.offset() for m in messages]
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
                offset = message.offset()
                if offset >= r.end:
                    position = r.end
                    break
                run.append(message)
                position = offset + 1
            if run:
                yield run, [m.offset() for m in run]
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
        low, high = consumer.get_watermark_offsets(TopicPartition(r.topic, r.partition), timeout=30)
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
