"""Helpers for the state store tests: raw reads and writes with plain confluent clients."""

from __future__ import annotations

import time
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, TopicPartition

from tests.broker.clients import produce, quiet

__all__ = ["murmur2_partition", "produce", "read_raw"]

Raw = tuple[bytes | None, bytes | None]


def read_raw(bootstrap: str, topic: str, timeout: float = 30.0) -> dict[int, list[Raw]]:
    """Every (key, value) of *topic*, per partition in offset order, as stored on the broker."""
    consumer = Consumer(
        quiet(
            {"bootstrap.servers": bootstrap, "group.id": "raw-reader", "enable.auto.commit": False}
        )
    )
    try:
        partitions = sorted(consumer.list_topics(topic, timeout=timeout).topics[topic].partitions)
        ends = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout, cached=False)[1]
            for p in partitions
        }
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        out: dict[int, list[Raw]] = {p: [] for p in partitions}
        next_offsets = dict.fromkeys(partitions, 0)
        deadline = time.monotonic() + timeout
        while any(next_offsets[p] < ends[p] for p in partitions):
            if time.monotonic() > deadline:
                raise AssertionError(f"could not read {topic} to its end")
            for message in consumer.consume(100, timeout=0.2):
                if message.error():
                    raise KafkaException(message.error())
                out[message.partition()].append((message.key(), message.value()))
                next_offsets[message.partition()] = message.offset() + 1
        return out
    finally:
        consumer.close()


def read_all(bootstrap: str, topic: str) -> list[Raw]:
    """Every (key, value) of a single-partition topic (or all partitions, concatenated)."""
    return [record for records in read_raw(bootstrap, topic).values() for record in records]


def _murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2`` (the Java producer's default key hash), as a signed int."""
    m, r = 0x5BD1E995, 24
    length = len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(length // 4):
        k = int.from_bytes(data[i * 4 : i * 4 + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    tail = data[length - length % 4 :]
    if len(tail) >= 3:
        h ^= tail[2] << 16
    if len(tail) >= 2:
        h ^= tail[1] << 8
    if tail:
        h ^= tail[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def murmur2_partition(key: bytes, partitions: int) -> int:
    """The partition Java's default partitioner picks for *key*."""
    return (_murmur2(key) & 0x7FFFFFFF) % partitions


def worker_props(bootstrap: str, base: str, **extra: Any) -> dict[str, Any]:
    """Distributed worker properties naming this test's three internal topics."""
    return {
        "bootstrap.servers": bootstrap,
        "group.id": "connect-test",
        "config.storage.topic": f"{base}-configs",
        "config.storage.replication.factor": 1,
        "offset.storage.topic": f"{base}-offsets",
        "offset.storage.partitions": 3,
        "offset.storage.replication.factor": 1,
        "status.storage.topic": f"{base}-status",
        "status.storage.partitions": 2,
        "status.storage.replication.factor": 1,
        **extra,
    }
