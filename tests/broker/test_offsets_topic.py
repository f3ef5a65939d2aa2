"""``__consumer_offsets``: an internal, compacted topic holding the committed offsets in
Kafka's record formats, read by plain consumers as Burrow or kminion read it."""

from __future__ import annotations

import struct
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

from tests.broker.clients import create_topic, produce, quiet

pytestmark = pytest.mark.timeout(120)

OFFSETS = "__consumer_offsets"


def _string(data: bytes, pos: int) -> tuple[str, int]:
    (length,) = struct.unpack_from(">h", data, pos)
    return data[pos + 2 : pos + 2 + length].decode(), pos + 2 + length


def decode_key(key: bytes) -> tuple[int, str, str, int] | None:
    """Kafka's OffsetCommitKey (versions 0-1: group, topic, partition); None for others."""
    (version,) = struct.unpack_from(">h", key, 0)
    if version not in (0, 1):
        return None
    group, pos = _string(key, 2)
    topic, pos = _string(key, pos)
    (partition,) = struct.unpack_from(">i", key, pos)
    return version, group, topic, partition


def decode_value(value: bytes) -> dict[str, Any]:
    """Kafka's OffsetCommitValue v3: offset, leaderEpoch, metadata, commitTimestamp."""
    version, offset, epoch = struct.unpack_from(">hqi", value, 0)
    assert version == 3, f"OffsetCommitValue version {version}"
    metadata, pos = _string(value, 14)
    (timestamp,) = struct.unpack_from(">q", value, pos)
    assert pos + 8 == len(value), "trailing bytes after commitTimestamp"
    return {"offset": offset, "leader_epoch": epoch, "metadata": metadata, "timestamp": timestamp}


def _nullable(data: bytes, pos: int) -> tuple[str | None, int]:
    if struct.unpack_from(">h", data, pos)[0] == -1:
        return None, pos + 2
    return _string(data, pos)


def _bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    (length,) = struct.unpack_from(">i", data, pos)
    return data[pos + 4 : pos + 4 + length], pos + 4 + length


def decode_group_key(key: bytes) -> str | None:
    """Kafka's GroupMetadataKey (version 2: group); None for other keys."""
    if struct.unpack_from(">h", key, 0)[0] != 2:
        return None
    return _string(key, 2)[0]


def decode_group_value(value: bytes) -> dict[str, Any]:
    """Kafka's GroupMetadataValue v3 (protocolType, generation, protocol, leader,
    currentStateTimestamp, members)."""
    (version,) = struct.unpack_from(">h", value, 0)
    assert version == 3, f"GroupMetadataValue version {version}"
    protocol_type, pos = _string(value, 2)
    (generation,) = struct.unpack_from(">i", value, pos)
    protocol, pos = _nullable(value, pos + 4)
    leader, pos = _nullable(value, pos)
    timestamp, count = struct.unpack_from(">qi", value, pos)
    pos += 12
    members = []
    for _ in range(count):
        member_id, pos = _string(value, pos)
        instance_id, pos = _nullable(value, pos)
        client_id, pos = _string(value, pos)
        client_host, pos = _string(value, pos)
        rebalance_timeout, session_timeout = struct.unpack_from(">ii", value, pos)
        subscription, pos = _bytes(value, pos + 8)
        assignment, pos = _bytes(value, pos)
        members.append(
            {
                "member_id": member_id,
                "group_instance_id": instance_id,
                "client_id": client_id,
                "client_host": client_host,
                "rebalance_timeout": rebalance_timeout,
                "session_timeout": session_timeout,
                "subscription": subscription,
                "assignment": assignment,
            }
        )
    assert pos == len(value), "trailing bytes after the members"
    return {
        "protocol_type": protocol_type,
        "generation": generation,
        "protocol": protocol,
        "leader": leader,
        "timestamp": timestamp,
        "members": members,
    }


def kafka_partition_for(group: str, partitions: int = 50) -> int:
    """Kafka's ``Utils.abs(group.hashCode()) % partitions`` (Java's String.hashCode)."""
    utf16 = group.encode("utf-16-be")
    h = 0
    for unit in struct.unpack(f">{len(utf16) // 2}H", utf16):
        h = (31 * h + unit) & 0xFFFFFFFF
    signed = h - (1 << 32) if h & 0x80000000 else h
    return (0 if signed == -(2**31) else abs(signed)) % partitions


def read_offsets_topic(bootstrap: str) -> list[Any]:
    """Every record of every partition of ``__consumer_offsets``, to each partition's end."""
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    partitions = admin.list_topics(OFFSETS, timeout=30).topics[OFFSETS].partitions
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"offsets-reader-{uuid.uuid4().hex[:6]}",
                "enable.partition.eof": True,
                "enable.auto.commit": False,
            }
        )
    )
    consumer.assign([TopicPartition(OFFSETS, p, 0) for p in partitions])
    out: list[Any] = []
    ended: set[int] = set()
    deadline = time.monotonic() + 30
    try:
        while len(ended) < len(partitions):
            assert time.monotonic() < deadline, f"{OFFSETS}: not at the end within 30 s"
            for msg in consumer.consume(500, 0.2):
                if msg.error() is None:
                    out.append(msg)
                elif msg.error().code() == KafkaError._PARTITION_EOF:
                    ended.add(msg.partition())
    finally:
        consumer.close()
    return out


def group_records(bootstrap: str, group: str) -> list[tuple[tuple[str, int], bytes | None]]:
    """(topic, partition) and value of the group's offset records, in log order."""
    found = []
    for msg in read_offsets_topic(bootstrap):
        key = decode_key(msg.key())
        if key is not None and key[1] == group:
            assert key[0] == 1, "OffsetCommitKey must be written as version 1"
            assert msg.partition() == kafka_partition_for(group), "not Kafka's partitionFor"
            found.append(((key[2], key[3]), msg.value()))
    return found


