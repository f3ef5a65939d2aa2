"""Kafka transactions (KIP-98/KIP-447) against the broker, with all three clients' APIs.

What is checked, with exact offsets (every commit or abort adds a marker at the log end):

* read_committed sees exactly the committed records, in order; read_uncommitted sees the
  aborted ones too; ListOffsets "latest" with isolation read_committed is the last stable
  offset (LSO): the first offset of the oldest open transaction.
* consume-transform-produce: offsets sent with the transaction become the group's
  committed offsets only when it commits, and OffsetFetch with require_stable refuses
  (UNSTABLE_OFFSET_COMMIT) while they are pending.
  TxnOffsetCommit from a stale generation or a departed member is refused (KIP-447).
* a zombie producer is fenced by a newer epoch and its open transaction is aborted; its
  KIP-360 epoch bump is refused too.
* DescribeTransactions / ListTransactions report states, epochs, partitions and times.
* transactions left open by a killed producer are aborted on timeout.
* after ``kill -9`` of the broker, committed and aborted transactions read back the same,
  and open ones stay invisible until they are aborted.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka import TopicPartition as AioTopicPartition
from aiokafka.errors import ProducerFenced
from aiokafka.structs import OffsetAndMetadata as AioOffsetAndMetadata
from confluent_kafka import (
    OFFSET_INVALID,
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, OffsetAndMetadata
from kafka import TopicPartition as KpTopicPartition
from kafka.errors import (
    InvalidProducerEpochError,
    KafkaTimeoutError,
    ProducerFencedError,
    TransactionalIdNotFoundError,
)
from kafka.errors import KafkaError as KafkaPythonError

from seaway.broker import BrokerProcess
from tests.broker.clients import create_topic, produce, quiet

pytestmark = pytest.mark.timeout(60)

COMMITTED, UNCOMMITTED = "read_committed", "read_uncommitted"
CLIENTS = ("confluent", "kafka-python", "aiokafka")

# (partition, offset, value) of one record as a consumer delivered it
Rec = tuple[int, int, bytes]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# -- reading with every client ---------------------------------------------------------------


def _confluent_consumer(bootstrap: str, isolation: str, **config: Any) -> Consumer:
    return Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": unique("reader"),
                "isolation.level": isolation,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                **config,
            }
        )
    )


def _read_confluent(
    bootstrap: str, topic: str, partitions: int, isolation: str, expected: int, settle: float
) -> list[Rec]:
    consumer = _confluent_consumer(bootstrap, isolation)
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: list[Rec] = []
    try:
        deadline = time.monotonic() + 20
        while len(out) < expected and time.monotonic() < deadline:
            out += _confluent_records(consumer.consume(100, 0.2))
        quiet_until = time.monotonic() + settle
        while time.monotonic() < quiet_until:
            out += _confluent_records(consumer.consume(100, 0.1))
    finally:
        consumer.close()
    return out


def _confluent_records(messages: list[Any]) -> list[Rec]:
    out = []
    for msg in messages:
        if msg.error():
            raise KafkaException(msg.error())
        out.append((msg.partition(), msg.offset(), msg.value()))
    return out


def _read_kafka_python(
    bootstrap: str, topic: str, partitions: int, isolation: str, expected: int, settle: float
) -> list[Rec]:
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        isolation_level=isolation,
        enable_auto_commit=False,
        request_timeout_ms=10_000,
    )
    tps = [KpTopicPartition(topic, p) for p in range(partitions)]
    consumer.assign(tps)
    consumer.seek_to_beginning(*tps)
    out: list[Rec] = []

    def poll(timeout_ms: int) -> None:
        for records in consumer.poll(timeout_ms=timeout_ms).values():
            out.extend((r.partition, r.offset, r.value) for r in records)

    try:
        deadline = time.monotonic() + 20
        while len(out) < expected and time.monotonic() < deadline:
            poll(200)
        quiet_until = time.monotonic() + settle
        while time.monotonic() < quiet_until:
            poll(100)
    finally:
        consumer.close()
    return out


def _read_aiokafka(
    bootstrap: str, topic: str, partitions: int, isolation: str, expected: int, settle: float
) -> list[Rec]:
    async def read() -> list[Rec]:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            isolation_level=isolation,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            request_timeout_ms=10_000,
        )
        await consumer.start()
        tps = [AioTopicPartition(topic, p) for p in range(partitions)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        out: list[Rec] = []

        async def poll(timeout_ms: int) -> None:
            for records in (await consumer.getmany(timeout_ms=timeout_ms)).values():
                out.extend((r.partition, r.offset, r.value) for r in records)

        try:
            deadline = time.monotonic() + 20
            while len(out) < expected and time.monotonic() < deadline:
                await poll(200)
            quiet_until = time.monotonic() + settle
            while time.monotonic() < quiet_until:
                await poll(100)
        finally:
            await consumer.stop()
        return out

    return asyncio.run(read())


READERS: dict[str, Callable[..., list[Rec]]] = {
    "confluent": _read_confluent,
    "kafka-python": _read_kafka_python,
    "aiokafka": _read_aiokafka,
}


def read_all(
    bootstrap: str,
    topic: str,
    partitions: int,
    isolation: str,
    expected: int,
    client: str = "confluent",
    settle: float = 0.3,
) -> list[Rec]:
    """Every record from the start of each partition, grouped by partition.

    Within a partition the records stay in delivery order, so comparing with a list in
    offset order also checks the order. Reads until ``expected`` arrived, then ``settle``
    seconds more to catch any extra one.
    """
    records = READERS[client](bootstrap, topic, partitions, isolation, expected, settle)
    return sorted(records, key=lambda r: r[0])  # stable: keeps the order within a partition


def check_readers(
    bootstrap: str,
    topic: str,
    partitions: int,
    committed: list[Rec],
    uncommitted: list[Rec],
    clients: tuple[str, ...] = CLIENTS,
) -> None:
    """Each client's read_committed and read_uncommitted consumers see exactly these."""
    for client in clients:
        got = read_all(bootstrap, topic, partitions, COMMITTED, len(committed), client)
        assert got == committed, f"{client} read_committed"
        got = read_all(bootstrap, topic, partitions, UNCOMMITTED, len(uncommitted), client)
        assert got == uncommitted, f"{client} read_uncommitted"


