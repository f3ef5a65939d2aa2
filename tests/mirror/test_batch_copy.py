"""The mirror's copy loop, without Spark: two embedded clusters, real clients.

Source batches written by librdkafka, kafka-python and aiokafka in every codec arrive on the
target byte for byte (only the producer fields, the CRC and the offsets differ); aborted
source transactions never arrive; offset syncs are the per-record rule's and point at the
copies; a LogAppendTime batch carries its append time; a batch over the target's
``max.message.bytes`` is split; range edges inside a batch copy each record once; a corrupt
source batch stops the partition naming topic, partition and offset. Through librdkafka
(forced, as for a SASL mechanism the batch client does not speak) the same loop drops
aborted transactions and gives the same offset syncs.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.kafka.cluster import LATEST, KafkaCluster, list_offset
from seaway.kafka.fetcher import CorruptBatchError, FetchedBatch, PartitionFetcher
from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.loop import copy_range
from seaway.mirror.copy.outgoing import Outgoing
from seaway.mirror.copy.spec import MirrorCopySpec
from seaway.mirror.formats import OffsetSync
from seaway.mirror.offset_syncs import OffsetSyncWriter
from seaway.protocol.record_codec import Record, _encode_record, build_batch, decode_records
from seaway.protocol.records import BATCH_OVERHEAD, iter_batches, parse_header
from seaway.spark.kafka.options import SourceOptions, parse_source_options
from tests.broker.clients import quiet, read_partition

pytestmark = pytest.mark.waits

BASE_MS = (int(time.time()) - 3600) * 1000  # recent: the broker's 7-day retention
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


class Flow:
    """A source topic on A, its remote topic on B, and the copy's spec and options."""

    def __init__(
        self,
        a: str,
        b: str,
        *,
        source_config: dict[str, str] | None = None,
        remote_config: dict[str, str] | None = None,
        exactly_once: bool = False,
        read_committed: bool = False,
        offset_lag_max: int = 100,
    ) -> None:
        tag = uuid.uuid4().hex[:6]
        self.a, self.b = a, b
        self.source, self.alias = f"src-{tag}", f"R{tag}"
        self.remote = f"{self.alias}.{self.source}"
        source_admin = AdminClient(quiet({"bootstrap.servers": a}))
        topics = [NewTopic(self.source, 1, 1, config=source_config or {})]
        source_admin.create_topics(topics)[self.source].result(30)
        admin = AdminClient(quiet({"bootstrap.servers": b}))
        self.syncs_topic = f"syncs-{tag}"
        for name, partitions, config in (
            (self.remote, 1, remote_config or {}),
            (f"mm2-offsets.{self.alias}.internal", 5, {"cleanup.policy": "compact"}),
            (self.syncs_topic, 1, {"cleanup.policy": "compact"}),
        ):
            admin.create_topics([NewTopic(name, partitions, 1, config=config)])[name].result(30)
        self.spec = MirrorCopySpec(
            source_alias=self.alias,
            remote_topics={self.source: self.remote},
            target_producer={"bootstrap.servers": b},
            offsets_topic=f"mm2-offsets.{self.alias}.internal",
            offset_lag_max=offset_lag_max,
            offset_syncs_topic=self.syncs_topic,
            offset_syncs_producer={"bootstrap.servers": b},
            exactly_once=exactly_once,
            target_alias="B",
        )
        options = {"kafka.bootstrap.servers": a, "subscribe": self.source}
        if read_committed or exactly_once:
            options["kafka.isolation.level"] = "read_committed"
        self.options: SourceOptions = parse_source_options(options, streaming=True)

    def end(self) -> int:
        cluster = KafkaCluster(self.a)
        try:
            return list_offset(cluster, self.source, 0, LATEST)
        finally:
            cluster.close()

    def copy(self, start: int = 0, end: int | None = None, librdkafka: bool = False) -> Any:
        r = OffsetRange(self.source, 0, start, self.end() if end is None else end)
        return copy_range(self.spec, self.options, r, librdkafka=librdkafka)


def raw_batches(bootstrap: str, topic: str) -> list[FetchedBatch]:
    cluster = KafkaCluster(bootstrap)
    try:
        end = list_offset(cluster, topic, 0, LATEST)
        return list(PartitionFetcher(cluster, topic, 0).batches(0, end))
    finally:
        cluster.close()


