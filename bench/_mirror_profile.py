"""Where a ``seaway mirror-maker`` process tree spends its CPU: per process kind from
/proc, and inside the Python processes from py-spy's folded stacks."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench._util import process_cpu_seconds, process_tree_cpu_seconds

#: Buckets of Python samples, first match wins (a substring of the folded stack).
BUCKETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("copy: seaway/mirror/copy/loop.py copy_range", ("copy_range (",)),
    ("source: driver side (stream/planner: offsets, plans)", ("seaway/spark/kafka/",)),
    (
        "pyspark worker start: importlib.invalidate_caches() (re-reads the zips on sys.path)",
        ("invalidate_caches (",),
    ),
    ("imports (Python worker and driver start-up)", ("_find_and_load (",)),
    ("pyspark worker: Arrow to/from the JVM outside the above", ("serializers.py",)),
)
DRIVER_PROCESS = "seaway mirror-maker"


@dataclass(frozen=True)
class CpuSplit:
    """CPU seconds of the mirror-maker tree by process kind."""

    jvm: float
    python_workers: float
    driver: float

    def __sub__(self, other: CpuSplit) -> CpuSplit:
        return CpuSplit(
            self.jvm - other.jvm,
            self.python_workers - other.python_workers,
            self.driver - other.driver,
        )

    @property
    def total(self) -> float:
        """Every process of the tree."""
        return self.jvm + self.python_workers + self.driver


def find_jvm(root: int) -> int | None:
    """PID of the first ``java`` process under ``root`` (Spark's JVM), if any."""
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        pid, ppid = int(stat.parent.name), int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(pid)
        names[pid] = name
    pending = [root]
    while pending:
        pid = pending.pop()
        if names.get(pid) == "java":
            return pid
        pending.extend(children.get(pid, ()))
    return None


def cpu_split(root: int, jvm: int | None) -> CpuSplit:
    """CPU seconds so far: the JVM's own threads, the processes under it (Python workers,
    plus what the JVM reaped), and the rest of the tree (driver, spark-submit shell)."""
    tree = process_tree_cpu_seconds(root)
    if jvm is None:
        return CpuSplit(0.0, 0.0, tree)
    try:
        own = process_cpu_seconds(jvm)
        under = process_tree_cpu_seconds(jvm)
    except OSError:
        return CpuSplit(0.0, 0.0, tree)
    return CpuSplit(jvm=own, python_workers=under - own, driver=tree - under)


def jvm_thread_cpu(jvm: int) -> dict[str, float]:
    """CPU seconds of the JVM's live threads so far, by thread name without its number
    (``Executor task launch worker``, ``C2 CompilerThread``, ``GC Thread`` ...)."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{jvm}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended while we looked
            continue
        group = re.sub(r"[\s#\-]*\d+$", "", name) or name
        out[group] = out.get(group, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def thread_cpu_delta(before: dict[str, float], after: dict[str, float]) -> list[tuple[str, float]]:
    """Per thread group CPU seconds between two readings, largest first."""
    delta = {name: after[name] - before.get(name, 0.0) for name in after}
    return sorted(((n, d) for n, d in delta.items() if d > 0), key=lambda item: -item[1])


#: JFR execution samples of the JVM: the first bucket with a needle anywhere on the stack.
JVM_BUCKETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "ArrowWriter.sizeInBytes() after every row (arrow.maxBytesPerBatch check)",
        ("ArrowWriter.sizeInBytes",),
    ),
    ("rows -> Arrow for the sink's Python worker (ArrowWriter.write)", ("ArrowWriter.write",)),
    (
        "reader's Arrow -> UnsafeRow (projection, ColumnarBatch)",
        ("UnsafeProjection", "UnsafeRowWriter", "ColumnarBatch", "ArrowColumnVector"),
    ),
    (
        "Arrow IPC and sockets to/from the Python workers",
        ("org.apache.arrow.vector.ipc.", "java.io.", "sun.nio.", "java.net."),
    ),
)


class Jfr:
    """A Java Flight Recorder recording of a running JVM, through ``jcmd``."""

    NAME = "seaway-mirror-bench"

    def __init__(self, jvm: int, output: Path) -> None:
        self.jvm = jvm
        self.output = output
        self._run("JFR.start", "settings=profile", f"filename={output}")

    def _run(self, *command: str) -> None:
        subprocess.run(
            ["jcmd", str(self.jvm), command[0], f"name={self.NAME}", *command[1:]],
            capture_output=True,
            check=True,
            timeout=60,
        )

    def dump(self) -> None:
        """Write what was recorded so far to the output file."""
        self._run("JFR.dump", f"filename={self.output}")


def summarize_jfr(
    recording: Path, limit: int = 8
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(buckets, leaf methods) of the JFR execution samples, as shares of all samples."""
    text = subprocess.run(
        ["jfr", "print", "--stack-depth", "64", "--events", "jdk.ExecutionSample", str(recording)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    buckets: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    for event in text.split("jdk.ExecutionSample")[1:]:
        _, _, trace = event.partition("stackTrace = [")
        frames = [line.strip() for line in trace.split("]", 1)[0].splitlines() if line.strip()]
        frames = [f for f in frames if f != "..."]
        if not frames:
            continue
        leaves[frames[0].split("(")[0]] += 1
        bucket = "other (streaming engine, scheduling, Kafka offsets ...)"
        for frame in frames:
            match = next(
                (b for b, needles in JVM_BUCKETS if any(n in frame for n in needles)), None
            )
            if match is not None:
                bucket = match
                break
        buckets[bucket] += 1
    total = sum(buckets.values())
    if not total:
        return [], []
    return (
        [(name, n / total) for name, n in buckets.most_common()],
        [(name, n / total) for name, n in leaves.most_common(limit)],
    )


class SeawayProbe:
    """CPU readings of a mirror-maker tree at the copy's first and last tick; with a
    profile path, also py-spy (whole run) and JFR (from the first tick) next to it."""

    def __init__(self, root: int, profile: Path | None) -> None:
        self.root = root
        self.profile = profile
        self.spy = PySpy(root, profile) if profile else None
        self.jfr: Jfr | None = None
        self.jvm: int | None = None
        self.threads_before: dict[str, float] = {}
        self.threads: list[tuple[str, float]] = []

    def first_tick(self) -> CpuSplit:
        """Reading at the first tick with records on B (starts JFR when profiling)."""
        self.jvm = find_jvm(self.root)
        split = cpu_split(self.root, self.jvm)
        if self.jvm is not None:
            self.threads_before = jvm_thread_cpu(self.jvm)
            if self.profile is not None:
                try:
                    self.jfr = Jfr(self.jvm, self.profile.with_suffix(".jfr"))
                except (OSError, subprocess.SubprocessError) as error:
                    print(f"JFR not started: {error}", file=sys.stderr)
        return split

    def last_tick(self) -> CpuSplit:
        """Reading once B holds everything (dumps the JFR recording)."""
        jvm = self.jvm or find_jvm(self.root)
        split = cpu_split(self.root, jvm)
        if jvm is not None:
            self.threads = thread_cpu_delta(self.threads_before, jvm_thread_cpu(jvm))
        if self.jfr is not None:
            try:
                self.jfr.dump()
            except (OSError, subprocess.SubprocessError) as error:
                print(f"JFR dump failed: {error}", file=sys.stderr)
                self.jfr = None
        return split

    def stop(self) -> None:
        """Stop py-spy (before the tree goes away)."""
        if self.spy is not None:
            self.spy.stop()

    def summary(self) -> Profile | None:
        """The profile, once stopped; None without ``profile``."""
        if self.profile is None or not self.profile.exists():
            return None
        result = summarize(self.profile)
        if self.jfr is not None and self.jfr.output.exists():
            result.jvm_buckets, result.jvm_methods = summarize_jfr(self.jfr.output)
        return result


class PySpy:
    """``py-spy record --subprocesses`` on a process tree, folded stacks to a file."""

    def __init__(self, pid: int, output: Path, rate: int = 100) -> None:
        binary = Path(sys.executable).with_name("py-spy")
        self.output = output
        self.command = [
            str(binary) if binary.exists() else "py-spy",
            "record", "--subprocesses", "--nonblocking", "--format", "raw",
            "--rate", str(rate), "--pid", str(pid), "--output", str(output),
        ]  # fmt: skip
        output.parent.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            self.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def stop(self) -> None:
        """SIGINT makes py-spy write its output and exit."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class Profile:
    """py-spy samples in buckets, and the hottest lines inside the sink and the reader;
    JFR samples of the Spark JVM in buckets and its hottest methods."""

    samples: int
    buckets: list[tuple[str, float]]
    sink_lines: list[tuple[str, float]]
    reader_lines: list[tuple[str, float]]
    jvm_buckets: list[tuple[str, float]] | None = None
    jvm_methods: list[tuple[str, float]] | None = None

    def render(self) -> list[str]:
        """Report lines."""
        out = []
        if self.jvm_buckets:
            out.append("JFR execution samples of the Spark JVM (steady phase):")
            out += [f"  {share:6.1%}  {name}" for name, share in self.jvm_buckets]
            out.append("  hottest JVM methods (top of stack):")
            out += [f"    {share:6.1%}  {name}" for name, share in self.jvm_methods or []]
        out.append(f"py-spy: {self.samples:,} samples of the mirror-maker tree's Python processes")
        out += [f"  {share:6.1%}  {name}" for name, share in self.buckets]
        for title, lines in (("sink", self.sink_lines), ("reader", self.reader_lines)):
            if lines:
                out.append(f"  hottest lines inside the {title} (share of its samples):")
                out += [f"    {share:6.1%}  {frame}{source_line(frame)}" for frame, share in lines]
        return out


_FRAME_FILE = re.compile(r"\((seaway/[\w/]+\.py):(\d+)\)$")


def source_line(frame: str) -> str:
    """``  | <code>`` for a frame in a Seaway file (as the file reads now), else ``""``."""
    match = _FRAME_FILE.search(frame)
    if match is None:
        return ""
    path = Path(__file__).resolve().parent.parent / match.group(1)
    try:
        line = path.read_text().splitlines()[int(match.group(2)) - 1]
    except (OSError, IndexError):
        return ""
    return f"  | {line.strip()[:70]}"


def _leaves_under(
    stacks: list[tuple[list[str], int]], anchor: str, limit: int
) -> list[tuple[str, float]]:
    """Share of the samples under ``anchor`` by the frame on top of the stack."""
    leaves: Counter[str] = Counter()
    for frames, count in stacks:
        if any(anchor in frame for frame in frames):
            leaves[frames[-1]] += count
    total = sum(leaves.values())
    return [(frame, n / total) for frame, n in leaves.most_common(limit)] if total else []


def summarize(folded: Path, limit: int = 8) -> Profile:
    """Bucket py-spy's raw (folded) output."""
    stacks: list[tuple[list[str], int]] = []
    for line in folded.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    total = sum(count for _, count in stacks)
    buckets: Counter[str] = Counter()
    for frames, count in stacks:
        text = ";".join(frames)
        name = next((b for b, needles in BUCKETS if any(n in text for n in needles)), None)
        if name is None and frames[-1].startswith("manager (daemon.py"):
            name = "pyspark daemon: manager loop (select, fork)"
        if name is None:
            worker = "pyspark.daemon" in text or "pyspark.sql" in text
            name = "pyspark worker: other" if worker else "driver: other (py4j, polling)"
        buckets[name] += count
    return Profile(
        samples=total,
        buckets=[(name, n / total) for name, n in buckets.most_common()] if total else [],
        sink_lines=_leaves_under(stacks, "copy_range (", limit),
        reader_lines=_leaves_under(stacks, "read_range (", limit),
    )
