"""kafka-python against the embedded broker over TCP: its own producer, consumer and admin APIs."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from kafka import (
    KafkaAdminClient,
    KafkaConsumer,
    KafkaProducer,
    OffsetAndMetadata,
    OffsetSpec,
    TopicPartition,
)
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType, ConfigSourceType
from kafka.errors import (
    InvalidPartitionsError,
    TopicAlreadyExistsError,
    UnknownTopicOrPartitionError,
)
from kafka.structs import OffsetAndTimestamp

pytestmark = pytest.mark.timeout(60)

CREATE_TIME, LOG_APPEND_TIME = 0, 1  # ConsumerRecord.timestamp_type


def recent_ms() -> int:
    """A whole-second timestamp an hour ago: explicit, yet well inside retention.ms (7 days),
    so a retention sweep of the shared broker can never delete a test's records."""
    return (int(time.time()) - 3600) * 1000


def unique_group(topic: str) -> str:
    return f"{topic}-group-{uuid.uuid4().hex[:8]}"


@contextmanager
def admin_client(bootstrap: str) -> Iterator[KafkaAdminClient]:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    try:
        yield admin
    finally:
        admin.close()


@contextmanager
def producer_for(bootstrap: str, **config: Any) -> Iterator[KafkaProducer]:
    producer = KafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=10_000, **config)
    try:
        yield producer
    finally:
        producer.close(timeout=10)


@contextmanager
def consumer_for(bootstrap: str, **config: Any) -> Iterator[KafkaConsumer]:
    settings: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "auto_offset_reset": "earliest",
        "enable_auto_commit": False,
        "request_timeout_ms": 10_000,
        **config,
    }
    consumer = KafkaConsumer(**settings)
    try:
        yield consumer
    finally:
        consumer.close(autocommit=False)


def create_topic(bootstrap: str, name: str, partitions: int) -> None:
    with admin_client(bootstrap) as admin:
        admin.create_topics(
            {name: {"num_partitions": partitions, "replication_factor": 1}},
            wait_for_metadata=True,
        )


def poll_until(consumer: KafkaConsumer, count: int, timeout: float = 20.0) -> list[Any]:
    """Poll until ``count`` records arrived (in arrival order); fail after ``timeout``."""
    out: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=200).values():
            out.extend(records)
    assert len(out) == count, f"got {len(out)} of {count} records within {timeout}s"
    return out


def drain(consumer: KafkaConsumer, quiet_for: float = 1.0) -> list[Any]:
    """Records still arriving until ``quiet_for`` seconds pass with none."""
    out: list[Any] = []
    deadline = time.monotonic() + quiet_for
    while time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=100).values():
            out.extend(records)
            deadline = time.monotonic() + quiet_for
    return out


def send_all(producer: KafkaProducer, topic: str, records: list[dict[str, Any]]) -> list[Any]:
    futures = [producer.send(topic, **r) for r in records]
    producer.flush(timeout=20)
    return [f.get(timeout=10) for f in futures]


# -- produce / fetch -------------------------------------------------------------------------


