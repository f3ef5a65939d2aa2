"""aiokafka against the embedded broker over TCP: its own producer, consumer and admin APIs.

pytest-asyncio is not installed: each test is a plain function running one ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewPartitions, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import TopicAlreadyExistsError
from aiokafka.structs import OffsetAndMetadata

pytestmark = pytest.mark.timeout(60)

CREATE_TIME, LOG_APPEND_TIME = 0, 1  # ConsumerRecord.timestamp_type
DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG = 1, 5  # DescribeConfigs config_source


def recent_ms() -> int:
    """A whole-second timestamp an hour ago: explicit, yet well inside retention.ms (7 days),
    so a retention sweep of the shared broker can never delete a test's records."""
    return (int(time.time()) - 3600) * 1000


def unique_group(topic: str) -> str:
    return f"{topic}-group-{uuid.uuid4().hex[:8]}"


@asynccontextmanager
async def admin_client(bootstrap: str) -> AsyncIterator[AIOKafkaAdminClient]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    await admin.start()
    try:
        yield admin
    finally:
        await admin.close()


@asynccontextmanager
async def producer_for(bootstrap: str, **config: Any) -> AsyncIterator[AIOKafkaProducer]:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=10_000, **config)
    await producer.start()
    try:
        yield producer
    finally:
        await producer.stop()


@asynccontextmanager
async def consumer_for(
    bootstrap: str, *topics: str, **config: Any
) -> AsyncIterator[AIOKafkaConsumer]:
    settings: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "auto_offset_reset": "earliest",
        "enable_auto_commit": False,
        "request_timeout_ms": 10_000,
        **config,
    }
    consumer = AIOKafkaConsumer(*topics, **settings)
    await consumer.start()
    try:
        yield consumer
    finally:
        await consumer.stop()


async def create_topic(bootstrap: str, name: str, partitions: int) -> None:
    async with admin_client(bootstrap) as admin:
        response = await admin.create_topics([NewTopic(name, partitions, 1)])
        assert [(t[0], t[1]) for t in response.topic_errors] == [(name, 0)]


async def get_until(consumer: AIOKafkaConsumer, count: int, within: float = 20.0) -> list[Any]:
    """Fetch until ``count`` records arrived (in arrival order); fail after ``within`` s."""
    out: list[Any] = []
    deadline = time.monotonic() + within
    while len(out) < count and time.monotonic() < deadline:
        for records in (await consumer.getmany(timeout_ms=200)).values():
            out.extend(records)
    assert len(out) == count, f"got {len(out)} of {count} records within {within}s"
    return out


async def drain(consumer: AIOKafkaConsumer, quiet_for: float = 1.0) -> list[Any]:
    """Records still arriving until ``quiet_for`` seconds pass with none."""
    out: list[Any] = []
    deadline = time.monotonic() + quiet_for
    while time.monotonic() < deadline:
        for records in (await consumer.getmany(timeout_ms=100)).values():
            out.extend(records)
            deadline = time.monotonic() + quiet_for
    return out


async def send_all(producer: AIOKafkaProducer, topic: str, records: list[dict[str, Any]]) -> list:
    futures = [await producer.send(topic, **r) for r in records]
    return list(await asyncio.gather(*futures))


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), timeout=50))


# -- produce / fetch -------------------------------------------------------------------------


