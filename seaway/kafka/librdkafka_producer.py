"""Record batches produced with librdkafka: :class:`LibrdkafkaProducer`.

For the clusters Seaway's batch client does not reach (SASL GSSAPI, OAUTHBEARER), the
surface of :class:`~seaway.kafka.producer.BatchProducer` over a confluent-kafka producer:
a batch handed to :meth:`~LibrdkafkaProducer.send` is opened
(:func:`~seaway.protocol.record_codec.decode_records`) and each record produced with its
key, value, headers and timestamp to the same partition. The producer is idempotent, so a
partition's delivery reports come in produce order: the i-th report of a partition is its
i-th record, and a batch is acknowledged (:meth:`~LibrdkafkaProducer.take_acked`) with the
target offset of its first record once every record of it is. Any failed delivery fails
the producer with :class:`~seaway.kafka.producer.ProduceError`. With a transactional id
the transactions go through :class:`~seaway.kafka.transactions.LibrdkafkaTransactions`.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Final

from seaway.kafka import pool
from seaway.kafka.producer import Delivery, ProduceError
from seaway.kafka.transactions import LibrdkafkaTransactions
from seaway.protocol.record_codec import decode_records

__all__ = ["LibrdkafkaProducer"]

BATCHING: Final[dict[str, Any]] = {
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "reconnect.backoff.ms": 10,
}
"""Large batches after a short linger, quick reconnects: what Seaway's librdkafka producers
of copied records (and their offset syncs) run with."""

DEFAULTS: Final[dict[str, Any]] = {
    **BATCHING,
    # Idempotence keeps each partition's reports in produce order, which the acks need.
    "acks": "all",
    "enable.idempotence": True,
}


class _Reports:
    """The delivery reports of one batch's records: one callable for all of them."""

    __slots__ = ("delivery", "downstream", "owner", "records")

    def __init__(self, owner: LibrdkafkaProducer, delivery: Delivery, records: int) -> None:
        self.owner = owner
        self.delivery = delivery
        self.records = records
        self.downstream: list[int] = []

    def __call__(self, err: Any, msg: Any) -> None:
        d = self.delivery
        if err is not None:
            index = len(self.downstream)
            self.owner.errors.append(f"{d.topic}[{d.partition}] (record {index} of a batch): {err}")
            return
        self.downstream.append(msg.offset())
        if len(self.downstream) < self.records:
            return
        down = self.downstream
        if any(b <= a for a, b in itertools.pairwise(down)):
            self.owner.errors.append(
                f"delivery reports of {d.topic}[{d.partition}] came out of order; the "
                "producer must keep enable.idempotence=true"
            )
            return
        d.base_offset = down[0]
        if down[-1] - down[0] != len(down) - 1:  # another producer wrote in between
            d.downstream = down
        self.owner.acked.append(d)
        self.owner.pending -= 1


