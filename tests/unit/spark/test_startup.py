"""The driver JVM's class data sharing archive: which options a session gets, and who
records the archive when there is none (one process, in the background)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seaway.spark.startup import (
    RECORDING,
    claimed,
    class_data_sharing,
    driver_archive,
    failed,
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


def _recorders() -> list[int]:
    """This process's children running ``seaway.spark.prepare`` (the background recorder
    is started before class_data_sharing returns)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if parent == os.getpid() and b"seaway.spark.prepare" in command:
            found.append(int(entry.name))
    return found


def test_an_archive_there_is_mapped(archive: Path) -> None:
    archive.write_bytes(b"")
    assert class_data_sharing() == f"-XX:SharedArchiveFile={archive} -Xshare:auto"


def test_one_live_process_holds_the_claim(archive: Path) -> None:
    with claimed(archive) as mine:
        assert mine
        with claimed(archive) as again:
            assert not again  # held
    with claimed(archive) as after:
        assert after


def test_a_killed_holders_claim_is_taken(archive: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from seaway.spark.startup import claimed\n"
         "with claimed(Path(sys.argv[1])) as mine:\n"
         "    print(mine, flush=True); time.sleep(60)", str(archive)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
        with claimed(archive) as mine:
            assert not mine
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with claimed(archive) as mine:
        assert mine  # the system freed the lock of the killed process


def test_no_archive_starts_one_recording_and_a_failure_stops_further_ones(
    archive: Path,
) -> None:
    """The session starts without the archive; a recorder runs in the background. Here
    SPARK_HOME has no Spark, so the recording fails and says why; later sessions then
    start none (``python -m seaway.spark.prepare`` retries)."""
    assert class_data_sharing() == ""
    deadline = time.monotonic() + 60
    while not _recorders():  # on a loaded machine its /proc entry may show a moment later
        assert time.monotonic() < deadline, "no recorder started"
        time.sleep(0.01)
    assert len(_recorders()) == 1
    while _recorders():  # an exited child's command line is empty
        assert time.monotonic() < deadline, "the recorder did not finish"
        time.sleep(0.05)
    error = failed(archive)
    assert "spark-submit" in error.read_text(), error.read_text()
    assert not archive.exists()
    with claimed(archive) as free:
        assert free  # released by the recorder
    assert class_data_sharing() == ""
    assert _recorders() == []


def test_a_recording_in_progress_starts_no_other(archive: Path) -> None:
    with claimed(archive) as mine:
        assert mine
        assert class_data_sharing() == ""
        assert _recorders() == []


def test_the_recording_session_starts_no_recorder(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RECORDING, "1")
    assert class_data_sharing() == ""
    assert _recorders() == []
    assert not failed(archive).exists()