def end_offsets(bootstrap: str, topic: str, partitions: int, isolation: str) -> dict[str, Any]:
    """ListOffsets "latest" per partition, as each client asks for it with ``isolation``."""
    consumer = _confluent_consumer(bootstrap, isolation)
    try:
        confluent = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1]
            for p in range(partitions)
        }
    finally:
        consumer.close()
    kp = KafkaConsumer(
        bootstrap_servers=bootstrap, isolation_level=isolation, request_timeout_ms=10_000
    )
    try:
        tps = [KpTopicPartition(topic, p) for p in range(partitions)]
        kafka_python = {tp.partition: o for tp, o in kp.end_offsets(tps).items()}
    finally:
        kp.close()

    async def aio() -> dict[int, int]:
        c = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, isolation_level=isolation, request_timeout_ms=10_000
        )
        await c.start()
        try:
            ends = await c.end_offsets([AioTopicPartition(topic, p) for p in range(partitions)])
        finally:
            await c.stop()
        return {tp.partition: o for tp, o in ends.items()}

    return {"confluent": confluent, "kafka-python": kafka_python, "aiokafka": asyncio.run(aio())}


def assert_end_offsets(
    bootstrap: str,
    topic: str,
    partitions: int,
    committed: dict[int, int],
    uncommitted: dict[int, int],
) -> None:
    assert end_offsets(bootstrap, topic, partitions, COMMITTED) == dict.fromkeys(
        CLIENTS, committed
    ), "read_committed latest offsets (the last stable offset)"
    assert end_offsets(bootstrap, topic, partitions, UNCOMMITTED) == dict.fromkeys(
        CLIENTS, uncommitted
    ), "read_uncommitted latest offsets (the high watermark)"


def describe_txn(bootstrap: str, transactional_id: str) -> Any:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    try:
        return admin.describe_transactions([transactional_id])[transactional_id]
    finally:
        admin.close()


def txn_producer(bootstrap: str, transactional_id: str, **config: Any) -> Producer:
    producer = Producer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "transactional.id": transactional_id,
                "linger.ms": 5,
                **config,
            }
        )
    )
    producer.init_transactions(30)
    return producer


@contextmanager
def kp_producer(bootstrap: str, transactional_id: str) -> Iterator[KafkaProducer]:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, transactional_id=transactional_id, request_timeout_ms=10_000
    )
    try:
        producer.init_transactions()
        yield producer
    finally:
        producer.close(timeout=5)


def poll_confluent(consumer: Consumer, seconds: float) -> list[Rec]:
    """What ``consumer`` delivers within ``seconds``."""
    out: list[Rec] = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        out += _confluent_records(consumer.consume(100, 0.1))
    return out


def poll_confluent_until(consumer: Consumer, count: int, timeout: float = 20) -> list[Rec]:
    out: list[Rec] = []
    deadline = time.monotonic() + timeout
    while len(out) < count:
        assert time.monotonic() < deadline, f"got {out}, wanted {count} records"
        out += _confluent_records(consumer.consume(count - len(out), 0.2))
    return out


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


# -- 1. commit / abort visibility ------------------------------------------------------------

# Every client runs the same three transactions on a 2-partition topic:
#   A (commit): a0, a1 -> p0; a2 -> p1     B (abort, flushed first): b0 -> p0; b1 -> p1
#   C (commit): c0 -> p0
# p0: a0@0 a1@1 COMMIT@2 b0@3 ABORT@4 c0@5 COMMIT@6   p1: a2@0 COMMIT@1 b1@2 ABORT@3
VISIBLE_COMMITTED: list[Rec] = [(0, 0, b"a0"), (0, 1, b"a1"), (0, 5, b"c0"), (1, 0, b"a2")]
VISIBLE_UNCOMMITTED: list[Rec] = sorted([*VISIBLE_COMMITTED, (0, 3, b"b0"), (1, 2, b"b1")])


def _confluent_three_transactions(bootstrap: str, topic: str) -> None:
    producer = txn_producer(bootstrap, unique("vis"))
    producer.begin_transaction()
    producer.produce(topic, b"a0", partition=0)
    producer.produce(topic, b"a1", partition=0)
    producer.produce(topic, b"a2", partition=1)
    producer.commit_transaction(30)
    producer.begin_transaction()
    producer.produce(topic, b"b0", partition=0)
    producer.produce(topic, b"b1", partition=1)
    assert producer.flush(30) == 0  # abort purges what was not sent yet: send it first
    producer.abort_transaction(30)
    producer.begin_transaction()
    producer.produce(topic, b"c0", partition=0)
    producer.commit_transaction(30)


def _kafka_python_three_transactions(bootstrap: str, topic: str) -> None:
    with kp_producer(bootstrap, unique("vis")) as producer:
        producer.begin_transaction()
        futures = [
            producer.send(topic, b"a0", partition=0),
            producer.send(topic, b"a1", partition=0),
            producer.send(topic, b"a2", partition=1),
        ]
        producer.commit_transaction()
        assert [(f.get(5).partition, f.get(5).offset) for f in futures] == [(0, 0), (0, 1), (1, 0)]
        producer.begin_transaction()
        futures = [
            producer.send(topic, b"b0", partition=0),
            producer.send(topic, b"b1", partition=1),
        ]
        producer.flush()
        assert [(f.get(5).partition, f.get(5).offset) for f in futures] == [(0, 3), (1, 2)]
        producer.abort_transaction()
        producer.begin_transaction()
        future = producer.send(topic, b"c0", partition=0)
        producer.commit_transaction()
        assert future.get(5).offset == 5


