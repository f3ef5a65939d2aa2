"""Small helpers for driving real Kafka clients from tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic


def quiet(config: dict[str, Any]) -> dict[str, Any]:
    """librdkafka config with connection-close chatter turned off."""
    return {"log.connection.close": False, **config}


def create_topic(
    bootstrap: str, name: str, partitions: int = 3, config: dict[str, str] | None = None
) -> None:
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    admin.create_topics([NewTopic(name, partitions, config=config or {})])[name].result(30)


def produce(
    bootstrap: str, topic: str, records: list[tuple[Any, ...]], **config: Any
) -> list[tuple[int, int]]:
    """Produce ``(key, value)`` or ``(key, value, partition)`` records in order.

    Returns (partition, offset) for each, failing on any delivery error.
    """
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 2, **config}))
    results: list[tuple[int, int] | None] = [None] * len(records)
    errors: list[Any] = []

    def report(i: int) -> Callable[[Any, Any], None]:
        def on_delivery(err: Any, msg: Any) -> None:
            if err is not None:
                errors.append(err)
            else:
                results[i] = (msg.partition(), msg.offset())

        return on_delivery

    for i, (key, value, *partition) in enumerate(records):
        extra = {"partition": partition[0]} if partition else {}
        producer.produce(topic, key=key, value=value, on_delivery=report(i), **extra)
        producer.poll(0)
    if producer.flush(30) != 0:
        raise AssertionError("producer did not deliver everything within 30s")
    if errors:
        raise KafkaException(errors[0])
    return [r for r in results if r is not None]


def consume_all(
    bootstrap: str, topic: str, expected: int, timeout: float = 30.0, **config: Any
) -> list[Any]:
    """Read ``expected`` messages from the start of every partition (no group commits)."""
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"reader-{time.monotonic_ns()}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                **config,
            }
        )
    )
    consumer.subscribe([topic])
    out: list[Any] = []
    deadline = time.monotonic() + timeout
    try:
        while len(out) < expected and time.monotonic() < deadline:
            for msg in consumer.consume(1000, timeout=0.5):
                if msg.error():
                    raise KafkaException(msg.error())
                out.append(msg)
    finally:
        consumer.close()
    return out


def read_partition(
    bootstrap: str, topic: str, *, committed: bool = True, partition: int = 0, start: int = 0
) -> list[Any]:
    """Every record of one partition from offset *start* a read_committed (or
    read_uncommitted) consumer sees, to the partition's end (its LSO when committed)."""
    import uuid

    from confluent_kafka import TopicPartition

    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"read-{uuid.uuid4().hex[:6]}",
                "isolation.level": "read_committed" if committed else "read_uncommitted",
                "enable.partition.eof": True,
            }
        )
    )
    consumer.assign([TopicPartition(topic, partition, start)])
    out: list[Any] = []
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            messages = consumer.consume(500, 0.2)
            out += [m for m in messages if m.error() is None]
            if any(m.error() is not None and m.error().code() == -191 for m in messages):
                return out
        raise AssertionError(f"{topic}: no end of partition within 30 s")
    finally:
        consumer.close()


def balance(
    consumers: list[Consumer], topic: str, partitions: int, timeout: float = 40
) -> list[set[int]]:
    """Poll every consumer until together they own each partition exactly once."""
    deadline = time.monotonic() + timeout
    while True:
        for c in consumers:
            c.poll(0.05)
        owned = [{tp.partition for tp in c.assignment() if tp.topic == topic} for c in consumers]
        if all(owned) and sorted(p for o in owned for p in o) == list(range(partitions)):
            return owned
        assert time.monotonic() < deadline, f"group never balanced: {owned}"
