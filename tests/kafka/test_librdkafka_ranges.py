"""librdkafka behind the batch interface (:mod:`seaway.kafka.ranges`), against the embedded
broker: the librdkafka fetcher yields the records the batch client's fetcher yields, as
record batches (offsets, timestamps and their type, keys, values, headers), drops aborted
transactions under read_committed and reports lost data; the librdkafka producer writes a
batch's records and acknowledges the batch with its first record's offset, in and out of
transactions; the chooser picks by the cluster's SASL mechanism.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka import Producer

from seaway.kafka import pool
from seaway.kafka.cluster import KafkaCluster
from seaway.kafka.fetcher import FetchedBatch, PartitionFetcher
from seaway.kafka.librdkafka_fetcher import LibrdkafkaFetcher
from seaway.kafka.librdkafka_producer import LibrdkafkaProducer
from seaway.kafka.producer import BatchProducer, ProduceError
from seaway.kafka.ranges import range_fetcher, range_producer, uses_librdkafka
from seaway.kafka.transactions import Marker, committed, write_range
from seaway.protocol.record_codec import Record, build_batch, decode_records
from seaway.protocol.records import ATTR_TIMESTAMP_TYPE
from tests.broker.clients import create_topic, quiet, read_partition

BASE_MS = (int(time.time()) - 3600) * 1000  # recent: the broker's 7-day retention


def _config(bootstrap: str, **extra: Any) -> dict[str, Any]:
    return quiet({"bootstrap.servers": bootstrap, "group.id": "range-tests", **extra})


def _fill(bootstrap: str, topic: str, n: int, **producer: Any) -> None:
    plain = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 5, **producer}))
    for i in range(n):
        headers = [("h", b"%d" % i), ("none", None)] if i % 3 else None
        key = None if i % 4 == 0 else b"k%d" % i
        value = None if i % 7 == 0 else b"v%d" % i
        plain.produce(topic, value, key, 0, timestamp=BASE_MS + i, headers=headers)
    assert plain.flush(30) == 0


def _records(batches: list[FetchedBatch], start: int, end: int) -> list[Record]:
    return [r for b in batches for r in decode_records(b.data)[1] if start <= r.offset < end]


def _batch_client(bootstrap: str, topic: str, start: int, end: int, **kw: Any) -> list[Any]:
    cluster = KafkaCluster(bootstrap)
    try:
        return list(PartitionFetcher(cluster, topic, 0, **kw).batches(start, end))
    finally:
        cluster.close()


@pytest.mark.parametrize("timestamps", ["CreateTime", "LogAppendTime"])
def test_fetcher_gives_the_records_the_batch_client_gives(
    bootstrap: str, topic_name: str, timestamps: str
) -> None:
    create_topic(bootstrap, topic_name, 1, {"message.timestamp.type": timestamps})
    _fill(bootstrap, topic_name, 500)
    fetcher = LibrdkafkaFetcher(_config(bootstrap), topic_name, 0, max_records=120)
    for start, end in ((0, 500), (37, 451)):
        got = list(fetcher.batches(start, end, timeout_s=10))
        assert all(b.header.records_count == b.header.last_offset_delta + 1 for b in got)
        assert {bool(b.header.attributes & ATTR_TIMESTAMP_TYPE) for b in got} == {
            timestamps == "LogAppendTime"
        }
        assert [r.offset for r in _records(got, 0, 1 << 62)] == list(range(start, end))
        expected = _records(_batch_client(bootstrap, topic_name, start, end), start, end)
        assert _records(got, start, end) == expected
    pool.close_all()


def test_fetcher_drops_aborted_records_under_read_committed(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, 1)
    txn = Producer(quiet({"bootstrap.servers": bootstrap, "transactional.id": topic_name}))
    txn.init_transactions(30)
    for round_ in range(4):
        txn.begin_transaction()
        for i in range(30):
            txn.produce(topic_name, b"%d-%d" % (round_, i), None, 0)
        txn.flush(30)
        (txn.abort_transaction if round_ % 2 else txn.commit_transaction)(30)
    end = 4 * 31
    config = _config(bootstrap, **{"isolation.level": "read_committed"})
    got = list(LibrdkafkaFetcher(config, topic_name, 0).batches(0, end, timeout_s=10))
    values = [r.value for r in _records(got, 0, end)]
    assert values == [b"%d-%d" % (r, i) for r in (0, 2) for i in range(30)]
    batch_client = _batch_client(bootstrap, topic_name, 0, end, read_committed=True)
    assert [r.value for r in _records(batch_client, 0, end)] == values
    pool.close_all()


def test_fetcher_reports_a_log_that_ends_before_the_range(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 1)
    _fill(bootstrap, topic_name, 10)
    lost: list[tuple[int, str, int]] = []

    def on_data_loss(position: int, what: str, skip_to: int) -> int:
        lost.append((position, what, skip_to))
        return skip_to

    fetcher = LibrdkafkaFetcher(_config(bootstrap), topic_name, 0)
    got = list(fetcher.batches(0, 20, timeout_s=10, on_data_loss=on_data_loss))
    assert [r.offset for r in _records(got, 0, 20)] == list(range(10))
    assert [(p, s) for p, _, s in lost] == [(10, 20)] and "ends at 10" in lost[0][1]
    with pytest.raises(RuntimeError, match="Some data may have been lost"):
        list(fetcher.batches(0, 20, timeout_s=10))
    pool.close_all()


def _batch(offsets: range) -> bytes:
    return build_batch(
        [Record(0, BASE_MS + o, b"k%d" % o, b"v%d" % o, ((b"h", b"%d" % o),)) for o in offsets]
    )


def test_producer_acknowledges_each_batch_at_its_first_offset(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, 1)
    producer = LibrdkafkaProducer(_config(bootstrap))
    producer.init()
    sent = [producer.send(topic_name, 0, _batch(range(i, i + 10)), tag=i) for i in (0, 10, 20)]
    producer.flush()
    acked = producer.take_acked()
    assert acked == sent and [(d.tag, d.base_offset, d.offsets) for d in acked] == [
        (0, 0, 10), (10, 10, 10), (20, 20, 10)
    ]  # fmt: skip
    assert producer.topic_config(topic_name, "cleanup.policy") == "delete"
    assert producer.partition_count(topic_name) == 1
    messages = read_partition(bootstrap, topic_name)
    assert [(m.key(), m.value(), m.timestamp()[1], m.headers()) for m in messages] == [
        (b"k%d" % o, b"v%d" % o, BASE_MS + o, [("h", b"%d" % o)]) for o in range(30)
    ]
    producer.close()


def test_producer_fails_on_a_refused_record(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 1, {"max.message.bytes": "1000"})
    producer = LibrdkafkaProducer(_config(bootstrap, **{"linger.ms": 0}))
    producer.init()
    big = build_batch([Record(0, BASE_MS, None, b"x" * 3000)])
    with pytest.raises(ProduceError, match=rf"{topic_name}\[0\]"):
        producer.send(topic_name, 0, big)
        producer.flush()
    producer.close()


def test_transactional_producer_commits_or_aborts_with_its_marker(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, 1)
    config = _config(bootstrap)
    producer = LibrdkafkaProducer(config, transactional_id=f"{topic_name}-txn")
    producer.init()
    marker = Marker(f"{topic_name}-marker", topic_name, 0, next=10)

    def write(value: int) -> int:
        producer.send(topic_name, 0, _batch(range(10)))
        return 10

    assert write_range(producer, marker, write, config)
    assert committed(config, marker.group, topic_name) == 10
    assert not write_range(producer, marker, write, config)  # written: skipped

    def fail(value: int) -> int:
        producer.send(topic_name, 0, _batch(range(10, 20)))
        raise RuntimeError("mid-way")

    with pytest.raises(RuntimeError, match="mid-way"):
        write_range(producer, Marker(marker.group, topic_name, 0, next=20), fail, config)
    assert [m.value() for m in read_partition(bootstrap, topic_name)] == [
        b"v%d" % o for o in range(10)
    ]
    producer.close()
    pool.close_all()


def test_the_chooser_picks_librdkafka_only_where_the_batch_client_cannot_go(
    bootstrap: str, topic_name: str
) -> None:
    plain = {"bootstrap.servers": bootstrap, "group.id": "g"}
    kerberos = {**plain, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI"}
    assert not uses_librdkafka(plain) and uses_librdkafka(kerberos)
    assert uses_librdkafka(plain, True) and not uses_librdkafka(kerberos, False)
    assert isinstance(range_fetcher(plain, topic_name, 0, client_id="t"), PartitionFetcher)
    forced = range_fetcher(plain, topic_name, 0, client_id="t", librdkafka=True)
    assert isinstance(forced, LibrdkafkaFetcher)
    assert isinstance(range_fetcher(kerberos, topic_name, 0, client_id="t"), LibrdkafkaFetcher)
    create_topic(bootstrap, topic_name, 1)
    batch = range_producer(plain, client_id="t")
    assert isinstance(batch, BatchProducer) and range_producer(plain, client_id="t") is batch
    librdkafka = range_producer(plain, client_id="t", librdkafka=True)
    assert isinstance(librdkafka, LibrdkafkaProducer)
    assert range_producer(plain, client_id="t", librdkafka=True) is librdkafka
    pool.close_all()