def test_round_trip_keys_values_headers_timestamps(bootstrap: str, topic_name: str) -> None:
    base_ts = recent_ms()
    sent: list[dict[str, Any]] = [
        {
            "partition": i % 3,
            "key": None if i == 4 else f"key-{i}".encode(),
            "value": None if i == 7 else f"value-{i}-".encode() * (i + 1),
            "headers": []
            if i % 5 == 0
            else [("h-one", f"{i}".encode()), ("h-two", b""), ("h-one", b"\x00\xff")],
            "timestamp_ms": base_ts + 1000 * i,
        }
        for i in range(30)
    ]

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 3)
        async with producer_for(bootstrap, linger_ms=20) as producer:
            metadata = await send_all(producer, topic_name, sent)

        expected_offsets = {0: 0, 1: 0, 2: 0}
        for record, md in zip(sent, metadata, strict=True):
            assert md.topic == topic_name
            assert md.partition == record["partition"]
            assert md.offset == expected_offsets[md.partition]
            # CreateTime: the broker answered log_append_time -1. (aiokafka then reports the
            # first record's timestamp for every record of a batch, so md.timestamp is not
            # checked here; the fetched records' timestamps are, below.)
            assert md.timestamp_type == CREATE_TIME
            expected_offsets[md.partition] += 1

        async with consumer_for(bootstrap) as consumer:
            partitions = [TopicPartition(topic_name, p) for p in range(3)]
            consumer.assign(partitions)
            await consumer.seek_to_beginning(*partitions)
            received = await get_until(consumer, len(sent))
            assert await drain(consumer, 0.5) == []

        for p in range(3):
            want = [
                (r, md.offset) for r, md in zip(sent, metadata, strict=True) if r["partition"] == p
            ]
            got = [r for r in received if r.partition == p]
            assert [r.offset for r in got] == list(range(10))
            assert len(got) == len(want) == 10
            for rec, (exp, offset) in zip(got, want, strict=True):
                assert rec.topic == topic_name
                assert rec.offset == offset
                assert rec.key == exp["key"]
                assert rec.value == exp["value"]
                assert [(k, v) for k, v in rec.headers] == exp["headers"]
                assert rec.timestamp == exp["timestamp_ms"]
                assert rec.timestamp_type == CREATE_TIME

    run(test)


def test_send_batch_round_trip(bootstrap: str, topic_name: str) -> None:
    """aiokafka's explicit batch API: one RecordBatch of several records, offsets in order."""
    base_ts = recent_ms()

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 1)
        async with producer_for(bootstrap) as producer:
            batch = producer.create_batch()
            for i in range(5):
                assert batch.append(
                    key=b"k%d" % i,
                    value=b"v%d" % i,
                    timestamp=base_ts + i,
                    headers=[("n", b"%d" % i)],
                )
            batch.close()
            md = await (await producer.send_batch(batch, topic_name, partition=0))
            assert (md.partition, md.offset) == (0, 0)
        async with consumer_for(bootstrap) as consumer:
            tp = TopicPartition(topic_name, 0)
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            records = await get_until(consumer, 5)
        assert [(r.offset, r.key, r.value, r.timestamp, list(r.headers)) for r in records] == [
            (i, b"k%d" % i, b"v%d" % i, base_ts + i, [("n", b"%d" % i)]) for i in range(5)
        ]

    run(test)


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_compressed_batches_round_trip(bootstrap: str, topic_name: str, codec: str) -> None:
    values = [(b"compressible-%d-" % i) * 50 for i in range(40)]

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 1)
        async with producer_for(bootstrap, compression_type=codec, linger_ms=20) as producer:
            metadata = await send_all(
                producer,
                topic_name,
                [
                    {"partition": 0, "key": b"%d" % i, "value": v, "headers": [("c", b"x")]}
                    for i, v in enumerate(values)
                ],
            )
        assert [md.offset for md in metadata] == list(range(40))
        async with consumer_for(bootstrap, max_partition_fetch_bytes=1024) as consumer:
            tp = TopicPartition(topic_name, 0)
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            records = await get_until(consumer, 40)
            # Seeking into the middle of a compressed batch starts at that exact record.
            consumer.seek(tp, 17)
            tail = await get_until(consumer, 23)
        assert [(r.offset, r.key, r.value, list(r.headers)) for r in records] == [
            (i, b"%d" % i, v, [("c", b"x")]) for i, v in enumerate(values)
        ]
        assert [r.offset for r in tail] == list(range(17, 40))

    run(test)


def test_log_append_time_topic(bootstrap: str, topic_name: str) -> None:
    async def test() -> None:
        async with admin_client(bootstrap) as admin:
            response = await admin.create_topics(
                [
                    NewTopic(
                        topic_name, 1, 1, topic_configs={"message.timestamp.type": "LogAppendTime"}
                    )
                ]
            )
            assert [(t[0], t[1]) for t in response.topic_errors] == [(topic_name, 0)]
        before = int(time.time() * 1000)
        async with producer_for(bootstrap) as producer:
            md = await producer.send_and_wait(topic_name, b"stamped", timestamp_ms=1000)
        after = int(time.time() * 1000)
        # The broker's append time replaces the producer's timestamp, and is reported back.
        assert md.timestamp_type == LOG_APPEND_TIME
        assert before <= md.timestamp <= after
        async with consumer_for(bootstrap) as consumer:
            tp = TopicPartition(topic_name, 0)
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            [record] = await get_until(consumer, 1)
        assert record.value == b"stamped"
        assert record.timestamp == md.timestamp
        assert record.timestamp_type == LOG_APPEND_TIME

    run(test)


