"""``seaway mirror-maker mm2.properties`` as a process: A -> B through kill -9 and restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.broker.clients import quiet

pytestmark = pytest.mark.slow

PARTITIONS = 3


def _mm2_properties(path: Path, a: str, b: str, topic: str, **extra: str) -> Path:
    lines = [
        "clusters = A, B",
        f"A.bootstrap.servers = {a}",
        f"B.bootstrap.servers = {b}",
        "A->B.enabled = true",
        f"A->B.topics = {topic}",
        "replication.factor = 1",
        "offset-syncs.topic.replication.factor = 1",
        "checkpoints.topic.replication.factor = 1",
        "heartbeats.topic.replication.factor = 1",
        "refresh.topics.interval.seconds = 1",
        "spark.master = local[2]",
        *(f"{k} = {v}" for k, v in extra.items()),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _start(config: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "seaway", "mirror-maker", str(config)],
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
        )
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline().decode(errors="replace")
        if "running flows" in line:
            assert "A->B" in line, line
            return proc
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"mirror-maker did not start:\n{log.read_text(errors='replace')[-3000:]}")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(30)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 60 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        _kill(proc)


def _values(bootstrap: str, topic: str) -> dict[int, list[bytes]]:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "check"}))
    out: dict[int, list[bytes]] = {}
    try:
        for p in range(PARTITIONS):
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), 10)
            values: list[bytes] = []
            consumer.assign([TopicPartition(topic, p, low)])
            while len(values) < high - low:
                values += [m.value() for m in consumer.consume(1000, 1.0) if m.error() is None]
            out[p] = values
    finally:
        consumer.close()
    return out


def _count(bootstrap: str, topic: str) -> int:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "count"}))
    try:
        return sum(
            consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1]
            for p in range(PARTITIONS)
        )
    except Exception:
        return 0
    finally:
        consumer.close()


def _produce(bootstrap: str, topic: str, start: int, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(start, start + count):
        producer.produce(topic, key=str(i).encode(), value=f"record {i}".encode())
        if i % 10_000 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0


def _wait(what: str, check: Any, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def _restart_and_check(config: Path, log: Path, a: str, b: str, topic: str, total: int) -> None:
    """Start the mirror again, wait for all *total* records on B, and check that every one
    of the source arrived, in order, duplicates only re-sent."""
    remote = f"A.{topic}"
    proc = _start(config, log)
    try:
        _wait("every record on B", lambda: _count(b, remote) >= total)
    finally:
        _stop(proc)
    source, copy = _values(a, topic), _values(b, remote)
    for p in range(PARTITIONS):
        assert set(copy[p]) == set(source[p])  # nothing lost
        assert list(dict.fromkeys(copy[p])) == source[p]  # in order, duplicates only re-sent


def test_kill9_mid_flow_loses_nothing(tmp_path: Path, cluster_a: Any, cluster_b: Any) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic = f"events-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    _produce(a, topic, 0, 60_000)
    config = _mm2_properties(tmp_path / "mm2.properties", a, b, topic)
    remote = f"A.{topic}"
    proc = _start(config, tmp_path / "mm2.log")
    try:
        _wait("part of the topic on B", lambda: _count(b, remote) > 5_000)
    finally:
        _kill(proc)
    _produce(a, topic, 60_000, 20_000)  # written while the mirror is down
    _restart_and_check(config, tmp_path / "mm2.log", a, b, topic, 80_000)


def test_bad_mm2_properties_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "mm2.properties"
    config.write_text(
        "clusters = A, B\nA.bootstrap.servers = x:1\nB.bootstrap.servers = y:1\n"
        "C->B.enabled = true\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "seaway", "mirror-maker", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "C->B.enabled" in done.stderr


def test_kill9_while_following_loses_nothing(
    tmp_path: Path, cluster_a: Any, cluster_b: Any
) -> None:
    """With seaway.flow.follow.ms the flow's tasks copy records as they arrive, past what
    Spark planned; a kill -9 while they follow, and records written while it is down, lose
    nothing: the restart resumes from the offsets the tasks stored."""
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic = f"follow-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    config = _mm2_properties(
        tmp_path / "mm2.properties", a, b, topic, **{"seaway.flow.follow.ms": "3000"}
    )
    remote = f"A.{topic}"
    written = 0
    stop = threading.Event()

    def trickle() -> None:  # 100 records every 50 ms while the mirror runs
        nonlocal written
        while not stop.is_set():
            _produce(a, topic, written, 100)
            written += 100
            time.sleep(0.05)

    proc = _start(config, tmp_path / "mm2.log")
    producing = threading.Thread(target=trickle)
    producing.start()
    try:
        _wait("records copied while they arrive", lambda: _count(b, remote) > 3_000)
    finally:
        _kill(proc)
        stop.set()
        producing.join()
    _produce(a, topic, written, 5_000)  # written while the mirror is down
    _restart_and_check(config, tmp_path / "mm2.log", a, b, topic, written + 5_000)
    # The tasks recorded how far they followed, for each next micro-batch to start there.
    target = AdminClient({"bootstrap.servers": b})
    request = ConsumerGroupTopicPartitions(
        "__seaway-mirror-A-B", [TopicPartition(remote, p) for p in range(PARTITIONS)]
    )
    progress = target.list_consumer_group_offsets([request])["__seaway-mirror-A-B"].result(30)
    assert all(tp.offset > 0 and tp.metadata for tp in progress.topic_partitions)
