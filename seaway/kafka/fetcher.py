"""Read a partition as raw record batches: Fetch, with read_committed's aborted filter.

:class:`PartitionFetcher` yields every data batch that overlaps ``[start, end)`` as the
broker stored it (a memoryview into the response, never decompressed), one fetch ahead of
its caller: while the caller handles one response the next is on its way. Under
read_committed it drops the batches of aborted transactions with Kafka's consumer rule
(``FetchCollector``: the response's aborted transactions, ordered by first offset, name
the producers whose transactional batches are dropped until their ABORT marker); control
batches are dropped in both modes. A batch whose CRC does not match stops the read with
:class:`CorruptBatchError` naming topic, partition and offset.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from kio.schema.types import TopicName

from seaway.kafka.cluster import EARLIEST, LATEST, KafkaCluster, list_offset, raise_for
from seaway.kafka.connection import Connection, KafkaConnectionError, Pending
from seaway.kafka.errors import KafkaClientError
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.protocol.record_codec import CONTROL_ABORT, control_type
from seaway.protocol.records import BatchHeader, InvalidBatch, check_crc, iter_batches

__all__ = [
    "CorruptBatchError",
    "FetchedBatch",
    "PartitionFetcher",
    "data_batches",
    "fetch_request",
]

log = logging.getLogger(__name__)

READ_UNCOMMITTED: Final = 0
READ_COMMITTED: Final = 1

DataLossHandler = Callable[[int, str, int], int]
"""``(position, what was lost, where to skip to) -> position to go on from`` (or raise)."""


class CorruptBatchError(KafkaClientError, RuntimeError):
    """A batch of the source failed its checks (CRC, framing): nothing after it is read."""


@dataclass(frozen=True, slots=True)
class FetchedBatch:
    """One data batch as stored on the source: its header and its bytes."""

    header: BatchHeader
    data: memoryview


def fetch_request(
    connection: Connection,
    positions: dict[str, dict[int, int]],
    *,
    read_committed: bool,
    max_bytes: int,
    max_wait_ms: int,
    partition_max_bytes: int | None = None,
) -> Any:
    """A Fetch (v4-12, as the broker speaks) of *positions* ``{topic: {partition: offset}}``:
    answered once a byte is there or after *max_wait_ms*."""
    cls = connection.request_class(ApiKey.FETCH, 4, 12)
    topic_cls, partition_cls = nested(cls, "FetchTopic"), nested(cls, "FetchPartition")
    return make(
        cls,
        replica_id=-1,
        max_wait=timedelta(milliseconds=max_wait_ms),
        min_bytes=1,
        max_bytes=max_bytes,
        isolation_level=READ_COMMITTED if read_committed else READ_UNCOMMITTED,
        session_id=0,
        session_epoch=-1,
        topics=tuple(
            make(
                topic_cls,
                topic=TopicName(topic),
                partitions=tuple(
                    make(
                        partition_cls,
                        partition=partition,
                        current_leader_epoch=-1,
                        fetch_offset=offset,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=partition_max_bytes or max_bytes,
                    )
                    for partition, offset in partitions.items()
                ),
            )
            for topic, partitions in positions.items()
        ),
        forgotten_topics_data=(),
        rack_id="",
    )


def _raise_data_loss(position: int, what: str, skip_to: int) -> int:
    raise RuntimeError(f"Some data may have been lost: {what}")


class PartitionFetcher:
    """Fetches one partition of one cluster, batch by batch."""

    def __init__(
        self,
        cluster: KafkaCluster,
        topic: str,
        partition: int,
        *,
        read_committed: bool = False,
        max_bytes: int = 16 << 20,
        max_wait_ms: int = 500,
    ) -> None:
        self.cluster = cluster
        self.topic = topic
        self.partition = partition
        self.isolation = READ_COMMITTED if read_committed else READ_UNCOMMITTED
        self.max_bytes = max_bytes
        self.max_wait_ms = max_wait_ms
        self.high_watermark = -1
        self.last_stable_offset = -1

    def __repr__(self) -> str:
        return f"{self.topic}[{self.partition}]"

    def _send(self, offset: int) -> tuple[Connection, Pending]:
        connection = self.cluster.leader(self.topic, self.partition)
        request = fetch_request(
            connection,
            {self.topic: {self.partition: offset}},
            read_committed=self.isolation == READ_COMMITTED,
            max_bytes=self.max_bytes,
            max_wait_ms=self.max_wait_ms,
        )
        return connection, connection.send(request)

    def _receive(self, sent: tuple[Connection, Pending]) -> Any:
        connection, pending = sent
        response = connection.receive(pending)
        raise_for(response.error_code, f"Fetch({self})")
        data = response.responses[0].partitions[0]
        if data.error_code == ErrorCode.none:
            self.high_watermark = int(data.high_watermark)
            self.last_stable_offset = int(data.last_stable_offset)
        return data

    def batches(
        self,
        start: int,
        end: int,
        *,
        timeout_s: float = 60.0,
        on_data_loss: DataLossHandler = _raise_data_loss,
    ) -> Iterator[FetchedBatch]:
        """Yield the data batches holding offsets in ``[start, end)``, in order.

        The first and the last batch may hold offsets outside the range: a batch is the
        unit the broker stores. Offsets no longer in the log, or a log that ends before
        *end*, go to *on_data_loss*; a retriable error (leader moved, connection lost) is
        retried until *timeout_s* passes without progress, then raised.
        """
        position = start
        sent: tuple[Connection, Pending] | None = None
        last_progress = time.monotonic()
        try:
            while position < end:
                if sent is None:
                    sent = self._send(position)
                try:
                    data = self._receive(sent)
                except (KafkaConnectionError, KafkaError) as error:
                    sent = None
                    self._retry_or_raise(error, last_progress, timeout_s)
                    continue
                sent = None
                code = ErrorCode(data.error_code)
                if code == ErrorCode.offset_out_of_range:
                    position = self._out_of_range(position, end, on_data_loss)
                    continue
                if code != ErrorCode.none:
                    self._retry_or_raise(
                        KafkaError(code, f"Fetch({self})"), last_progress, timeout_s
                    )
                    continue
                batches, after, corrupt = self._committed(data, position, end)
                if corrupt is not None:  # what lies before it is good and goes on
                    yield from batches
                    raise corrupt
                if after > position:
                    last_progress = time.monotonic()
                    if after < end:
                        sent = self._send(after)  # the next response is on its way
                    position = after
                    yield from batches
                    continue
                # Nothing at or after the position: the rest of the range below the log's
                # end was compacted away or aborted; a log that ends before the range was
                # truncated or recreated.
                bound = (
                    self.last_stable_offset
                    if self.isolation == READ_COMMITTED
                    else self.high_watermark
                )
                if bound >= end:
                    position = end
                else:
                    position = on_data_loss(
                        position,
                        f"the log of {self} ends at {bound}, before the planned end {end} "
                        "(was it truncated or recreated?)",
                        end,
                    )
        finally:
            if sent is not None:  # a fetch ahead that is no longer wanted
                try:
                    self._receive(sent)
                except (KafkaConnectionError, KafkaError):
                    pass

    def _retry_or_raise(self, error: Exception, last_progress: float, timeout_s: float) -> None:
        retriable = isinstance(error, KafkaConnectionError) or (
            isinstance(error, KafkaError) and error.retriable
        )
        if not retriable or time.monotonic() - last_progress > timeout_s:
            raise error
        log.debug("Fetch from %s: %s; retrying", self, error)
        self.cluster.forget(error)
        time.sleep(self.cluster.retry_backoff_s)

    def _out_of_range(self, position: int, end: int, on_data_loss: DataLossHandler) -> int:
        low = list_offset(self.cluster, self.topic, self.partition, EARLIEST)
        high = list_offset(self.cluster, self.topic, self.partition, LATEST)
        if low <= position <= high:  # a race with the log's end moving: fetch again
            return position
        resume = min(max(low, position), end)
        return on_data_loss(
            position,
            f"offsets [{position}, {low}) of {self} are no longer in the log (log start "
            f"{low}, end {high}): deleted by retention or DeleteRecords",
            resume,
        )

    def _committed(
        self, data: Any, position: int, end: int
    ) -> tuple[list[FetchedBatch], int, CorruptBatchError | None]:
        return data_batches(data, position, end, self.isolation == READ_COMMITTED, str(self))


def data_batches(
    data: Any, position: int, end: int, read_committed: bool, where: str
) -> tuple[list[FetchedBatch], int, CorruptBatchError | None]:
    """The data batches of one fetched partition (*where*: ``topic[partition]``) holding
    offsets in ``[position, end)`` (aborted ones dropped under *read_committed*), the offset
    after the last batch seen, and the error for a corrupt batch (the batches before it are
    returned). Batches from *end* on are not looked at."""
    records = data.records
    if not records:
        return [], position, None
    view = memoryview(records)
    aborted = [(int(a.first_offset), int(a.producer_id)) for a in data.aborted_transactions or ()]
    heapq.heapify(aborted)
    aborted_pids: set[int] = set()
    out: list[FetchedBatch] = []
    try:
        for pos, header in iter_batches(view, check_crc=False):
            if header.last_offset < position:
                continue
            if header.base_offset >= end:
                break
            check_crc(view, pos, header)
            batch = view[pos : pos + header.size]
            if read_committed and header.has_producer_id:
                while aborted and aborted[0][0] <= header.last_offset:
                    aborted_pids.add(heapq.heappop(aborted)[1])
                if header.is_control and control_type(batch) == CONTROL_ABORT:
                    aborted_pids.discard(header.producer_id)
                elif header.is_transactional and header.producer_id in aborted_pids:
                    position = header.next_offset
                    continue
            if not header.is_control:
                out.append(FetchedBatch(header, batch))
            position = header.next_offset
    except InvalidBatch as error:
        corrupt = CorruptBatchError(
            f"Corrupt record batch in {where} at offset {position}: {error}. Nothing at or "
            "after it is read; the source's data must be repaired (or the offsets skipped "
            "with a reset) before this partition can go on."
        )
        return out, position, corrupt
    return out, position, None
