"""The file copy benchmark on Seaway: a distributed Connect worker in this process runs a
FileStreamSource and a FileStreamSink together, timed until the copy equals the input."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench._connect_file_input import GrowingCopy
from bench._connect_file_results import Cpu, Results, SeawayRun, Span, cpu_meter
from bench._connect_worker import (
    create_connector,
    failed_parts,
    query_summaries,
    worker_logging,
    worker_props,
)
from bench._report import CpuMeter, cleanup
from bench._util import progress
from bench._workload import create_topics, end_offset, new_consumer, unique_name

#: Seconds between checks of the topic's end offset and the copy's size.
TICK_S = 0.2


@dataclass
class CopyWatch:
    """Timing of the running Connect copy, filled by :func:`watch_copy`."""

    source_seconds: float | None = None
    first_record_seconds: float | None = None
    first_sink_byte_seconds: float | None = None
    end_to_end_seconds: float | None = None
    source_cpu: Cpu | None = None
    topic_records: int = 0


def watch_copy(
    url: str,
    bootstrap: str,
    topic: str,
    connectors: Sequence[str],
    copy: GrowingCopy,
    results: Results,
    started: float,
    cpu: CpuMeter,
    args: argparse.Namespace,
) -> CopyWatch:
    """Poll the topic's end offset and the copy until the copy equals the input."""
    watch = CopyWatch()
    consumer = new_consumer(bootstrap)
    last_change = last_report = started
    last_sink = last_topic = 0
    try:
        while True:
            time.sleep(TICK_S)
            now = time.perf_counter()
            size = copy.poll()  # raises when the copy differs from the input
            if watch.source_seconds is None:
                watch.topic_records = end_offset(consumer, topic)
                if watch.topic_records and watch.first_record_seconds is None:
                    watch.first_record_seconds = now - started
                if watch.topic_records >= results.lines:
                    watch.source_seconds = now - started
                    watch.source_cpu = Cpu(**cpu.read())
                    progress(
                        f"seaway: topic reached {watch.topic_records:,} records after "
                        f"{watch.source_seconds:.2f} s (source only)"
                    )
            if size and watch.first_sink_byte_seconds is None:
                watch.first_sink_byte_seconds = now - started
            if size == results.file_bytes:
                watch.end_to_end_seconds = now - started
                return watch
            if size != last_sink or watch.topic_records != last_topic:
                last_change, last_sink, last_topic = now, size, watch.topic_records
            elif now - last_change > args.stall_timeout:
                raise TimeoutError(
                    f"no progress for {args.stall_timeout:.0f} s: topic "
                    f"{watch.topic_records:,} records, copy {copy.lines:,} lines"
                )
            if now - last_report >= args.progress_interval:
                last_report = now
                elapsed = now - started
                progress(
                    f"seaway: {elapsed:6.1f} s  topic {watch.topic_records:>10,} records  "
                    f"copy {copy.lines:>10,} lines ({copy.lines / elapsed:,.0f} lines/s)"
                )
                failures = failed_parts(url, connectors)
                if failures:
                    raise RuntimeError("; ".join(failures))
    finally:
        consumer.close()


def run_seaway(
    args: argparse.Namespace,
    bootstrap: str,
    broker_pid: int,
    source: Path,
    root: Path,
    results: Results,
) -> SeawayRun:
    """Start a distributed worker, run FileStreamSource + FileStreamSink, time the copy."""
    from seaway.connect.assembly import distributed_worker

    name = unique_name("bench-connect")
    topic = f"{name}-lines"
    copy_path = root / "seaway-copy.txt"
    props = worker_props(args, bootstrap, name, root)
    create_topics(bootstrap, [topic], 1)
    with worker_logging(root / "worker.log") as problems:
        progress(
            f"seaway: starting a distributed worker ({args.master}, {args.converter} converter)"
        )
        started = time.perf_counter()
        connect = distributed_worker(props)
        copy = GrowingCopy(copy_path, source)
        run = SeawayRun(startup_seconds=0.0)
        try:
            connect.start()
            warm_up = connect.herder.worker.warm_up
            if warm_up is not None:  # a running worker: its Python workers have started
                warm_up.join(60)
            run.startup_seconds = time.perf_counter() - started
            url = connect.rest.url
            progress(
                f"seaway: worker up in {run.startup_seconds:.1f} s (not measured); REST at {url}"
            )
            connectors = {
                f"{name}-source": {
                    "connector.class": "FileStreamSource",
                    "file": str(source),
                    "topic": topic,
                    **args.source_overrides,
                },
                f"{name}-sink": {
                    "connector.class": "FileStreamSink",
                    "file": str(copy_path),
                    "topics": topic,
                    **args.sink_overrides,
                },
            }
            cpu = cpu_meter(broker_pid)
            started = time.perf_counter()
            for connector, config in connectors.items():
                create_connector(url, connector, config)
            progress(f"seaway: POSTed {', '.join(connectors)}; copying {results.lines:,} lines")
            watch = watch_copy(
                url, bootstrap, topic, list(connectors), copy, results, started, cpu, args
            )
            run.end_to_end_cpu = Cpu(**cpu.read())
            size = results.file_bytes
            if watch.source_seconds is not None:
                run.source = Span(results.lines, size, watch.source_seconds)
                run.source_cpu = watch.source_cpu
            assert watch.end_to_end_seconds is not None
            run.end_to_end = Span(copy.lines, size, watch.end_to_end_seconds)
            run.first_record_seconds = watch.first_record_seconds
            run.first_sink_byte_seconds = watch.first_sink_byte_seconds
            consumer = new_consumer(bootstrap)
            try:
                run.topic_records = end_offset(consumer, topic)
            finally:
                consumer.close()
            time.sleep(1.0)  # let the last batches' progress events arrive
            run.queries = query_summaries(connect)
            progress(
                f"seaway: copy identical to the input after {watch.end_to_end_seconds:.2f} s "
                f"({run.end_to_end.lines_per_s:,.0f} lines/s end to end); topic holds "
                f"{run.topic_records:,} records"
            )
        finally:
            copy.close()
            stopping = time.perf_counter()
            progress("seaway: stopping the worker")
            cleanup("worker stop", connect.stop)
            run.stop_seconds = time.perf_counter() - stopping
            run.log_problems = list(problems.records)
            progress(f"seaway: worker stopped in {run.stop_seconds:.1f} s")
            results.seaway = run  # kept even when the copy failed, for the log summary
    return run
