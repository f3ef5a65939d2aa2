"""What every benchmark shares: the command line, the run in a fresh data directory, CPU
meters, the comparison table and the JSON report.

A benchmark parses its options with :func:`arg_parser` (``--data-root``, ``--keep-data``,
``--json``; :func:`add_size` and :func:`add_pairs` for the usual others), runs in
:func:`run_in_data_dir`, measures CPU with :class:`CpuMeter`, prints :class:`Row` s with
:func:`comparison_table` (or any table with :func:`render_table`), and ends with
:func:`write_json`: the last stdout line is the JSON document :func:`report_head` starts.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Self

import confluent_kafka

from bench._util import own_cpu_seconds, process_cpu_seconds, process_tree_cpu_seconds, progress

#: The Kafka client every benchmark drives, for the reports' headers.
KAFKA_CLIENT = (
    f"confluent-kafka {confluent_kafka.__version__} (librdkafka {confluent_kafka.libversion()[0]})"
)

# --------------------------------------------------------------------------- command line


def arg_parser(module: str, doc: str) -> argparse.ArgumentParser:
    """The parser of ``python -m bench.<module>``, described by *doc*'s first paragraph,
    with the options every benchmark has."""
    parser = argparse.ArgumentParser(
        prog=f"python -m bench.{module}", description=doc.split("\n\n")[0]
    )
    add = parser.add_argument
    add("--data-root", type=Path, help="parent of the run's data directory (default $TMPDIR)")
    add("--keep-data", action="store_true", help="keep the data directory afterwards")
    add("--json", type=Path, metavar="PATH", help="also write the JSON result to PATH")
    return parser


def add_size(parser: argparse.ArgumentParser, default: int, quick: int, what: str) -> None:
    """``--records`` and ``--quick``; the caller picks ``args.records or`` a default."""
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {quick:,} records")
    parser.add_argument("--records", type=int, help=f"{what} (default {default:,})")


class _Pairs(argparse.Action):
    """``KEY=VALUE``, repeatable, gathered into a dict."""

    def __call__(self, parser: Any, namespace: Any, value: Any, option: Any = None) -> None:
        key, sep, val = str(value).partition("=")
        if not sep:
            parser.error(f"{option} expects KEY=VALUE, got {value!r}")
        setattr(namespace, self.dest, {**(getattr(namespace, self.dest) or {}), key: val})


def add_pairs(parser: argparse.ArgumentParser, flag: str, help: str, dest: str) -> None:
    """A repeatable ``flag KEY=VALUE`` option; ``args.<dest>`` is a dict."""
    parser.add_argument(flag, action=_Pairs, default={}, dest=dest, metavar="KEY=VALUE", help=help)


# --------------------------------------------------------------------------- running


def attempt(errors: list[str], what: str, step: Callable[[], Any]) -> Any:
    """Run ``step``; on failure log it, append ``what: error`` to ``errors``, return None."""
    try:
        return step()
    except Exception as exc:  # one failing step must not end the benchmark
        message = f"{what}: {type(exc).__name__}: {exc}"
        progress(f"FAILED {message}")
        traceback.print_exc(file=sys.stderr)
        errors.append(message)
        return None


def cleanup(what: str, step: Callable[[], Any]) -> None:
    """Run one cleanup step; a failure or a Ctrl-C only skips this step."""
    try:
        step()
    except BaseException as exc:  # cleanup carries on whatever happened
        progress(f"cleanup: {what} failed: {type(exc).__name__}: {exc}")


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    """SIGTERM behaves like Ctrl-C, so every ``finally`` cleans up."""
    raise KeyboardInterrupt(f"signal {signum}")


def run_in_data_dir(
    args: argparse.Namespace,
    name: str,
    run: Callable[[Path], dict[str, Any]],
    *,
    keep_on_failure: bool = False,
    on_failure: Callable[[Path], None] | None = None,
) -> int:
    """The exit code of ``run(root)`` in a fresh data directory; *run* prints its report and
    returns the JSON document, written by :func:`write_json` (a failure has ``errors``).

    The directory goes afterwards unless ``--keep-data`` (or *keep_on_failure* and it
    failed); SIGTERM and Ctrl-C end the run as an interruption (exit code 130).
    """
    signal.signal(signal.SIGTERM, _interrupt)
    if args.data_root is not None:
        args.data_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"seaway-{name}-bench-", dir=args.data_root))
    progress(f"data directory {root}")
    ok = interrupted = False
    try:
        report = run(root)
        write_json(report, args.json)
        ok = not report.get("errors")
    except KeyboardInterrupt:
        interrupted = True
        progress("interrupted")
    finally:
        if not ok and not interrupted and on_failure is not None:
            on_failure(root)
        if args.keep_data or (keep_on_failure and not ok):
            progress(f"kept {root}")
        else:
            cleanup("remove data directory", lambda: shutil.rmtree(root))
    return 130 if interrupted else 0 if ok else 1


# --------------------------------------------------------------------------- CPU


class CpuMeter:
    """CPU seconds used over a span, per named reader of cumulative CPU seconds.

    ``with CpuMeter(client=own_cpu_seconds, broker=process_cpu(pid)) as meter: ...`` leaves
    ``meter.used == {"client": ..., "broker": ...}``; or :meth:`start` and :meth:`read`.
    """

    def __init__(self, **readers: Callable[[], float]) -> None:
        self.readers = readers
        self.used = dict.fromkeys(readers, 0.0)
        self._start = self._now()

    def _now(self) -> dict[str, float]:
        return {name: read() for name, read in self.readers.items()}

    def start(self) -> Self:
        """Take the starting reading (construction takes one too)."""
        self._start = self._now()
        return self

    def read(self) -> dict[str, float]:
        """CPU seconds per reader since the start (also kept in ``used``)."""
        now = self._now()
        self.used = {name: now[name] - self._start[name] for name in now}
        return self.used

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.read()


def process_cpu(pid: int) -> Callable[[], float]:
    """A reader of one process's CPU seconds (all its threads)."""
    return lambda: process_cpu_seconds(pid)


