"""Produce whole record batches: idempotent always, transactional when given an id.

A batch handed to :meth:`BatchProducer.send` goes to its partition's leader as it is —
records, compression and timestamps untouched — after its header is made this producer's:
producer id, epoch and base sequence written in, the transactional bit set or cleared, the
CRC-32C recomputed (:func:`~seaway.protocol.records.restamp_producer`). Kafka takes one
batch per partition per Produce request: :meth:`BatchProducer.send_all` packs the batches
it is given for several partitions of one leader into one request (a few records for each
of many partitions cost one round trip, not one each); up to ``max_in_flight`` batches (and
``max_in_flight_bytes``) are on the wire per partition.

A retriable failure (leader moved, timeout, connection lost) sends every unacknowledged
batch of the partition again, in order, with the same sequences, so the broker drops what
it already has: nothing is lost, nothing doubled. Acknowledged batches, with the offset the
broker gave their first record, are collected in order per partition
(:meth:`BatchProducer.take_acked`).

Transactions follow Kafka's protocol: InitProducerId on the transaction coordinator (which
fences older epochs of the id), AddPartitionsToTxn before a partition's first batch,
AddOffsetsToTxn + TxnOffsetCommit for consumer offsets, EndTxn.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Final

from kio.schema.types import TopicName

from seaway.kafka.cluster import GROUP, TRANSACTION, KafkaCluster, raise_for
from seaway.kafka.connection import Connection, KafkaConnectionError, Pending
from seaway.kafka.errors import KafkaClientError
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.protocol.records import parse_header, restamp_producer

__all__ = ["BatchProducer", "Delivery", "ProduceError"]

log = logging.getLogger(__name__)

_ACKED: Final = frozenset({ErrorCode.none, ErrorCode.duplicate_sequence_number})


class ProduceError(KafkaClientError, RuntimeError):
    """A batch the target refused for good, or could not take in time."""


@dataclass(slots=True, eq=False)
class Delivery:
    """One batch sent: where to, how many offsets it spans, the caller's tag, and once
    acknowledged the offset of its first record on the target (``downstream``: each
    record's, where they are not ``base_offset`` onwards, which only a producer sending
    record by record can see)."""

    topic: str
    partition: int
    batch: bytearray
    offsets: int  # lastOffsetDelta + 1: the offsets (and sequence numbers) it takes
    tag: Any = None
    sequence: int = -1
    base_offset: int = -1
    sent: _Request | None = None
    first_sent: float = 0.0
    downstream: list[int] | None = None


@dataclass(slots=True, eq=False)
class _Request:
    """A Produce request on the wire, which the deliveries it carries share."""

    connection: Connection
    pending: Pending
    response: Any = None
    error: KafkaConnectionError | None = None

    def result(self, topic: str, partition: int) -> Any:
        """The response's part for *topic*/*partition* (the response is read once)."""
        if self.response is None and self.error is None:
            try:
                self.response = self.connection.receive(self.pending)
            except KafkaConnectionError as error:
                self.error = error
        if self.error is not None:
            raise self.error
        for t in self.response.responses:
            if t.name == topic:
                for result in t.partition_responses:
                    if result.index == partition:
                        return result
        raise KafkaConnectionError(f"the Produce response has no {topic}[{partition}]")


@dataclass(slots=True)
class _Partition:
    next_sequence: int = 0
    in_flight: deque[Delivery] = field(default_factory=deque)
    in_flight_bytes: int = 0
    in_transaction: bool = False