def messages(bootstrap: str, topic: str, committed: bool = True) -> list[Any]:
    return read_partition(bootstrap, topic, committed=committed)


@pytest.fixture
def clusters(cluster_a: Any, cluster_b: Any) -> tuple[str, str]:
    return cluster_a.bootstrap_servers, cluster_b.bootstrap_servers


# --- writers of the source batches ----------------------------------------------------------


def _rows(n: int) -> list[tuple[bytes, bytes, int]]:
    return [(f"k{i % 5}".encode(), f"value {i} ".encode() * 8, BASE_MS + i) for i in range(n)]


def write_librdkafka(bootstrap: str, topic: str, codec: str, n: int) -> None:
    producer = Producer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "compression.type": codec,
                "linger.ms": 50,
                "batch.size": 16384,
            }
        )
    )
    for key, value, ts in _rows(n):
        producer.produce(topic, value, key, 0, timestamp=ts, headers=[("h", key)])
    assert producer.flush(30) == 0


def write_kafka_python(bootstrap: str, topic: str, codec: str, n: int) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        compression_type=None if codec == "none" else codec,
        linger_ms=50,
    )
    for key, value, ts in _rows(n):
        producer.send(topic, value, key, headers=[("h", key)], partition=0, timestamp_ms=ts)
    producer.flush(30)
    producer.close()


def write_aiokafka(bootstrap: str, topic: str, codec: str, n: int) -> None:
    from aiokafka import AIOKafkaProducer

    async def run() -> None:
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap,
            compression_type=None if codec == "none" else codec,
            linger_ms=50,
        )
        await producer.start()
        try:
            sent = [
                await producer.send(
                    topic, value, key, partition=0, timestamp_ms=ts, headers=[("h", key)]
                )
                for key, value, ts in _rows(n)
            ]
            await asyncio.gather(*sent)
        finally:
            await producer.stop()

    asyncio.run(run())


WRITERS = {"librdkafka": write_librdkafka, "kafka-python": write_kafka_python}
WRITERS["aiokafka"] = write_aiokafka


def _comparable(batch: FetchedBatch) -> tuple[Any, ...]:
    """A batch without what the copy must change: offsets, producer, CRC, transactional bit."""
    h = batch.header
    fields = (h.magic, h.attributes & ~0x10, h.last_offset_delta, h.base_timestamp)
    return (*fields, h.max_timestamp, h.records_count, bytes(batch.data[BATCH_OVERHEAD:]))


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("codec", CODECS)
def test_batches_arrive_byte_for_byte(clusters: tuple[str, str], writer: str, codec: str) -> None:
    """Compressed batches arrive as they are; small uncompressed ones (16 kB here) are
    joined, their records byte for byte the same."""
    a, b = clusters
    flow = Flow(a, b)
    WRITERS[writer](a, flow.source, codec, 300)
    summary = flow.copy()
    assert (summary.records, summary.last_offset) == (300, 299)
    source, copied = raw_batches(a, flow.source), raw_batches(b, flow.remote)
    assert len(source) > 1
    if codec == "none":
        assert len(copied) == 1
        assert _records(copied) == _records(source)
    else:
        assert [_comparable(s) for s in source] == [_comparable(t) for t in copied]
    assert [m.value() for m in messages(b, flow.remote)] == [v for _, v, _ in _rows(300)]


def _records(batches: list[FetchedBatch]) -> list[tuple[Any, ...]]:
    return [
        (r.timestamp, r.key, r.value, r.headers) for b in batches for r in decode_records(b.data)[1]
    ]


@pytest.mark.parametrize("librdkafka", [False, True], ids=["batch-client", "librdkafka"])
def test_aborted_source_transactions_are_not_copied(
    clusters: tuple[str, str], librdkafka: bool
) -> None:
    a, b = clusters
    flow = Flow(a, b, read_committed=True)
    producer = Producer(quiet({"bootstrap.servers": a, "transactional.id": flow.source}))
    producer.init_transactions(30)
    expected = []
    for round_ in range(6):
        producer.begin_transaction()
        for i in range(50):
            value = f"{round_}-{i}".encode()
            producer.produce(flow.source, value, None, 0)
            if round_ % 2 == 0:
                expected.append(value)
        producer.flush(30)
        if round_ % 2 == 0:
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
    summary = flow.copy(librdkafka=librdkafka)
    assert summary.records == len(expected)
    assert [m.value() for m in messages(b, flow.remote, committed=False)] == expected
    assert not any(batch.header.is_transactional for batch in raw_batches(b, flow.remote))