class _Rollback(Exception):
    pass


def _aiokafka_three_transactions(bootstrap: str, topic: str) -> None:
    async def run() -> None:
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap,
            transactional_id=unique("vis"),
            request_timeout_ms=10_000,
        )
        await producer.start()
        try:
            async with producer.transaction():
                sent = [
                    await producer.send(topic, b"a0", partition=0),
                    await producer.send(topic, b"a1", partition=0),
                    await producer.send(topic, b"a2", partition=1),
                ]
            assert [((md := await f).partition, md.offset) for f in sent] == [
                (0, 0),
                (0, 1),
                (1, 0),
            ]
            # The transaction context aborts when its body raises.
            with pytest.raises(_Rollback):
                async with producer.transaction():
                    md0 = await producer.send_and_wait(topic, b"b0", partition=0)
                    md1 = await producer.send_and_wait(topic, b"b1", partition=1)
                    raise _Rollback
            assert [(md0.partition, md0.offset), (md1.partition, md1.offset)] == [(0, 3), (1, 2)]
            await producer.begin_transaction()
            md = await producer.send_and_wait(topic, b"c0", partition=0)
            await producer.commit_transaction()
            assert md.offset == 5
        finally:
            await producer.stop()

    asyncio.run(run())


PRODUCE_THREE = {
    "confluent": _confluent_three_transactions,
    "kafka-python": _kafka_python_three_transactions,
    "aiokafka": _aiokafka_three_transactions,
}


@pytest.mark.parametrize("client", CLIENTS)
def test_committed_and_aborted_transactions_visibility(
    bootstrap: str, topic_name: str, client: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    PRODUCE_THREE[client](bootstrap, topic_name)
    check_readers(bootstrap, topic_name, 2, VISIBLE_COMMITTED, VISIBLE_UNCOMMITTED)
    # A read_committed fetch starting inside the aborted transaction still drops it.
    consumer = _confluent_consumer(bootstrap, COMMITTED)
    consumer.assign([TopicPartition(topic_name, 0, 3), TopicPartition(topic_name, 1, 2)])
    try:
        assert poll_confluent_until(consumer, 1) == [(0, 5, b"c0")]
        assert poll_confluent(consumer, 0.3) == []
    finally:
        consumer.close()
    # Nothing is open: the last stable offset is the high watermark, markers included.
    assert_end_offsets(bootstrap, topic_name, 2, {0: 7, 1: 4}, {0: 7, 1: 4})


def test_open_transactions_hold_back_read_committed_until_they_end(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    first = txn_producer(bootstrap, unique("first"))
    second = txn_producer(bootstrap, unique("second"))
    rc = _confluent_consumer(bootstrap, COMMITTED)
    rc.assign([TopicPartition(topic_name, 0, 0)])
    try:
        assert produce(bootstrap, topic_name, [(None, b"x0", 0)]) == [(0, 0)]
        first.begin_transaction()
        first.produce(topic_name, b"t0", partition=0)
        assert first.flush(30) == 0  # t0@1
        second.begin_transaction()
        second.produce(topic_name, b"u0", partition=0)
        assert second.flush(30) == 0  # u0@2
        first.produce(topic_name, b"t1", partition=0)
        assert first.flush(30) == 0  # t1@3
        assert produce(bootstrap, topic_name, [(None, b"x1", 0)]) == [(0, 4)]

        # Two open transactions: the LSO is the first one's first offset.
        assert_end_offsets(bootstrap, topic_name, 1, {0: 1}, {0: 5})
        assert poll_confluent_until(rc, 1) == [(0, 0, b"x0")]
        assert poll_confluent(rc, 1.0) == []  # held back at the LSO, x1 included
        assert read_all(bootstrap, topic_name, 1, UNCOMMITTED, 5) == [
            (0, 0, b"x0"),
            (0, 1, b"t0"),
            (0, 2, b"u0"),
            (0, 3, b"t1"),
            (0, 4, b"x1"),
        ]

        first.commit_transaction(30)  # COMMIT@5
        # The second transaction is still open: the LSO moves only up to its first offset.
        assert_end_offsets(bootstrap, topic_name, 1, {0: 2}, {0: 6})
        assert poll_confluent_until(rc, 1) == [(0, 1, b"t0")]
        assert poll_confluent(rc, 1.0) == []

        assert second.flush(30) == 0
        second.abort_transaction(30)  # ABORT@6
        assert_end_offsets(bootstrap, topic_name, 1, {0: 7}, {0: 7})
        assert poll_confluent_until(rc, 2) == [(0, 3, b"t1"), (0, 4, b"x1")]
        assert poll_confluent(rc, 0.5) == []  # u0 is never delivered
    finally:
        rc.close()
    check_readers(
        bootstrap,
        topic_name,
        1,
        [(0, 0, b"x0"), (0, 1, b"t0"), (0, 3, b"t1"), (0, 4, b"x1")],
        [(0, 0, b"x0"), (0, 1, b"t0"), (0, 2, b"u0"), (0, 3, b"t1"), (0, 4, b"x1")],
    )


# -- 2. consume-transform-produce -----------------------------------------------------------
#
# Input: v0..v5 on one partition. Round 1 processes v0-v2 and commits (offset 3); round 2
# processes v3-v5 and aborts; round 3 rewinds to the committed offset, redoes v3-v5 and
# commits (offset 6). Output: V0@0 V1@1 V2@2 COMMIT@3 V3@4 V4@5 V5@6 ABORT@7
# V3@8 V4@9 V5@10 COMMIT@11.

CTP_COMMITTED: list[Rec] = [
    (0, 0, b"V0"),
    (0, 1, b"V1"),
    (0, 2, b"V2"),
    (0, 8, b"V3"),
    (0, 9, b"V4"),
    (0, 10, b"V5"),
]
CTP_UNCOMMITTED: list[Rec] = sorted([*CTP_COMMITTED, (0, 4, b"V3"), (0, 5, b"V4"), (0, 6, b"V5")])


def _ctp_topics(bootstrap: str, topic: str) -> tuple[str, str]:
    source, sink = f"{topic}-in", f"{topic}-out"
    create_topic(bootstrap, source, partitions=1)
    create_topic(bootstrap, sink, partitions=1)
    produce(bootstrap, source, [(None, f"v{i}".encode(), 0) for i in range(6)])
    return source, sink


def _admin_offsets(admin: AdminClient, group: str, topic: str, require_stable: bool) -> Any:
    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0)])]
    result = admin.list_consumer_group_offsets(request, require_stable=require_stable)
    (tp,) = result[group].result(10).topic_partitions
    return tp.offset, tp.error.code() if tp.error else None


