"""The CDC benchmark's subprocesses: the plain reference script (:mod:`bench._cdc_plain`) and
the lag probe (:mod:`bench._cdc_lag`), started, watched and read; and the check that the
reference wrote the records Seaway's connector wrote."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Final

from confluent_kafka import Consumer, TopicPartition

from bench._cdc_seaway import wait_for_records
from bench._report import CpuMeter
from bench._util import progress
from bench._workload import CONSUMER_CONFIG, unique_name

REPO: Final = Path(__file__).resolve().parents[1]


def _spawn(module: str, options: dict[str, Any], log: IO[bytes]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", module]
    for key, value in options.items():
        command += [f"--{key}", str(value)]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=log, text=True)


def _last_json(text: str) -> dict[str, Any]:
    lines = [line for line in text.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"no JSON result in {text[-500:]!r}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


class Plain:
    """The reference script reading the binlog from *gtid* into *topic* (SIGTERM ends a
    follower, one started without *records*)."""

    def __init__(self, options: dict[str, Any], log: Path) -> None:
        self._log = log.open("ab")
        self.process = _spawn("bench._cdc_plain", options, self._log)
        self.pid = self.process.pid

    def check(self) -> None:
        """Raise if the script exited with an error."""
        if self.process.poll() not in (None, 0):
            raise RuntimeError(f"the plain script exited with {self.process.returncode}")

    def result(self, terminate: bool = False) -> dict[str, Any]:
        """Its JSON result, once it exited (after a SIGTERM with *terminate*)."""
        if terminate and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=120)
        self._log.close()
        return _last_json(out)


def run_plain(options: dict[str, Any], target: int, bootstrap: str, log: Path,
              stall_timeout_s: float) -> dict[str, Any]:  # fmt: skip
    """The reference over the loaded binlog: seconds from its start to *target* records in
    its topic, and its own report (CPU, peak RSS)."""
    started = time.perf_counter()
    plain = Plain({**options, "records": target}, log)
    try:
        seconds, first = wait_for_records(bootstrap, options["topic"], target, started,
                                          plain.check, stall_timeout_s, "plain")  # fmt: skip
    except BaseException:
        plain.process.kill()
        raise
    report = plain.result()
    return {**report, "seconds": seconds, "first_record_seconds": first}


def run_probe(
    options: dict[str, Any], readers: Callable[[int], dict[str, Callable[[], float]]], log: Path
) -> dict[str, Any]:
    """The lag probe with *options*; its report, plus the CPU each of ``readers(probe_pid)``
    used while it wrote at the steady rate (``cpu_percent``: % of one core)."""
    with log.open("ab") as err:
        probe = _spawn("bench._cdc_lag", options, err)
        meter: CpuMeter | None = None
        started = used_s = 0.0
        used: dict[str, float] = {}
        result: dict[str, Any] = {}
        assert probe.stdout is not None
        try:
            for line in probe.stdout:
                line = line.strip()
                if line == "start":
                    meter, started = CpuMeter(**readers(probe.pid)), time.perf_counter()
                    progress(f"lag: writing {options['rate']:,.0f} changes/s")
                elif line == "end":
                    used_s = time.perf_counter() - started
                    used = meter.read() if meter is not None else {}
                elif line.startswith("{"):
                    result = json.loads(line)
        finally:
            try:
                probe.wait(timeout=60)
            except subprocess.TimeoutExpired:
                probe.kill()
                probe.wait()
    if "error" in result:
        raise RuntimeError(result["error"])
    result["cpu_percent"] = (
        {k: round(v / used_s * 100, 1) for k, v in used.items()} if used_s else {}
    )
    return result


def _values(bootstrap: str, topic: str, start: int, count: int) -> list[tuple[bytes | None, Any]]:
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique_name("check"), **CONSUMER_CONFIG}
    )
    consumer.assign([TopicPartition(topic, 0, start)])
    out: list[tuple[bytes | None, Any]] = []
    deadline = time.monotonic() + 60
    try:
        while len(out) < count and time.monotonic() < deadline:
            for message in consumer.consume(count - len(out), 1.0):
                if message.error() is None:
                    value = message.value()
                    out.append((message.key(), value and json.loads(value)))
    finally:
        consumer.close()
    return out


def _key_id(key: bytes | None) -> int:
    return int(json.loads(key or b"null")["payload"]["id"])


def same_records(bootstrap: str, seaway: tuple[str, int], plain: str, count: int) -> int:
    """Check that the first *count* records of the reference's topic and of Seaway's (from
    its offset, sentinel rows of negative ids a restart sent again left out) are the same but
    for the envelopes' ``ts_ms``/``ts_us``/``ts_ns`` (the time each was made); the number
    of records compared."""
    ours = _values(bootstrap, seaway[0], seaway[1], count + 20)
    ours = [(k, v) for k, v in ours if _key_id(k) >= 0][:count]
    theirs = _values(bootstrap, plain, 0, count)
    for index, ((key, value), (plain_key, plain_value)) in enumerate(
        zip(ours, theirs, strict=False)
    ):
        for v in (value, plain_value):
            for field in ("ts_ms", "ts_us", "ts_ns"):
                if v is not None:
                    v["payload"].pop(field)
        if key != plain_key or value != plain_value:
            raise AssertionError(f"record {index} differs: {key!r} {value} / {plain_key!r} "
                                 f"{plain_value}")  # fmt: skip
    return min(len(ours), len(theirs))
