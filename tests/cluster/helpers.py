"""Reading what the cluster jobs wrote."""

from __future__ import annotations

from confluent_kafka import Consumer, TopicPartition

from tests.broker.clients import quiet


def committed_values(bootstrap: str, topic: str, partitions: int) -> list[bytes]:
    """Every value of *topic* a read_committed consumer sees (aborted ones left out)."""
    consumer = Consumer(
        quiet({"bootstrap.servers": bootstrap, "group.id": "check",
               "isolation.level": "read_committed", "enable.partition.eof": True})
    )  # fmt: skip
    values: list[bytes] = []
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        ended: set[int] = set()
        while len(ended) < partitions:
            for message in consumer.consume(1000, 5.0):
                if message.error() is None:
                    values.append(message.value())
                elif message.error().code() == -191:  # _PARTITION_EOF
                    ended.add(message.partition())
    finally:
        consumer.close()
    return values


def committed_count(bootstrap: str, topic: str, partitions: int) -> int:
    return len(committed_values(bootstrap, topic, partitions))
