"""Rows as Arrow columns produced as record batches (:mod:`seaway.kafka.column_producer`),
against the embedded broker, through Seaway's batch client and through librdkafka: every
row arrives with its key, value, timestamp and headers, in the partition Kafka's producer
picks (the row's own, murmur2 of the key, sticky batches for keyless rows), in batches cut
at ``batch.size`` and the topic's ``max.message.bytes``, compressed as asked; bad partitions
and refused records fail with what went wrong.
"""

from __future__ import annotations

import time
from typing import Any

import pyarrow as pa
import pytest
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

from seaway.kafka import pool
from seaway.kafka.cluster import LATEST, KafkaCluster, list_offset
from seaway.kafka.column_producer import ColumnProducer, InvalidPartition, Rows
from seaway.kafka.fetcher import PartitionFetcher
from seaway.kafka.partitioner import partition_for_key
from seaway.kafka.producer import ProduceError
from seaway.kafka.ranges import range_producer
from seaway.protocol.record_codec import decode_records
from tests.broker.clients import consume_all, create_topic, quiet, read_partition

NOW_MS = int(time.time()) * 1000
HEADERS = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))


@pytest.fixture(autouse=True)
def _close_clients() -> Any:
    yield
    pool.close_all()


def _producer(bootstrap: str, librdkafka: bool = False, **config: Any) -> ColumnProducer:
    settings = quiet({"bootstrap.servers": bootstrap, **config})
    producer = range_producer(settings, client_id="column-tests", librdkafka=librdkafka)
    return ColumnProducer.of(producer, settings)


def _rows(n: int) -> Rows:
    keys = [None if i % 3 == 0 else b"key-%d" % i for i in range(n)]
    return Rows(
        values=pa.array([None if i % 11 == 0 else f"value-{i}" for i in range(n)], pa.string()),
        keys=pa.array(keys, pa.binary()),
        partitions=pa.array([1 if i % 9 == 0 else None for i in range(n)], pa.int32()),
        timestamps=pa.array([None if i % 5 == 0 else NOW_MS + i for i in range(n)], pa.int64()),
        headers=pa.array(
            [
                None if i % 2 else [{"key": "h", "value": b"%d" % i}, {"key": "n", "value": None}]
                for i in range(n)
            ],
            HEADERS,
        ),
    )


def _batches(bootstrap: str, topic: str, partition: int) -> list[Any]:
    cluster = KafkaCluster(bootstrap)
    try:
        end = list_offset(cluster, topic, partition, LATEST)
        return list(PartitionFetcher(cluster, topic, partition).batches(0, end))
    finally:
        cluster.close()


CASES = [(False, c) for c in ("none", "zstd", "lz4", "gzip", "snappy")] + [(True, "none")]


@pytest.mark.parametrize(("librdkafka", "compression"), CASES)
def test_rows_arrive_whole_where_kafka_would_put_them(
    bootstrap: str, topic_name: str, librdkafka: bool, compression: str
) -> None:
    create_topic(bootstrap, topic_name, 4)
    n = 600
    rows = _rows(n)
    producer = _producer(bootstrap, librdkafka, **{"compression.type": compression})
    before = int(time.time() * 1000)
    producer.send(topic_name, rows)
    producer.flush()
    assert (producer.sent, producer.acked, producer.unacknowledged) == (n, n, 0)
    got = {}
    for partition in range(4):
        for m in read_partition(bootstrap, topic_name, partition=partition):
            index = int(m.value().split(b"-")[1]) if m.value() else None
            got.setdefault(partition, []).append((index, m))
    seen = 0
    for partition, messages in got.items():
        for index, m in messages:
            if index is None:  # a null value: identify it by its key or header
                continue
            seen += 1
            key = b"key-%d" % index if index % 3 else None
            assert m.key() == key
            if index % 9 == 0:
                assert partition == 1
            elif key is not None:
                assert partition == partition_for_key(key, 4)
            if index % 5:
                assert m.timestamp()[1] == NOW_MS + index
            else:
                assert m.timestamp()[1] >= before
            expected_headers = None if index % 2 else [("h", b"%d" % index), ("n", None)]
            assert m.headers() == expected_headers
        # Rows with a partition or a key keep their order, and so do the keyless ones.
        placed = [i for i, _ in messages if i is not None and (i % 9 == 0 or i % 3)]
        sticky = [i for i, _ in messages if i is not None and not (i % 9 == 0 or i % 3)]
        assert placed == sorted(placed) and sticky == sorted(sticky)
    assert seen == n - len(range(0, n, 11))
    assert sum(len(m) for m in got.values()) == n
    if not librdkafka:
        codecs = {
            b.header.compression for p in range(4) for b in _batches(bootstrap, topic_name, p)
        }
        assert codecs == {["none", "gzip", "snappy", "lz4", "zstd"].index(compression)}


