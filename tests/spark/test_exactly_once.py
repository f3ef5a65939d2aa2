"""Exactly-once Kafka writes: kills of the driver, task failures, replays."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource
from pyspark.sql import SparkSession

from tests.broker.clients import consume_all, create_topic, produce, quiet
from tests.soak import soak
from tests.spark.helpers import kafka_stream, run_available_now

pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = {"isolation.level": "read_committed"}  # librdkafka's default, said explicitly


def _job(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.spark.eos_job", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _commits(checkpoint: Path) -> int:
    commits = checkpoint / "commits"
    return len([p for p in commits.iterdir() if p.name.isdigit()]) if commits.exists() else 0


def _run_with_kills(args: list[str], checkpoint: Path, kills: int, feed) -> None:
    """Run the job, SIGKILL it after a few committed batches, ``kills`` times; then finish."""
    for round_ in range(kills):
        feed(round_)
        job = _job(*args[:-1], f"{args[-1]}-forever")
        try:
            assert job.stdout is not None
            assert job.stdout.readline().strip() == b"started"
            target = _commits(checkpoint) + 2
            deadline = time.monotonic() + 180
            while _commits(checkpoint) < target:
                assert time.monotonic() < deadline, "the job made no progress"
                assert job.poll() is None, "the job died on its own"
                time.sleep(0.02)
            time.sleep(0.15)  # land the kill inside a later batch, mid-write
        finally:
            job.kill()
            job.wait()
    finish = _job(*args[:-1], f"{args[-1]}-available-now")
    assert finish.wait(300) == 0


def test_topic_copy_killed_repeatedly_is_exactly_once(
    bootstrap: str, topic_name: str, tmp_path: Path
) -> None:
    source, sink = topic_name, topic_name + "-copy"
    create_topic(bootstrap, source, partitions=3)
    create_topic(bootstrap, sink, partitions=3)
    checkpoint = tmp_path / "checkpoint"
    sent: list[bytes] = []

    def feed(round_: int) -> None:
        batch = [(None, f"{round_}-{i}".encode(), i % 3) for i in range(1000)]
        produce(bootstrap, source, batch)
        sent.extend(v for _, v, _ in batch)

    _run_with_kills([bootstrap, source, sink, str(checkpoint), "topic"], checkpoint, soak(2), feed)
    got = consume_all(bootstrap, sink, len(sent), timeout=60, **COMMITTED)
    values = [m.value() for m in got]
    assert len(values) == len(sent), f"{len(values)} records for {len(sent)} sent"
    assert sorted(values) == sorted(sent)
    # Order per partition follows the source partition's order.
    for p in range(3):
        in_sink = [m.value() for m in sorted(got, key=lambda m: m.offset()) if m.partition() == p]
        assert in_sink == [v for i, v in enumerate(sent) if i % 1000 % 3 == p]


def test_file_to_topic_killed_repeatedly_is_exactly_once(
    bootstrap: str, topic_name: str, tmp_path: Path
) -> None:
    create_topic(bootstrap, topic_name, partitions=3)
    inbox, checkpoint = tmp_path / "inbox", tmp_path / "checkpoint"
    inbox.mkdir()
    lines: list[str] = []

    def feed(round_: int) -> None:
        for f in range(10):
            chunk = [f"{round_ * 10_000 + f * 100 + i}:line" for i in range(100)]
            (inbox / f"part-{round_}-{f}.txt").write_text("\n".join(chunk) + "\n")
            lines.extend(chunk)

    _run_with_kills(
        [bootstrap, str(inbox), topic_name, str(checkpoint), "files"], checkpoint, soak(2), feed
    )
    got = consume_all(bootstrap, topic_name, len(lines), timeout=60, **COMMITTED)
    assert sorted(m.value().decode() for m in got) == sorted(lines)


def test_failed_task_leaves_nothing_visible(
    spark: SparkSession, bootstrap: str, topic_name: str, tmp_path: Path
) -> None:
    """A write that fails after producing part of its rows commits none of them.

    The failure is real: record 400 is bigger than the sink topic's max.message.bytes, so
    its delivery fails after records before it were written; the task fails, its
    transaction is aborted. Raising the limit and restarting replays the batch once.
    """
    source, sink = topic_name, topic_name + "-out"
    create_topic(bootstrap, source, partitions=1)
    create_topic(bootstrap, sink, partitions=1, config={"max.message.bytes": "2000"})
    values = [b"x" * 3000 if i == 400 else str(i).encode() for i in range(500)]
    produce(bootstrap, source, [(None, v, 0) for v in values])

    def query():
        return (
            kafka_stream(spark, bootstrap, source)
            .select("value")
            .writeStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("topic", sink)
            .option("exactlyOnce", "true")
            .option("kafka.linger.ms", "0")
            .option("kafka.batch.size", "1000")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
        )

    with pytest.raises(Exception, match="Kafka did not accept"):
        run_available_now(query())
    uncommitted = consume_all(
        bootstrap, sink, 400, timeout=10, **{"isolation.level": "read_uncommitted"}
    )
    assert len(uncommitted) >= 100, "the failed attempt should have written (uncommitted) records"
    assert consume_all(bootstrap, sink, 1, timeout=3, **COMMITTED) == []
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    change = ConfigResource(
        ConfigResource.Type.TOPIC,
        sink,
        incremental_configs=[
            ConfigEntry("max.message.bytes", "10000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    admin.incremental_alter_configs([change])[change].result(10)
    run_available_now(query())  # the same batch, replayed from the checkpoint
    got = consume_all(bootstrap, sink, 500, timeout=30, **COMMITTED)
    assert [m.value() for m in got] == values
