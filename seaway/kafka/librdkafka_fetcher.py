"""A partition read with librdkafka, handed on as record batches: :class:`LibrdkafkaFetcher`.

For the clusters Seaway's batch client does not reach (SASL GSSAPI, OAUTHBEARER): a pooled
librdkafka consumer reads the range, and each run of the messages it gives is encoded
again as one record batch (:func:`~seaway.protocol.record_codec.build_batch`), with the
records' offsets, timestamps, keys, values and headers, so a caller of
:class:`~seaway.kafka.fetcher.PartitionFetcher`'s contract cannot tell the difference. A
run ends where offsets jump (a compacted record, a transaction marker, an aborted record:
a batch's offsets are contiguous here) or the timestamp type changes; records of
LogAppendTime keep it in the header (one append time per batch). Under
``isolation.level=read_committed`` librdkafka itself drops the aborted records.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterator, Mapping
from typing import Any, Final

from seaway.kafka import pool
from seaway.kafka.fetcher import DataLossHandler, FetchedBatch, _raise_data_loss
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.protocol.record_codec import Record, build_batch
from seaway.protocol.records import parse_header, set_base_offset, set_log_append_time

__all__ = ["LibrdkafkaFetcher"]

MAX_RECORDS: Final = 10_000  # messages asked of librdkafka at a time
MAX_BATCH_BYTES: Final = 512 << 10  # a batch's keys, values and headers, about
_LOG_APPEND_TIME: Final = 2  # librdkafka's TIMESTAMP_LOG_APPEND_TIME


class LibrdkafkaFetcher:
    """Fetches one partition with librdkafka, as record batches."""

    def __init__(
        self,
        config: Mapping[str, Any],
        topic: str,
        partition: int,
        *,
        max_records: int = MAX_RECORDS,
        api_timeout_s: float = REQUEST_TIMEOUT_S,
    ) -> None:
        # What the loop below relies on: end-of-log events, no offset reset, no commits.
        self.config = {
            "group.id": "seaway-range-reader",
            **config,
            "enable.partition.eof": True,
            "auto.offset.reset": "error",
            "enable.auto.commit": False,
        }
        self.topic = topic
        self.partition = partition
        self.max_records = max_records
        self.api_timeout_s = api_timeout_s

    def __repr__(self) -> str:
        return f"{self.topic}[{self.partition}]"

    def batches(
        self,
        start: int,
        end: int,
        *,
        timeout_s: float = 60.0,
        on_data_loss: DataLossHandler = _raise_data_loss,
    ) -> Iterator[FetchedBatch]:
        """Yield batches of the records in ``[start, end)``, in order (none outside it).

        The end of the log before *end*, or offsets no longer in the log, go to
        *on_data_loss*; no record for *timeout_s* raises :class:`TimeoutError`. The pooled
        consumer is assigned to the partition for the iteration only.
        """
        from confluent_kafka import TopicPartition

        consumer = pool.consumer(self.config)
        consumer.assign([TopicPartition(self.topic, self.partition, start)])
        position = start
        last_progress = time.monotonic()
        try:
            while position < end:
                messages = consumer.consume(
                    num_messages=min(self.max_records, end - position), timeout=0.5
                )
                if not messages:
                    if time.monotonic() - last_progress > timeout_s:
                        raise TimeoutError(
                            f"No record of {self} arrived in {timeout_s * 1000:.0f} ms "
                            f"(kafkaConsumer.pollTimeoutMs) while reading offsets "
                            f"[{position}, {end})"
                        )
                    continue
                last_progress = time.monotonic()
                if not any([m.error() for m in messages]):  # the common case: only records
                    offsets = [m.offset() for m in messages]
                    if offsets[-1] >= end:
                        messages = messages[: bisect.bisect_left(offsets, end)]
                        position = end
                    else:
                        position = offsets[-1] + 1
                    yield from _encoded(messages)
                    continue
                run: list[Any] = []
                for message in messages:
                    error = message.error()
                    if error is not None:
                        position = self._on_error(consumer, position, end, error, message,
                                                  on_data_loss)  # fmt: skip
                        if position >= end:
                            break
                        continue
                    offset = message.offset()
                    if offset >= end:
                        position = end
                        break
                    run.append(message)
                    position = offset + 1
                yield from _encoded(run)
        finally:
            consumer.unassign()

    def _on_error(
        self,
        consumer: Any,
        position: int,
        end: int,
        error: Any,
        message: Any,
        on_data_loss: DataLossHandler,
    ) -> int:
        """Handle a consumer event; the position to go on from."""
        from confluent_kafka import KafkaError, KafkaException, TopicPartition

        code = error.code()
        if code == KafkaError._PARTITION_EOF:
            end_of_log = message.offset()
            if end_of_log >= end:
                # Everything up to the log end was read: offsets left in the range were
                # transaction markers or compacted away.
                return end
            if end_of_log >= position:  # below the range's end: truncated or recreated
                return on_data_loss(
                    position,
                    f"the log of {self} ends at {end_of_log}, before the planned end {end} "
                    "(was it truncated or recreated?)",
                    end,
                )
            return position
        if code in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE):
            low, high = consumer.get_watermark_offsets(
                TopicPartition(self.topic, self.partition), timeout=self.api_timeout_s
            )
            position = on_data_loss(
                position,
                f"offsets [{position}, {low}) of {self} are no longer in the log (log start "
                f"{low}, end {high}): deleted by retention or DeleteRecords",
                min(max(low, position), end),
            )
            if position < end:
                consumer.assign([TopicPartition(self.topic, self.partition, position)])
            return position
        raise KafkaException(error)


def _encoded(messages: list[Any]) -> Iterator[FetchedBatch]:
    """Error-free *messages* of one partition, in offset order, as record batches."""
    run: list[Record] = []
    run_bytes = 0
    append_time = False
    for message in messages:
        kind, timestamp = message.timestamp()
        offset, key, value, headers = (
            message.offset(), message.key(), message.value(), message.headers()
        )  # fmt: skip
        appended = kind == _LOG_APPEND_TIME
        if run and (
            offset != run[-1].offset + 1
            or appended != append_time
            or (appended and timestamp != run[0].timestamp)
            or run_bytes > MAX_BATCH_BYTES
        ):
            yield _batch(run, append_time)
            run, run_bytes = [], 0
        fields = tuple((k.encode(), v) for k, v in headers) if headers else ()
        run.append(Record(offset, timestamp, key, value, fields))
        run_bytes += len(key or b"") + len(value or b"") + sum(len(v or b"") for _, v in fields)
        append_time = appended
    if run:
        yield _batch(run, append_time)


def _batch(records: list[Record], append_time: bool) -> FetchedBatch:
    """*records* (contiguous offsets) as one uncompressed batch at their offsets."""
    data = bytearray(build_batch(records))
    set_base_offset(data, 0, records[0].offset)
    if append_time:
        set_log_append_time(data, 0, records[0].timestamp)
    return FetchedBatch(parse_header(data, 0), memoryview(data))