def test_keyless_rows_go_to_each_partition_a_batch_at_a_time(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, 3)
    producer = _producer(bootstrap, **{"batch.size": 2000})
    values = pa.array([b"%04d" % i + b"x" * 96 for i in range(300)], pa.binary())
    producer.send(topic_name, Rows(values))
    producer.flush()
    sizes = []
    for partition in range(3):
        batches = _batches(bootstrap, topic_name, partition)
        assert batches, f"partition {partition} got nothing"
        for batch in batches:
            assert batch.header.size <= 2000
            indices = [int(r.value[:4]) for r in decode_records(batch.data)[1]]
            assert indices == list(range(indices[0], indices[0] + len(indices))), "one run"
            sizes.append(len(indices))
    assert sum(sizes) == 300
    assert max(sizes) > 1


def test_batches_fit_the_topics_max_message_bytes(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 1, {"max.message.bytes": "3000"})
    producer = _producer(bootstrap)
    values = pa.array([b"v" * 200] * 100, pa.binary())
    producer.send(topic_name, Rows(values, keys=pa.array([b"k"] * 100, pa.binary())))
    producer.flush()
    batches = _batches(bootstrap, topic_name, 0)
    assert len(batches) > 5
    assert all(b.header.size <= 3000 for b in batches)
    assert sum(b.header.records_count for b in batches) == 100


def test_selection_sends_those_rows_in_its_order(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 1)
    producer = _producer(bootstrap)
    values = pa.array([b"%d" % i for i in range(50)], pa.binary())
    selection = pa.array([40, 3, 7, 7, 0], pa.int64())
    producer.send(topic_name, Rows(values), selection)
    producer.flush()
    assert [m.value() for m in read_partition(bootstrap, topic_name)] == [
        b"40",
        b"3",
        b"7",
        b"7",
        b"0",
    ]


def test_a_topic_that_does_not_exist_is_created_as_for_any_producer(
    bootstrap: str, topic_name: str
) -> None:
    producer = _producer(bootstrap)
    producer.send(topic_name, Rows(pa.array([b"a", b"b"], pa.binary())))
    producer.flush()
    assert sorted(m.value() for m in consume_all(bootstrap, topic_name, 2)) == [b"a", b"b"]


def test_a_partition_the_topic_lacks_is_refused_before_anything_is_sent(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, 2)
    producer = _producer(bootstrap)
    rows = Rows(pa.array([b"a", b"b"], pa.binary()), partitions=pa.array([0, 5], pa.int32()))
    with pytest.raises(InvalidPartition, match=r"5 is not in the range \[0...2\]"):
        producer.send(topic_name, rows)
    assert producer.sent == 0


@pytest.mark.parametrize("librdkafka", [False, True])
def test_a_record_the_topic_refuses_fails_the_producer(
    bootstrap: str, topic_name: str, librdkafka: bool
) -> None:
    create_topic(bootstrap, topic_name, 1, {"max.message.bytes": "2000"})
    producer = _producer(bootstrap, librdkafka)
    with pytest.raises(ProduceError, match=r"(?i)too_?large"):
        producer.send(topic_name, Rows(pa.array([b"x" * 5000], pa.binary())))
        producer.flush()
    assert producer.unacknowledged == 1


def test_a_lowered_max_message_bytes_is_read_again_after_a_refusal(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, 1, {"max.message.bytes": "3000"})
    rows = Rows(pa.array([b"v" * 200] * 30, pa.binary()))
    first = _producer(bootstrap)
    first.send(topic_name, rows)
    first.flush()  # the limit (3000) is now known
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    lower = ConfigEntry("max.message.bytes", "1500", incremental_operation=AlterConfigOpType.SET)
    change = ConfigResource(ConfigResource.Type.TOPIC, topic_name, incremental_configs=[lower])
    admin.incremental_alter_configs([change])[change].result(10)
    with pytest.raises(ProduceError, match=r"(?i)too_?large"):
        first.send(topic_name, rows)
        first.flush()
    pool.close_all()  # the failed producer is dropped, as the writers do
    second = _producer(bootstrap)
    second.send(topic_name, rows)
    second.flush()
    batches = _batches(bootstrap, topic_name, 0)
    assert sum(b.header.records_count for b in batches) == 60
    assert all(b.header.size <= 1500 for b in batches[-5:])
