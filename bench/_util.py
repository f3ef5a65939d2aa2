"""Small helpers shared by the benchmarks: progress output, ports, /proc, dd."""

from __future__ import annotations

import os
import re
import resource
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

_START = time.monotonic()

#: Bytes in a (decimal) megabyte, the unit used for every MB/s figure, like dd.
MB = 1_000_000


def progress(message: str) -> None:
    """Print a timestamped progress line to stderr."""
    elapsed = time.monotonic() - _START
    print(f"[{elapsed:7.1f}s] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_open(host: str, port: int) -> bool:
    """Return True if something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def read_proc_status(pid: int) -> dict[str, int]:
    """Return the ``kB`` fields of ``/proc/<pid>/status`` (e.g. VmRSS, VmHWM) in bytes."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if len(parts) == 2 and parts[1] == "kB":
            fields[key] = int(parts[0]) * 1024
    return fields


@dataclass(frozen=True)
class Rss:
    """Resident memory of a process, in bytes (``anon`` + ``file`` + shmem = ``current``)."""

    current: int
    peak: int
    anon: int
    file: int

    @property
    def current_mb(self) -> float:
        """Current resident set size (VmRSS) in MB."""
        return self.current / MB

    @property
    def peak_mb(self) -> float:
        """Peak resident set size (VmHWM) in MB."""
        return self.peak / MB


def read_rss(pid: int) -> Rss:
    """Read the current (VmRSS), peak (VmHWM), anonymous and file-backed RSS of ``pid``."""
    status = read_proc_status(pid)
    return Rss(
        current=status["VmRSS"],
        peak=status["VmHWM"],
        anon=status.get("RssAnon", 0),
        file=status.get("RssFile", 0),
    )


@dataclass(frozen=True)
class DiskSpeed:
    """Result of one ``dd`` sequential-write measurement."""

    bytes: int
    seconds: float
    path: str

    @property
    def mb_per_s(self) -> float:
        """Sequential write speed in MB/s."""
        return self.bytes / MB / self.seconds


_DD_SUMMARY = re.compile(r"^(\d+) bytes\b.*\bcopied, ([\d.]+) s", re.MULTILINE)


def parse_dd_output(text: str) -> tuple[int, float]:
    """Return ``(bytes, seconds)`` from dd's summary line (GNU or busybox format).

    >>> parse_dd_output("268435456 bytes (268 MB, 256 MiB) copied, 0.684134 s, 392 MB/s")
    (268435456, 0.684134)
    """
    match = _DD_SUMMARY.search(text)
    if match is None:
        raise ValueError(f"cannot parse dd output: {text!r}")
    return int(match.group(1)), float(match.group(2))


def measure_disk_write(directory: Path, megabytes: int) -> DiskSpeed:
    """Time ``dd if=/dev/zero bs=1M count=<megabytes> conv=fdatasync`` into ``directory``.

    The file is removed afterwards. ``LC_ALL=C`` keeps dd's decimal point a dot.
    """
    target = directory / "dd-write-test.bin"
    command = [
        "dd",
        "if=/dev/zero",
        f"of={target}",
        "bs=1M",
        f"count={megabytes}",
        "conv=fdatasync",
    ]
    env = {**os.environ, "LC_ALL": "C"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    finally:
        target.unlink(missing_ok=True)
    size, seconds = parse_dd_output(done.stderr)
    return DiskSpeed(bytes=size, seconds=seconds, path=str(directory))


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds consumed so far by process ``pid`` (all its threads)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()  # skip "pid (comm)"; comm may contain spaces
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def process_tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and every live descendant, plus the children they have reaped.

    For a process that forks workers (a Spark JVM and its Python workers): each live
    process counts its own user + system time and its ``cutime`` + ``cstime``, which hold
    what its exited (and waited-for) children used, so nothing is counted twice.
    """
    children: dict[int, list[int]] = {}
    times: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process exited while we looked
            continue
        fields = text.rsplit(")", 1)[1].split()
        child = int(stat.parent.name)
        children.setdefault(int(fields[1]), []).append(child)
        times[child] = sum(int(value) for value in fields[11:15])
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        total += times.get(current, 0)
        pending.extend(children.get(current, ()))
    return total / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """User + system CPU seconds of this (client) process, librdkafka threads included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_tree_rss(pid: int) -> dict[int, tuple[str, int]]:
    """``{pid: (command line, resident bytes)}`` of ``pid`` and every live descendant."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    page = os.sysconf("SC_PAGE_SIZE")
    out: dict[int, tuple[str, int]] = {}
    pending = [pid]
    while pending:
        current = pending.pop()
        pending.extend(children.get(current, ()))
        try:
            resident = int(Path(f"/proc/{current}/statm").read_text().split()[1]) * page
            command = Path(f"/proc/{current}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        out[current] = (command, resident)
    return out


class PeakRss:
    """The peak resident memory of a process tree, per role, sampled in a thread."""

    ROLES = ("driver", "jvm", "python worker")

    def __init__(self, pid: int, interval_s: float = 0.25) -> None:
        self.pid = pid
        self.peak = dict.fromkeys(self.ROLES, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval_s,), daemon=True)
        self._thread.start()

    @staticmethod
    def role(pid: int, root: int, command: str) -> str:
        if pid == root:
            return "driver"
        return "jvm" if "java" in command.split(" ", 1)[0] else "python worker"

    def _run(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            for pid, (command, rss) in process_tree_rss(self.pid).items():
                role = self.role(pid, self.pid, command)
                self.peak[role] = max(self.peak[role], rss)

    def stop(self) -> dict[str, int]:
        """Stop sampling; the peak bytes of the largest process of each role."""
        self._stop.set()
        self._thread.join(5)
        return dict(self.peak)