def group_metadata(bootstrap: str, group: str) -> list[bytes | None]:
    """Values of the group's GroupMetadata records, in log order."""
    return [
        msg.value() for msg in read_offsets_topic(bootstrap) if decode_group_key(msg.key()) == group
    ]


def commit(bootstrap: str, group: str, offsets: list[TopicPartition]) -> None:
    """Commit as a member of ``group`` (subscribed, assigned, then a synchronous commit)."""
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "client.id": "offsets-committer",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
            }
        )
    )
    consumer.subscribe([offsets[0].topic])
    deadline = time.monotonic() + 30
    while not consumer.assignment():
        assert time.monotonic() < deadline, "no assignment within 30 s"
        consumer.poll(0.2)
    consumer.commit(offsets=offsets, asynchronous=False)
    consumer.close()


@pytest.fixture
def committed(bootstrap: str, topic_name: str) -> str:
    """A group that committed offset 2 (metadata "first") of ``topic_name``-0."""
    create_topic(bootstrap, topic_name, partitions=1)
    produce(bootstrap, topic_name, [(b"k", f"v{i}".encode()) for i in range(6)])
    group = f"{topic_name}-group"
    commit(bootstrap, group, [TopicPartition(topic_name, 0, 2, metadata="first")])
    return group


def test_a_commit_is_a_kafka_offset_record(bootstrap: str, topic_name: str, committed: str) -> None:
    before = int(time.time() * 1000) - 60_000
    records = group_records(bootstrap, committed)
    assert [tp for tp, _ in records] == [(topic_name, 0)]
    value = records[0][1]
    assert value is not None
    decoded = decode_value(value)
    assert decoded["offset"] == 2
    assert decoded["metadata"].rstrip("\x00") == "first"  # confluent-kafka sends the C NUL
    assert before < decoded["timestamp"] <= int(time.time() * 1000)


def test_a_later_commit_supersedes(bootstrap: str, topic_name: str, committed: str) -> None:
    commit(bootstrap, committed, [TopicPartition(topic_name, 0, 5, metadata="second")])
    records = group_records(bootstrap, committed)
    assert len(records) == 2
    latest = records[-1][1]
    assert latest is not None
    assert decode_value(latest)["offset"] == 5
    assert decode_value(latest)["metadata"].rstrip("\x00") == "second"


def test_deleting_the_group_writes_tombstones(
    bootstrap: str, topic_name: str, committed: str
) -> None:
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    admin.delete_consumer_groups([committed])[committed].result(30)
    records = group_records(bootstrap, committed)
    assert records[-1] == ((topic_name, 0), None)
    assert group_metadata(bootstrap, committed)[-1] is None


def test_a_rebalance_writes_the_group(bootstrap: str, topic_name: str, committed: str) -> None:
    values = group_metadata(bootstrap, committed)
    assert len(values) == 2 and None not in values  # stable with one member, then empty
    stable = decode_group_value(values[0] or b"")
    assert (stable["protocol_type"], stable["generation"]) == ("consumer", 1)
    assert stable["protocol"] and stable["leader"] == stable["members"][0]["member_id"]
    [member] = stable["members"]
    assert member["client_id"] == "offsets-committer"
    assert member["group_instance_id"] is None
    # librdkafka's defaults: session.timeout.ms, max.poll.interval.ms
    assert (member["session_timeout"], member["rebalance_timeout"]) == (45000, 300000)
    assert topic_name.encode() in member["subscription"]
    assert topic_name.encode() in member["assignment"]
    empty = decode_group_value(values[1] or b"")
    assert (empty["generation"], empty["members"], empty["leader"]) == (2, [], None)


def test_the_topic_is_internal_and_compacted(bootstrap: str, committed: str) -> None:
    """Created at the first group write (as Kafka's), internal and compacted."""
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    metadata = admin.list_topics(OFFSETS, timeout=30).topics[OFFSETS]
    assert metadata.error is None
    assert len(metadata.partitions) == 50  # offsets.topic.num.partitions, as Kafka
    from confluent_kafka import TopicCollection

    description = admin.describe_topics(TopicCollection([OFFSETS]))[OFFSETS].result(30)
    assert description.is_internal
    resource = ConfigResource(ConfigResource.Type.TOPIC, OFFSETS)
    configs = admin.describe_configs([resource])[resource].result(30)
    assert configs["cleanup.policy"].value == "compact"


def test_clients_cannot_produce_to_it(bootstrap: str, committed: str) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "message.timeout.ms": 20000}))
    errors: list[Any] = []
    producer.produce(
        OFFSETS, key=b"k", value=b"v", partition=0, on_delivery=lambda e, m: errors.append(e)
    )
    assert producer.flush(30) == 0
    assert errors and errors[0] is not None
    assert errors[0].code() == KafkaError.TOPIC_EXCEPTION  # Kafka's INVALID_TOPIC_EXCEPTION


def test_a_transaction_commit_writes_its_offsets(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    produce(bootstrap, topic_name, [(b"k", b"v")] * 4)
    group = f"{topic_name}-txn"
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": group}))
    producer = Producer(
        quiet({"bootstrap.servers": bootstrap, "transactional.id": f"{topic_name}-tx"})
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    offsets = [TopicPartition(topic_name, 0, 3)]
    producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 30)
    assert group_records(bootstrap, group) == []  # not before the transaction commits
    producer.commit_transaction(30)
    consumer.close()
    [(tp, value)] = group_records(bootstrap, group)
    assert tp == (topic_name, 0)
    assert decode_value(value or b"")["offset"] == 3
