"""Connect's offsets topic stays small while a source commits every 100 ms.

A FileStreamSource reads a file that keeps growing, and its worker flushes the source's
offset every ``offset.flush.interval.ms=100``: one record in the compacted offsets topic per
flush. On a broker with 1 KiB segments whose cleaner looks for work every 100 ms, the
offsets partitions' bytes (DescribeLogDirs) stay within three segments while the commits
written add up to several times that, and a restarted worker reads the latest offset back
from the compacted topic. ``make soak`` runs it ``SEAWAY_SOAK`` times longer.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from seaway.kafka.cluster import KafkaCluster
from seaway.kafka.log_dirs import partition_sizes
from tests.broker.clients import create_topic, quiet
from tests.connect.workers import wait_for
from tests.embedded import EmbeddedConnectCluster
from tests.soak import soak

DURATION_S = soak(20)
SEGMENT_BYTES = 1024
OFFSET_PARTITIONS = 3

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420 + 2 * DURATION_S)]


class Feeder(threading.Thread):
    """Appends a few lines to *path* every 50 ms until stopped, as a live log grows."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.lines = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.05):
            with open(self.path, "a", encoding="utf-8") as f:
                f.write("".join(f"line {self.lines + i:08d}\n" for i in range(5)))
            self.lines += 5

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def offsets_bytes(client: KafkaCluster, node_id: int, topic: str) -> int:
    """The bytes the broker holds for the offsets topic's partitions (DescribeLogDirs)."""
    sizes = partition_sizes(client, [node_id])
    return sum(sizes.get((topic, p), 0) for p in range(OFFSET_PARTITIONS))


def end_offsets(consumer: Consumer, topic: str) -> list[int]:
    """Each offsets partition's end offset: how many records were ever written to it."""
    return [
        consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1]
        for p in range(OFFSET_PARTITIONS)
    ]


def offset_records(bootstrap: str, topic: str) -> tuple[int, list[tuple[Any, Any]]]:
    """How many records were ever written to *topic*, and ``(key, value)`` of those still in
    it below the end offsets taken first, decoded from JSON.

    The read ends when each partition's position reaches its end offset, not at a record or
    at an end-of-partition event: compaction may have removed the record at end - 1, and a
    worker committing every 100 ms keeps the partition's end moving.
    """
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "unused"}))
    out: list[tuple[Any, Any]] = []
    try:
        ends = end_offsets(consumer, topic)
        position = [0] * OFFSET_PARTITIONS
        consumer.assign([TopicPartition(topic, p, 0) for p, end in enumerate(ends) if end])
        deadline = time.monotonic() + 30
        while any(at < end for at, end in zip(position, ends, strict=True)):
            assert time.monotonic() < deadline, f"{topic} not read to {ends} in 30 s: {position}"
            for message in consumer.consume(500, 0.5):
                if message.error() is not None:
                    continue
                p, offset = message.partition(), message.offset()
                position[p] = offset + 1
                key, value = message.key(), message.value()
                if offset < ends[p] and key is not None:
                    out.append((json.loads(key), value and json.loads(value)))
    finally:
        consumer.close()
    return sum(ends), out


def commits_so_far(bootstrap: str, topic: str) -> int:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "unused"}))
    try:
        return sum(end_offsets(consumer, topic))
    finally:
        consumer.close()


def test_offsets_topic_stays_bounded_under_frequent_commits(
    tmp_path: Path, connect_cluster: Callable[..., EmbeddedConnectCluster]
) -> None:
    name = f"growing-{uuid.uuid4().hex[:6]}"
    cluster = connect_cluster(
        name=name,
        broker_config={"log.segment.bytes": SEGMENT_BYTES, "log.cleaner.backoff.ms": 100},
        **{"offset.flush.interval.ms": 100, "offset.storage.partitions": OFFSET_PARTITIONS},
    )
    offsets_topic = f"{name}-offsets"
    source = tmp_path / "growing.txt"
    source.write_text("", encoding="utf-8")
    create_topic(cluster.bootstrap, f"{name}-lines", 1)
    feeder = Feeder(source)
    feeder.start()
    connector = f"{name}-src"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{name}-lines"}
    cluster.rest.ok("POST", "/connectors", {"name": connector, "config": config})
    try:
        wait_for(
            "the first offset commits",
            lambda: commits_so_far(cluster.bootstrap, offsets_topic) > 10,
        )
        first_commits = commits_so_far(cluster.bootstrap, offsets_topic)
        samples: list[int] = []
        client = KafkaCluster(cluster.bootstrap)
        try:
            started = time.monotonic()
            while time.monotonic() - started < DURATION_S:
                samples.append(offsets_bytes(client, cluster.kafka.broker.node_id, offsets_topic))
                time.sleep(0.5)
        finally:
            client.close()
    finally:
        feeder.stop()
    commits, kept = offset_records(cluster.bootstrap, offsets_topic)
    third = len(samples) // 3
    middle, last = samples[third : 2 * third], samples[2 * third :]
    report = f"{commits - first_commits} commits; bytes sampled: {samples}"
    # One commit per micro-batch that moved the offset: 2-5 a second on two busy cores, each
    # a batch of ~200 bytes, so that the 33 or more commits of 20 s would fill six segments
    # without compaction (the test fails with the cleaner off).
    assert commits - first_commits >= DURATION_S * 5 // 3, report
    assert max(last) <= max(middle) + SEGMENT_BYTES, report
    assert max(samples) <= 3 * SEGMENT_BYTES, report
    assert len(kept) < commits / 4, f"{len(kept)} of {commits} records left: {report}"

    end = {"position": source.stat().st_size}
    path = f"/connectors/{connector}/offsets"
    wait_for(
        "the offset of the file's end",
        lambda: cluster.rest.ok("GET", path)["offsets"][0]["offset"] == end,
    )
    worker = cluster.workers[0]
    worker.stop()
    worker.start()  # reads the offsets topic from its start: compacted, the latest offset last
    assert worker.rest is not None
    rest = worker.rest
    wait_for(
        "the connector after the restart",
        lambda: rest.get(f"/connectors/{connector}/status")[0] == 200,
    )
    assert rest.ok("GET", path)["offsets"] == [
        {"partition": {"filename": str(source)}, "offset": end}
    ]
    _, kept = offset_records(cluster.bootstrap, offsets_topic)
    assert [value for key, value in kept if key[0] == connector][-1] == end
