"""confluent-kafka (librdkafka) against the embedded broker over TCP."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    OffsetSpec,
)

from tests.broker.clients import consume_all, create_topic, produce, quiet

pytestmark = pytest.mark.timeout(90)


def admin(bootstrap: str) -> AdminClient:
    """An AdminClient; keep a reference while its futures are pending (librdkafka destroys
    a collected client's handle and its requests with it)."""
    return AdminClient(quiet({"bootstrap.servers": bootstrap}))


def test_round_trip_keeps_keys_values_headers_and_timestamps(
    bootstrap: str, topic_name: str
) -> None:
    # 2023 timestamps: no time retention, or a retention check could delete them mid-test.
    create_topic(bootstrap, topic_name, partitions=2, config={"retention.ms": "-1"})
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 5}))
    sent = []
    for i in range(200):
        record = {
            "key": None if i % 10 == 0 else f"k{i}".encode(),
            "value": None if i % 17 == 0 else f"value-{i}".encode() * (i % 5 + 1),
            "headers": [("h1", f"x{i}".encode()), ("h2", None), ("h1", b"dup")],
            "timestamp": 1_700_000_000_000 + i,
            "partition": i % 2,
        }
        producer.produce(topic_name, **record)
        sent.append(record)
    assert producer.flush(30) == 0
    got = consume_all(bootstrap, topic_name, 200)
    assert len(got) == 200
    by_partition: dict[int, list] = {0: [], 1: []}
    for msg in got:
        by_partition[msg.partition()].append(msg)
    for partition, msgs in by_partition.items():
        expected = [r for r in sent if r["partition"] == partition]
        assert [m.offset() for m in msgs] == list(range(len(expected)))
        for m, r in zip(msgs, expected, strict=True):
            assert m.key() == r["key"]
            assert m.value() == r["value"]
            assert m.headers() == r["headers"]
            assert m.timestamp() == (1, r["timestamp"])  # TIMESTAMP_CREATE_TIME


def test_acks_all_and_acks_zero(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    offsets = produce(bootstrap, topic_name, [(b"a", b"1"), (b"b", b"2")], acks="all")
    assert offsets == [(0, 0), (0, 1)]
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "acks": 0}))
    for i in range(50):
        producer.produce(topic_name, value=str(i).encode(), partition=0)
    assert producer.flush(10) == 0
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": topic_name}))
    deadline = time.monotonic() + 10
    while consumer.get_watermark_offsets(TopicPartition(topic_name, 0))[1] < 52:
        assert time.monotonic() < deadline, "acks=0 records never arrived"
        time.sleep(0.05)
    consumer.close()


def test_consumer_group_rebalances_across_three_members(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=6)
    produce(bootstrap, topic_name, [(f"k{i}".encode(), str(i).encode(), i % 6) for i in range(600)])
    group = f"g-{topic_name}"
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500,
    }
    consumers = [Consumer(quiet({**config, "client.id": f"c{i}"})) for i in range(3)]
    assignments: dict[int, set[int]] = {}

    def remember(i: int):
        def on_assign(_consumer: Consumer, partitions: list[TopicPartition]) -> None:
            assignments[i] = {p.partition for p in partitions}

        return on_assign

    for i, c in enumerate(consumers):
        c.subscribe([topic_name], on_assign=remember(i))
    seen: dict[int, list[tuple[int, int]]] = {0: [], 1: [], 2: []}
    deadline = time.monotonic() + 45
    while sum(len(v) for v in seen.values()) < 600 and time.monotonic() < deadline:
        for i, c in enumerate(consumers):
            for msg in c.consume(100, timeout=0.1):
                assert msg.error() is None, msg.error()
                seen[i].append((msg.partition(), msg.offset()))
    everything = [r for v in seen.values() for r in v]
    # Partitions may move between members while the group forms; a record read twice is
    # fine (uncommitted), a record never read is not.
    assert set(everything) == {(p, o) for p in range(6) for o in range(100)}
    # Wait until all three members own two partitions each.
    while not (len(assignments) == 3 and all(len(a) == 2 for a in assignments.values())):
        assert time.monotonic() < deadline, f"group never balanced: {assignments}"
        for c in consumers:
            c.poll(0.1)
    assert set().union(*assignments.values()) == set(range(6))
    for c in consumers:
        c.commit(asynchronous=False)
    # Stop one member: the other two take over its partitions.
    consumers.pop().close()
    assignments.pop(2)
    while sorted(len(a) for a in assignments.values()) != [3, 3]:
        assert time.monotonic() < deadline, f"no rebalance after a member left: {assignments}"
        for c in consumers:
            c.poll(0.1)
    committed = consumers[0].committed([TopicPartition(topic_name, p) for p in range(6)], 10)
    assert {tp.partition: tp.offset for tp in committed} == {p: 100 for p in range(6)}
    for c in consumers:
        c.close()
    a = admin(bootstrap)
    described = a.describe_consumer_groups([group])[group].result(10)
    assert described.state.name == "EMPTY"


