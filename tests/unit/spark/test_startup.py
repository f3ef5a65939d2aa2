"""The driver JVM's class data sharing archive: which options a session gets, and who
records the archive when there is none (one process, in the background)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seaway.spark.startup import (
    RECORDING,
    claim,
    class_data_sharing,
    driver_archive,
    failed,
    release,
)


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The archive path of a SPARK_HOME without Spark, in a cache of this test's own."""
    home = tmp_path / "spark-home"
    (home / "jars").mkdir(parents=True)
    monkeypatch.setenv("SPARK_HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(RECORDING, raising=False)
    path = driver_archive()
    assert path is not None and path.parent == tmp_path / "cache" / "seaway"
    return path


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_an_archive_there_is_mapped(archive: Path) -> None:
    archive.write_bytes(b"")
    assert class_data_sharing() == f"-XX:SharedArchiveFile={archive} -Xshare:auto"


def test_one_live_process_holds_the_claim(archive: Path) -> None:
    assert claim(archive)
    assert not claim(archive)  # held by this (live) process
    release(archive)
    assert claim(archive)
    release(archive)


def test_a_dead_holders_claim_is_taken(archive: Path) -> None:
    claim_file = archive.with_name(archive.name + ".claim")
    claim_file.write_text(str(_dead_pid()))
    assert claim(archive)
    assert claim_file.read_text() == str(os.getpid())
    release(archive)
    assert not claim_file.exists()


def test_a_claim_being_written_is_held_unless_old(archive: Path) -> None:
    claim_file = archive.with_name(archive.name + ".claim")
    claim_file.write_text("")  # created, its holder's pid not written yet
    assert not claim(archive)
    old = time.time() - 60
    os.utime(claim_file, (old, old))
    assert claim(archive)
    release(archive)


def test_no_archive_starts_one_recording_and_a_failure_stops_further_ones(
    archive: Path,
) -> None:
    """The session starts without the archive; a recorder runs in the background. Here
    SPARK_HOME has no Spark, so the recording fails and says why; later sessions then
    start none (``python -m seaway.spark.prepare`` retries)."""
    assert class_data_sharing() == ""
    deadline = time.monotonic() + 60
    while not failed(archive).exists():
        assert time.monotonic() < deadline, "no recording was tried"
        time.sleep(0.1)
    claim_file = archive.with_name(archive.name + ".claim")
    deadline = time.monotonic() + 10
    while claim_file.exists():  # released once the recorder gave up
        assert time.monotonic() < deadline
        time.sleep(0.05)
    error = failed(archive)
    assert "spark-submit" in error.read_text(), error.read_text()
    assert not archive.exists()
    error.write_text("earlier")
    assert class_data_sharing() == ""
    time.sleep(3)  # a recorder would have failed again by now, rewriting the error
    assert error.read_text() == "earlier"


def test_the_recording_session_starts_no_recorder(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RECORDING, "1")
    assert class_data_sharing() == ""
    time.sleep(3)  # a recorder would have tried and failed by now
    assert not failed(archive).exists()
