"""The file copy benchmark's report: the table of rates against the plain reference, the
Seaway worker's details, and the JSON document."""

from __future__ import annotations

import argparse
import os
import platform
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

import pyspark

from bench._connect_file_input import LINE_BYTES
from bench._connect_file_plain import PLAIN_PRODUCER_CONFIG
from bench._connect_file_results import Cpu, Results, Span
from bench._connect_file_seaway import TICK_S
from bench._report import KAFKA_CLIENT, fmt, ratio, render_table, report_head
from bench._util import MB
from bench._workload import CONSUMER_CONFIG


@dataclass(frozen=True)
class Row:
    """One line of the table; ``ratio`` is this row's lines/s over ``reference``'s."""

    variant: str
    span: Span | None
    cpu: Cpu | None
    reference: Span | None = None

    @property
    def ratio(self) -> float | None:
        """Lines/s of this row over its reference's, when both exist."""
        if self.span is None or self.reference is None:
            return None
        return ratio(self.span.lines_per_s, self.reference.lines_per_s)


def build_rows(results: Results) -> list[Row]:
    """Table rows: the reference's phases, then Seaway's against them."""
    plain, seaway = results.plain, results.seaway
    produce = plain.produce if plain else None
    plain_e2e = plain.end_to_end if plain else None
    return [
        Row("plain: produce (file -> topic)", produce, plain.produce_cpu if plain else None),
        Row(
            "plain: consume (topic -> file)",
            plain.consume if plain else None,
            plain.end_to_end_cpu - plain.produce_cpu if plain else None,
        ),
        Row(
            "plain: end to end (file -> topic -> file)",
            plain_e2e,
            plain.end_to_end_cpu if plain else None,
        ),
        Row(
            "seaway: FileStreamSource only (file -> topic)",
            seaway.source if seaway else None,
            seaway.source_cpu if seaway else None,
            produce,
        ),
        Row(
            "seaway: Source -> Sink end to end (file -> topic -> file)",
            seaway.end_to_end if seaway else None,
            seaway.end_to_end_cpu if seaway else None,
            plain_e2e,
        ),
    ]


def table(rows: list[Row]) -> str:
    """The rows as an aligned text table."""
    header = ("variant", "lines", "seconds", "lines/s", "MB/s", "vs plain", "client CPU s",
              "broker CPU s")  # fmt: skip

    def cells(row: Row) -> tuple[str, ...]:
        span, cpu = row.span, row.cpu
        return (
            row.variant,
            f"{span.lines:,}" if span else "-",
            fmt(span.seconds if span else None),
            fmt(span.lines_per_s if span else None),
            fmt(span.mb_per_s if span else None),
            fmt(row.ratio),
            fmt(cpu.client if cpu else None),
            fmt(cpu.broker if cpu else None),
        )

    return render_table(header, [cells(r) for r in rows])


def print_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> None:
    """Print the human-readable report to stdout."""
    print(
        f"\nConnect file copy benchmark: {results.lines:,} lines x {LINE_BYTES} B "
        f"({results.file_bytes / MB:,.1f} MB), 1-partition topics on a Seaway broker "
        f"subprocess; Python {platform.python_version()}, Spark {pyspark.__version__} "
        f"{args.master}, {KAFKA_CLIENT}, {os.cpu_count()} CPUs on this host"
    )
    print(
        f"plain: one Python process, produce (acks=all linger.ms=5 batch.size=1000000) then "
        f"consume into a file + fsync. seaway: distributed worker in-process, "
        f"{args.converter} converter, FileStreamSource + FileStreamSink running together"
    )
    if args.worker_overrides or args.source_overrides or args.sink_overrides:
        print(
            f"overrides: worker {args.worker_overrides}, source {args.source_overrides}, "
            f"sink {args.sink_overrides}"
        )
    print(table(rows))
    print(
        "MB = 10^6 bytes of the input file; vs plain = lines/s over the plain script's "
        "(source only vs produce, end to end vs end to end); client CPU = this process and "
        "its children (Spark JVM, Python workers) minus the broker"
    )
    seaway = results.seaway
    if seaway is not None:
        print(
            f"seaway: worker start-up {seaway.startup_seconds:.1f} s (not measured), stop "
            f"{fmt(seaway.stop_seconds)} s; first record in the topic after "
            f"{fmt(seaway.first_record_seconds)} s, first bytes in the copy after "
            f"{fmt(seaway.first_sink_byte_seconds)} s; topic holds "
            f"{fmt(seaway.topic_records)} records"
        )
        print(
            f"seaway: lines/s once data flows (from the first record / first copied bytes; "
            f"{TICK_S} s polling): source {fmt(seaway.source_steady_rate)}, sink "
            f"{fmt(seaway.sink_steady_rate)}"
        )
        for query in seaway.queries:
            print(f"seaway query {query.describe()}")
        summary = Counter(level for level, _, _ in seaway.log_problems)
        print(
            "seaway worker log: "
            + (", ".join(f"{n} {lvl}" for lvl, n in sorted(summary.items())) or "no warnings")
        )
        for level, logger, message in seaway.log_problems[:10]:
            print(f"  {level} {logger}: {message.splitlines()[0] if message else ''}")
    for message in results.errors:
        print(f"ERROR {message}")


def json_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> dict[str, Any]:
    """Every figure of the run as plain JSON types."""

    def span_json(span: Span | None) -> dict[str, Any] | None:
        if span is None:
            return None
        return {**asdict(span), "lines_per_s": span.lines_per_s, "mb_per_s": span.mb_per_s}

    plain, seaway = results.plain, results.seaway
    return {
        **report_head("bench/connect_file.py", pyspark=pyspark.__version__),
        "config": {
            "mb": args.mb,
            "lines": results.lines,
            "file_bytes": results.file_bytes,
            "line_bytes": LINE_BYTES,
            "master": args.master,
            "converter": args.converter,
            "worker_overrides": args.worker_overrides,
            "source_overrides": args.source_overrides,
            "sink_overrides": args.sink_overrides,
            "plain_producer": dict(PLAIN_PRODUCER_CONFIG),
            "consumer": dict(CONSUMER_CONFIG),
        },
        "rows": [
            {
                "variant": r.variant,
                **(span_json(r.span) or {}),
                "ratio": r.ratio,
                "client_cpu_s": r.cpu.client if r.cpu else None,
                "broker_cpu_s": r.cpu.broker if r.cpu else None,
            }
            for r in rows
        ],
        "plain": None
        if plain is None
        else {
            "produce": span_json(plain.produce),
            "consume": span_json(plain.consume),
            "end_to_end": span_json(plain.end_to_end),
            "topic_records": plain.topic_records,
            "identical": plain.identical,
        },
        "seaway": None
        if seaway is None
        else {
            "startup_seconds": seaway.startup_seconds,
            "stop_seconds": seaway.stop_seconds,
            "source": span_json(seaway.source),
            "end_to_end": span_json(seaway.end_to_end),
            "first_record_seconds": seaway.first_record_seconds,
            "first_sink_byte_seconds": seaway.first_sink_byte_seconds,
            "source_steady_lines_per_s": seaway.source_steady_rate,
            "sink_steady_lines_per_s": seaway.sink_steady_rate,
            "topic_records": seaway.topic_records,
            "log_problems": seaway.log_problems,
            "queries": [asdict(q) for q in seaway.queries],
        },
        "errors": results.errors,
    }