def tree_cpu(pid: int, *, without: int | None = None) -> Callable[[], float]:
    """A reader of the CPU seconds of *pid*'s process tree, less *without*'s tree in it."""
    if without is None:
        return lambda: process_tree_cpu_seconds(pid)
    return lambda: process_tree_cpu_seconds(pid) - process_tree_cpu_seconds(without)


own_cpu = own_cpu_seconds


def us_per(cpu_seconds: float | None, count: int) -> float | None:
    """CPU microseconds per record (or row), the tables' per-record CPU column."""
    return None if cpu_seconds is None or not count else cpu_seconds / count * 1e6


# --------------------------------------------------------------------------- tables


def fmt(value: float | None) -> str:
    """Format a figure for a table with sensible precision."""
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:,.1f}"
    return f"{value:.3f}"


def ratio(value: float | None, reference: float | None) -> float | None:
    """``value / reference``, when both exist and the reference is not 0."""
    return None if value is None or not reference else value / reference


def render_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """An aligned text table: the first *left* columns flush left, the others right."""
    widths = [max(len(line[i]) for line in (header, *rows)) for i in range(len(header))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.ljust(w) if i < left else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        )

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *map(line, rows)])


@dataclass(frozen=True)
class Row:
    """One line of a comparison: a figure of Seaway's, the reference's, and their ratio."""

    workload: str
    unit: str
    value: float | None
    reference: float | None

    @property
    def ratio(self) -> float | None:
        """``value / reference``, when both exist."""
        return ratio(self.value, self.reference)

    def json(self, value: str, reference: str) -> dict[str, Any]:
        """The row for the JSON report, its two figures named *value* and *reference*."""
        return {
            "workload": self.workload,
            "unit": self.unit,
            value: self.value,
            reference: self.reference,
            "ratio": self.ratio,
        }


def comparison_table(rows: Sequence[Row], value: str, reference: str, ratio: str) -> str:
    """*rows* as a table whose figure columns are headed *value*, *reference*, *ratio*."""
    cells = [(r.workload, r.unit, fmt(r.value), fmt(r.reference), fmt(r.ratio)) for r in rows]
    return render_table(("workload", "unit", value, reference, ratio), cells, left=2)


# --------------------------------------------------------------------------- JSON


def report_head(script: str, **host: Any) -> dict[str, Any]:
    """The start of every JSON report: which benchmark, when, on what."""
    return {
        "benchmark": script,
        "timestamp": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "confluent_kafka": confluent_kafka.__version__,
            "librdkafka": confluent_kafka.libversion()[0],
            **host,
        },
    }


def write_json(report: dict[str, Any], path: Path | None) -> None:
    """Print *report* as the last stdout line and, with ``--json``, write it to *path*."""
    line = json.dumps(report)
    print(line, flush=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(line + "\n")
        progress(f"wrote {path}")