def test_confluent_consume_transform_produce(bootstrap: str, topic_name: str) -> None:
    source, sink = _ctp_topics(bootstrap, topic_name)
    group = unique("ctp")
    consumer = _confluent_consumer(bootstrap, COMMITTED, **{"group.id": group})
    consumer.subscribe([source])
    producer = txn_producer(bootstrap, unique("ctp"))
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    source_tp = TopicPartition(source, 0)

    def process(expected: list[bytes]) -> None:
        values = [v for _, _, v in poll_confluent_until(consumer, len(expected))]
        assert values == expected
        producer.begin_transaction()
        for value in values:
            producer.produce(sink, value.upper(), partition=0)
        producer.send_offsets_to_transaction(
            consumer.position([source_tp]), consumer.consumer_group_metadata(), 30
        )

    try:
        process([b"v0", b"v1", b"v2"])
        # Pending: require_stable refuses, a plain OffsetFetch does not see the offset.
        assert _admin_offsets(admin, group, source, True) == (
            OFFSET_INVALID,
            KafkaError.UNSTABLE_OFFSET_COMMIT,
        )
        assert _admin_offsets(admin, group, source, False) == (OFFSET_INVALID, None)
        producer.commit_transaction(30)
        assert _admin_offsets(admin, group, source, True) == (3, None)
        assert [tp.offset for tp in consumer.committed([source_tp], 10)] == [3]
        assert read_all(bootstrap, sink, 1, COMMITTED, 3) == CTP_COMMITTED[:3]

        process([b"v3", b"v4", b"v5"])
        assert producer.flush(30) == 0
        assert _admin_offsets(admin, group, source, True) == (3, KafkaError.UNSTABLE_OFFSET_COMMIT)
        assert _admin_offsets(admin, group, source, False) == (3, None)
        # A read_committed consumer's committed() asks with require_stable: librdkafka
        # retries UNSTABLE_OFFSET_COMMIT until the transaction ends.
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(consumer.committed, [source_tp], 20)
            time.sleep(1.0)
            assert not pending.done()
            producer.abort_transaction(30)
            assert [tp.offset for tp in pending.result(20)] == [3]  # the abort dropped 6
        assert _admin_offsets(admin, group, source, True) == (3, None)
        assert read_all(bootstrap, sink, 1, COMMITTED, 3) == CTP_COMMITTED[:3]

        consumer.seek(TopicPartition(source, 0, 3))  # redo from the committed offset
        process([b"v3", b"v4", b"v5"])
        producer.commit_transaction(30)
        assert _admin_offsets(admin, group, source, True) == (6, None)
        assert [tp.offset for tp in consumer.committed([source_tp], 10)] == [6]
    finally:
        consumer.close()
    check_readers(bootstrap, sink, 1, CTP_COMMITTED, CTP_UNCOMMITTED)


def test_kafka_python_consume_transform_produce(bootstrap: str, topic_name: str) -> None:
    source, sink = _ctp_topics(bootstrap, topic_name)
    group = unique("ctp")
    consumer = KafkaConsumer(
        source,
        bootstrap_servers=bootstrap,
        group_id=group,
        isolation_level=COMMITTED,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        request_timeout_ms=10_000,
    )
    tp = KpTopicPartition(source, 0)
    try:
        with kp_producer(bootstrap, unique("ctp")) as producer:

            def process(expected: list[bytes]) -> None:
                values: list[bytes] = []
                deadline = time.monotonic() + 20
                while len(values) < len(expected):
                    assert time.monotonic() < deadline, values
                    batch = consumer.poll(200, max_records=len(expected) - len(values))
                    values += [r.value for records in batch.values() for r in records]
                assert values == expected
                producer.begin_transaction()
                for value in values:
                    producer.send(sink, value.upper(), partition=0)
                offsets = {tp: OffsetAndMetadata(consumer.position(tp), "", -1)}
                producer.send_offsets_to_transaction(offsets, consumer.group_metadata())

            process([b"v0", b"v1", b"v2"])
            producer.commit_transaction()
            assert consumer.committed(tp) == 3

            process([b"v3", b"v4", b"v5"])
            producer.flush()
            # read_committed: OffsetFetch asks for stable offsets and keeps retrying.
            with pytest.raises(KafkaTimeoutError):
                consumer.committed(tp, timeout_ms=1000)
            producer.abort_transaction()
            assert consumer.committed(tp) == 3

            consumer.seek(tp, 3)
            process([b"v3", b"v4", b"v5"])
            producer.commit_transaction()
            assert consumer.committed(tp) == 6
    finally:
        consumer.close()
    check_readers(bootstrap, sink, 1, CTP_COMMITTED, CTP_UNCOMMITTED)