# -- consumer groups -------------------------------------------------------------------------


async def wait_for_stable_assignment(
    consumers: list[AIOKafkaConsumer], partitions: set[TopicPartition], within: float = 20.0
) -> None:
    """Wait until every consumer owns at least one partition and together they own all."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        owned = [set(c.assignment()) for c in consumers]
        if (
            all(owned)
            and sum(len(o) for o in owned) == len(partitions)
            and set().union(*owned) == partitions
        ):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"group never stabilised: {[c.assignment() for c in consumers]}")


def test_consumer_group_shares_partitions_and_resumes_from_commit(
    bootstrap: str, topic_name: str
) -> None:
    n_partitions, n_members, n_records = 4, 3, 60
    per_partition = n_records // n_partitions
    group = unique_group(topic_name)
    all_partitions = {TopicPartition(topic_name, p) for p in range(n_partitions)}

    async def test() -> None:
        await create_topic(bootstrap, topic_name, n_partitions)
        consumers = [
            AIOKafkaConsumer(
                topic_name,
                bootstrap_servers=bootstrap,
                group_id=group,
                client_id=f"member-{i}",
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                session_timeout_ms=10_000,
                heartbeat_interval_ms=200,
            )
            for i in range(n_members)
        ]
        await asyncio.gather(*(c.start() for c in consumers))
        try:
            await wait_for_stable_assignment(consumers, all_partitions)
            assignments = [set(c.assignment()) for c in consumers]
            # Produce only once the group is stable, so no rebalance hands a partition over
            # and every record is read by exactly one member; then all consume concurrently,
            # each the records of the partitions it owns, and nothing more arrives.
            async with producer_for(bootstrap, linger_ms=5) as producer:
                await send_all(
                    producer,
                    topic_name,
                    [
                        {"partition": i % n_partitions, "key": b"k%d" % i, "value": b"v%d" % i}
                        for i in range(n_records)
                    ],
                )
            received = await asyncio.gather(
                *(
                    get_until(c, per_partition * len(owned))
                    for c, owned in zip(consumers, assignments, strict=True)
                )
            )
            extra = await asyncio.gather(*(drain(c, 0.5) for c in consumers))
            assert extra == [[] for _ in consumers]
            assert [set(c.assignment()) for c in consumers] == assignments  # no rebalance

            consumed = [r for out in received for r in out]
            assert sorted(r.value for r in consumed) == sorted(b"v%d" % i for i in range(n_records))
            assert len({(r.partition, r.offset) for r in consumed}) == n_records
            for out, owned in zip(received, assignments, strict=True):
                assert {TopicPartition(r.topic, r.partition) for r in out} <= owned
                for tp in owned:
                    offsets = [r.offset for r in out if r.partition == tp.partition]
                    assert offsets == list(range(per_partition))

            # Every member commits what it consumed before any leaves (a leave rebalances).
            await asyncio.gather(*(c.commit() for c in consumers))
            for c, owned in zip(consumers, assignments, strict=True):
                for tp in owned:
                    assert await c.committed(tp) == per_partition
        finally:
            await asyncio.gather(*(c.stop() for c in consumers))

        # Produce more; a new member of the same group reads only those.
        async with producer_for(bootstrap) as producer:
            await send_all(
                producer,
                topic_name,
                [{"partition": i % n_partitions, "value": b"late-%d" % i} for i in range(8)],
            )
        async with consumer_for(bootstrap, topic_name, group_id=group) as consumer:
            late = await get_until(consumer, 8)
            assert await drain(consumer, 1.0) == []
            assert sorted(r.value for r in late) == sorted(b"late-%d" % i for i in range(8))
            assert sorted((r.partition, r.offset) for r in late) == sorted(
                (p, per_partition + j) for p in range(n_partitions) for j in range(2)
            )
            await consumer.commit()
            for tp in sorted(all_partitions):
                assert await consumer.committed(tp) == per_partition + 2

    run(test)


def test_member_leaving_hands_partitions_over_at_committed_offsets(
    bootstrap: str, topic_name: str
) -> None:
    group = unique_group(topic_name)
    all_partitions = {TopicPartition(topic_name, p) for p in range(4)}

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 4)
        consumers = [
            AIOKafkaConsumer(
                topic_name,
                bootstrap_servers=bootstrap,
                group_id=group,
                auto_offset_reset="earliest",
                enable_auto_commit=False,
                session_timeout_ms=10_000,
                heartbeat_interval_ms=200,
            )
            for _ in range(2)
        ]
        await asyncio.gather(*(c.start() for c in consumers))
        stayer, leaver = consumers
        try:
            await wait_for_stable_assignment(consumers, all_partitions)
            async with producer_for(bootstrap) as producer:
                await send_all(
                    producer,
                    topic_name,
                    [{"partition": i % 4, "value": b"first-%d" % i} for i in range(8)],
                )
            # Each reads (and commits) the two records of each partition it owns.
            for c in consumers:
                got = await get_until(c, 2 * len(c.assignment()))
                assert {TopicPartition(r.topic, r.partition) for r in got} == c.assignment()
            await asyncio.gather(*(c.commit() for c in consumers))
            await leaver.stop()
            # The stayer rejoins and now owns every partition.
            await wait_for_stable_assignment([stayer], all_partitions)
            async with producer_for(bootstrap) as producer:
                await send_all(
                    producer,
                    topic_name,
                    [{"partition": i % 4, "value": b"second-%d" % i} for i in range(4)],
                )
            # It resumes the leaver's partitions at their committed offsets.
            got = await get_until(stayer, 4)
            assert await drain(stayer, 1.0) == []
            assert sorted((r.partition, r.offset, r.value) for r in got) == [
                (p, 2, b"second-%d" % p) for p in range(4)
            ]
        finally:
            await asyncio.gather(*(c.stop() for c in consumers))

    run(test)


def test_commit_explicit_offsets_with_metadata(bootstrap: str, topic_name: str) -> None:
    group = unique_group(topic_name)

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 2)
        async with producer_for(bootstrap) as producer:
            await send_all(
                producer, topic_name, [{"partition": i % 2, "value": b"%d" % i} for i in range(10)]
            )
        tp0, tp1 = TopicPartition(topic_name, 0), TopicPartition(topic_name, 1)
        async with consumer_for(bootstrap, group_id=group) as consumer:
            consumer.assign([tp0, tp1])
            assert await consumer.committed(tp0) is None
            await consumer.commit({tp0: OffsetAndMetadata(3, "three"), tp1: 1})
            assert await consumer.committed(tp0) == 3
            assert await consumer.committed(tp1) == 1
        async with admin_client(bootstrap) as admin:
            offsets = await admin.list_consumer_group_offsets(group)
            assert offsets == {tp0: OffsetAndMetadata(3, "three"), tp1: OffsetAndMetadata(1, "")}
        async with consumer_for(bootstrap, group_id=group) as consumer:
            consumer.assign([tp0, tp1])
            records = await get_until(consumer, 6)
            assert sorted((r.partition, r.offset) for r in records) == [
                (0, 3),
                (0, 4),
                (1, 1),
                (1, 2),
                (1, 3),
                (1, 4),
            ]

    run(test)


# -- offsets by time -------------------------------------------------------------------------


def test_offsets_for_times_and_beginning_end_offsets(bootstrap: str, topic_name: str) -> None:
    base_ts = recent_ms()
    timestamps = [base_ts + 100 * i for i in range(6)]  # offsets 0..5 on partition 0

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 2)
        async with producer_for(bootstrap, linger_ms=50) as producer:
            # Two batches of three records, so lookups land inside and across batches.
            for chunk in (range(3), range(3, 6)):
                await send_all(
                    producer,
                    topic_name,
                    [
                        {"partition": 0, "value": b"a%d" % i, "timestamp_ms": timestamps[i]}
                        for i in chunk
                    ],
                )
        tp0, tp1 = TopicPartition(topic_name, 0), TopicPartition(topic_name, 1)
        async with consumer_for(bootstrap) as consumer:
            assert await consumer.beginning_offsets([tp0, tp1]) == {tp0: 0, tp1: 0}
            assert await consumer.end_offsets([tp0, tp1]) == {tp0: 6, tp1: 0}

            async def lookup(ts: int) -> tuple[int, int] | None:
                found = (await consumer.offsets_for_times({tp0: ts}))[tp0]
                return None if found is None else (found.offset, found.timestamp)

            for i, ts in enumerate(timestamps):  # exact
                assert await lookup(ts) == (i, ts)
            assert await lookup(base_ts + 250) == (3, base_ts + 300)  # between
            assert await lookup(base_ts - 10_000) == (0, base_ts)  # before the first
            assert await lookup(0) == (0, base_ts)
            assert await lookup(timestamps[-1] + 1) is None  # after the last
            assert await consumer.offsets_for_times({tp1: base_ts}) == {tp1: None}  # empty
            both = await consumer.offsets_for_times({tp0: base_ts + 401, tp1: 0})
            assert both[tp1] is None
            assert both[tp0] is not None
            assert (both[tp0].offset, both[tp0].timestamp) == (5, base_ts + 500)

            # Seeking to a looked-up offset reads from there.
            consumer.assign([tp0])
            found = (await consumer.offsets_for_times({tp0: base_ts + 350}))[tp0]
            consumer.seek(tp0, found.offset)
            records = await get_until(consumer, 2)
            assert [(r.offset, r.value, r.timestamp) for r in records] == [
                (4, b"a4", base_ts + 400),
                (5, b"a5", base_ts + 500),
            ]

    run(test)


# -- idempotent producer ---------------------------------------------------------------------


def test_idempotent_producer_writes_each_record_once(bootstrap: str, topic_name: str) -> None:
    n = 300

    async def test() -> None:
        await create_topic(bootstrap, topic_name, 3)
        async with producer_for(
            bootstrap, enable_idempotence=True, linger_ms=5, max_batch_size=2048
        ) as producer:
            metadata = await send_all(
                producer,
                topic_name,
                [{"key": b"key-%d" % (i % 17), "value": b"value-%06d" % i} for i in range(n)],
            )
            # InitProducerId (v0) gave the producer an id; each partition's sequence advanced
            # by the number of records sent there.
            txn = producer._txn_manager
            assert txn is not None
            assert txn.producer_id >= 0
            assert txn.producer_epoch == 0
            per_partition: dict[int, list[int]] = {}
            for md in metadata:
                per_partition.setdefault(md.partition, []).append(md.offset)
            for p, offsets in per_partition.items():
                assert txn.sequence_number(TopicPartition(topic_name, p)) == len(offsets)
        for offsets in per_partition.values():
            assert offsets == list(range(len(offsets)))  # in order, no gaps or repeats

        partitions = [TopicPartition(topic_name, p) for p in range(3)]
        async with consumer_for(bootstrap, isolation_level="read_committed") as consumer:
            consumer.assign(partitions)
            await consumer.seek_to_beginning(*partitions)
            received = await get_until(consumer, n)
            assert await drain(consumer, 0.5) == []
            ends = {TopicPartition(topic_name, p): len(per_partition.get(p, [])) for p in range(3)}
            assert await consumer.end_offsets(partitions) == ends
            # No transactions: read_committed sees everything, the last stable offset is the
            # high watermark.
            for tp, end in ends.items():
                if end:
                    assert (consumer.highwater(tp), consumer.last_stable_offset(tp)) == (end, end)
        assert sorted(r.value for r in received) == [b"value-%06d" % i for i in range(n)]
        for key in {r.key for r in received}:
            same_key = [r for r in received if r.key == key]
            assert len({r.partition for r in same_key}) == 1
            assert [r.value for r in same_key] == sorted(r.value for r in same_key)

    run(test)


def test_two_idempotent_producers_get_distinct_ids(bootstrap: str, topic_name: str) -> None:
    async def test() -> None:
        await create_topic(bootstrap, topic_name, 1)
        async with (
            producer_for(bootstrap, enable_idempotence=True) as first,
            producer_for(bootstrap, enable_idempotence=True) as second,
        ):
            for i in range(10):
                producer = first if i % 2 == 0 else second
                await producer.send_and_wait(topic_name, b"%d" % i, partition=0)
            assert first._txn_manager.producer_id != second._txn_manager.producer_id
            assert first._txn_manager.sequence_number(TopicPartition(topic_name, 0)) == 5
            assert second._txn_manager.sequence_number(TopicPartition(topic_name, 0)) == 5
        async with consumer_for(bootstrap) as consumer:
            tp = TopicPartition(topic_name, 0)
            consumer.assign([tp])
            await consumer.seek_to_beginning(tp)
            records = await get_until(consumer, 10)
            assert [(r.offset, r.value) for r in records] == [(i, b"%d" % i) for i in range(10)]

    run(test)


# -- admin (aiokafka's own admin client) -----------------------------------------------------


def test_admin_topics_and_groups(bootstrap: str, topic_name: str) -> None:
    group = unique_group(topic_name)

    async def test() -> None:
        async with admin_client(bootstrap) as admin:
            response = await admin.create_topics(
                [NewTopic(topic_name, 2, 1, topic_configs={"retention.ms": "3600000"})]
            )
            assert [(t[0], t[1]) for t in response.topic_errors] == [(topic_name, 0)]
            response = await admin.create_topics([NewTopic(topic_name, 2, 1)])
            assert [(t[0], t[1]) for t in response.topic_errors] == [
                (topic_name, TopicAlreadyExistsError.errno)
            ]
            assert topic_name in await admin.list_topics()

        async with producer_for(bootstrap) as producer:
            await send_all(
                producer, topic_name, [{"partition": i % 2, "value": b"%d" % i} for i in range(4)]
            )
        async with consumer_for(bootstrap, topic_name, group_id=group) as consumer:
            await get_until(consumer, 4)
            await consumer.commit()
            async with admin_client(bootstrap) as admin:
                groups = await admin.list_consumer_groups()
                assert (group, "consumer") in {(g[0], g[1]) for g in groups}
                [response] = await admin.describe_consumer_groups([group])
                [described] = response.groups
                # (error_code, group_id, state, protocol_type, protocol, members, ...)
                assert described[:5] == (0, group, "Stable", "consumer", "roundrobin")
                assert len(described[5]) == 1

        async with admin_client(bootstrap) as admin:
            offsets = await admin.list_consumer_group_offsets(group)
            assert {tp: om.offset for tp, om in offsets.items()} == {
                TopicPartition(topic_name, 0): 2,
                TopicPartition(topic_name, 1): 2,
            }
            await admin.delete_topics([topic_name])
            assert topic_name not in await admin.list_topics()

    run(test)


def test_admin_configs_partitions_and_cluster(bootstrap: str, topic_name: str) -> None:
    async def configs(admin: AIOKafkaAdminClient) -> dict[str, tuple[str, int]]:
        """``{name: (value, config_source)}`` of every config of the topic."""
        [response] = await admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, topic_name)]
        )
        [(error_code, _, resource_type, name, entries)] = response.resources
        assert (error_code, resource_type, name) == (0, ConfigResourceType.TOPIC, topic_name)
        return {e[0]: (e[1], e[3]) for e in entries}

    async def test() -> None:
        async with admin_client(bootstrap) as admin:
            await admin.create_topics(
                [NewTopic(topic_name, 1, 1, topic_configs={"retention.ms": "3600000"})]
            )
            every = await configs(admin)
            assert every["retention.ms"] == ("3600000", DYNAMIC_TOPIC_CONFIG)
            assert every["segment.bytes"] == ("1073741824", DEFAULT_CONFIG)
            assert every["cleanup.policy"] == ("delete", DEFAULT_CONFIG)

            # AlterConfigs replaces the whole set of overrides.
            [response] = await admin.alter_configs(
                [ConfigResource(ConfigResourceType.TOPIC, topic_name, {"segment.ms": "600000"})]
            )
            assert [tuple(r[:2]) for r in response.resources] == [(0, None)]
            every = await configs(admin)
            assert every["segment.ms"] == ("600000", DYNAMIC_TOPIC_CONFIG)
            assert every["retention.ms"] == ("604800000", DEFAULT_CONFIG)

            response = await admin.create_partitions({topic_name: NewPartitions(3)})
            assert [tuple(t) for t in response.topic_errors] == [(topic_name, 0, None)]
            [described] = await admin.describe_topics([topic_name])
            assert sorted(p["partition"] for p in described["partitions"]) == [0, 1, 2]

            cluster = await admin.describe_cluster()
            [broker] = cluster["brokers"]
            assert f"{broker['host']}:{broker['port']}" == bootstrap
            assert cluster["controller_id"] == broker["node_id"]

    run(test)
