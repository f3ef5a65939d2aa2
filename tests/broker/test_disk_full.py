"""A full disk: a broker whose data dir sits on a small tmpfs that fills up answers
KAFKA_STORAGE_ERROR (not a dropped connection), keeps serving reads and metadata, loses
no acked record, and takes writes again by itself once space is freed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.broker import BrokerProcess
from tests.broker.clients import create_topic, produce, quiet, read_partition

pytestmark = pytest.mark.timeout(120)

TOPIC = "full"
VALUE_BYTES = 20_000


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs (needs root: a real ENOSPC, which RLIMIT_FSIZE cannot give)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.fail(f"cannot mount a small tmpfs (the test needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def broker(disk: Path, tmp_path: Path) -> Iterator[BrokerProcess]:
    with BrokerProcess(disk / "data", log_file=tmp_path / "broker.log") as b:
        yield b


def _fill(path: Path, leave: int) -> None:
    """Write ``path`` until only about ``leave`` bytes of its file system are free
    (``leave=0``: until ENOSPC)."""
    stat = os.statvfs(path.parent)
    todo = max(stat.f_bavail * stat.f_frsize - leave, 0) if leave else 1 << 40
    chunk = b"\0" * (1 << 16)
    with open(path, "ab", buffering=0) as f:
        while todo > 0:
            try:
                written = f.write(chunk[: min(len(chunk), todo)])
            except OSError:
                return
            todo -= written or 0


def _produce_round(bootstrap: str, start: int, count: int) -> tuple[dict[int, bytes], list[Any]]:
    """Produce ``count`` records without retries; return the acked ones by offset and the
    delivery errors."""
    producer = Producer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "acks": "all",
                "enable.idempotence": False,
                "retries": 0,
                "linger.ms": 2,
                "message.timeout.ms": 10_000,
            }
        )
    )
    acked: dict[int, bytes] = {}
    errors: list[Any] = []

    def report(err: Any, msg: Any) -> None:
        if err is None:
            acked[msg.offset()] = msg.value()
        else:
            errors.append(err)

    for i in range(start, start + count):
        value = f"record-{i}-".encode().ljust(VALUE_BYTES, b"x")
        producer.produce(TOPIC, value=value, partition=0, on_delivery=report)
        producer.poll(0)
    assert producer.flush(20) == 0, "the producer got no delivery report within 20 s"
    return acked, errors


def _contents(bootstrap: str) -> dict[int, bytes]:
    messages = read_partition(bootstrap, TOPIC, committed=False)
    offsets = [m.offset() for m in messages]
    assert offsets == list(range(len(offsets))), f"offsets not contiguous from 0: {offsets}"
    return {m.offset(): m.value() for m in messages}


def _commit_error(bootstrap: str) -> int | None:
    """The error code of a group offset commit (None if it worked)."""
    consumer = Consumer(
        quiet(
            {"bootstrap.servers": bootstrap, "group.id": "committer", "enable.auto.commit": False}
        )
    )
    try:
        consumer.commit(offsets=[TopicPartition(TOPIC, 0, 1)], asynchronous=False)
    except KafkaException as e:
        return int(e.args[0].code())
    finally:
        consumer.close()
    return None


def test_full_disk_answers_storage_error_and_recovers(broker: BrokerProcess, disk: Path) -> None:
    bootstrap = broker.bootstrap_servers
    create_topic(bootstrap, TOPIC, partitions=1)
    _fill(disk / "filler", leave=2 << 20)

    acked: dict[int, bytes] = {}
    errors: list[Any] = []
    sent = 0
    while not errors and sent < 400:  # ~2 MiB of room: ~100 records
        round_acked, errors = _produce_round(bootstrap, sent, 20)
        acked |= round_acked
        sent += 20
    assert errors, "the disk never filled up"
    _fill(disk / "filler-2", leave=0)  # now really full: metadata writes fail too
    more_acked, more_errors = _produce_round(bootstrap, sent, 5)
    sent += 5
    acked |= more_acked
    errors += more_errors
    codes = {e.code() for e in errors}
    assert codes == {KafkaError.KAFKA_STORAGE_ERROR}, [str(e) for e in errors]
    assert more_errors, "a produce to a full disk succeeded"

    # the broker is up: reads and metadata work, every acked record is there once
    assert broker.process is not None and broker.process.poll() is None
    assert _contents(bootstrap) == acked
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    assert TOPIC in admin.list_topics(timeout=10).topics
    with pytest.raises(KafkaException) as failed:
        admin.create_topics([NewTopic("on-a-full-disk", 1)])["on-a-full-disk"].result(10)
    assert failed.value.args[0].code() == KafkaError.KAFKA_STORAGE_ERROR
    assert _commit_error(bootstrap) == KafkaError.NOT_COORDINATOR  # as Kafka: clients retry
    broker_log = broker.log_file.read_text()
    assert broker_log.count(f"Error while appending records to {TOPIC}-0") == 1, broker_log
    assert broker_log.count("Error while writing the metadata store") == 1, broker_log

    # space returns: writes resume, offsets continue, nothing lost or duplicated
    (disk / "filler").unlink()
    (disk / "filler-2").unlink()
    values = [(None, f"after-{i}".encode()) for i in range(10)]
    placed = produce(bootstrap, TOPIC, values, acks="all")
    assert [offset for _, offset in placed] == list(range(len(acked), len(acked) + 10))
    expected = acked | {offset: v for (_, offset), (_, v) in zip(placed, values, strict=True)}
    assert _contents(bootstrap) == expected
    create_topic(bootstrap, "on-a-full-disk", partitions=1)
    assert _commit_error(bootstrap) is None
