"""``kill -USR1`` on a Seaway process prints every thread's stack into its log and leaves
the process running, as jstack does for a JVM."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from seaway.broker import BrokerProcess
from tests.broker.clients import create_topic


def test_sigusr1_prints_the_threads_and_the_process_goes_on(tmp_path: Path) -> None:
    with BrokerProcess(tmp_path / "data") as process:
        assert process.process is not None
        process.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 10
        while "_run_module_as_main" not in process.log_file.read_text(errors="replace"):
            assert time.monotonic() < deadline, process.log_file.read_text(errors="replace")
            time.sleep(0.05)  # the main thread's stack ends the dump
        log = process.log_file.read_text(errors="replace")
        assert "Current thread 0x" in log and "(most recent call first)" in log
        assert "seaway/broker/" in log  # the broker's own frames
        assert process.process.poll() is None
        create_topic(process.bootstrap_servers, "still-serving", partitions=1)
