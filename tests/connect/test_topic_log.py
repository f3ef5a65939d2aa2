"""TopicBackedLog against the embedded broker: topic creation, catch-up, tailing, writes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from seaway.config import ConfigException
from seaway.connect.api.errors import ConnectError
from seaway.connect.runtime.storage import LogRecord, TopicBackedLog, TopicSpec
from tests.broker.clients import create_topic, quiet
from tests.connect.storage_helpers import murmur2_partition, produce, read_raw


class Collector:
    """A record callback that remembers what it was given."""

    def __init__(self) -> None:
        self.records: list[LogRecord] = []
        self.lock = threading.Lock()

    def __call__(self, record: LogRecord) -> None:
        with self.lock:
            self.records.append(record)

    def pairs(self) -> list[tuple[bytes | None, bytes | None]]:
        with self.lock:
            return [(r.key, r.value) for r in self.records]


def new_log(
    bootstrap: str, topic: str, callback: Callable[[LogRecord], None], **spec: Any
) -> TopicBackedLog:
    return TopicBackedLog(
        TopicSpec(topic, replication_factor=1, **spec),
        {"bootstrap.servers": bootstrap},
        callback,
        client_id=f"test-{topic}",
    )


def test_creates_a_compacted_topic(bootstrap: str, topic_name: str, started: Any) -> None:
    log = started(
        new_log(
            bootstrap, topic_name, Collector(), partitions=3, config={"min.insync.replicas": "1"}
        )
    )
    assert log.partition_count == 3
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    resource = ConfigResource(ResourceType.TOPIC, topic_name)
    configs = admin.describe_configs([resource])[resource].result(30)
    assert configs["cleanup.policy"].value == "compact"
    assert configs["min.insync.replicas"].value == "1"
    metadata = admin.list_topics(topic_name, timeout=30)
    assert len(metadata.topics[topic_name].partitions) == 3


def test_start_reads_existing_records_in_order(
    bootstrap: str, topic_name: str, started: Any
) -> None:
    create_topic(bootstrap, topic_name, partitions=1, config={"cleanup.policy": "compact"})
    records = [(f"k{i}".encode(), f"v{i}".encode()) for i in range(50)] + [(b"k1", None)]
    produce(bootstrap, topic_name, records)
    collector = Collector()
    started(new_log(bootstrap, topic_name, collector))
    # start() returns only once everything up to the end offsets has been handed over
    assert collector.pairs() == records
    assert [r.offset for r in collector.records] == list(range(51))


def test_send_then_read_to_end_sees_own_writes(
    bootstrap: str, topic_name: str, started: Any
) -> None:
    collector = Collector()
    log = started(new_log(bootstrap, topic_name, collector, partitions=3))
    assert collector.pairs() == []
    futures = [log.send(f"key-{i}", f"value-{i}".encode()) for i in range(20)]
    log.send("key-3", None)
    log.read_to_end(30)
    assert len(collector.pairs()) == 21
    assert (b"key-3", None) in collector.pairs()
    partition, offset = futures[0].result(0)
    assert 0 <= partition < 3 and offset >= 0


def test_keys_go_where_the_java_partitioner_puts_them(
    bootstrap: str, topic_name: str, started: Any
) -> None:
    log = started(new_log(bootstrap, topic_name, Collector(), partitions=5))
    keys = [f'["conn",{{"file":"f{i}"}}]'.encode() for i in range(30)]
    log.send_all([(key, b"{}") for key in keys])
    for partition, records in read_raw(bootstrap, topic_name).items():
        for key, _ in records:
            assert key is not None
            assert murmur2_partition(key, 5) == partition


def test_a_second_log_tails_the_first(bootstrap: str, topic_name: str, started: Any) -> None:
    writer = started(new_log(bootstrap, topic_name, Collector(), partitions=2))
    reader_records = Collector()
    reader = started(new_log(bootstrap, topic_name, reader_records, partitions=2))
    writer.send_all([(b"a", b"1"), (b"b", b"2")])
    deadline = time.monotonic() + 10
    while len(reader_records.pairs()) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)  # the reader's background thread picks them up on its own
    assert sorted(reader_records.pairs()) == [(b"a", b"1"), (b"b", b"2")]
    reader.read_to_end(10)


def test_a_failing_callback_does_not_stop_the_log(
    bootstrap: str, topic_name: str, started: Any
) -> None:
    seen: list[bytes | None] = []

    def callback(record: LogRecord) -> None:
        seen.append(record.key)
        if record.key == b"bad":
            raise ValueError("boom")

    log = started(new_log(bootstrap, topic_name, callback))
    log.send_all([(b"bad", b"1"), (b"good", b"2")])
    log.read_to_end(10)
    assert seen == [b"bad", b"good"]


def test_an_existing_topic_must_be_compacted(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1, config={"cleanup.policy": "delete"})
    log = TopicBackedLog(
        TopicSpec(topic_name, worker_config="offset.storage.topic", purpose="offsets"),
        {"bootstrap.servers": bootstrap},
        Collector(),
    )
    with pytest.raises(ConfigException) as info:
        log.start()
    message = str(info.value)
    assert f"Topic '{topic_name}' supplied via the 'offset.storage.topic' property" in message
    assert "'cleanup.policy=delete'" in message and "'cleanup.policy=compact'" in message
    log.stop()


def test_read_to_end_needs_a_running_log(bootstrap: str, topic_name: str) -> None:
    log = new_log(bootstrap, topic_name, Collector())
    log.start()
    log.stop()
    with pytest.raises(ConnectError):
        log.read_to_end(5)
    with pytest.raises(ConnectError):
        log.send(b"k", b"v").result(5)
    log.stop()  # stopping twice is harmless
