"""A streaming query killed with -9 mid-stream and restarted: every record exactly once."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from tests.broker.clients import create_topic, produce

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]


def _job(
    bootstrap: str, topic: str, out: Path, checkpoint: Path, mode: str
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.spark.stream_job",
            bootstrap,
            topic,
            str(out),
            str(checkpoint),
            mode,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _committed_batches(checkpoint: Path) -> int:
    commits = checkpoint / "commits"
    return len([p for p in commits.iterdir() if p.name.isdigit()]) if commits.exists() else 0


def test_killed_driver_resumes_from_checkpoint_exactly_once(
    spark: SparkSession, bootstrap: str, topic_name: str, tmp_path: Path
) -> None:
    create_topic(bootstrap, topic_name, partitions=3)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    expected: set[tuple[int, int, str]] = set()
    sent = 0
    for round_ in range(2):
        batch = [(None, f"r{round_}-{i}".encode(), i % 3) for i in range(600)]
        for (partition, offset), (_, value, _) in zip(
            produce(bootstrap, topic_name, batch), batch, strict=True
        ):
            expected.add((partition, offset, value.decode()))
        sent += len(batch)
        job = _job(bootstrap, topic_name, out, checkpoint, "forever")
        try:
            assert job.stdout is not None
            assert job.stdout.readline().strip() == b"started"
            before = _committed_batches(checkpoint)
            deadline = time.monotonic() + 120
            while _committed_batches(checkpoint) < before + 3:  # kill it mid-stream
                assert time.monotonic() < deadline, "the job made no progress"
                assert job.poll() is None, "the job died on its own"
                time.sleep(0.05)
        finally:
            job.kill()
            job.wait()
    finish = _job(bootstrap, topic_name, out, checkpoint, "available-now")
    assert finish.wait(300) == 0
    rows = spark.read.json(str(out)).collect()
    got = [(r.partition, r.offset, r.value) for r in rows]
    assert len(got) == len(set(got)), "some records were written twice"
    assert set(got) == expected
    assert len(got) == sent
