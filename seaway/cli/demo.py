"""``seaway demo``: the end-to-end tour run by ``make demo``; on a terminal, its steps as a
progress bar on standard error.

The terminal shows the demo's story only: the log lines (Seaway's Python logging,
librdkafka's ``%N|...`` lines, the Spark JVM's log4j lines) go to a log file the demo names,
unless ``--verbose`` keeps them on standard error.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="run the demo on an embedded broker")
    p.add_argument("--records", type=int, default=5000, help="records to produce (default 5000)")
    p.add_argument("--data-dir", help="where to keep the broker's data (default: a temp dir)")
    p.add_argument(
        "--verbose",
        action="store_true",
        help="show the log lines (Seaway's, librdkafka's, Spark's) here instead of in a file",
    )
    p.add_argument(
        "--log-file",
        help="where the log lines go (default: a new seaway-demo-*.log in the temp dir)",
    )
    p.set_defaults(run=run)


def logs_to_file(args: argparse.Namespace) -> Path | None:
    """Send the log lines to the demo's log file, unless ``--verbose``; return its path, or
    None when they stay on standard error."""
    if args.verbose:
        return None
    path = _log_path(args)
    send_logs_to(path)
    return path


def _log_path(args: argparse.Namespace) -> Path:
    """``--log-file``, else a new file in the temp directory."""
    if args.log_file:
        return Path(args.log_file)
    handle, name = tempfile.mkstemp(prefix="seaway-demo-", suffix=".log")
    os.close(handle)
    return Path(name)


def send_logs_to(path: Path) -> None:
    """Point this process's file descriptor 2 at *path*, for the rest of the process.

    What writes there follows: the root logger's handler (on the old ``sys.stderr``),
    librdkafka's ``%N|`` lines, and the processes started from now on (Spark's JVM). Clients
    still open at exit log there too, so it is never undone. ``sys.stderr`` becomes a copy of
    the original standard error: the progress bar and Python's errors still reach the user.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    terminal = os.dup(2)
    with path.open("ab") as file:
        os.dup2(file.fileno(), 2)
    sys.stderr = os.fdopen(terminal, "w", buffering=1, errors="backslashreplace")


def _say_logs(path: Path | None, hint: str = "") -> None:
    if path is not None:
        print(f"[demo] logs: {path}{hint}", flush=True)


def run(args: argparse.Namespace) -> int:
    from seaway.cli.progress import progress
    from seaway.demo import run_demo

    logs = logs_to_file(args)
    _say_logs(logs, " (seaway demo --verbose shows them here)")
    try:
        with progress("demo", "steps") as bar:
            return run_demo(records=args.records, data_dir=args.data_dir, on_progress=bar)
    finally:
        _say_logs(logs)