class BatchProducer:
    """Sends raw batches to one cluster as one idempotent (or transactional) producer."""

    def __init__(
        self,
        cluster: KafkaCluster,
        *,
        transactional_id: str | None = None,
        transaction_timeout_ms: int = 60_000,
        acks: int = -1,
        max_in_flight: int = 5,
        max_in_flight_bytes: int = 64 << 20,
        delivery_timeout_s: float = 120.0,
    ) -> None:
        self.cluster = cluster
        self.transactional_id = transactional_id
        self.transaction_timeout_ms = transaction_timeout_ms
        self.acks = acks
        self.max_in_flight = max_in_flight
        self.max_in_flight_bytes = max_in_flight_bytes
        self.delivery_timeout_s = delivery_timeout_s
        self.producer_id = -1
        self.producer_epoch = -1
        self._partitions: dict[tuple[str, int], _Partition] = {}
        self._acked: deque[Delivery] = deque()
        self._in_transaction = False
        self._failed: str | None = None

    def __repr__(self) -> str:
        kind = (
            f"transactional id {self.transactional_id}" if self.transactional_id else "idempotent"
        )
        return f"BatchProducer({kind}, producer id {self.producer_id}/{self.producer_epoch})"

    # --- producer id ----------------------------------------------------------------------

    def init(self) -> None:
        """Get a producer id (and, for a transactional id, fence its older epochs)."""

        def call() -> tuple[int, int]:
            if self.transactional_id:
                connection = self.cluster.coordinator(self.transactional_id, TRANSACTION)
            else:
                connection = self.cluster.any_connection()
            cls = connection.request_class(ApiKey.INIT_PRODUCER_ID, 0, 4)
            response = connection.request(
                make(
                    cls,
                    transactional_id=self.transactional_id,
                    transaction_timeout=timedelta(milliseconds=self.transaction_timeout_ms),
                    producer_id=-1,
                    producer_epoch=-1,
                )
            )
            raise_for(response.error_code, f"InitProducerId({self.transactional_id})")
            return int(response.producer_id), int(response.producer_epoch)

        self.producer_id, self.producer_epoch = self.cluster.retrying(
            call, f"InitProducerId({self.transactional_id})", self.delivery_timeout_s
        )
        self._partitions.clear()

    # --- sending --------------------------------------------------------------------------

    def send(
        self, topic: str, partition: int, batch: bytes | bytearray | memoryview, tag: Any = None
    ) -> Delivery:
        """Queue *batch* (one whole v2 batch) for *topic*/*partition*; send it at once."""
        return self.send_all([(topic, partition, batch, tag)])[0]

    def send_all(
        self, batches: Sequence[tuple[str, int, bytes | bytearray | memoryview, Any]]
    ) -> list[Delivery]:
        """Queue each ``(topic, partition, batch, tag)`` and send them at once, packed: one
        Produce request per leader for as many partitions as it leads (a partition's
        second batch goes in a second request)."""
        self._check_usable()
        if self.producer_id < 0:
            self.init()
        if self.transactional_id and not self._in_transaction:
            raise ProduceError(f"{self}: send outside a transaction (call begin() first)")
        deliveries: list[Delivery] = []
        unsent = 0  # deliveries[unsent:] are queued, not sent yet
        for topic, partition, batch, tag in batches:
            state = self._partitions.get((topic, partition))
            if state is not None and not self._has_room(state, len(batch)):
                self._send(deliveries[unsent:])  # what fills the partition goes first
                unsent = len(deliveries)
            deliveries.append(self._queue(topic, partition, batch, tag))
        self._send(deliveries[unsent:])
        return deliveries

    def _has_room(self, state: _Partition, size: int) -> bool:
        return not state.in_flight or (
            len(state.in_flight) < self.max_in_flight
            and state.in_flight_bytes + size <= self.max_in_flight_bytes
        )

    def _queue(
        self, topic: str, partition: int, batch: bytes | bytearray | memoryview, tag: Any
    ) -> Delivery:
        """*batch* made this producer's and put in flight (waiting for room)."""
        state = self._partitions.setdefault((topic, partition), _Partition())
        if self.transactional_id and not state.in_transaction:
            self._add_partition(topic, partition)
            state.in_transaction = True
        data = bytearray(batch)
        header = parse_header(data, 0)
        delivery = Delivery(topic, partition, data, header.last_offset_delta + 1, tag)
        while not self._has_room(state, len(data)):
            self._complete_head(state)
        self._sequence(delivery, state)
        state.in_flight.append(delivery)
        state.in_flight_bytes += len(data)
        return delivery

    def _sequence(self, delivery: Delivery, state: _Partition) -> None:
        """Make the batch this producer's, with the partition's next sequence."""
        delivery.sequence = state.next_sequence
        restamp_producer(
            delivery.batch,
            0,
            producer_id=self.producer_id,
            producer_epoch=self.producer_epoch,
            base_sequence=delivery.sequence,
            transactional=bool(self.transactional_id),
        )
        state.next_sequence = (state.next_sequence + delivery.offsets) & 0x7FFFFFFF

    def _send(self, deliveries: Sequence[Delivery]) -> None:
        """Send *deliveries*: per leader, requests of at most one batch per partition."""
        now = time.monotonic()
        requests: dict[Connection, list[dict[tuple[str, int], Delivery]]] = {}
        for delivery in deliveries:
            if not delivery.first_sent:
                delivery.first_sent = now
            try:
                connection = self.cluster.leader(delivery.topic, delivery.partition)
            except (KafkaConnectionError, KafkaError) as error:
                delivery.sent = None  # sent again when the partition's head is completed
                self.cluster.forget(error)
                continue
            layers = requests.setdefault(connection, [])
            tp = (delivery.topic, delivery.partition)
            layer = next((batch for batch in layers if tp not in batch), None)
            if layer is None:
                layer = {}
                layers.append(layer)
            layer[tp] = delivery
        for connection, layers in requests.items():
            for layer in layers:
                self._send_request(connection, list(layer.values()))

    def _send_request(self, connection: Connection, deliveries: list[Delivery]) -> None:
        by_topic: dict[str, list[Delivery]] = {}
        for delivery in deliveries:
            by_topic.setdefault(delivery.topic, []).append(delivery)
        try:
            cls = connection.request_class(ApiKey.PRODUCE, 3, 9)
            topic_cls, partition_cls = (
                nested(cls, "TopicProduceData"),
                nested(cls, "PartitionProduceData"),
            )
            request = make(
                cls,
                transactional_id=self.transactional_id,
                acks=self.acks,
                timeout=timedelta(seconds=self.cluster.request_timeout_s),
                topic_data=tuple(
                    make(
                        topic_cls,
                        name=TopicName(topic),
                        partition_data=tuple(
                            make(partition_cls, index=d.partition, records=d.batch) for d in ds
                        ),
                    )
                    for topic, ds in by_topic.items()
                ),
            )
            sent: _Request | None = _Request(connection, connection.send(request))
        except (KafkaConnectionError, KafkaError) as error:
            sent = None  # sent again when the partitions' heads are completed
            self.cluster.forget(error)
        for delivery in deliveries:
            delivery.sent = sent

    def _complete_head(self, state: _Partition) -> None:
        """Wait for the oldest batch in flight of a partition; resend on retriable errors."""
        delivery = state.in_flight[0]
        error = self._result(delivery)
        if error is None:
            state.in_flight.popleft()
            state.in_flight_bytes -= len(delivery.batch)
            self._acked.append(delivery)
            return
        retriable = isinstance(error, KafkaConnectionError) or (
            isinstance(error, KafkaError) and error.retriable
        )
        where = f"{delivery.topic}[{delivery.partition}]"
        if not retriable:
            self._failed = f"producing to {where} failed: {error}"
            raise ProduceError(
                f"{self}: producing to {where} failed: {error}. The batch at sequence "
                f"{delivery.sequence} and every one after it were not written."
            ) from error
        if time.monotonic() - delivery.first_sent > self.delivery_timeout_s:
            self._failed = f"delivery timeout on {where}"
            raise ProduceError(
                f"{self}: {where} did not acknowledge a batch within {self.delivery_timeout_s:.0f}"
                f" s (last error: {error})"
            )
        log.debug("Produce to %s: %s; sending %d batches again", where, error, len(state.in_flight))
        for later in list(state.in_flight)[1:]:  # their answers are errors now; read them
            self._result(later)
        self.cluster.forget(error)
        time.sleep(self.cluster.retry_backoff_s)
        for again in state.in_flight:
            self._send([again])

    def _result(self, delivery: Delivery) -> Exception | None:
        """Read the answer to *delivery*; None when acknowledged, else the error."""
        if delivery.sent is None:
            return KafkaConnectionError("not sent")
        sent, delivery.sent = delivery.sent, None
        try:
            result = sent.result(delivery.topic, delivery.partition)
        except KafkaConnectionError as error:
            return error
        code = ErrorCode(result.error_code)
        if code in _ACKED:
            delivery.base_offset = int(result.base_offset)
            return None
        message = getattr(result, "error_message", None)
        return KafkaError(code, message or None)

    def flush(self) -> None:
        """Wait until every batch sent is acknowledged (or raise :class:`ProduceError`)."""
        for state in self._partitions.values():
            while state.in_flight:
                self._complete_head(state)

    def take_acked(self) -> list[Delivery]:
        """The batches acknowledged since the last call, in send order per partition."""
        acked = list(self._acked)
        self._acked.clear()
        return acked

    # --- what a copy asks of the target ---------------------------------------------------

    def topic_config(self, topic: str, name: str) -> str | None:
        """The value of config *name* of *topic* (retried as the cluster retries)."""
        return self.cluster.retrying(
            lambda: self.cluster.topic_config(topic, name), f"DescribeConfigs({topic})"
        )

    def partition_count(self, topic: str) -> int:
        """How many partitions *topic* has; asked as a producer asks, so a broker that
        auto-creates topics creates it (retried while it does)."""
        return self.cluster.retrying(
            lambda: self.cluster.partition_count(topic, create=True), f"Metadata({topic})"
        )

    # --- transactions ---------------------------------------------------------------------

    def begin(self) -> None:
        """Start a transaction (client side only, as in Kafka)."""
        self._check_usable()
        if not self.transactional_id:
            raise ProduceError("begin() needs a transactional id")
        if self.producer_id < 0:
            self.init()
        self._in_transaction = True

    def _txn_request(
        self, what: str, build: Any, coordinator: tuple[str, int] | None = None
    ) -> Any:
        key, key_type = coordinator or (self.transactional_id or "", TRANSACTION)

        def call() -> Any:
            connection = self.cluster.coordinator(key, key_type)
            return build(connection)

        return self.cluster.retrying(
            call, f"{what} ({self.transactional_id})", self.delivery_timeout_s
        )

    def _simple_txn_request(self, api_key: int, what: str, **fields: Any) -> None:
        """A request to the transaction coordinator naming this producer (AddOffsetsToTxn,
        EndTxn) whose answer is one error code; retried as :meth:`_txn_request`."""

        def build(connection: Connection) -> None:
            cls = connection.request_class(api_key, 0, 3)
            ids = {
                "transactional_id": self.transactional_id,
                "producer_id": self.producer_id,
                "producer_epoch": self.producer_epoch,
            }
            response = connection.request(make(cls, **ids, **fields))
            raise_for(response.error_code, what)

        self._txn_request(what, build)

    def _add_partition(self, topic: str, partition: int) -> None:
        def build(connection: Connection) -> None:
            cls = connection.request_class(ApiKey.ADD_PARTITIONS_TO_TXN, 0, 3)
            topic_cls = nested(cls, "AddPartitionsToTxnTopic")
            response = connection.request(
                make(
                    cls,
                    v3_and_below_transactional_id=self.transactional_id,
                    v3_and_below_producer_id=self.producer_id,
                    v3_and_below_producer_epoch=self.producer_epoch,
                    v3_and_below_topics=(
                        make(topic_cls, name=TopicName(topic), partitions=(partition,)),
                    ),
                )
            )
            for result in response.results_by_topic_v3_and_below:
                for p in result.results_by_partition:
                    raise_for(p.partition_error_code, f"AddPartitionsToTxn({topic}[{partition}])")

        self._txn_request("AddPartitionsToTxn", build)

    def send_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None:
        """Commit *offsets* for *group_id* as part of the transaction."""
        self._check_usable()

        def commit(connection: Connection) -> None:
            cls = connection.request_class(ApiKey.TXN_OFFSET_COMMIT, 0, 3)
            topic_cls = nested(cls, "TxnOffsetCommitRequestTopic")
            partition_cls = nested(cls, "TxnOffsetCommitRequestPartition")
            by_topic: dict[str, list[Any]] = {}
            for (topic, partition), offset in sorted(offsets.items()):
                by_topic.setdefault(topic, []).append(
                    make(
                        partition_cls,
                        partition_index=partition,
                        committed_offset=offset,
                        committed_leader_epoch=-1,
                        committed_metadata="",
                    )
                )
            response = connection.request(
                make(
                    cls,
                    transactional_id=self.transactional_id,
                    group_id=group_id,
                    producer_id=self.producer_id,
                    producer_epoch=self.producer_epoch,
                    generation_id=-1,
                    member_id="",
                    group_instance_id=None,
                    topics=tuple(
                        make(topic_cls, name=TopicName(t), partitions=tuple(ps))
                        for t, ps in by_topic.items()
                    ),
                )
            )
            for topic in response.topics:
                for p in topic.partitions:
                    raise_for(p.error_code, f"TxnOffsetCommit({group_id}, {topic.name})")

        self._simple_txn_request(
            ApiKey.ADD_OFFSETS_TO_TXN, f"AddOffsetsToTxn({group_id})", group_id=group_id
        )
        self._txn_request("TxnOffsetCommit", commit, (group_id, GROUP))

    def commit(self) -> None:
        """Flush and commit the transaction."""
        self.flush()
        self._end(True)

    def fatal_error(self) -> None:
        """Its failures are raised as they happen, with their cause (:class:`Transactional`)."""
        return None

    def abort(self) -> None:
        """Abort the transaction; this producer is then unusable (make a new one)."""
        try:
            for state in self._partitions.values():
                for delivery in state.in_flight:
                    self._result(delivery)
                state.in_flight.clear()
            self._end(False)
        finally:
            self._failed = self._failed or "aborted"

    def _end(self, committed: bool) -> None:
        self._simple_txn_request(
            ApiKey.END_TXN, f"EndTxn(committed={committed})", committed=committed
        )
        self._in_transaction = False
        for state in self._partitions.values():
            state.in_transaction = False

    def _check_usable(self) -> None:
        if self._failed:
            raise ProduceError(f"{self} can no longer be used ({self._failed}); make a new one")
