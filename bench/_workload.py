"""Kafka client workloads (confluent-kafka) that only need a bootstrap string."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewTopic

from bench._util import MB, progress

_NONE: Mapping[str, Any] = MappingProxyType({})  # no extra client settings

#: Producer settings for every run (batched, acks=1, no compression).
PRODUCER_CONFIG: dict[str, str | int] = {
    "acks": 1,
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "compression.type": "none",
    "queue.buffering.max.messages": 500_000,
    # Only failed deliveries call back, so per-record Python overhead stays out of the figures.
    "delivery.report.only.error": True,
}

#: Consumer settings: plain assign() from the beginning, no group coordination.
CONSUMER_CONFIG: dict[str, str | int | bool] = {
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "enable.partition.eof": False,
    # librdkafka stops fetching a partition for fetch.queue.backoff.ms (default 1000 ms) once
    # queued.min.messages (100,000) are buffered locally; with 100-byte records that client
    # pause, not the broker, dominated the consume time.
    "fetch.queue.backoff.ms": 10,
}


@dataclass(frozen=True)
class Throughput:
    """Records and payload bytes moved in a number of seconds."""

    records: int
    bytes: int
    seconds: float

    @property
    def mb_per_s(self) -> float:
        """Payload megabytes (10^6 bytes of record values) per second."""
        return self.bytes / MB / self.seconds

    @property
    def records_per_s(self) -> float:
        """Records per second."""
        return self.records / self.seconds


def unique_name(prefix: str) -> str:
    """Return ``prefix`` plus a short random suffix, so reruns never reuse a topic."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topics(
    bootstrap: str,
    names: Sequence[str],
    partitions: int,
    timeout: float = 60.0,
    client: Mapping[str, Any] = _NONE,
    config: Mapping[str, str] = _NONE,
) -> None:
    """Create ``names`` with ``partitions`` each (and the topic *config*) and wait until
    metadata shows them all (*client*: extra librdkafka settings, e.g. TLS and SASL, as for
    every function here)."""
    admin = AdminClient({"bootstrap.servers": bootstrap, **client})
    new_topics = [
        NewTopic(name, num_partitions=partitions, replication_factor=1, config=dict(config))
        for name in names
    ]
    for future in admin.create_topics(new_topics, request_timeout=timeout).values():
        future.result(timeout=timeout)
    _wait_for_metadata(admin, names, partitions, timeout)


def _wait_for_metadata(
    admin: AdminClient, names: Sequence[str], partitions: int, timeout: float
) -> None:
    """Poll metadata until every topic in ``names`` reports ``partitions`` partitions."""
    deadline = time.monotonic() + timeout
    while True:
        topics = admin.list_topics(timeout=timeout).topics
        missing = [n for n in names if n not in topics or len(topics[n].partitions) != partitions]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"topics not visible with {partitions} partitions: {missing[:5]}")
        time.sleep(0.1)


class _DeliveryErrors:
    """Delivery-report callback that keeps the first failure and a count."""

    def __init__(self) -> None:
        self.count = 0
        self.first: KafkaError | None = None

    def __call__(self, error: KafkaError | None, _message: Message) -> None:
        if error is not None:
            self.count += 1
            self.first = self.first or error


def produce(
    bootstrap: str,
    destinations: Sequence[tuple[str, int]],
    records: int,
    value_size: int,
    flush_timeout: float = 600.0,
    client: Mapping[str, Any] = _NONE,
    keys: int = 0,
) -> Throughput:
    """Produce ``records`` values of ``value_size`` bytes round-robin over ``destinations``
    (with *keys*, record ``i`` has the key ``key-<i % keys>``, counted in the bytes).

    ``destinations`` are ``(topic, partition)`` pairs (partition -1 lets the client's
    partitioner choose). Timing runs from the first ``produce()`` until ``flush()``
    returns, i.e. until every record is acknowledged (acks=1).
    """
    errors = _DeliveryErrors()
    producer = Producer(
        {"bootstrap.servers": bootstrap, **PRODUCER_CONFIG, **client, "on_delivery": errors}
    )
    for topic in {topic for topic, _ in destinations}:
        producer.list_topics(topic, timeout=30)  # connect and load metadata before timing
    value = os.urandom(value_size)
    count = len(destinations)
    names = [b"key-%08d" % i for i in range(keys)]
    started = time.perf_counter()
    for index in range(records):
        topic, partition = destinations[index % count]
        key = names[index % keys] if keys else None
        while True:
            try:
                producer.produce(topic, value, key, partition=partition)
                break
            except BufferError:
                producer.poll(0.005)  # local queue full: let deliveries drain
    remaining = producer.flush(flush_timeout)
    seconds = time.perf_counter() - started
    if remaining:
        raise TimeoutError(f"{remaining} records still unacknowledged after {flush_timeout}s")
    if errors.count:
        raise KafkaException(errors.first)
    key_bytes = sum(len(names[i % keys]) for i in range(records)) if keys else 0
    return Throughput(records=records, bytes=records * value_size + key_bytes, seconds=seconds)


def stored_records(consumer: Consumer, partitions: Sequence[TopicPartition]) -> int:
    """Sum of ``high - low`` watermarks over ``partitions``."""
    total = 0
    for partition in partitions:
        low, high = consumer.get_watermark_offsets(partition, timeout=30)
        total += high - low
    return total


def new_consumer(bootstrap: str) -> Consumer:
    """A consumer outside any group (``assign`` only), the broker benchmark's settings."""
    return Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique_name("bench"), **CONSUMER_CONFIG}
    )


def end_offset(consumer: Consumer, topic: str) -> int:
    """The high watermark of partition 0 of ``topic`` (asked of the broker, not cached)."""
    _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
    return int(high)


def consume(
    bootstrap: str,
    topic: str,
    partitions: int,
    expected: int,
    idle_timeout: float = 30.0,
    client: Mapping[str, Any] = _NONE,
) -> Throughput:
    """Read ``topic`` from the beginning of every partition until ``expected`` records arrive.

    Uses ``assign()`` rather than a group subscription so group-join delays are not
    measured. Timing runs from ``assign()`` to the last record.
    """
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": unique_name("bench"),
            **CONSUMER_CONFIG,
            **client,
        }
    )
    try:
        assignment = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)]
        stored = stored_records(consumer, assignment)
        if stored != expected:
            # Not fatal: tansu 0.6.0 reports the last batch's base offset + 1 as the high
            # watermark. A real shortfall shows up as a consumer stall below.
            progress(
                f"note: high watermarks of {topic} sum to {stored:,}, not {expected:,}; "
                "counting consumed records instead"
            )
        return _drain(consumer, assignment, expected, idle_timeout)
    finally:
        consumer.close()


def _drain(
    consumer: Consumer, assignment: list[TopicPartition], expected: int, idle_timeout: float
) -> Throughput:
    """Assign ``assignment`` and count records and value bytes until ``expected`` are read."""
    records = size = 0
    started = last_progress = time.perf_counter()
    consumer.assign(assignment)
    while records < expected:
        batch = consumer.consume(num_messages=10_000, timeout=0.5)
        for message in batch:
            error = message.error()
            if error is not None:
                raise KafkaException(error)
            size += len(message.value() or b"")
        records += len(batch)
        now = time.perf_counter()
        if batch:
            last_progress = now
        elif now - last_progress > idle_timeout:
            raise TimeoutError(f"consumer stalled at {records}/{expected} records")
    return Throughput(records=records, bytes=size, seconds=time.perf_counter() - started)