def test_new_member_resumes_from_committed_offsets(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    produce(bootstrap, topic_name, [(None, f"a{i}".encode()) for i in range(10)])
    config = quiet(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"g-{topic_name}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    first = Consumer(config)
    first.subscribe([topic_name])
    got = []
    while len(got) < 6:
        got += [m for m in first.consume(6 - len(got), timeout=1) if m.error() is None]
    first.commit(message=got[-1], asynchronous=False)
    first.close()
    second = Consumer(config)
    second.subscribe([topic_name])
    rest = []
    deadline = time.monotonic() + 20
    while len(rest) < 4 and time.monotonic() < deadline:
        rest += [m for m in second.consume(10, timeout=1) if m.error() is None]
    second.close()
    assert [m.value() for m in rest] == [f"a{i}".encode() for i in range(6, 10)]


def test_offsets_for_times_and_list_offsets(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 0}))
    stamps = [1000, 2000, 2000, 5000, 3000, 9000]  # not monotonic: 3000 after 5000
    for i, ts in enumerate(stamps):
        producer.produce(topic_name, value=str(i).encode(), timestamp=ts, partition=0)
        producer.flush(10)  # one batch per record
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": topic_name}))

    def at(ts: int) -> int:
        return consumer.offsets_for_times([TopicPartition(topic_name, 0, ts)], 10)[0].offset

    assert at(0) == 0
    assert at(1000) == 0
    assert at(1500) == 1
    assert at(2000) == 1
    assert at(2500) == 3  # first record with timestamp >= 2500 is 5000 at offset 3
    assert at(6000) == 5
    assert at(10_000) == -1  # past the last timestamp: end
    assert consumer.get_watermark_offsets(TopicPartition(topic_name, 0), 10) == (0, 6)
    consumer.close()
    tp = TopicPartition(topic_name, 0)
    a = admin(bootstrap)
    earliest = a.list_offsets({tp: OffsetSpec.earliest()})[tp].result(10)
    latest = a.list_offsets({tp: OffsetSpec.latest()})[tp].result(10)
    maximum = a.list_offsets({tp: OffsetSpec.max_timestamp()})[tp].result(10)
    assert (earliest.offset, latest.offset) == (0, 6)
    assert (maximum.offset, maximum.timestamp) == (5, 9000)