def test_aiokafka_consume_transform_produce(bootstrap: str, topic_name: str) -> None:
    source, sink = _ctp_topics(bootstrap, topic_name)
    group = unique("ctp")

    async def run() -> None:
        consumer = AIOKafkaConsumer(
            source,
            bootstrap_servers=bootstrap,
            group_id=group,
            isolation_level=COMMITTED,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            request_timeout_ms=10_000,
        )
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap, transactional_id=unique("ctp"), request_timeout_ms=10_000
        )
        await consumer.start()
        await producer.start()
        tp = AioTopicPartition(source, 0)

        async def process(expected: list[bytes]) -> None:
            values: list[bytes] = []
            deadline = time.monotonic() + 20
            while len(values) < len(expected):
                assert time.monotonic() < deadline, values
                batch = await consumer.getmany(
                    timeout_ms=200, max_records=len(expected) - len(values)
                )
                values += [r.value for records in batch.values() for r in records]
            assert values == expected
            await producer.begin_transaction()
            for value in values:
                await producer.send_and_wait(sink, value.upper(), partition=0)
            offsets = {tp: AioOffsetAndMetadata(await consumer.position(tp), "")}
            await producer.send_offsets_to_transaction(offsets, group)

        try:
            await process([b"v0", b"v1", b"v2"])
            assert await consumer.committed(tp) is None  # pending: not visible yet
            await producer.commit_transaction()
            assert await consumer.committed(tp) == 3

            await process([b"v3", b"v4", b"v5"])
            assert await consumer.committed(tp) == 3  # the pending 6 is not visible
            await producer.abort_transaction()
            assert await consumer.committed(tp) == 3

            consumer.seek(tp, 3)
            await process([b"v3", b"v4", b"v5"])
            await producer.commit_transaction()
            assert await consumer.committed(tp) == 6
        finally:
            await producer.stop()
            await consumer.stop()

    asyncio.run(run())
    check_readers(bootstrap, sink, 1, CTP_COMMITTED, CTP_UNCOMMITTED)


def test_txn_offset_commit_fences_stale_group_members(bootstrap: str, topic_name: str) -> None:
    """KIP-447: TxnOffsetCommit carries the consumer's generation and member id, and the
    group coordinator refuses them unless they are current (GroupCoordinator
    ``validateOffsetCommit``): ILLEGAL_GENERATION for an old generation, UNKNOWN_MEMBER_ID
    for a member no longer in the group, whether or not other members remain."""
    source, sink = f"{topic_name}-in", f"{topic_name}-out"
    create_topic(bootstrap, source, partitions=2)
    create_topic(bootstrap, sink, partitions=1)
    group = unique("kip447")
    fast = {"group.id": group, "heartbeat.interval.ms": 300}
    first = _confluent_consumer(bootstrap, COMMITTED, **fast)
    second = _confluent_consumer(bootstrap, COMMITTED, **fast)
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    producer = txn_producer(bootstrap, unique("kip447"))

    def attempt(metadata: Any, offset: int) -> int | None:
        """Commit ``offset`` for source partition 0 with ``metadata``; the error code if any."""
        producer.begin_transaction()
        producer.produce(sink, b"out", partition=0)
        try:
            producer.send_offsets_to_transaction([TopicPartition(source, 0, offset)], metadata, 30)
        except KafkaException as e:
            err = e.args[0]
            assert (err.fatal(), err.txn_requires_abort()) == (False, True), err
            producer.abort_transaction(30)
            return int(err.code())
        producer.commit_transaction(30)
        return None

    def wait_for_assignment(sizes: tuple[int, ...], *consumers: Consumer) -> None:
        deadline = time.monotonic() + 20
        while tuple(len(c.assignment()) for c in consumers) != sizes:
            assert time.monotonic() < deadline, [c.assignment() for c in consumers]
            for c in consumers:
                c.poll(0.05)

    try:
        first.subscribe([source])
        wait_for_assignment((2,), first)
        stale = first.consumer_group_metadata()
        second.subscribe([source])
        wait_for_assignment((1, 1), first, second)  # a rebalance: a new generation

        assert attempt(stale, 1) == KafkaError.ILLEGAL_GENERATION
        assert attempt(first.consumer_group_metadata(), 2) is None
        assert _admin_offsets(admin, group, source, True) == (2, None)

        departed = first.consumer_group_metadata()
        first.close()
        assert attempt(departed, 3) == KafkaError.UNKNOWN_MEMBER_ID  # the group has others

        last = second.consumer_group_metadata()
        second.close()
        assert attempt(last, 4) == KafkaError.UNKNOWN_MEMBER_ID  # the group is now empty
        assert _admin_offsets(admin, group, source, True) == (2, None)
    finally:
        for consumer in (first, second):
            try:
                consumer.close()
            except RuntimeError:
                pass  # already closed


# -- 3. zombie fencing -----------------------------------------------------------------------
#
# The zombie's z0@0 is aborted by the new producer's InitProducerId (ABORT@1, written with
# the bumped epoch 1; the new producer gets epoch 2); the new producer commits w0@2
# (COMMIT@3). The zombie's later attempts fail and write nothing.

FENCED_COMMITTED: list[Rec] = [(0, 2, b"w0")]
FENCED_UNCOMMITTED: list[Rec] = [(0, 0, b"z0"), (0, 2, b"w0")]


def _check_fenced_outcome(bootstrap: str, topic: str, txn_id: str, producer_id: int) -> None:
    described = describe_txn(bootstrap, txn_id)
    assert (described.state.value, described.producer_id, described.producer_epoch) == (
        "CompleteCommit",
        producer_id,
        2,
    )
    check_readers(bootstrap, topic, 1, FENCED_COMMITTED, FENCED_UNCOMMITTED)
    assert_end_offsets(bootstrap, topic, 1, {0: 4}, {0: 4})


def _assert_zombie_aborted(bootstrap: str, txn_id: str, producer_id: int) -> None:
    described = describe_txn(bootstrap, txn_id)
    assert (described.state.value, described.producer_id, described.producer_epoch) == (
        "Empty",
        producer_id,
        2,
    )