def test_round_trip_keys_values_headers_timestamps(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 3)
    base_ts = recent_ms()
    sent: list[dict[str, Any]] = []
    for i in range(30):
        sent.append(
            {
                "partition": i % 3,
                "key": None if i == 4 else f"key-{i}".encode(),
                "value": None if i == 7 else f"value-{i}-".encode() * (i + 1),
                "headers": []
                if i % 5 == 0
                else [("h-one", f"{i}".encode()), ("h-two", b""), ("h-one", b"\x00\xff")],
                "timestamp_ms": base_ts + 1000 * i,
            }
        )
    with producer_for(bootstrap, linger_ms=20) as producer:
        metadata = send_all(producer, topic_name, sent)

    # Offsets assigned per partition in send order, timestamps as given (CreateTime).
    expected_offsets: dict[int, int] = {0: 0, 1: 0, 2: 0}
    for record, md in zip(sent, metadata, strict=True):
        assert md.topic == topic_name
        assert md.partition == record["partition"]
        assert md.offset == expected_offsets[md.partition]
        assert md.timestamp == record["timestamp_ms"]
        expected_offsets[md.partition] += 1

    with consumer_for(bootstrap) as consumer:
        partitions = [TopicPartition(topic_name, p) for p in range(3)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        received = poll_until(consumer, len(sent))
        assert drain(consumer, 0.5) == []

    for p in range(3):
        want = [(r, md.offset) for r, md in zip(sent, metadata, strict=True) if r["partition"] == p]
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


@pytest.mark.parametrize(
    "config",
    [
        {"acks": 0, "enable_idempotence": False},
        {"acks": 1, "enable_idempotence": False},
        {"acks": "all", "enable_idempotence": False},
    ],
    ids=["acks0", "acks1", "acks-all"],
)
def test_acks_without_idempotence(bootstrap: str, topic_name: str, config: dict) -> None:
    create_topic(bootstrap, topic_name, 1)
    with producer_for(bootstrap, **config) as producer:
        metadata = send_all(
            producer, topic_name, [{"partition": 0, "value": b"%d" % i} for i in range(20)]
        )
    if config["acks"] != 0:  # with acks=0 there is no response; the client makes up offsets
        assert [md.offset for md in metadata] == list(range(20))
    with consumer_for(bootstrap, isolation_level="read_committed") as consumer:
        tp = TopicPartition(topic_name, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        records = poll_until(consumer, 20)
        # Without transactions the last stable offset is the high watermark.
        assert consumer.end_offsets([tp]) == {tp: 20}
    assert [(r.offset, r.value) for r in records] == [(i, b"%d" % i) for i in range(20)]


def test_gzip_compressed_batches_round_trip(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 1)
    values = [(b"compressible-%d-" % i) * 50 for i in range(40)]
    with producer_for(bootstrap, compression_type="gzip", linger_ms=20) as producer:
        metadata = send_all(
            producer,
            topic_name,
            [{"partition": 0, "key": b"%d" % i, "value": v} for i, v in enumerate(values)],
        )
    assert [md.offset for md in metadata] == list(range(40))
    with consumer_for(bootstrap, max_partition_fetch_bytes=1024) as consumer:
        tp = TopicPartition(topic_name, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        records = poll_until(consumer, 40)
        # Seeking into the middle of a compressed batch starts at that exact record.
        consumer.seek(tp, 17)
        tail = poll_until(consumer, 23)
    assert [(r.offset, r.key, r.value) for r in records] == [
        (i, b"%d" % i, v) for i, v in enumerate(values)
    ]
    assert [r.offset for r in tail] == list(range(17, 40))


def test_log_append_time_topic(bootstrap: str, topic_name: str) -> None:
    with admin_client(bootstrap) as admin:
        admin.create_topics(
            {
                topic_name: {
                    "num_partitions": 1,
                    "replication_factor": 1,
                    "configs": {"message.timestamp.type": "LogAppendTime"},
                }
            },
            wait_for_metadata=True,
        )
    before = int(time.time() * 1000)
    with producer_for(bootstrap) as producer:
        [md] = send_all(producer, topic_name, [{"value": b"stamped", "timestamp_ms": 1000}])
    after = int(time.time() * 1000)
    # The broker's append time replaces the producer's timestamp, and is reported back.
    assert before <= md.timestamp <= after
    with consumer_for(bootstrap) as consumer:
        tp = TopicPartition(topic_name, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        [record] = poll_until(consumer, 1)
    assert record.value == b"stamped"
    assert record.timestamp == md.timestamp
    assert record.timestamp_type == LOG_APPEND_TIME


# -- consumer groups -------------------------------------------------------------------------


class GroupMember(threading.Thread):
    """One KafkaConsumer, driven entirely from its own thread (KafkaConsumer is not thread-safe).

    Polls until ``stop`` is set, then commits what it consumed, waits at ``barrier`` so no
    member leaves the group (triggering a rebalance) before every member committed, and closes.
    """

    def __init__(
        self,
        bootstrap: str,
        topic: str,
        group: str,
        stop: threading.Event,
        barrier: threading.Barrier,
        name: str,
    ) -> None:
        super().__init__(name=name, daemon=True)
        self.bootstrap, self.topic, self.group = bootstrap, topic, group
        self.stop, self.barrier = stop, barrier
        self.records: list[Any] = []
        self.assignment: set[TopicPartition] = set()
        self.assignments_seen: list[set[TopicPartition]] = []
        self.error: BaseException | None = None
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            with consumer_for(
                self.bootstrap,
                group_id=self.group,
                client_id=self.name,
                session_timeout_ms=10_000,
                heartbeat_interval_ms=200,
            ) as consumer:
                consumer.subscribe([self.topic])
                while not self.stop.is_set():
                    batch = consumer.poll(timeout_ms=100)
                    with self.lock:
                        for records in batch.values():
                            self.records.extend(records)
                        assignment = set(consumer.assignment())
                        if assignment != self.assignment:
                            self.assignments_seen.append(assignment)
                        self.assignment = assignment
                consumer.commit()
                self.barrier.wait(timeout=20)
        except BaseException as e:
            self.error = e
            self.barrier.abort()


def wait_for_stable_assignment(
    members: list[GroupMember], partitions: set[TopicPartition], timeout: float = 20.0
) -> None:
    """Wait until every member owns at least one partition and they partition the topic."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for m in members:
            assert m.error is None, f"{m.name} failed: {m.error!r}"
        owned = []
        for m in members:
            with m.lock:
                owned.append(set(m.assignment))
        if (
            all(owned)
            and sum(len(o) for o in owned) == len(partitions)
            and set().union(*owned) == partitions
        ):
            return
        time.sleep(0.05)
    raise AssertionError(f"group never stabilised: {[m.assignment for m in members]}")


def test_consumer_group_shares_partitions_and_resumes_from_commit(
    bootstrap: str, topic_name: str
) -> None:
    n_partitions, n_members, n_records = 4, 3, 60
    create_topic(bootstrap, topic_name, n_partitions)
    group = unique_group(topic_name)
    all_partitions = {TopicPartition(topic_name, p) for p in range(n_partitions)}

    stop = threading.Event()
    barrier = threading.Barrier(n_members)
    members = [
        GroupMember(bootstrap, topic_name, group, stop, barrier, f"member-{i}")
        for i in range(n_members)
    ]
    for m in members:
        m.start()
    try:
        wait_for_stable_assignment(members, all_partitions)
        # Produce only once the group is stable: no rebalance can hand a partition over,
        # so every record must be read by exactly one member.
        with producer_for(bootstrap, linger_ms=5) as producer:
            sent = send_all(
                producer,
                topic_name,
                [
                    {"partition": i % n_partitions, "key": b"k%d" % i, "value": b"v%d" % i}
                    for i in range(n_records)
                ],
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if sum(len(m.records) for m in members) >= n_records:
                break
            time.sleep(0.05)
        time.sleep(0.5)  # let any duplicate show up before checking
    finally:
        stop.set()
        for m in members:
            m.join(timeout=30)
    for m in members:
        assert m.error is None, f"{m.name} failed: {m.error!r}"
        assert not m.is_alive()

    consumed = [r for m in members for r in m.records]
    assert sorted(r.value for r in consumed) == sorted(b"v%d" % i for i in range(n_records))
    assert len({(r.partition, r.offset) for r in consumed}) == n_records
    for m in members:
        # Each member read only from the partitions it owned, in offset order.
        assert {TopicPartition(r.topic, r.partition) for r in m.records} <= m.assignment
        for tp in m.assignment:
            offsets = [r.offset for r in m.records if r.partition == tp.partition]
            assert offsets == list(range(n_records // n_partitions))
    assert all(md.offset < n_records // n_partitions for md in sent)

    # Committed offsets are the end of each partition.
    with consumer_for(bootstrap, group_id=group) as checker:
        for tp in sorted(all_partitions):
            assert checker.committed(tp) == n_records // n_partitions

    # Produce more; a new member of the same group reads only those.
    with producer_for(bootstrap) as producer:
        send_all(
            producer,
            topic_name,
            [{"partition": i % n_partitions, "value": b"late-%d" % i} for i in range(8)],
        )
    with consumer_for(bootstrap, group_id=group) as consumer:
        consumer.subscribe([topic_name])
        late = poll_until(consumer, 8)
        assert drain(consumer, 1.0) == []
        assert sorted(r.value for r in late) == sorted(b"late-%d" % i for i in range(8))
        assert sorted((r.partition, r.offset) for r in late) == sorted(
            (p, n_records // n_partitions + j) for p in range(n_partitions) for j in range(2)
        )
        consumer.commit()
        for tp in sorted(all_partitions):
            assert consumer.committed(tp) == n_records // n_partitions + 2


def test_commit_explicit_offsets_with_metadata(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 2)
    group = unique_group(topic_name)
    with producer_for(bootstrap) as producer:
        send_all(
            producer, topic_name, [{"partition": i % 2, "value": b"%d" % i} for i in range(10)]
        )
    tp0, tp1 = TopicPartition(topic_name, 0), TopicPartition(topic_name, 1)
    with consumer_for(bootstrap, group_id=group) as consumer:
        consumer.assign([tp0, tp1])
        assert consumer.committed(tp0) is None
        consumer.commit(
            {
                tp0: OffsetAndMetadata(3, "three", -1),
                tp1: OffsetAndMetadata(1, "", -1),
            }
        )
        assert consumer.committed(tp0) == 3
        assert consumer.committed(tp1) == 1
        committed = consumer.committed(tp0, metadata=True)
        assert committed.offset == 3
        assert committed.metadata == "three"
    with consumer_for(bootstrap, group_id=group) as consumer:
        consumer.assign([tp0, tp1])
        records = poll_until(consumer, 6)
        assert sorted((r.partition, r.offset) for r in records) == [
            (0, 3),
            (0, 4),
            (1, 1),
            (1, 2),
            (1, 3),
            (1, 4),
        ]


# -- offsets by time -------------------------------------------------------------------------


def test_offsets_for_times_and_beginning_end_offsets(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 2)
    base_ts = recent_ms()
    timestamps = [base_ts + 100 * i for i in range(6)]  # offsets 0..5 on partition 0
    with producer_for(bootstrap, linger_ms=50) as producer:
        # Two batches of three records, so lookups land inside and across batches.
        send_all(
            producer,
            topic_name,
            [
                {"partition": 0, "value": b"a%d" % i, "timestamp_ms": timestamps[i]}
                for i in range(3)
            ],
        )
        send_all(
            producer,
            topic_name,
            [
                {"partition": 0, "value": b"a%d" % i, "timestamp_ms": timestamps[i]}
                for i in range(3, 6)
            ],
        )
    tp0, tp1 = TopicPartition(topic_name, 0), TopicPartition(topic_name, 1)
    with consumer_for(bootstrap) as consumer:
        assert consumer.beginning_offsets([tp0, tp1]) == {tp0: 0, tp1: 0}
        assert consumer.end_offsets([tp0, tp1]) == {tp0: 6, tp1: 0}

        def lookup(ts: int) -> OffsetAndTimestamp | None:
            return consumer.offsets_for_times({tp0: ts})[tp0]

        # Exact match on every record, inside and at the edges of both batches.
        for i, ts in enumerate(timestamps):
            found = lookup(ts)
            assert found is not None
            assert (found.offset, found.timestamp) == (i, ts)
        # Between two records: the first record at or after it.
        found = lookup(base_ts + 250)
        assert found is not None
        assert (found.offset, found.timestamp) == (3, base_ts + 300)
        # Before the first record: the first record.
        found = lookup(base_ts - 10_000)
        assert found is not None
        assert (found.offset, found.timestamp) == (0, base_ts)
        found = lookup(0)
        assert found is not None
        assert (found.offset, found.timestamp) == (0, base_ts)
        # After the last record, and on an empty partition: None.
        assert lookup(timestamps[-1] + 1) is None
        assert consumer.offsets_for_times({tp1: base_ts}) == {tp1: None}
        # Several partitions at once.
        both = consumer.offsets_for_times({tp0: base_ts + 401, tp1: 0})
        assert both[tp1] is None
        assert both[tp0] is not None
        assert (both[tp0].offset, both[tp0].timestamp) == (5, base_ts + 500)

    # The admin client's ListOffsets specs: earliest, latest, max timestamp, by timestamp.
    with admin_client(bootstrap) as admin:
        result = admin.list_partition_offsets(
            {
                tp0: OffsetSpec.EARLIEST,
                tp1: OffsetSpec.LATEST,
            }
        )
        assert (result[tp0].offset, result[tp1].offset) == (0, 0)
        result = admin.list_partition_offsets({tp0: OffsetSpec.LATEST})
        assert result[tp0].offset == 6
        result = admin.list_partition_offsets({tp0: OffsetSpec.MAX_TIMESTAMP})
        assert (result[tp0].offset, result[tp0].timestamp) == (5, base_ts + 500)
        result = admin.list_partition_offsets({tp0: base_ts + 150})
        assert (result[tp0].offset, result[tp0].timestamp) == (2, base_ts + 200)
        result = admin.list_partition_offsets({tp0: base_ts + 10_000})
        assert (result[tp0].offset, result[tp0].timestamp) == (-1, -1)


def test_offsets_for_times_with_out_of_order_timestamps(bootstrap: str, topic_name: str) -> None:
    """Kafka's rule: the first offset whose timestamp is >= the target, not the closest one."""
    create_topic(bootstrap, topic_name, 1)
    base_ts = recent_ms()
    stamps = [base_ts + d for d in (100, 300, 200, 500, 400)]
    with producer_for(bootstrap, linger_ms=50) as producer:
        send_all(
            producer,
            topic_name,
            [
                {"partition": 0, "value": b"%d" % i, "timestamp_ms": ts}
                for i, ts in enumerate(stamps)
            ],
        )
    tp = TopicPartition(topic_name, 0)
    with consumer_for(bootstrap) as consumer:

        def lookup(ts: int) -> tuple[int, int] | None:
            found = consumer.offsets_for_times({tp: ts})[tp]
            return None if found is None else (found.offset, found.timestamp)

        assert lookup(base_ts + 150) == (1, base_ts + 300)
        assert lookup(base_ts + 200) == (1, base_ts + 300)
        assert lookup(base_ts + 350) == (3, base_ts + 500)
        assert lookup(base_ts + 450) == (3, base_ts + 500)
        assert lookup(base_ts + 501) is None
    with admin_client(bootstrap) as admin:
        result = admin.list_partition_offsets({tp: OffsetSpec.MAX_TIMESTAMP})
        assert (result[tp].offset, result[tp].timestamp) == (3, base_ts + 500)


def test_delete_records_moves_log_start(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 2)
    with producer_for(bootstrap) as producer:
        send_all(producer, topic_name, [{"partition": 0, "value": b"%d" % i} for i in range(10)])
    tp0, tp1 = TopicPartition(topic_name, 0), TopicPartition(topic_name, 1)
    with admin_client(bootstrap) as admin:
        result = admin.delete_records({tp0: 4})
        assert result[tp0]["low_watermark"] == 4
        assert result[tp0]["error_code"] == 0
    with consumer_for(bootstrap) as consumer:
        assert consumer.beginning_offsets([tp0, tp1]) == {tp0: 4, tp1: 0}
        assert consumer.end_offsets([tp0, tp1]) == {tp0: 10, tp1: 0}
        consumer.assign([tp0])
        consumer.seek_to_beginning(tp0)
        records = poll_until(consumer, 6)
        assert [(r.offset, r.value) for r in records] == [(i, b"%d" % i) for i in range(4, 10)]


# -- idempotent producer ---------------------------------------------------------------------


def test_idempotent_producer_writes_each_record_once(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 3)
    n = 300
    with producer_for(
        bootstrap, enable_idempotence=True, acks="all", linger_ms=5, batch_size=2048
    ) as producer:
        assert producer.config["enable_idempotence"] is True
        metadata = send_all(
            producer,
            topic_name,
            [{"key": b"key-%d" % (i % 17), "value": b"value-%06d" % i} for i in range(n)],
        )
        # The producer really ran idempotently: InitProducerId gave it an id, and each
        # partition's sequence advanced by the number of records sent there.
        txn = producer._transaction_manager
        assert txn is not None
        assert txn.producer_id_and_epoch.producer_id >= 0
        assert txn.producer_id_and_epoch.epoch == 0
        per_partition: dict[int, list[int]] = {}
        for md in metadata:
            per_partition.setdefault(md.partition, []).append(md.offset)
        for p, offsets in per_partition.items():
            assert txn.sequence_number(TopicPartition(topic_name, p)) == len(offsets)
    for offsets in per_partition.values():
        assert offsets == list(range(len(offsets)))  # acknowledged in order, no gaps or repeats

    with consumer_for(bootstrap) as consumer:
        partitions = [TopicPartition(topic_name, p) for p in range(3)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        received = poll_until(consumer, n)
        assert drain(consumer, 0.5) == []
        assert consumer.end_offsets(partitions) == {
            TopicPartition(topic_name, p): len(per_partition.get(p, [])) for p in range(3)
        }
    assert sorted(r.value for r in received) == [b"value-%06d" % i for i in range(n)]
    # Same key, same partition, in send order.
    for key in {r.key for r in received}:
        values = [r.value for r in received if r.key == key]
        assert len({r.partition for r in received if r.key == key}) == 1
        assert values == sorted(values)


# -- admin -----------------------------------------------------------------------------------


def test_admin_create_topics_and_already_exists(bootstrap: str, topic_name: str) -> None:
    with admin_client(bootstrap) as admin:
        result = admin.create_topics(
            {
                topic_name: {
                    "num_partitions": 4,
                    "replication_factor": 1,
                    "configs": {"retention.ms": "3600000"},
                }
            },
            wait_for_metadata=True,
        )
        [created] = result["topics"]
        assert created["name"] == topic_name
        assert created["error_code"] == 0
        assert topic_name in admin.list_topics()
        [described] = admin.describe_topics([topic_name])
        assert described["name"] == topic_name
        assert described["error_code"] == 0
        assert sorted(p["partition_index"] for p in described["partitions"]) == [0, 1, 2, 3]

        with pytest.raises(TopicAlreadyExistsError):
            admin.create_topics({topic_name: {"num_partitions": 1, "replication_factor": 1}})
        result = admin.create_topics(
            {topic_name: {"num_partitions": 1, "replication_factor": 1}}, raise_errors=False
        )
        [again] = result["topics"]
        assert again["error_code"] == TopicAlreadyExistsError.errno

        # The default partition count (num.partitions=3 in the fixture) when none is given.
        defaulted = f"{topic_name}-default"
        admin.create_topics([defaulted], wait_for_metadata=True)
        [described] = admin.describe_topics([defaulted])
        assert len(described["partitions"]) == 3
        admin.delete_topics([defaulted])


def test_admin_describe_configs_returns_all_with_defaults(bootstrap: str, topic_name: str) -> None:
    with admin_client(bootstrap) as admin:
        admin.create_topics(
            {
                topic_name: {
                    "num_partitions": 1,
                    "replication_factor": 1,
                    "configs": {"retention.ms": "3600000", "cleanup.policy": "delete"},
                }
            },
            wait_for_metadata=True,
        )
        resource = ConfigResource(ConfigResourceType.TOPIC, topic_name)
        every = admin.describe_configs([resource], config_filter="all")["topic"][topic_name]
        for key in (
            "retention.ms",
            "retention.bytes",
            "segment.bytes",
            "segment.ms",
            "cleanup.policy",
            "max.message.bytes",
            "message.timestamp.type",
            "flush.messages",
        ):
            assert key in every, f"{key} missing from DescribeConfigs"
        assert every["retention.ms"]["value"] == "3600000"
        assert every["retention.ms"]["config_source"] == ConfigSourceType.DYNAMIC_TOPIC_CONFIG.name
        assert every["cleanup.policy"]["value"] == "delete"
        assert every["retention.bytes"]["value"] == "-1"
        assert every["segment.bytes"]["value"] == "1073741824"
        assert every["message.timestamp.type"]["value"] == "CreateTime"
        assert every["retention.bytes"]["config_source"] in (
            ConfigSourceType.DEFAULT_CONFIG.name,
            ConfigSourceType.STATIC_BROKER_CONFIG.name,
        )

        # The default filter keeps only the topic's overrides.
        modified = admin.describe_configs([resource])["topic"][topic_name]
        assert {k: v["value"] for k, v in modified.items()} == {
            "retention.ms": "3600000",
            "cleanup.policy": "delete",
        }
        # Asking for named keys returns only those.
        named = admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, topic_name, ["segment.bytes"])],
            config_filter="all",
        )["topic"][topic_name]
        assert list(named) == ["segment.bytes"]
        # With synonyms: the override first, then the default it shadows.
        synonyms = admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, topic_name, ["retention.ms"])],
            include_synonyms=True,
            config_filter="all",
        )["topic"][topic_name]["retention.ms"]["synonyms"]
        assert synonyms[0] == {
            "name": "retention.ms",
            "value": "3600000",
            "source": ConfigSourceType.DYNAMIC_TOPIC_CONFIG.name,
        }
        assert synonyms[-1]["source"] == ConfigSourceType.DEFAULT_CONFIG.name

        # A topic with no overrides reports Kafka's default retention.ms (7 days).
        plain = f"{topic_name}-plain"
        admin.create_topics({plain: {"num_partitions": 1, "replication_factor": 1}})
        plain_configs = admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, plain)], config_filter="all"
        )["topic"][plain]
        assert plain_configs["retention.ms"]["value"] == "604800000"
        assert plain_configs["retention.ms"]["config_source"] == (
            ConfigSourceType.DEFAULT_CONFIG.name
        )
        assert admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, plain)]) == {
            "topic": {plain: {}}
        }
        admin.delete_topics([plain])


