"""`make demo` end to end: `seaway demo` as a user runs it, in its own process.

Every part of Seaway the README promises takes part (the broker, a consumer group, Spark's
exactly-once copy, the Connect file session, A -> B mirroring with a failover); a demo that
breaks fails here, not on a new user's machine. Its output is the story alone: the log
lines (Python's, librdkafka's ``%N|``, Spark's log4j) go to the log file it names.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LIBRDKAFKA_LINE = re.compile(r"^%\d\|", re.MULTILINE)
LOGS_LINE = re.compile(r"^\[demo\] logs: (\S+)", re.MULTILINE)


def test_seaway_demo_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "seaway", "demo", "--data-dir", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    for line in (
        "a read_committed consumer sees 5000 records in demo-orders-copy (expected 5000)",
        "copy-of-server-properties identical to server.properties: True",
        "0 lost, 0 duplicated, checksums match: True",
        "replication lag A->B: 0 records",
        "broker stopped cleanly",
        "web consoles (served while the demo ran; the demo has stopped them):",
    ):
        assert line in output, f"{line!r} missing from the demo's output:\n{output[-4000:]}"
    _assert_story_only(output)


def _assert_story_only(output: str) -> None:
    """No log line on the terminal; the log file the demo names holds them."""
    assert not LIBRDKAFKA_LINE.search(output), f"librdkafka lines in the output:\n{output}"
    assert " INFO " not in output, f"log lines in the output:\n{output}"
    assert "log4j" not in output, f"Spark's log lines in the output:\n{output}"
    named = LOGS_LINE.findall(output)
    assert named, f"the demo names no log file ('[demo] logs: <path>'):\n{output}"
    path = Path(named[-1])
    log = path.read_text(encoding="utf-8", errors="replace")
    path.unlink()  # a new file in the temp directory: the demo's, not the test's
    assert " INFO " in log and "(seaway.broker" in log, f"no log lines in {named[-1]}:\n{log}"
    assert "log4j" in log, f"Spark's log lines missing from {named[-1]}:\n{log}"


# What `seaway demo` sets up before its steps, then one line of each kind: a Python log
# line, librdkafka's warning of a client without bootstrap.servers, an error message.
_SETUP = """
import argparse, logging, sys
from confluent_kafka import Producer
from seaway.cli import demo
parser = argparse.ArgumentParser()
demo.add_parser(parser.add_subparsers(), "demo")
logging.basicConfig(level="INFO", format="%(levelname)s %(message)s", stream=sys.stderr)
print(f"logs: {demo.logs_to_file(parser.parse_args(sys.argv[1:]))}", flush=True)
logging.getLogger("seaway.demo").info("a Python log line")
Producer({}).flush(0)
print("an error for the user", file=sys.stderr, flush=True)
"""


def _setup(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _SETUP, "demo", "--log-file", str(tmp_path / "demo.log"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_demo_logs_go_to_its_log_file(tmp_path: Path) -> None:
    done = _setup(tmp_path)
    assert done.stdout.strip() == f"logs: {tmp_path / 'demo.log'}"
    assert done.stderr == "an error for the user\n", done.stderr
    log = (tmp_path / "demo.log").read_text(encoding="utf-8")
    assert "INFO a Python log line" in log, log
    assert LIBRDKAFKA_LINE.search(log) and "CONFWARN" in log, log


def test_demo_verbose_shows_the_logs(tmp_path: Path) -> None:
    done = _setup(tmp_path, "--verbose")
    assert done.stdout.strip() == "logs: None"
    assert "INFO a Python log line" in done.stderr, done.stderr
    assert LIBRDKAFKA_LINE.search(done.stderr) and "CONFWARN" in done.stderr, done.stderr
    assert "an error for the user" in done.stderr, done.stderr
    assert not (tmp_path / "demo.log").exists()
