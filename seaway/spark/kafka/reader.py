"""Executor side of the source: read one offset range into Arrow record batches.

A task reads exactly ``[start, end)`` of one partition, fixed by the driver, so a retried
task yields the same records, as ``pyarrow.RecordBatch``es of bounded size: memory per
task does not grow with the range.

One path: the range's record batches come from :func:`fetch_range` (the fetcher
:func:`seaway.kafka.ranges.range_fetcher` picks: Seaway's batch client, or librdkafka for
the SASL mechanisms only it speaks, its messages handed on as record batches) and their
records are decoded straight into Arrow's column buffers in C
(:mod:`seaway.protocol.record_columns`): no Python object per record.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from seaway.kafka.fetcher import CorruptBatchError, FetchedBatch
from seaway.kafka.follower import Follower
from seaway.kafka.ranges import OffsetRange, range_fetcher, range_follower
from seaway.protocol.record_columns import BinaryColumn, Columns, decode_columns, section_of
from seaway.spark.errors import SparkKafkaError
from seaway.spark.kafka.options import SourceOptions
from seaway.spark.kafka.schema import HEADER_TYPE, arrow_schema

log = logging.getLogger(__name__)

__all__ = ["DataLossError", "data_loss", "fetch_range", "follow_partitions", "read_range"]

BATCH_ROWS = 10_000
BATCH_BYTES = 16 << 20
_TIMESTAMP_TYPE = pa.timestamp("us", tz="UTC")

_EXECUTOR_GROUP = "seaway-spark-executor"


class DataLossError(SparkKafkaError, RuntimeError):
    """Offsets a batch planned to read are gone (retention, deletion, truncation)."""


def _consumer_config(options: SourceOptions) -> dict[str, Any]:
    """The consumer settings of *options* for an executor. Executor consumers only assign()
    and never commit, so the per-query group id is left out: queries share the pooled
    librdkafka consumers (:func:`seaway.kafka.pool.consumer`), as Spark's JVM source pools
    its consumers."""
    config = options.consumer_config()
    if "group.id" not in options.kafka_params:
        config["group.id"] = _EXECUTOR_GROUP
    return config


def fetch_range(
    options: SourceOptions,
    r: OffsetRange,
    *,
    client_id: str | None = None,
    librdkafka: bool | None = None,
) -> Iterator[FetchedBatch]:
    """The record batches holding the offsets of ``r``, in order (the first and the last
    may hold offsets outside it), under the source's rules: ``failOnDataLoss``
    (:func:`data_loss`), ``kafkaConsumer.pollTimeoutMs``, ``isolation.level``.

    *librdkafka* forces (True) or rules out (False) librdkafka; None: as the cluster needs.
    """
    fetcher = range_fetcher(
        _consumer_config(options),
        r.topic,
        r.partition,
        client_id=client_id or options.kafka_params.get("client.id", "seaway-spark"),
        librdkafka=librdkafka,
        api_timeout_s=options.api_timeout_s,
    )

    def on_data_loss(position: int, what: str, skip_to: int) -> int:
        return data_loss(options, r, position, what, skip_to=skip_to)

    return fetcher.batches(
        r.start, r.end, timeout_s=options.poll_timeout_ms / 1000, on_data_loss=on_data_loss
    )


def follow_partitions(
    options: SourceOptions, positions: dict[tuple[str, int], int], *, client_id: str
) -> Follower | None:
    """A follower of *positions* on the source (:func:`seaway.kafka.ranges.range_follower`);
    None where only librdkafka reaches it."""
    return range_follower(_consumer_config(options), positions, client_id=client_id)


def read_range(
    options: SourceOptions, r: OffsetRange, *, batch_client: bool | None = None
) -> Iterator[pa.RecordBatch]:
    """Yield the records of ``r`` as Arrow batches of at most BATCH_ROWS rows (or the
    records of one source batch if it holds more).

    *batch_client* False forces librdkafka under the fetcher, True the batch client
    (tests compare the two); None: as the cluster needs. Both yield the same rows."""
    librdkafka = None if batch_client is None else not batch_client

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
    for batch in fetch_range(options, r, librdkafka=librdkafka):
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


def data_loss(
    options: SourceOptions, r: OffsetRange, position: int, what: str, *, skip_to: int
) -> int:
    """``failOnDataLoss``: raise :class:`DataLossError`, or log and go on at *skip_to*."""
    if options.fail_on_data_loss:
        raise DataLossError(
            f"Some data may have been lost: {what}. If you want the query to go on, skipping "
            "what is gone, set the source option 'failOnDataLoss' to 'false'."
        )
    log.warning("Skipping lost data (failOnDataLoss=false): %s", what)
    return skip_to