def topic_overrides(admin: KafkaAdminClient, topic: str) -> dict[str, str]:
    resource = ConfigResource(ConfigResourceType.TOPIC, topic)
    modified = admin.describe_configs([resource])["topic"][topic]
    return {k: v["value"] for k, v in modified.items()}


def test_admin_alter_and_incremental_alter_configs(bootstrap: str, topic_name: str) -> None:
    with admin_client(bootstrap) as admin:
        admin.create_topics(
            {
                topic_name: {
                    "num_partitions": 1,
                    "replication_factor": 1,
                    "configs": {"retention.ms": "3600000"},
                }
            },
            wait_for_metadata=True,
        )
        topic = ConfigResourceType.TOPIC

        # Non-incremental AlterConfigs (the client re-sends the existing overrides).
        result = admin.alter_configs(
            [ConfigResource(topic, topic_name, {"segment.ms": "600000"})], incremental=False
        )
        assert result == {"topic": {topic_name: "OK"}}
        assert topic_overrides(admin, topic_name) == {
            "retention.ms": "3600000",
            "segment.ms": "600000",
        }

        # IncrementalAlterConfigs: SET, DELETE and APPEND / SUBTRACT on a list config.
        result = admin.alter_configs(
            [
                ConfigResource(
                    topic,
                    topic_name,
                    {
                        "retention.ms": (AlterConfigOp.DELETE, None),
                        "max.message.bytes": (AlterConfigOp.SET, "2000000"),
                        "cleanup.policy": (AlterConfigOp.APPEND, "compact"),
                    },
                )
            ],
            incremental=True,
        )
        assert result == {"topic": {topic_name: "OK"}}
        assert topic_overrides(admin, topic_name) == {
            "segment.ms": "600000",
            "max.message.bytes": "2000000",
            "cleanup.policy": "delete,compact",
        }
        every = admin.describe_configs([ConfigResource(topic, topic_name)], config_filter="all")[
            "topic"
        ][topic_name]
        assert every["retention.ms"]["value"] == "604800000"

        result = admin.alter_configs(
            [
                ConfigResource(
                    topic, topic_name, {"cleanup.policy": (AlterConfigOp.SUBTRACT, "delete")}
                )
            ],
            incremental=True,
        )
        assert result == {"topic": {topic_name: "OK"}}
        assert topic_overrides(admin, topic_name)["cleanup.policy"] == "compact"

        # validate_only changes nothing; an invalid value is refused and changes nothing.
        result = admin.alter_configs(
            [ConfigResource(topic, topic_name, {"segment.ms": "900000"})],
            incremental=True,
            validate_only=True,
        )
        assert result == {"topic": {topic_name: "OK"}}
        result = admin.alter_configs(
            [ConfigResource(topic, topic_name, {"retention.ms": "not-a-number"})],
            incremental=True,
        )
        assert result["topic"][topic_name].startswith("[Error 40] InvalidConfigurationError")
        assert topic_overrides(admin, topic_name) == {
            "segment.ms": "600000",
            "max.message.bytes": "2000000",
            "cleanup.policy": "compact",
        }

        # reset_configs: DELETE every override.
        result = admin.reset_configs([ConfigResource(topic, topic_name, {})], incremental=True)
        assert result == {"topic": {topic_name: "OK"}}
        assert topic_overrides(admin, topic_name) == {}