def test_offsets_for_times_inside_compressed_batches(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        producer = Producer(
            quiet({"bootstrap.servers": bootstrap, "compression.codec": codec, "linger.ms": 50})
        )
        for _ in range(10):
            producer.produce(
                topic_name, value=b"x" * 100, timestamp=int(time.time() * 1000), partition=0
            )
        assert producer.flush(10) == 0
    base = int(time.time() * 1000) + 10**9  # later than every record before
    producer = Producer(
        quiet({"bootstrap.servers": bootstrap, "compression.codec": "lz4", "linger.ms": 100})
    )
    for i in range(10):
        producer.produce(topic_name, value=b"y", timestamp=base + i * 10, partition=0)
    assert producer.flush(10) == 0
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": topic_name}))
    found = consumer.offsets_for_times([TopicPartition(topic_name, 0, base + 35)], 10)[0]
    assert found.offset == 40 + 4  # the 5th record of the last batch (timestamp base+40)
    consumer.close()
    assert len(consume_all(bootstrap, topic_name, 50)) == 50


def test_idempotent_producer(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=3)
    records = [(f"k{i % 7}".encode(), f"v{i}".encode()) for i in range(3000)]
    produce(
        bootstrap,
        topic_name,
        records,
        **{
            "enable.idempotence": True,
            "max.in.flight.requests.per.connection": 5,
            "batch.num.messages": 50,
        },
    )
    got = consume_all(bootstrap, topic_name, 3000)
    assert sorted(m.value() for m in got) == sorted(v for _, v in records)
    per_key: dict[bytes, list[bytes]] = {}
    for m in sorted(got, key=lambda m: (m.partition(), m.offset())):
        per_key.setdefault(m.key(), []).append(m.value())
    for key, values in per_key.items():  # order per key (one partition each) preserved
        assert values == [v for k, v in records if k == key]


def test_admin_topics_configs_and_partitions(bootstrap: str, topic_name: str) -> None:
    a = admin(bootstrap)
    a.create_topics([NewTopic(topic_name, 2, config={"retention.ms": "3600000"})])[
        topic_name
    ].result(10)
    with pytest.raises(KafkaException) as exc:
        a.create_topics([NewTopic(topic_name, 2)])[topic_name].result(10)
    assert exc.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS
    metadata = a.list_topics(topic_name, timeout=10).topics[topic_name]
    assert sorted(metadata.partitions) == [0, 1]

    resource = ConfigResource(ConfigResource.Type.TOPIC, topic_name)
    configs = a.describe_configs([resource])[resource].result(10)
    assert configs["retention.ms"].value == "3600000"
    assert configs["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert configs["segment.bytes"].value == "1073741824"
    assert configs["segment.bytes"].source == ConfigSource.DEFAULT_CONFIG.value
    assert configs["cleanup.policy"].value == "delete"

    change = ConfigResource(
        ConfigResource.Type.TOPIC,
        topic_name,
        incremental_configs=[
            ConfigEntry("segment.ms", "60000", incremental_operation=AlterConfigOpType.SET),
            ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE),
        ],
    )
    a.incremental_alter_configs([change])[change].result(10)
    configs = a.describe_configs([resource])[resource].result(10)
    assert configs["segment.ms"].value == "60000"
    assert configs["retention.ms"].value == "604800000"
    assert configs["retention.ms"].source == ConfigSource.DEFAULT_CONFIG.value

    bad = ConfigResource(
        ConfigResource.Type.TOPIC,
        topic_name,
        incremental_configs=[
            ConfigEntry("retention.ms", "soon", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    with pytest.raises(KafkaException) as exc:
        a.incremental_alter_configs([bad])[bad].result(10)
    assert exc.value.args[0].code() == KafkaError.INVALID_CONFIG
    assert "retention.ms" in exc.value.args[0].str()

    a.create_partitions([NewPartitions(topic_name, 5)])[topic_name].result(10)
    assert len(a.list_topics(topic_name, timeout=10).topics[topic_name].partitions) == 5
    produce(bootstrap, topic_name, [(None, b"p4")], partitioner="random")
    with pytest.raises(KafkaException) as exc:
        a.create_partitions([NewPartitions(topic_name, 3)])[topic_name].result(10)
    assert exc.value.args[0].code() == KafkaError.INVALID_PARTITIONS

    a.delete_topics([topic_name])[topic_name].result(10)
    assert topic_name not in a.list_topics(timeout=10).topics


def test_delete_records_moves_log_start(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    produce(bootstrap, topic_name, [(None, str(i).encode()) for i in range(20)])
    tp = TopicPartition(topic_name, 0, 12)
    a = admin(bootstrap)
    result = a.delete_records([tp])[tp].result(10)
    assert result.low_watermark == 12
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": topic_name}))
    assert consumer.get_watermark_offsets(TopicPartition(topic_name, 0), 10) == (12, 20)
    consumer.assign([TopicPartition(topic_name, 0, OFFSET_BEGINNING)])
    first = None
    while first is None:
        msg = consumer.poll(5)
        if msg is not None and msg.error() is None:
            first = msg
    assert (first.offset(), first.value()) == (12, b"12")
    consumer.close()


def test_group_admin_list_describe_alter_delete(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    produce(bootstrap, topic_name, [(None, b"x")] * 10, partitioner="random")
    group = f"g-{topic_name}"
    consumer = Consumer(
        quiet({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest"})
    )
    consumer.subscribe([topic_name])
    deadline = time.monotonic() + 20
    while not consumer.assignment():
        assert time.monotonic() < deadline
        consumer.poll(0.2)
    a = admin(bootstrap)
    listed = {g.group_id: g for g in a.list_consumer_groups().result(10).valid}
    assert listed[group].state.name == "STABLE"
    described = a.describe_consumer_groups([group])[group].result(10)
    assert described.state.name == "STABLE"
    assert len(described.members) == 1
    assert {tp.partition for tp in described.members[0].assignment.topic_partitions} == {0, 1}
    # A group with members refuses deletion.
    with pytest.raises(KafkaException) as exc:
        a.delete_consumer_groups([group])[group].result(10)
    assert exc.value.args[0].code() == KafkaError.NON_EMPTY_GROUP
    consumer.close()
    # Alter offsets while the group is empty, with metadata that must round-trip.
    from confluent_kafka import ConsumerGroupTopicPartitions

    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic_name, 0, 3, metadata="m")])
    a.alter_consumer_group_offsets([request])[group].result(10)
    listed_offsets = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[
        group
    ].result(10)
    by_partition = {tp.partition: tp for tp in listed_offsets.topic_partitions}
    assert by_partition[0].offset == 3
    assert by_partition[0].metadata == "m"
    a.delete_consumer_groups([group])[group].result(10)
    assert group not in {g.group_id for g in a.list_consumer_groups().result(10).valid}
