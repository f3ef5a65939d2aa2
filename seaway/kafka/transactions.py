"""One range written exactly once: its records and a marker in one Kafka transaction.

Every attempt to write a range uses the same transactional id, so initializing its producer
(:func:`seaway.kafka.pool.init_transactions`, or :meth:`BatchProducer.init
<seaway.kafka.producer.BatchProducer.init>`) fences the older attempts and aborts what they
left open. Inside the transaction the writer also commits a *marker*: a consumer group's
offset of one partition (``send_offsets_to_transaction``, KIP-447), which becomes visible
with the records. :func:`write_range` reads the marker first (``require_stable``), so an
attempt knows what a committed one already wrote: it skips the range, starts after it, or,
with a sequence fence, finds that another incarnation of the writer has written since.

Only standard Kafka APIs are used: this works against any cluster with transactions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from seaway.kafka import pool
from seaway.kafka.errors import KafkaClientError
from seaway.protocol.errors import ErrorCode
from seaway.protocol.errors import KafkaError as ProtocolError

__all__ = [
    "LibrdkafkaTransactions",
    "Marker",
    "TransactionFenced",
    "Transactional",
    "committed",
    "write_range",
]

log = logging.getLogger(__name__)

_FENCED_CODES = frozenset({ErrorCode.producer_fenced, ErrorCode.invalid_producer_epoch})


@dataclass(frozen=True)
class Marker:
    """*group*'s offset of *topic*/*partition*, committed with a range's records.

    ``next``: the value this range commits; a committed value at or past it means an
    earlier attempt committed the range, which is skipped. ``previous``, a sequence fence:
    the value the range was planned after (0: none committed); the range commits ``next``
    only if that is still the committed value, and is skipped only if ``next`` itself is
    (so every planned range needs a ``next`` no other writer plans: a random id).
    """

    group: str
    topic: str
    partition: int = 0
    next: int | None = None
    previous: int | None = None


class TransactionFenced(KafkaClientError, RuntimeError):
    """Another incarnation of this writer has written since this batch was planned, or has
    fenced this producer: this run must stop (the one that wrote goes on)."""


class Transactional(Protocol):
    """A producer in transactions (:class:`~seaway.kafka.producer.BatchProducer` is one)."""

    transactional_id: str | None

    def begin(self) -> None: ...
    def send_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None: ...
    def commit(self) -> None: ...
    def abort(self) -> None: ...
    def fatal_error(self) -> Any:
        """Why the producer became unusable (a ``KafkaError``), if it knows; else None."""


class LibrdkafkaTransactions:
    """A confluent-kafka producer, transactions initialized, as :class:`Transactional`;
    *config* is the client config its groups' metadata comes with."""

    def __init__(
        self,
        producer: Any,
        transactional_id: str,
        config: Mapping[str, Any],
        fatal_error: Callable[[], Any] | None = None,
    ) -> None:
        self.producer = producer
        self.transactional_id: str | None = transactional_id
        self.config = config
        self._fatal_error = fatal_error or (lambda: None)

    def fatal_error(self) -> Any:
        """The cause of the producer's fatal error (a ``KafkaError``), or None."""
        return self._fatal_error()

    def begin(self) -> None:
        self.producer.begin_transaction()

    def send_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None:
        from confluent_kafka import TopicPartition

        partitions = [TopicPartition(t, p, o) for (t, p), o in offsets.items()]
        metadata = pool.group_metadata(self.config, group_id)
        self.producer.send_offsets_to_transaction(partitions, metadata, pool.TIMEOUT_S)

    def commit(self) -> None:
        self.producer.commit_transaction(pool.TIMEOUT_S)

    def abort(self) -> None:
        self.producer.abort_transaction(pool.TIMEOUT_S)


def committed(config: Mapping[str, Any], group: str, topic: str, partition: int = 0) -> int:
    """*group*'s committed offset of *topic*/*partition* (-1: none), read with
    ``require_stable``: while a transaction committing one completes, wait for it."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    admin = pool.admin(config)
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, partition)])
    deadline = time.monotonic() + pool.TIMEOUT_S
    while True:
        try:
            result = admin.list_consumer_group_offsets([request], require_stable=True)
            offsets = result[group].result(pool.TIMEOUT_S).topic_partitions
            return max((tp.offset for tp in offsets), default=-1)
        except KafkaException as error:
            # UNSTABLE_OFFSET_COMMIT while an older attempt's transaction completes: wait.
            if time.monotonic() > deadline or not error.args[0].retriable():
                raise
            time.sleep(0.1)


def write_range(
    producer: Transactional,
    marker: Marker | None,
    write: Callable[[int], int | None],
    config: Mapping[str, Any],
) -> bool:
    """Write one range in one transaction; False if a committed attempt wrote it already.

    Reads *marker*'s committed value (-1: none; no read without a marker) with an admin
    client of *config* and checks it (:class:`Marker`); then begins the transaction and
    calls ``write(committed)``, which writes the range and returns the marker value to
    commit with it (None: none), and commits. Any failure aborts the transaction and is
    raised; with a sequence fence, a fenced producer raises :class:`TransactionFenced`.
    """
    value = -1
    if marker is not None:
        value = committed(config, marker.group, marker.topic, marker.partition)
        if marker.previous is not None:
            value = max(value, 0)
        if _written(producer, marker, value):
            return False
    began = False
    try:
        producer.begin()
        began = True
        commit = write(value)
        if marker is not None and commit is not None:
            producer.send_offsets(marker.group, {(marker.topic, marker.partition): commit})
        producer.commit()
    except BaseException as error:
        if began:
            try:
                producer.abort()
            except Exception:  # fenced or fatal: the coordinator aborts it anyway
                log.warning(
                    "Could not abort the transaction of %s", producer.transactional_id,
                    exc_info=True,
                )  # fmt: skip
        if marker is not None and marker.previous is not None and _fenced(error, producer):
            raise TransactionFenced(
                f"{producer.transactional_id}: another run of this task has taken over its "
                f"transactional id; this run is fenced ({error})"
            ) from error
        raise
    return True


def _written(producer: Transactional, marker: Marker, value: int) -> bool:
    """Whether the committed marker *value* says the range is written; raises
    :class:`TransactionFenced` if it says another incarnation has written since."""
    if marker.next is None:
        return False
    if marker.previous is None:
        return value >= marker.next
    if value not in (marker.previous, marker.next):
        raise TransactionFenced(
            f"{producer.transactional_id}: batch {value} is committed, this batch was "
            f"planned after {marker.previous}: another run of this task has written since; "
            "this run is fenced and writes nothing"
        )
    return value == marker.next


def _fenced(error: BaseException | None, producer: Transactional) -> bool:
    """Whether *error*, or an error it arose from, says another producer with the same
    transactional id took over. The batch client raises the broker's error code;
    librdkafka raises a fatal error inside ``flush``, where a delivery report then fails
    with a ``SystemError``, and ``produce()`` says only "Fatal error", whose cause the
    producer's :meth:`~LibrdkafkaTransactions.fatal_error` gives."""
    from confluent_kafka import KafkaError, KafkaException

    fenced = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)
    while error is not None:
        if isinstance(error, ProtocolError) and error.code in _FENCED_CODES:  # batch client
            return True
        reason = error.args[0] if isinstance(error, KafkaException) and error.args else None
        if isinstance(reason, KafkaError) and reason.code() == KafkaError._FATAL:
            cause = producer.fatal_error()
            reason = cause if cause is not None else reason
        if isinstance(reason, KafkaError) and reason.code() in fenced:
            return True
        error = error.__cause__ or error.__context__
    return False