def test_confluent_zombie_producer_is_fenced(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    txn_id = unique("zombie")
    zombie = txn_producer(bootstrap, txn_id)
    producer_id = describe_txn(bootstrap, txn_id).producer_id
    zombie.begin_transaction()
    zombie.produce(topic_name, b"z0", partition=0)
    assert zombie.flush(30) == 0
    assert describe_txn(bootstrap, txn_id).state.value == "Ongoing"

    successor = txn_producer(bootstrap, txn_id)
    _assert_zombie_aborted(bootstrap, txn_id, producer_id)
    # The zombie's open transaction was aborted: read_committed is no longer held back.
    assert_end_offsets(bootstrap, topic_name, 1, {0: 2}, {0: 2})

    # The partition refuses the old epoch; librdkafka raises the fatal error from flush().
    zombie.produce(topic_name, b"z1", partition=0)
    with pytest.raises(KafkaException) as refused:
        zombie.flush(30)
    assert (refused.value.args[0].code(), refused.value.args[0].fatal()) == (
        KafkaError._FENCED,
        True,
    )
    with pytest.raises(KafkaException) as failed:
        zombie.commit_transaction(30)
    assert (failed.value.args[0].code(), failed.value.args[0].fatal()) == (
        KafkaError._FENCED,
        True,
    )

    successor.begin_transaction()
    successor.produce(topic_name, b"w0", partition=0)
    successor.commit_transaction(30)
    _check_fenced_outcome(bootstrap, topic_name, txn_id, producer_id)


def test_kafka_python_zombie_producer_is_fenced(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    txn_id = unique("zombie")
    with kp_producer(bootstrap, txn_id) as zombie:
        producer_id = describe_txn(bootstrap, txn_id).producer_id
        zombie.begin_transaction()
        assert zombie.send(topic_name, b"z0", partition=0).get(10).offset == 0
        with kp_producer(bootstrap, txn_id) as successor:
            _assert_zombie_aborted(bootstrap, txn_id, producer_id)
            with pytest.raises(ProducerFencedError):
                zombie.commit_transaction()  # EndTxn with the old epoch
            with pytest.raises(KafkaPythonError, match="ProducerFencedError"):
                zombie.send(topic_name, b"z1", partition=0)  # a fatal state: refused locally
            successor.begin_transaction()
            assert successor.send(topic_name, b"w0", partition=0).get(10).offset == 2
            successor.commit_transaction()
    _check_fenced_outcome(bootstrap, topic_name, txn_id, producer_id)


def test_kafka_python_zombie_epoch_bump_is_fenced(bootstrap: str, topic_name: str) -> None:
    """A zombie's KIP-360 epoch bump must not take the transactional id back.

    kafka-python answers INVALID_PRODUCER_EPOCH on a produce by bumping its epoch: an
    InitProducerId v3+ carrying its producer id and its (stale) epoch 0. Kafka answers
    PRODUCER_FENCED, since 0 is neither the current epoch (2) nor the previous one
    (TransactionMetadata.prepareIncrementProducerEpoch); handing out epoch 3 instead
    would fence the legitimate successor.
    """
    create_topic(bootstrap, topic_name, partitions=1)
    txn_id = unique("bump")
    with kp_producer(bootstrap, txn_id) as zombie:
        producer_id = describe_txn(bootstrap, txn_id).producer_id
        zombie.begin_transaction()
        assert zombie.send(topic_name, b"z0", partition=0).get(10).offset == 0
        with kp_producer(bootstrap, txn_id) as successor:
            with pytest.raises(InvalidProducerEpochError):
                zombie.send(topic_name, b"z1", partition=0).get(10)
            manager = zombie._transaction_manager
            assert manager is not None
            wait_until(lambda: not manager.is_bumping_epoch(), 10, "the zombie's epoch bump")
            _assert_zombie_aborted(bootstrap, txn_id, producer_id)  # still epoch 2
            with pytest.raises(KafkaPythonError, match="ProducerFenced"):
                zombie.commit_transaction()
            successor.begin_transaction()
            assert successor.send(topic_name, b"w0", partition=0).get(10).offset == 2
            successor.commit_transaction()
    _check_fenced_outcome(bootstrap, topic_name, txn_id, producer_id)


def test_aiokafka_zombie_producer_is_fenced(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    txn_id = unique("zombie")

    async def run() -> int:
        zombie = AIOKafkaProducer(
            bootstrap_servers=bootstrap, transactional_id=txn_id, request_timeout_ms=10_000
        )
        successor = AIOKafkaProducer(
            bootstrap_servers=bootstrap, transactional_id=txn_id, request_timeout_ms=10_000
        )
        await zombie.start()
        try:
            producer_id = (await asyncio.to_thread(describe_txn, bootstrap, txn_id)).producer_id
            await zombie.begin_transaction()
            assert (await zombie.send_and_wait(topic_name, b"z0", partition=0)).offset == 0
            await successor.start()  # InitProducerId: fences the zombie
            await asyncio.to_thread(_assert_zombie_aborted, bootstrap, txn_id, producer_id)
            with pytest.raises(ProducerFenced):
                await zombie.send_and_wait(topic_name, b"z1", partition=0)
            with pytest.raises(ProducerFenced):
                await zombie.commit_transaction()
            await successor.begin_transaction()
            assert (await successor.send_and_wait(topic_name, b"w0", partition=0)).offset == 2
            await successor.commit_transaction()
        finally:
            await successor.stop()
            try:
                await zombie.stop()
            except ProducerFenced:
                pass
        return producer_id

    producer_id = asyncio.run(run())
    _check_fenced_outcome(bootstrap, topic_name, txn_id, producer_id)


# -- admin view and limits --------------------------------------------------------------------


def test_describe_and_list_transactions(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    txn_id = unique("described")
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)

    def describe() -> tuple[Any, ...]:
        d = admin.describe_transactions([txn_id])[txn_id]
        partitions = {(tp.topic, tp.partition) for tp in d.topic_partitions}
        return d.state.value, d.producer_epoch, d.transaction_timeout_ms, partitions

    def listed(*states: str) -> list[tuple[str, int, str]]:
        listings = admin.list_transactions(state_filters=list(states))
        return [
            (t.transactional_id, t.producer_id, t.state.value)
            for per_broker in listings.values()
            for t in per_broker
            if t.transactional_id == txn_id
        ]

    try:
        producer = txn_producer(bootstrap, txn_id, **{"transaction.timeout.ms": 20000})
        producer_id = admin.describe_transactions([txn_id])[txn_id].producer_id
        assert describe() == ("Empty", 0, 20000, set())
        # No transaction yet: Kafka reports the start time as -1.
        assert admin.describe_transactions([txn_id])[txn_id].transaction_start_time_ms == -1

        before = int(time.time() * 1000)
        producer.begin_transaction()
        producer.produce(topic_name, b"x", partition=0)
        producer.produce(topic_name, b"y", partition=1)
        assert producer.flush(30) == 0
        after = int(time.time() * 1000)
        assert describe() == ("Ongoing", 0, 20000, {(topic_name, 0), (topic_name, 1)})
        start = admin.describe_transactions([txn_id])[txn_id].transaction_start_time_ms
        assert before <= start <= after
        assert listed("Ongoing") == [(txn_id, producer_id, "Ongoing")]
        assert listed() == [(txn_id, producer_id, "Ongoing")]

        producer.commit_transaction(30)
        assert describe() == ("CompleteCommit", 0, 20000, set())
        assert listed("Ongoing") == []
        assert listed("CompleteCommit") == [(txn_id, producer_id, "CompleteCommit")]

        # A new instance: the next epoch, no transaction, so again no start time.
        txn_producer(bootstrap, txn_id, **{"transaction.timeout.ms": 30000})
        assert describe() == ("Empty", 1, 30000, set())
        assert admin.describe_transactions([txn_id])[txn_id].transaction_start_time_ms == -1

        with pytest.raises(TransactionalIdNotFoundError):
            admin.describe_transactions([unique("never-used")])
    finally:
        admin.close()


def test_transaction_timeout_above_the_broker_maximum_is_refused(bootstrap: str) -> None:
    txn_id = unique("too-long")
    producer = Producer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "transactional.id": txn_id,
                "transaction.timeout.ms": 900001,  # transaction.max.timeout.ms is 900000
            }
        )
    )
    with pytest.raises(KafkaException) as refused:
        producer.init_transactions(30)
    assert refused.value.args[0].code() == KafkaError.INVALID_TRANSACTION_TIMEOUT
    with pytest.raises(TransactionalIdNotFoundError):  # nothing was registered
        describe_txn(bootstrap, txn_id)