def test_admin_create_partitions(bootstrap: str, topic_name: str) -> None:
    with admin_client(bootstrap) as admin:
        admin.create_topics(
            {topic_name: {"num_partitions": 2, "replication_factor": 1}}, wait_for_metadata=True
        )
        admin.create_partitions({topic_name: 5})
        [described] = admin.describe_topics([topic_name])
        assert sorted(p["partition_index"] for p in described["partitions"]) == [0, 1, 2, 3, 4]

        with pytest.raises(InvalidPartitionsError):
            admin.create_partitions({topic_name: 3})
        with pytest.raises(InvalidPartitionsError):
            admin.create_partitions({topic_name: 5})
        with pytest.raises(UnknownTopicOrPartitionError):
            admin.create_partitions({f"{topic_name}-missing": 5})

    # The new partitions take writes and reads.
    with producer_for(bootstrap) as producer:
        [md] = send_all(producer, topic_name, [{"partition": 4, "value": b"in-p4"}])
        assert (md.partition, md.offset) == (4, 0)
    with consumer_for(bootstrap) as consumer:
        tp4 = TopicPartition(topic_name, 4)
        assert consumer.partitions_for_topic(topic_name) == {0, 1, 2, 3, 4}
        consumer.assign([tp4])
        consumer.seek_to_beginning(tp4)
        [record] = poll_until(consumer, 1)
        assert (record.partition, record.offset, record.value) == (4, 0, b"in-p4")