@pytest.mark.parametrize("librdkafka", [False, True], ids=["batch-client", "librdkafka"])
def test_offset_syncs_follow_the_per_record_rule(
    clusters: tuple[str, str], librdkafka: bool
) -> None:
    a, b = clusters
    flow = Flow(a, b, read_committed=True, offset_lag_max=7)
    # Aborted transactions leave gaps upstream, so the rule has more than a run to follow.
    producer = Producer(quiet({"bootstrap.servers": a, "transactional.id": flow.source}))
    producer.init_transactions(30)
    for round_ in range(8):
        producer.begin_transaction()
        for i in range(40):
            producer.produce(flow.source, f"{round_}-{i}".encode(), None, 0)
        producer.flush(30)
        (producer.commit_transaction if round_ % 3 else producer.abort_transaction)(30)
    end = flow.end()
    flow.copy(0, end // 2, librdkafka)
    flow.copy(end // 2, end, librdkafka)
    syncs = [
        OffsetSync.from_record(m.key(), m.value())
        for m in messages(b, flow.syncs_topic, committed=False)
    ]
    source = {m.offset(): m.value() for m in messages(a, flow.source)}
    copy = {m.offset(): m.value() for m in messages(b, flow.remote)}
    assert syncs and all(copy[s.downstream_offset] == source[s.upstream_offset] for s in syncs)
    # The same syncs as MM2's rule applied record by record to the same copy.
    writer = OffsetSyncWriter(7)
    expected = []
    pairs = list(zip(sorted(source), sorted(copy), strict=True))
    half = next(i for i, (up, _) in enumerate(pairs) if up >= end // 2)
    for i, (up, down) in enumerate(pairs):
        if writer.maybe_queue_offset_syncs((flow.source, 0), up, down):
            expected += writer.take_pending_offset_syncs()
        if i in (half - 1, len(pairs) - 1):  # each range's end promotes the delayed sync
            writer.promote_delayed_offset_syncs()
            expected += writer.take_pending_offset_syncs()
    assert [(s.upstream_offset, s.downstream_offset) for s in syncs] == [
        (s.upstream_offset, s.downstream_offset) for s in expected
    ]


def test_log_append_time_batch_keeps_its_append_time(clusters: tuple[str, str]) -> None:
    a, b = clusters
    flow = Flow(a, b, source_config={"message.timestamp.type": "LogAppendTime"})
    write_librdkafka(a, flow.source, "lz4", 100)
    flow.copy()
    source, copy = messages(a, flow.source), messages(b, flow.remote)
    assert {m.timestamp()[0] for m in source} == {2}  # TIMESTAMP_LOG_APPEND_TIME
    assert [(1, m.timestamp()[1]) for m in source] == [m.timestamp() for m in copy]
    assert [m.value() for m in source] == [m.value() for m in copy]
    assert {batch.header.compression for batch in raw_batches(b, flow.remote)} == {3}


def test_batch_over_target_limit_is_split(clusters: tuple[str, str]) -> None:
    a, b = clusters
    flow = Flow(a, b, remote_config={"max.message.bytes": "3000"})
    write_librdkafka(a, flow.source, "none", 200)  # ~20 kB batches
    assert max(batch.header.size for batch in raw_batches(a, flow.source)) > 3000
    assert flow.copy().records == 200
    copied = raw_batches(b, flow.remote)
    assert len(copied) > 5 and max(batch.header.size for batch in copied) <= 3000
    assert [m.value() for m in messages(b, flow.remote)] == [v for _, v, _ in _rows(200)]


@pytest.mark.parametrize("codec", ["none", "zstd"])
def test_range_edges_inside_a_batch(clusters: tuple[str, str], codec: str) -> None:
    a, b = clusters
    flow = Flow(a, b)
    write_librdkafka(a, flow.source, codec, 100)
    assert len(raw_batches(a, flow.source)) < 4  # the edges below fall inside batches
    summaries = [flow.copy(0, 37), flow.copy(37, 80), flow.copy(80, 100)]
    assert [(s.records, s.last_offset) for s in summaries] == [(37, 36), (43, 79), (20, 99)]
    copy = messages(b, flow.remote)
    assert [m.value() for m in copy] == [v for _, v, _ in _rows(100)]
    assert [m.timestamp()[1] for m in copy] == [ts for _, _, ts in _rows(100)]
    assert {batch.header.compression for batch in raw_batches(b, flow.remote)} == {
        0 if codec == "none" else 4
    }


def test_corrupt_source_batch_stops_the_partition(
    clusters: tuple[str, str], cluster_a: Any
) -> None:
    a, b = clusters
    flow = Flow(a, b)
    for _ in range(3):  # three batches
        write_librdkafka(a, flow.source, "none", 10)
    second = raw_batches(a, flow.source)[1].header
    assert second.base_offset == 10
    log = next(cluster_a.broker.data_dir.rglob(f"{flow.source}-0/*.log"))
    data = bytearray(log.read_bytes())
    position = next(pos for pos, h in iter_batches(data, check_crc=False) if h.base_offset == 10)
    data[position + BATCH_OVERHEAD + 5] ^= 0xFF  # inside the second batch's records
    log.write_bytes(bytes(data))
    with pytest.raises(CorruptBatchError, match=rf"{flow.source}\[0\] at offset 10"):
        flow.copy()
    assert [m.value() for m in messages(b, flow.remote)] == [v for _, v, _ in _rows(10)]


def test_gapped_batch_is_rebuilt_contiguous() -> None:
    """A compacted source batch (offset deltas with gaps) cannot be produced as it is."""
    records = [Record(100 + d, BASE_MS + d, b"k", b"v%d" % d) for d in (0, 2, 5)]
    body = b"".join(_encode_record(r.offset - 100, r.timestamp - BASE_MS, r) for r in records)
    whole = bytearray(build_batch([records[0]]))  # then swap in the gapped records
    import struct

    from crc32c import crc32c

    tail = bytearray(whole[21:BATCH_OVERHEAD]) + body
    struct.pack_into(">i", tail, 2, 5)  # lastOffsetDelta
    struct.pack_into(">q", tail, 14, BASE_MS + 5)  # maxTimestamp
    struct.pack_into(">i", tail, 36, 3)  # recordsCount
    gapped = struct.pack(">qiibI", 100, len(tail) + 9, -1, 2, crc32c(tail)) + bytes(tail)
    header = parse_header(gapped)
    (out,) = list(Outgoing(0, 1000, 1 << 20).add(FetchedBatch(header, memoryview(gapped))))
    data, upstream = out
    assert [list(run) for run in upstream] == [[100, 102, 105]]
    rebuilt_header, rebuilt = decode_records(data)
    assert rebuilt_header.last_offset_delta == 2 and rebuilt_header.records_count == 3
    assert [(r.timestamp, r.value) for r in rebuilt] == [(r.timestamp, r.value) for r in records]


def test_small_batches_are_joined_within_the_target_limit(clusters: tuple[str, str]) -> None:
    """A source written a few records at a time is sent in few, larger batches, none over
    the remote topic's max.message.bytes, every record as it was."""
    a, b = clusters
    flow = Flow(a, b, remote_config={"max.message.bytes": "6000"})
    producer = Producer(quiet({"bootstrap.servers": a, "linger.ms": 0, "batch.size": 400}))
    rows = _rows(400)
    for key, value, ts in rows:
        producer.produce(flow.source, value, key, 0, timestamp=ts, headers=[("h", key)])
        producer.poll(0)
    assert producer.flush(30) == 0
    source = raw_batches(a, flow.source)
    assert len(source) > 50
    assert flow.copy().records == 400
    copied = raw_batches(b, flow.remote)
    assert len(copied) < len(source) / 5
    assert max(batch.header.size for batch in copied) <= 6000
    assert _records(copied) == _records(source)