# -- 4. a transaction left open by a killed producer -----------------------------------------

_HANGING_PRODUCER = """
import sys, time
from confluent_kafka import Producer
bootstrap, txn_id, topic = sys.argv[1:4]
p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id,
              "transaction.timeout.ms": 6000, "log.connection.close": False})
p.init_transactions(30)
p.begin_transaction()
p.produce(topic, b"k0", partition=0)
p.produce(topic, b"k1", partition=0)
assert p.flush(30) == 0
print("ready", flush=True)
time.sleep(120)
"""


def start_hanging_producer(bootstrap: str, txn_id: str, topic: str) -> subprocess.Popen[str]:
    """A transactional producer with an open, flushed transaction, waiting to be killed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HANGING_PRODUCER, bootstrap, txn_id, topic],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # blocks until "ready" or exit
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(f"hanging producer failed: exit {proc.wait()}, said {line!r}")
    return proc


def test_transaction_of_killed_producer_is_aborted_on_timeout(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    txn_id = unique("killed")
    assert produce(bootstrap, topic_name, [(None, b"x0", 0)]) == [(0, 0)]
    proc = start_hanging_producer(bootstrap, txn_id, topic_name)  # k0@1 k1@2
    try:
        assert produce(bootstrap, topic_name, [(None, b"x1", 0)]) == [(0, 3)]
        open_txn = describe_txn(bootstrap, txn_id)
        assert (
            open_txn.state.value,
            open_txn.producer_epoch,
            open_txn.transaction_timeout_ms,
            {(tp.topic, tp.partition) for tp in open_txn.topic_partitions},
        ) == ("Ongoing", 0, 6000, {(topic_name, 0)})
        assert_end_offsets(bootstrap, topic_name, 1, {0: 1}, {0: 4})
    finally:
        proc.kill()
        proc.wait()

    # The coordinator aborts it once transaction.timeout.ms has passed: ABORT@4.
    watcher = _confluent_consumer(bootstrap, COMMITTED)
    try:
        tp = TopicPartition(topic_name, 0)
        wait_until(
            lambda: watcher.get_watermark_offsets(tp, 10)[1] == 5,
            20,
            "the timed-out transaction to be aborted",
        )
    finally:
        watcher.close()
    aborted = describe_txn(bootstrap, txn_id)
    assert (
        aborted.state.value,
        aborted.producer_id,
        aborted.producer_epoch,
        aborted.topic_partitions,
    ) == ("CompleteAbort", open_txn.producer_id, 1, set())  # the abort bumped the epoch
    assert_end_offsets(bootstrap, topic_name, 1, {0: 5}, {0: 5})
    check_readers(
        bootstrap,
        topic_name,
        1,
        [(0, 0, b"x0"), (0, 3, b"x1")],
        [(0, 0, b"x0"), (0, 1, b"k0"), (0, 2, b"k1"), (0, 3, b"x1")],
    )

    # A restarted instance takes the id over with the next epoch and works normally.
    successor = txn_producer(bootstrap, txn_id)
    successor.begin_transaction()
    successor.produce(topic_name, b"y0", partition=0)
    successor.commit_transaction(30)  # y0@5 COMMIT@6
    assert describe_txn(bootstrap, txn_id).producer_epoch == 2
    assert read_all(bootstrap, topic_name, 1, COMMITTED, 3) == [
        (0, 0, b"x0"),
        (0, 3, b"x1"),
        (0, 5, b"y0"),
    ]


# -- 5. the broker killed with kill -9 mid-transaction ---------------------------------------

KILL9_CONFIG = {
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
    "num.partitions": 1,
}


@pytest.mark.timeout(120)
def test_broker_kill9_keeps_transaction_outcomes_and_aborts_open_ones(tmp_path: Path) -> None:
    broker = BrokerProcess(tmp_path / "data", config=KILL9_CONFIG).start()
    try:
        bootstrap = broker.bootstrap_servers
        topic = "txn"
        create_topic(bootstrap, topic, partitions=1)
        # Producer "A": a committed, an aborted, and an open transaction.
        a = txn_producer(bootstrap, "A", **{"reconnect.backoff.max.ms": 200})
        a.begin_transaction()
        a.produce(topic, b"c0", partition=0)
        a.produce(topic, b"c1", partition=0)
        a.commit_transaction(30)  # c0@0 c1@1 COMMIT@2
        a.begin_transaction()
        a.produce(topic, b"a0", partition=0)
        assert a.flush(30) == 0
        a.abort_transaction(30)  # a0@3 ABORT@4
        a.begin_transaction()
        a.produce(topic, b"o0", partition=0)
        assert a.flush(30) == 0  # o0@5, open
        # Producer "B": an open transaction with a short timeout.
        b = txn_producer(
            bootstrap, "B", **{"transaction.timeout.ms": 6000, "reconnect.backoff.max.ms": 200}
        )
        b.begin_transaction()
        b.produce(topic, b"q0", partition=0)
        assert b.flush(30) == 0  # q0@6, open
        assert produce(bootstrap, topic, [(None, b"x0", 0)]) == [(0, 7)]
        assert_end_offsets(bootstrap, topic, 1, {0: 5}, {0: 8})

        broker.kill()
        broker.start()

        committed = [(0, 0, b"c0"), (0, 1, b"c1"), (0, 7, b"x0")]
        uncommitted = [
            (0, 0, b"c0"),
            (0, 1, b"c1"),
            (0, 3, b"a0"),
            (0, 5, b"o0"),
            (0, 6, b"q0"),
            (0, 7, b"x0"),
        ]
        # Both transactions survived the crash open: the LSO is still A's o0.
        assert describe_txn(bootstrap, "A").state.value == "Ongoing"
        assert end_offsets(bootstrap, topic, 1, COMMITTED)["confluent"] == {0: 5}
        assert read_all(bootstrap, topic, 1, COMMITTED, 2, settle=1.0) == committed[:2]

        # B times out and is aborted (ABORT@8); A's open transaction still holds the LSO.
        wait_until(
            lambda: describe_txn(bootstrap, "B").state.value == "CompleteAbort",
            20,
            "B's transaction to time out",
        )
        assert end_offsets(bootstrap, topic, 1, COMMITTED)["confluent"] == {0: 5}
        assert read_all(bootstrap, topic, 1, COMMITTED, 2, settle=0.5) == committed[:2]
        # A new instance of A aborts A's open transaction (ABORT@9) and fences the old one.
        a2 = txn_producer(bootstrap, "A")
        described = describe_txn(bootstrap, "A")
        assert (described.state.value, described.producer_epoch) == ("Empty", 2)
        assert_end_offsets(bootstrap, topic, 1, {0: 10}, {0: 10})
        for old in (a, b):
            with pytest.raises(KafkaException) as failed:
                old.commit_transaction(30)
            assert (failed.value.args[0].code(), failed.value.args[0].fatal()) == (
                KafkaError._FENCED,
                True,
            )
        check_readers(bootstrap, topic, 1, committed, uncommitted)

        a2.begin_transaction()
        a2.produce(topic, b"n0", partition=0)
        a2.commit_transaction(30)  # n0@10 COMMIT@11
        committed.append((0, 10, b"n0"))
        uncommitted.append((0, 10, b"n0"))

        # Again, after the markers: the outcomes and the aborted-transaction index persist.
        broker.kill()
        broker.start()
        assert_end_offsets(bootstrap, topic, 1, {0: 12}, {0: 12})
        check_readers(bootstrap, topic, 1, committed, uncommitted)
        assert [
            (d.state.value, d.producer_epoch)
            for d in (describe_txn(bootstrap, "A"), describe_txn(bootstrap, "B"))
        ] == [("CompleteCommit", 2), ("CompleteAbort", 1)]
    finally:
        broker.stop()


@pytest.mark.timeout(90)
def test_transaction_open_across_broker_kill9_can_still_commit(tmp_path: Path) -> None:
    broker = BrokerProcess(tmp_path / "data", config=KILL9_CONFIG).start()
    try:
        bootstrap = broker.bootstrap_servers
        topic = "txn"
        create_topic(bootstrap, topic, partitions=2)
        producer = txn_producer(bootstrap, "survivor", **{"reconnect.backoff.max.ms": 200})
        producer.begin_transaction()
        producer.produce(topic, b"s0", partition=0)
        producer.produce(topic, b"s1", partition=1)
        assert producer.flush(30) == 0  # s0@p0:0, s1@p1:0

        broker.kill()
        broker.start()

        assert end_offsets(bootstrap, topic, 2, COMMITTED)["confluent"] == {0: 0, 1: 0}
        producer.produce(topic, b"s2", partition=0)
        producer.produce(topic, b"s3", partition=1)
        producer.commit_transaction(30)  # s2@p0:1 COMMIT@p0:2, s3@p1:1 COMMIT@p1:2
        visible = [(0, 0, b"s0"), (0, 1, b"s2"), (1, 0, b"s1"), (1, 1, b"s3")]
        assert_end_offsets(bootstrap, topic, 2, {0: 3, 1: 3}, {0: 3, 1: 3})
        check_readers(bootstrap, topic, 2, visible, visible, clients=("confluent",))
    finally:
        broker.stop()