def test_admin_consumer_groups(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 2)
    group = unique_group(topic_name)
    with producer_for(bootstrap) as producer:
        send_all(producer, topic_name, [{"partition": i % 2, "value": b"%d" % i} for i in range(6)])

    with (
        admin_client(bootstrap) as admin,
        consumer_for(bootstrap, group_id=group, client_id="group-admin-member") as consumer,
    ):
        consumer.subscribe([topic_name])
        poll_until(consumer, 6)
        consumer.commit()

        listed = {g["group_id"]: g for g in admin.list_groups()}
        assert group in listed
        assert listed[group]["protocol_type"] == "consumer"

        described = admin.describe_groups([group])[group]
        assert described["error"] is None
        assert described["group_state"] == "Stable"
        assert described["protocol_type"] == "consumer"
        assert described["protocol_data"] in ("range", "roundrobin", "sticky", "cooperative-sticky")
        [member] = described["members"]
        assert member["client_id"] == "group-admin-member"
        assert member["member_metadata"]["topics"] == [topic_name]
        assigned = member["member_assignment"]["assigned_partitions"]
        assert assigned == [{"topic": topic_name, "partitions": [0, 1]}]

        # Deleting a group with a member fails.
        assert admin.delete_groups([group]) == {group: "NonEmptyGroupError"}

    with admin_client(bootstrap) as admin:
        offsets = admin.list_group_offsets(group)[group]
        assert {tp: om.offset for tp, om in offsets.items()} == {
            TopicPartition(topic_name, 0): 3,
            TopicPartition(topic_name, 1): 3,
        }
        only_p1 = admin.list_group_offsets({group: [TopicPartition(topic_name, 1)]})[group]
        assert {tp: om.offset for tp, om in only_p1.items()} == {TopicPartition(topic_name, 1): 3}

        described = admin.describe_groups([group])[group]
        assert described["group_state"] == "Empty"
        assert described["members"] == []
        empty_listed = {g["group_id"]: g for g in admin.list_groups(states_filter=["Empty"])}
        assert group in empty_listed
        stable_listed = {g["group_id"] for g in admin.list_groups(states_filter=["Stable"])}
        assert group not in stable_listed

        missing = unique_group(topic_name)
        assert admin.delete_groups([group, missing]) == {
            group: "OK",
            missing: "GroupIdNotFoundError",
        }
        assert group not in {g["group_id"] for g in admin.list_groups()}
        assert admin.list_group_offsets(group)[group] == {}
        assert admin.describe_groups([group])[group]["group_state"] == "Dead"


