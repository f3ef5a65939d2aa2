"""Connect's offsets topic stays small while a source commits every 100 ms.

A FileStreamSource reads a file that keeps growing, and its worker flushes the source's
offset every ``offset.flush.interval.ms=100``: one record in the compacted offsets topic per
flush. On a broker with 4 KiB segments whose cleaner looks for work every 100 ms, the
offsets partitions' bytes (DescribeLogDirs) stop growing while hundreds of offsets are
committed, and a restarted worker reads the latest offset back from the compacted topic.
``make soak`` runs it ``SEAWAY_SOAK`` times longer.
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

DURATION_S = soak(60)
SEGMENT_BYTES = 4096
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


def offsets_bytes(cluster: EmbeddedConnectCluster, topic: str) -> int:
    """The bytes the broker holds for the offsets topic's partitions (DescribeLogDirs)."""
    client = KafkaCluster(cluster.bootstrap)
    try:
        sizes = partition_sizes(client, [cluster.kafka.broker.node_id])
    finally:
        client.close()
    return sum(sizes.get((topic, p), 0) for p in range(OFFSET_PARTITIONS))


def offset_records(bootstrap: str, topic: str) -> tuple[int, list[tuple[Any, Any]]]:
    """How many records were ever written to *topic* (the partitions' end offsets), and
    ``(key, value)`` of those still in it, decoded from JSON."""
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"check-{uuid.uuid4().hex}",
                "enable.partition.eof": True,
            }
        )
    )
    partitions = [TopicPartition(topic, p, 0) for p in range(OFFSET_PARTITIONS)]
    ends = [consumer.get_watermark_offsets(tp, 10)[1] for tp in partitions]
    consumer.assign([tp for tp, end in zip(partitions, ends, strict=True) if end])
    out: list[tuple[Any, Any]] = []
    at_end = 0
    deadline = time.monotonic() + 30
    try:
        while at_end < sum(1 for end in ends if end):
            assert time.monotonic() < deadline, f"{topic} not read to its end in 30 s"
            for message in consumer.consume(500, 0.5):
                error, key, value = message.error(), message.key(), message.value()
                if error is None and key is not None:
                    out.append((json.loads(key), value and json.loads(value)))
                elif error is not None and error.code() == -191:  # _PARTITION_EOF
                    at_end += 1
    finally:
        consumer.close()
    return sum(ends), out


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
            lambda: offset_records(cluster.bootstrap, offsets_topic)[0] > 10,
        )
        first_commits = offset_records(cluster.bootstrap, offsets_topic)[0]
        samples: list[int] = []
        started = time.monotonic()
        while time.monotonic() - started < DURATION_S:
            samples.append(offsets_bytes(cluster, offsets_topic))
            time.sleep(0.5)
    finally:
        feeder.stop()
    commits, kept = offset_records(cluster.bootstrap, offsets_topic)
    third = len(samples) // 3
    middle, last = samples[third : 2 * third], samples[2 * third :]
    report = f"{commits - first_commits} commits; bytes sampled: {samples}"
    # One commit per micro-batch that moved the offset: 2-5 a second on two busy cores, each
    # ~200 bytes, so that without compaction the partition would grow ~10 segments a minute.
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
