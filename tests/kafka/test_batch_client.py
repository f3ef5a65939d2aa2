"""Seaway's batch client against the embedded broker, checked with librdkafka on the other end.

Batches librdkafka wrote (every codec) come back byte for byte; batches the client sends
are read back by librdkafka record for record; read_committed drops aborted transactions;
a transaction's offsets commit with it; a resend after a lost connection doubles nothing.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.kafka.cluster import EARLIEST, LATEST, KafkaCluster, list_offset
from seaway.kafka.fetcher import CorruptBatchError, PartitionFetcher
from seaway.kafka.partitioner import partition_for_key
from seaway.kafka.producer import BatchProducer
from seaway.protocol.errors import KafkaError
from seaway.protocol.record_codec import Record, build_batch, decode_records

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def _create(bootstrap: str, topic: str, partitions: int = 1, **config: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1, config=config)])[topic].result(30)


def _produce(bootstrap: str, topic: str, n: int, codec: str = "none", **extra: Any) -> None:
    producer = Producer(
        {"bootstrap.servers": bootstrap, "compression.type": codec, "linger.ms": 20, **extra}
    )
    for i in range(n):
        producer.produce(
            topic, f"value-{i}".encode() * 3, f"key-{i % 7}".encode(), 0,
            headers=[("h", f"{i}".encode())], timestamp=1_700_000_000_000 + i,
        )  # fmt: skip
    assert producer.flush(30) == 0


def _consume(bootstrap: str, topic: str, n: int, isolation: str = "read_uncommitted") -> list[Any]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"check-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "isolation.level": isolation,
            "enable.partition.eof": True,
        }
    )
    consumer.subscribe([topic])
    out: list[Any] = []
    eof = False
    while not eof:
        for m in consumer.consume(1000, timeout=0.5):
            if m.error():
                eof = m.error().code() == -191 and len(out) >= n
                continue
            out.append(m)
    consumer.close()
    return out


@pytest.fixture
def cluster(bootstrap: str) -> Any:
    c = KafkaCluster(bootstrap, client_id="test-batch-client")
    yield c
    c.close()


@pytest.mark.parametrize("codec", CODECS)
def test_fetch_returns_librdkafka_batches_unchanged(
    bootstrap: str, cluster: KafkaCluster, topic_name: str, codec: str
) -> None:
    _create(bootstrap, topic_name)
    _produce(bootstrap, topic_name, 500, codec)
    end = list_offset(cluster, topic_name, 0, LATEST)
    assert end == 500
    batches = list(PartitionFetcher(cluster, topic_name, 0).batches(0, end))
    expected = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}[codec]
    assert {b.header.compression for b in batches} == {expected}
    records = [r for b in batches for r in decode_records(b.data)[1]]
    consumed = _consume(bootstrap, topic_name, 500)
    assert [(r.offset, r.key, r.value, r.timestamp) for r in records] == [
        (m.offset(), m.key(), m.value(), m.timestamp()[1]) for m in consumed
    ]
    assert [dict(r.headers) for r in records] == [
        {k.encode(): v for k, v in m.headers()} for m in consumed
    ]
    # A range starting inside a batch still yields that batch, whole.
    mid = list(PartitionFetcher(cluster, topic_name, 0).batches(250, 260))
    assert mid[0].header.base_offset <= 250 <= mid[-1].header.last_offset


@pytest.mark.parametrize("codec", [0, 4])
def test_produced_batches_read_back_by_librdkafka(
    bootstrap: str, cluster: KafkaCluster, topic_name: str, codec: int
) -> None:
    _create(bootstrap, topic_name, partitions=2)
    producer = BatchProducer(cluster, max_in_flight=3)
    sent = []
    for b in range(20):
        records = [
            Record(
                0, 1_700_000_000_000 + b * 10 + i, f"k{b}-{i}".encode(), b"v" * i, ((b"n", b"x"),)
            )
            for i in range(10)
        ]
        sent += records
        producer.send(topic_name, 1, build_batch(records, compression=codec), tag=b)
    producer.flush()
    acked = producer.take_acked()
    assert [d.tag for d in acked] == list(range(20))
    assert [d.base_offset for d in acked] == list(range(0, 200, 10))
    got = [m for m in _consume(bootstrap, topic_name, 200) if m.partition() == 1]
    assert [(m.key(), m.value(), m.timestamp()[1], m.headers()) for m in got] == [
        (r.key, r.value, r.timestamp, [("n", b"x")]) for r in sent
    ]


def test_send_all_packs_partitions_into_one_request(
    bootstrap: str, cluster: KafkaCluster, topic_name: str
) -> None:
    """Batches for several partitions of one leader share a Produce request; a partition's
    second batch goes in the next one, in order. A lost connection sends them all again
    without doubling any."""
    _create(bootstrap, topic_name, partitions=3)
    producer = BatchProducer(cluster)

    def batch(value: bytes) -> bytes:
        return build_batch([Record(0, 1_700_000_000_000, None, value)] * 2)

    items = [(topic_name, p, batch(b"%d" % p), p) for p in range(3)]
    items.append((topic_name, 0, batch(b"0-again"), "again"))
    first = producer.send_all(items)
    assert first[0].sent is first[1].sent is first[2].sent  # one request for p0..p2
    assert first[3].sent is not None and first[3].sent is not first[0].sent
    producer.flush()
    acked = {(d.partition, d.tag): d.base_offset for d in producer.take_acked()}
    assert acked == {(0, 0): 0, (1, 1): 0, (2, 2): 0, (0, "again"): 2}

    producer.send_all([(topic_name, p, batch(b"late"), None) for p in range(3)])
    for connection in list(cluster._connections.values()):
        connection._sock.close()  # answers unread: every batch goes again, same sequences
    producer.flush()
    assert sorted(d.base_offset for d in producer.take_acked()) == [2, 2, 4]
    assert [list_offset(cluster, topic_name, p, LATEST) for p in range(3)] == [6, 4, 4]
    values = [(m.partition(), m.value()) for m in _consume(bootstrap, topic_name, 14)]
    assert values.count((0, b"0-again")) == 2 and values.count((1, b"late")) == 2


def test_read_committed_drops_aborted_transactions(
    bootstrap: str, cluster: KafkaCluster, topic_name: str
) -> None:
    _create(bootstrap, topic_name)
    for commit in (True, False, True, False, True):
        producer = BatchProducer(cluster, transactional_id=f"t-{topic_name}")
        producer.begin()
        tag = b"kept" if commit else b"aborted"
        producer.send(topic_name, 0, build_batch([Record(0, 1_700_000_000_000, None, tag)] * 3))
        producer.flush()
        producer.commit() if commit else producer.abort()
    end = list_offset(cluster, topic_name, 0, LATEST)
    committed = list(PartitionFetcher(cluster, topic_name, 0, read_committed=True).batches(0, end))
    values = [r.value for b in committed for r in decode_records(b.data)[1]]
    assert values == [b"kept"] * 9
    everything = list(PartitionFetcher(cluster, topic_name, 0).batches(0, end))
    assert len(everything) == 5  # data batches only: the markers are dropped in both modes
    assert [m.value() for m in _consume(bootstrap, topic_name, 9, "read_committed")] == values


def test_transaction_commits_group_offsets(
    bootstrap: str, cluster: KafkaCluster, topic_name: str
) -> None:
    _create(bootstrap, topic_name)
    group = f"g-{topic_name}"
    producer = BatchProducer(cluster, transactional_id=f"t-{topic_name}")
    producer.begin()
    producer.send(topic_name, 0, build_batch([Record(0, 1, b"k", b"v")]))
    producer.send_offsets(group, {(topic_name, 0): 42})
    producer.commit()
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    from confluent_kafka import TopicPartition

    (tp,) = consumer.committed([TopicPartition(topic_name, 0)], timeout=30)
    consumer.close()
    assert tp.offset == 42
    # A new producer with the same id fences the old one.
    newer = BatchProducer(cluster, transactional_id=f"t-{topic_name}")
    newer.init()
    producer.begin()
    with pytest.raises(KafkaError, match=r"producer_fenced|invalid_producer_epoch"):
        producer.send(topic_name, 0, build_batch([Record(0, 1, b"k", b"v")]))
        producer.commit()


def test_resend_after_lost_connection_doubles_nothing(
    bootstrap: str, cluster: KafkaCluster, topic_name: str
) -> None:
    _create(bootstrap, topic_name)
    producer = BatchProducer(cluster, max_in_flight=5)
    for i in range(5):
        producer.send(topic_name, 0, build_batch([Record(0, 1, None, b"%d" % i)] * 4))
    # Cut every connection with answers unread: the five batches go again, same sequences.
    for connection in list(cluster._connections.values()):
        connection._sock.close()
    for i in range(5, 8):
        producer.send(topic_name, 0, build_batch([Record(0, 1, None, b"%d" % i)] * 4))
    producer.flush()
    assert [d.base_offset for d in producer.take_acked()] == list(range(0, 32, 4))
    assert list_offset(cluster, topic_name, 0, LATEST) == 32
    assert list_offset(cluster, topic_name, 0, EARLIEST) == 0


def test_corrupt_batch_names_topic_partition_offset(
    bootstrap: str, cluster: KafkaCluster, topic_name: str
) -> None:
    _create(bootstrap, topic_name)
    _produce(bootstrap, topic_name, 10)
    fetcher = PartitionFetcher(cluster, topic_name, 0)
    original = fetcher._committed

    def corrupt(data: Any, position: int, end: int) -> Any:  # the first batch of a response
        records = bytearray(data.records)
        records[-1] ^= 0xFF
        return original(type("D", (), {"records": bytes(records), "aborted_transactions": ()})(),
                        position, end)  # fmt: skip

    fetcher._committed = corrupt  # type: ignore[method-assign]
    with pytest.raises(CorruptBatchError, match=rf"{topic_name}\[0\] at offset 0"):
        list(fetcher.batches(0, 10))


def test_partitioner_matches_java(bootstrap: str) -> None:
    # Kafka's DefaultPartitionerTest / Utils.murmur2 vectors (toPositive % n).
    from kafka.partitioner.default import murmur2

    for key in [b"", b"a", b"ab", b"abc", b"abcd", b"21", b'["MirrorSourceConnector",{}]']:
        assert partition_for_key(key, 25) == (murmur2(key) & 0x7FFFFFFF) % 25


def test_fetched_batches_with_offset_gaps_are_not_corrupt(cluster: KafkaCluster) -> None:
    """A compacted topic stores batches whose offsets have gaps; readers take them (only
    producers must send contiguous batches)."""
    import struct

    from crc32c import crc32c

    from seaway.protocol.record_codec import _encode_record

    body = b"".join(_encode_record(d, 0, Record(d, 1, b"k", b"v")) for d in (0, 2, 5))
    tail = bytearray(build_batch([Record(0, 1, b"k", b"v")])[21:61]) + body
    struct.pack_into(">i", tail, 2, 5)  # lastOffsetDelta
    struct.pack_into(">i", tail, 36, 3)  # recordsCount
    gapped = struct.pack(">qiibI", 10, len(tail) + 9, 0, 2, crc32c(tail)) + bytes(tail)
    fetcher = PartitionFetcher(cluster, "any", 0)
    data = type("D", (), {"records": gapped, "aborted_transactions": ()})()
    batches, after, corrupt = fetcher._committed(data, 10, 100)
    assert corrupt is None and after == 16
    assert [r.offset for r in decode_records(batches[0].data)[1]] == [10, 12, 15]
