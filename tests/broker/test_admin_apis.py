"""DescribeLogDirs, DescribeProducers and OffsetForLeaderEpoch against a real broker, asked
by kafka-python where it has the API and otherwise over Seaway's own Kafka connection."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer
from kafka import KafkaAdminClient

from seaway.kafka.connection import Connection
from seaway.protocol.errors import ErrorCode
from tests.broker.clients import create_topic, quiet

pytestmark = pytest.mark.timeout(60)


def _produce(bootstrap: str, topic: str, n: int) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "enable.idempotence": True}))
    for i in range(n):
        producer.produce(topic, b"v%d" % i, partition=0)
    assert producer.flush(30) == 0


def test_describe_log_dirs_gives_partition_sizes(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    _produce(bootstrap, topic_name, 100)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        response = admin.describe_log_dirs()
    finally:
        admin.close()
    (answer,) = response  # one per broker
    (result,) = answer["log_dirs"]
    assert result["error_code"] == 0 and result["usable_bytes"] > 0
    sizes = {p["partition_index"]: p["partition_size"] for t in result["topics"]
             if t["name"] == topic_name for p in t["partitions"]}  # fmt: skip
    assert sizes[1] == 0 and sizes[0] > 100 * 10  # 100 records written to partition 0 only


def test_describe_producers_lists_an_idempotent_producer(
    bootstrap: str, topic_name: str, connection: Connection
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    _produce(bootstrap, topic_name, 7)
    from kio.schema.describe_producers.v0.request import TopicRequest

    request = connection.request_class(61, 0, 0)
    wanted = (TopicRequest(name=topic_name, partition_indexes=(0, 5)),)
    reply = connection.request(request(topics=wanted))
    (topic,) = reply.topics
    found, missing = topic.partitions
    assert found.error_code == ErrorCode.none
    (state,) = found.active_producers
    assert state.producer_id >= 0 and state.producer_epoch == 0
    assert state.last_sequence == 6 and state.current_txn_start_offset == -1
    assert missing.error_code == ErrorCode.unknown_topic_or_partition


def test_offset_for_leader_epoch(bootstrap: str, topic_name: str, connection: Connection) -> None:
    from kio.schema.offset_for_leader_epoch.v4.request import (
        OffsetForLeaderPartition,
        OffsetForLeaderTopic,
    )

    create_topic(bootstrap, topic_name, partitions=1)
    _produce(bootstrap, topic_name, 12)
    asks = [(0, -1), (1, -1), (0, 5)]  # (leader_epoch, current_leader_epoch)
    request = connection.request_class(23, 4, 4)
    topics = tuple(
        OffsetForLeaderTopic(topic=name, partitions=tuple(
            OffsetForLeaderPartition(partition=0, current_leader_epoch=current,
                                     leader_epoch=epoch) for epoch, current in asks))
        for name in (topic_name, f"{topic_name}-missing")
    )  # fmt: skip
    reply = connection.request(request(replica_id=-1, topics=topics))
    known, missing = reply.topics
    assert [(p.error_code, p.leader_epoch, p.end_offset) for p in known.partitions] == [
        (ErrorCode.none, 0, 12),  # epoch 0 (the only one) ends at the log end
        (ErrorCode.none, -1, -1),  # an epoch this node never had
        (ErrorCode.unknown_leader_epoch, -1, -1),  # the client knows a newer epoch
    ]
    assert {p.error_code for p in missing.partitions} == {ErrorCode.unknown_topic_or_partition}