class LibrdkafkaProducer:
    """Sends record batches record by record through one librdkafka producer."""

    def __init__(
        self,
        config: Mapping[str, Any],
        *,
        transactional_id: str | None = None,
        delivery_timeout_s: float = 120.0,
    ) -> None:
        self.config = {**DEFAULTS, **config}
        if transactional_id:
            self.config["transactional.id"] = transactional_id
        self.transactional_id = transactional_id
        self.delivery_timeout_s = delivery_timeout_s
        self.producer: Any = None
        self.acked: deque[Delivery] = deque()
        self.errors: list[str] = []
        self.pending = 0  # batches sent and not acknowledged
        self._transactions: LibrdkafkaTransactions | None = None

    def __repr__(self) -> str:
        kind = (
            f"transactional id {self.transactional_id}" if self.transactional_id else "idempotent"
        )
        return f"LibrdkafkaProducer({kind})"

    def init(self) -> None:
        """Make the producer and get its producer id (for a transactional id: fence its
        older producers and abort what they left open)."""
        from confluent_kafka import Producer

        self.producer = Producer(self.config)
        if self.transactional_id:
            pool.init_transactions(self.producer)
            self._transactions = LibrdkafkaTransactions(
                self.producer, self.transactional_id, self.config
            )
        else:
            pool.connect(self.producer)

    def close(self) -> None:
        """Purge what is queued (nothing held is sent later)."""
        if self.producer is not None:
            self.producer.purge()
            self.producer.poll(0)

    # --- sending --------------------------------------------------------------------------

    def send(
        self, topic: str, partition: int, batch: bytes | bytearray | memoryview, tag: Any = None
    ) -> Delivery:
        """Produce every record of *batch* (one whole v2 batch) to *topic*/*partition*."""
        self._check()
        if self.producer is None:
            self.init()
        _, records = decode_records(batch)
        delivery = Delivery(topic, partition, bytearray(), len(records), tag)
        reports = _Reports(self, delivery, len(records))
        self.pending += 1
        produce = self.producer.produce
        for r in records:
            headers = [(k.decode(), v) for k, v in r.headers] if r.headers else None
            # Positional: topic, value, key, partition, callback, on_delivery, timestamp
            # (0: none, librdkafka stamps it), headers.
            args = (topic, r.value, r.key, partition, reports, None, max(r.timestamp, 0),
                    headers)  # fmt: skip
            try:
                produce(*args)
            except BufferError:  # the queue is full: serve reports until it has room
                self._produce_waiting(args)
        self.producer.poll(0)
        self._check()  # fail fast: what follows a failed record is not delivered either
        return delivery

    def send_all(
        self, batches: Sequence[tuple[str, int, bytes | bytearray | memoryview, Any]]
    ) -> list[Delivery]:
        """:meth:`send` each ``(topic, partition, batch, tag)``."""
        return [self.send(*item) for item in batches]

    def _produce_waiting(self, args: tuple[Any, ...]) -> None:
        while True:
            self.producer.poll(0.05)
            try:
                self.producer.produce(*args)
                return
            except BufferError:
                continue

    def flush(self) -> None:
        """Wait until every batch sent is acknowledged (or raise :class:`ProduceError`)."""
        if self.producer is None:
            return
        deadline = time.monotonic() + self.delivery_timeout_s
        remaining = self.producer.flush(0.2)
        while remaining and not self.errors and time.monotonic() < deadline:
            remaining = self.producer.flush(0.2)
        self._check()
        if remaining or self.pending:
            raise ProduceError(
                f"{self}: {remaining} records unacknowledged after {self.delivery_timeout_s:.0f} s"
            )

    def take_acked(self) -> list[Delivery]:
        """The batches acknowledged since the last call, in send order per partition."""
        if self.producer is not None:
            self.producer.poll(0)
        self._check()
        acked = list(self.acked)
        self.acked.clear()
        return acked

    def _check(self) -> None:
        if self.errors:
            raise ProduceError(f"{self}: producing failed: {self.errors[:5]}")

    # --- what the copy asks of the target --------------------------------------------------

    def topic_config(self, topic: str, name: str) -> str | None:
        """The value of config *name* of *topic*."""
        from confluent_kafka.admin import ConfigResource

        resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
        admin = pool.admin(self.config)
        configs = admin.describe_configs([resource])[resource].result(pool.TIMEOUT_S)
        entry = configs.get(name)
        return None if entry is None else entry.value

    def partition_count(self, topic: str) -> int:
        """How many partitions *topic* has."""
        if self.producer is None:
            self.init()
        metadata = self.producer.list_topics(topic, timeout=pool.TIMEOUT_S).topics.get(topic)
        if metadata is None or metadata.error is not None or not metadata.partitions:
            raise ProduceError(f"{self}: topic {topic} does not exist")
        return len(metadata.partitions)

    # --- transactions ---------------------------------------------------------------------

    def _txn(self) -> LibrdkafkaTransactions:
        if self._transactions is None:
            raise ProduceError(f"{self}: transactions need a transactional id (and init())")
        return self._transactions

    def begin(self) -> None:
        self._check()
        self._txn().begin()

    def send_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None:
        self._txn().send_offsets(group_id, offsets)

    def commit(self) -> None:
        """Flush and commit the transaction."""
        self.flush()
        self._txn().commit()

    def abort(self) -> None:
        """Abort the transaction; what it sent is forgotten."""
        self.acked.clear()
        self.pending = 0
        self._txn().abort()

    def fatal_error(self) -> Any:
        """The cause of the producer's fatal error, if known (librdkafka does not say)."""
        return None