def test_admin_group_offsets_without_members(bootstrap: str, topic_name: str) -> None:
    """Offsets of a group with no members: alter (standalone OffsetCommit), reset, delete."""
    create_topic(bootstrap, topic_name, 2)
    with producer_for(bootstrap) as producer:
        send_all(producer, topic_name, [{"partition": i % 2, "value": b"%d" % i} for i in range(8)])
    group = unique_group(topic_name)
    tp0, tp1 = TopicPartition(topic_name, 0), TopicPartition(topic_name, 1)
    with admin_client(bootstrap) as admin:
        result = admin.alter_group_offsets(
            group, {tp0: OffsetAndMetadata(1, "meta", None), tp1: OffsetAndMetadata(3, "", None)}
        )
        assert {tp: err.__name__ for tp, err in result.items()} == {
            tp0: "NoError",
            tp1: "NoError",
        }
        offsets = admin.list_group_offsets(group)[group]
        assert {tp: (om.offset, om.metadata) for tp, om in offsets.items()} == {
            tp0: (1, "meta"),
            tp1: (3, ""),
        }
        # A group that only has committed offsets is listed and described as Empty.
        listed = {g["group_id"]: g for g in admin.list_groups()}
        assert listed[group]["group_state"] == "Empty"
        assert admin.describe_groups([group])[group]["group_state"] == "Empty"

        # Reset to the latest offset (ListOffsets, then OffsetCommit).
        result = admin.reset_group_offsets(group, {tp0: OffsetSpec.LATEST})
        assert result[tp0]["offset"] == 4
        assert result[tp0]["error"].__name__ == "NoError"
        # OffsetDelete removes one partition's offset only.
        result = admin.delete_group_offsets(group, [tp1])
        assert {tp: err.__name__ for tp, err in result.items()} == {tp1: "NoError"}
        offsets = admin.list_group_offsets(group)[group]
        assert {tp: om.offset for tp, om in offsets.items()} == {tp0: 4}

    # A consumer of the group starts from the committed offset, and from auto_offset_reset
    # where the offset was deleted.
    with consumer_for(bootstrap, group_id=group, auto_offset_reset="latest") as consumer:
        consumer.assign([tp0, tp1])
        assert consumer.position(tp0) == 4
        assert consumer.position(tp1) == 4


