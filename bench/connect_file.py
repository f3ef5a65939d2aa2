"""Kafka Connect's FileStreamSource -> topic -> FileStreamSink on Seaway, next to a plain
confluent-kafka producer + consumer doing the same copy.

Run from the repository root::

    .venv/bin/python -m bench.connect_file            # 200 MB (2,000,000 lines)
    .venv/bin/python -m bench.connect_file --mb 5     # small smoke run
    .venv/bin/python -m bench.connect_file --only seaway  # Connect copy only
    .venv/bin/python -m bench.connect_file --worker-config spark.trigger.interval.ms=200
    .venv/bin/python -m bench.connect_file --source-config batch.size=10000
    .venv/bin/python -m bench.connect_file --json bench/out/connect_file.json

What is measured (progress on stderr, results on stdout), all against one Seaway broker
subprocess (``BrokerProcess``) started for the run, so the broker never shares a GIL with
the clients:

1. An input file of ``--mb`` MB of ASCII text lines of ``LINE_BYTES`` bytes (newline
   included; ``--mb 200`` is 2,000,000 lines), written before any timing.
2. Plain reference (one Python process, confluent-kafka): read the file line by line and
   produce every line (value = the line's bytes without its newline, acks=all,
   ``linger.ms=5``, ``batch.size=1000000``, no compression) to a fresh 1-partition topic,
   ``flush()``; then consume that topic from the beginning and write every value plus a
   newline to a file, ``fsync`` it. Timed from opening the input to the fsync ("end to
   end"), with the produce half (open .. ``flush()`` returned) timed on its own. The copy
   is then compared byte for byte with the input (not timed).
3. Seaway: a distributed Connect worker in this process (``distributed_worker``; internal
   topics with replication factor 1, ``spark.master=local[2]``, the worker's default
   converters replaced by StringConverter unless ``--converter json``). Its start-up
   (stores, SparkSession) is timed separately and not counted. A fresh 1-partition topic is
   created, then a FileStreamSource (file -> topic) and a FileStreamSink (topic -> copy)
   are POSTed to the REST API one after the other (once the worker's Python workers are
   warm, as on a running worker), so both run at once, as in Kafka's
   quickstart. Timed from the first POST until the copy has the input's size and is
   byte-identical to it ("end to end"; the copy is compared with the input incrementally,
   as it grows); "source only" is from the first POST until the topic's end offset
   reaches the number of lines. These figures include each connector's query start
   (first micro-batch), which a long-running worker pays once.

The table gives lines, seconds, lines/s and MB/s (10^6 bytes of the input file per second)
for each, with Seaway's rate divided by the plain script's (source only vs produce, end to
end vs end to end), and the CPU seconds of the client side (this process and its
children: the Spark JVM and Python workers) and of the broker. The last stdout line is a
JSON document with every figure (also written to ``--json``). Worker warnings and errors
(Python logging; the full log goes to a file in the run directory) are summed up at the
end. The run directory is removed afterwards, also on failure or Ctrl-C, unless
``--keep-data``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench._connect_file_input import LINE_BYTES, check_free_space, write_input
from bench._connect_file_plain import run_plain
from bench._connect_file_report import build_rows, json_report, print_report
from bench._connect_file_results import Results
from bench._connect_file_seaway import run_seaway
from bench._connect_worker import CONVERTERS
from bench._report import add_pairs, arg_parser, attempt, cleanup, run_in_data_dir
from bench._util import MB, progress
from seaway.broker import BrokerProcess

DEFAULT_MB = 200.0
VARIANTS = ("plain", "seaway")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = arg_parser("connect_file", __doc__)
    add = parser.add_argument
    add(
        "--mb",
        type=float,
        default=DEFAULT_MB,
        help=f"input file size in MB (default {DEFAULT_MB:g})",
    )
    add("--only", choices=VARIANTS, help="run one variant only")
    add("--master", default="local[2]", help="the worker's spark.master (default local[2])")
    add(
        "--converter",
        choices=sorted(CONVERTERS),
        default="string",
        help="worker key/value converter: string (topic holds the plain lines, like the "
        "reference) or json (Kafka's sample worker config, schemas.enable=true)",
    )
    add_pairs(
        parser,
        "--worker-config",
        "extra worker property, e.g. spark.trigger.interval.ms=200 (repeatable)",
        "worker_overrides",
    )
    add_pairs(
        parser,
        "--source-config",
        "extra FileStreamSource config, e.g. batch.size=10000 (repeatable)",
        "source_overrides",
    )
    add_pairs(parser, "--sink-config", "extra FileStreamSink config (repeatable)", "sink_overrides")
    add("--progress-interval", type=float, default=5.0, help="seconds between progress lines")
    add(
        "--stall-timeout",
        type=float,
        default=180.0,
        help="give up when neither the topic nor the copy grew for this many seconds",
    )
    args = parser.parse_args(argv)
    if args.mb <= 0:
        parser.error("--mb must be positive")
    args.lines = max(1, math.ceil(args.mb * MB / LINE_BYTES))
    args.variants = [args.only] if args.only else list(VARIANTS)
    return args


def run_all(args: argparse.Namespace, root: Path, results: Results) -> None:
    """Write the input, start the broker, run the variants."""
    source = root / "input.txt"
    footprint = int(args.lines * LINE_BYTES * (7 if args.converter == "json" else 5))
    check_free_space(root, footprint)
    progress(f"writing {args.lines:,} lines ({args.lines * LINE_BYTES / MB:,.1f} MB) to {source}")
    started = time.perf_counter()
    results.file_bytes = write_input(source, args.lines)
    results.generate_seconds = time.perf_counter() - started
    broker = BrokerProcess(root / "broker", port=0)
    try:
        broker.start()
        bootstrap = broker.bootstrap_servers
        progress(f"broker: listening on {bootstrap} (pid {broker.pid})")
        if "plain" in args.variants:
            results.plain = attempt(
                results.errors,
                "plain",
                lambda: run_plain(bootstrap, broker.pid, source, root, results, args.stall_timeout),
            )
        if "seaway" in args.variants:
            attempt(
                results.errors,
                "seaway",
                lambda: run_seaway(args, bootstrap, broker.pid, source, root, results),
            )
    finally:
        cleanup("broker stop", broker.stop)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the benchmark, print the report and a final JSON line."""
    args = parse_args(argv)

    def run(root: Path) -> dict[str, Any]:
        results = Results(lines=args.lines, file_bytes=0)
        run_all(args, root, results)
        rows = build_rows(results)
        print_report(args, results, rows)
        return json_report(args, results, rows)

    def log_tail(root: Path) -> None:
        log = root / "worker.log"
        if log.exists():
            tail = log.read_text(errors="replace").splitlines()[-40:]
            progress("worker log tail:\n" + "\n".join(tail))

    return run_in_data_dir(args, "connect", run, on_failure=log_tail)


if __name__ == "__main__":
    sys.exit(main())