def test_admin_describe_cluster(bootstrap: str) -> None:
    host, port = bootstrap.rsplit(":", 1)
    with admin_client(bootstrap) as admin:
        cluster = admin.describe_cluster()
    assert cluster["cluster_id"]
    [broker] = cluster["brokers"]
    assert (broker["host"], broker["port"]) == (host, int(port))
    assert cluster["controller_id"] == broker["broker_id"]


def test_admin_delete_topics(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, 2)
    with producer_for(bootstrap) as producer:
        send_all(producer, topic_name, [{"partition": 0, "value": b"doomed"}])
    with admin_client(bootstrap) as admin:
        assert topic_name in admin.list_topics()
        result = admin.delete_topics([topic_name])
        assert [(t["name"], t["error_code"]) for t in result["topics"]] == [(topic_name, 0)]
        assert topic_name not in admin.list_topics()
        with pytest.raises(UnknownTopicOrPartitionError):
            admin.delete_topics([topic_name])
        result = admin.delete_topics([topic_name], raise_errors=False)
        assert [(t["name"], t["error_code"]) for t in result["topics"]] == [
            (topic_name, UnknownTopicOrPartitionError.errno)
        ]
        # The name can be reused, starting from an empty log.
        admin.create_topics(
            {topic_name: {"num_partitions": 1, "replication_factor": 1}}, wait_for_metadata=True
        )
    with consumer_for(bootstrap) as consumer:
        tp = TopicPartition(topic_name, 0)
        assert consumer.end_offsets([tp]) == {tp: 0}
