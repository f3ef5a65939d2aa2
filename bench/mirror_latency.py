"""Replication latency of ``seaway mirror-maker`` under a steady load, next to kcat pipes
copying the same records in the same run (issue 32: p99 <= 2x the pipe's).

Run from the repository root::

    .venv/bin/python -m bench.mirror_latency                  # 5,000 rec/s for 30 s
    .venv/bin/python -m bench.mirror_latency --rate 50000
    .venv/bin/python -m bench.mirror_latency --quick          # 1,000 rec/s for 5 s
    .venv/bin/python -m bench.mirror_latency --only seaway --mm2 seaway.max.records.per.batch=5000
    .venv/bin/python -m bench.mirror_latency --exactly-once --json bench/out/mirror-latency.json

What is measured (progress on stderr, results on stdout):

1. Two Seaway brokers, A and B, each a ``seaway broker`` subprocess (as bench/mirror.py);
   topic ``lat`` on A with ``--partitions`` partitions.
2. Both copies start before any record is measured, and copy the same records at once:
   Seaway: ``python -m seaway mirror-maker mm2.properties`` (bench/mirror.py's file with
   ``A->B.topics = lat``, ``spark.master = --master``, ``--mm2`` lines last) copying into
   ``A.lat``; kcat: one pipe per partition ``kcat -C -b A -t lat -p <i> -o end -u -q`` into
   ``kcat -P -b B -t kcat-lat -p <i> -X acks=all -X linger.ms=5 -X batch.size=1000000``
   (line mode; the producer settings of bench/mirror.py's pipe, which the mirror's
   librdkafka copy had; its batch copy now sends each fetched batch at once, acks=all).
   kcat 1.7's -P reads its input in blocks (fread; ``-u`` does not change that), so a line
   waits for the next ones: fed alone 125 lines/s of 101 B (1,000 rec/s over 8 pipes), it
   put them on B 30-150 ms after they were written, in groups of about ten.
3. ONE paced producer (confluent-kafka in this process, ``acks=all``, ``linger.ms
   = --linger-ms``, default 5: with 0, at 5,000 rec/s on 2 cores, kcat's p50 grew through
   the run to 2.7 s, against ~50 ms with 5) writes ``--rate`` records/s round-robin over
   the partitions, every ``TICK_S`` (1 ms) what fell due; each value carries its send time
   (``time.time_ns()``, ASCII digits, padded to ``--value-size``; bench/_latency.py).
   Warm-up records flow, ``READY_RATE`` a second until each copy delivered its first one to B (the
   mirror-maker's JVM and SparkSession start-up, its first micro-batch: no backlog of
   start-up time to catch up afterwards), then ``--warmup-seconds`` at ``--rate``, then
   ``rate * seconds`` measured records (by schedule), then cool-down records at the same
   rate until every measured record is in (kcat -P holds its last lines until more come).
4. One probe process per target topic (``A.lat``, ``kcat-lat``: all partitions from the
   beginning, ``fetch.wait.max.ms=5``, read_uncommitted, or read_committed with
   ``--exactly-once``) takes, for every measured record, its arrival time minus its send
   time. Percentiles are nearest-rank over all measured records; a record that does not
   reach B within ``--drain-timeout`` after the window counts as missing (an error).

CPU seconds over the measured window: the mirror-maker process tree (driver, Spark JVM,
Python workers) and the kcat processes (both ends of every pipe); the brokers for context.
On 2 cores the two Python brokers take about one core at 5,000 rec/s with both copies
running; ``--only seaway`` shows the mirror without the kcat pipes' share of the load.
The last stdout line is a JSON document with every figure (also written to ``--json``),
with each probe's p50 and max per second of the window.

Settings to try with ``--mm2 KEY=VALUE`` (mm2.properties, driver mode):

* ``seaway.max.records.per.batch`` (10,000,000): records per micro-batch and flow
  (Spark's maxOffsetsPerTrigger).
* ``B.exactly.once.source.support=enabled`` (what ``--exactly-once`` sets): one
  transaction per range; the probes read committed records only.
* ``offset.lag.max`` (100) and ``emit.offset-syncs.enabled`` (true): the offset syncs the
  copy writes beside the records.
* ``seaway.flow.trigger.interval.ms`` (500): how often the flow's query looks for new
  records (Spark's processingTime trigger; 0: as soon as the last micro-batch ends).
* ``seaway.flow.follow.ms`` (10,000): how long a micro-batch's tasks keep copying records
  as they arrive (0: each micro-batch copies what was planned and ends).
* ``spark.*``: Spark settings of the mirror-maker's session (``--spark-conf`` writes a
  spark-defaults.conf instead).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from bench._brokers import SeawayBroker
from bench._latency import PERCENTILES, PacedProducer, Probe, ProbeResult, ProducerStats
from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    Row,
    add_pairs,
    arg_parser,
    attempt,
    comparison_table,
    fmt,
    process_cpu,
    ratio,
    report_head,
    run_in_data_dir,
    tree_cpu,
    us_per,
)
from bench._util import process_cpu_seconds, progress
from bench._workload import create_topics
from bench.mirror import KCAT, KCAT_PRODUCER, MirrorMakerProcess, kcat_version, mm2_properties

DEFAULT_RATE, QUICK_RATE = 5000.0, 1000.0
DEFAULT_SECONDS, QUICK_SECONDS = 30.0, 5.0
SOURCE_TOPIC = "lat"
KCAT_TOPIC = "kcat-lat"
REMOTE_TOPIC = f"A.{SOURCE_TOPIC}"
VARIANTS = ("seaway", "kcat")
#: Issue 32's aim: Seaway's p99 at most this many times the kcat pipe's.
AIM_P99_RATIO = 2.0
#: Warm-up records per second until both copies delivered their first record.
READY_RATE = 100.0
EXACTLY_ONCE = {"B.exactly.once.source.support": "enabled"}


@dataclass
class Copy:
    """One copy A -> B as the probes saw it."""

    command: list[str]
    #: Seconds from the producer's start until the first record reached B.
    first_record_s: float | None = None
    #: CPU seconds of its processes over the measured window.
    cpu_seconds: float | None = None
    probe: ProbeResult | None = None

    def latency(self, name: str) -> float | None:
        return None if self.probe is None else self.probe.latency_ms.get(name)


@dataclass
class Results:
    """Everything one run measured; a failed step leaves None and a message in ``errors``."""

    producer: ProducerStats | None = None
    copies: dict[str, Copy] = field(default_factory=dict)
    brokers_cpu_seconds: float | None = None
    errors: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line; ``--quick`` fills the rate and seconds not given."""
    parser = arg_parser("mirror_latency", __doc__)
    add = parser.add_argument
    add("--quick", action="store_true", help=f"smoke run: {QUICK_RATE:,.0f} rec/s for 5 s")
    add("--rate", type=float, help=f"records per second (default {DEFAULT_RATE:,.0f})")
    add("--seconds", type=float, help=f"measured seconds (default {DEFAULT_SECONDS:.0f})")
    add("--warmup-seconds", type=float, default=10.0, help="after both copies are live")
    add("--partitions", type=int, default=8, help="partitions of the source topic")
    add("--value-size", type=int, default=100, help="bytes per record value (>= 32)")
    add("--linger-ms", type=float, default=5.0, help="the paced producer's linger.ms")
    add("--only", choices=VARIANTS, help="run one copy only")
    add("--master", default="local[2]", help="spark.master of the mirror (default local[2])")
    add("--exactly-once", action="store_true", help="exactly-once mirror, read_committed probes")
    add_pairs(parser, "--mm2", "extra mm2.properties setting (repeatable)", "mm2")
    add_pairs(
        parser,
        "--spark-conf",
        "Spark setting for the mirror-maker (spark-defaults.conf; repeatable)",
        "spark_conf",
    )
    add("--ready-timeout", type=float, default=300.0, help="for the first record on B")
    add("--drain-timeout", type=float, default=60.0, help="for the last records after the window")
    args = parser.parse_args(argv)
    args.rate = args.rate or (QUICK_RATE if args.quick else DEFAULT_RATE)
    args.seconds = args.seconds or (QUICK_SECONDS if args.quick else DEFAULT_SECONDS)
    if args.value_size < 32:
        parser.error("--value-size must be at least 32 (the send time and sequence)")
    args.variants = [args.only] if args.only else list(VARIANTS)
    return args


# --------------------------------------------------------------------------- copies


def kcat_pipe_commands(a: str, b: str, partitions: int) -> list[tuple[list[str], list[str]]]:
    """(consumer, producer) command lines of the pipe of every partition."""
    settings = [arg for key, value in KCAT_PRODUCER.items() for arg in ("-X", f"{key}={value}")]
    return [
        (
            [KCAT, "-C", "-b", a, "-t", SOURCE_TOPIC, "-p", str(p), "-o", "end", "-u", "-q"],
            [KCAT, "-P", "-b", b, "-t", KCAT_TOPIC, "-p", str(p), *settings],
        )
        for p in range(partitions)
    ]


class KcatPipes:
    """Long-running ``kcat -C | kcat -P`` pipes, one per partition."""

    def __init__(self, commands: list[tuple[list[str], list[str]]], log: Path) -> None:
        self.commands = commands
        self.log = log
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        if shutil.which(KCAT) is None:
            raise FileNotFoundError("kcat not found: apt-get install kcat")
        with self.log.open("ab") as err:
            for consumer, producer in self.commands:
                left = subprocess.Popen(
                    consumer, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=err
                )
                right = subprocess.Popen(producer, stdin=left.stdout, stderr=err)
                assert left.stdout is not None
                left.stdout.close()  # the producer owns the read end now
                self.processes += [left, right]

    def alive(self) -> bool:
        return bool(self.processes) and all(p.poll() is None for p in self.processes)

    def cpu_seconds(self) -> float:
        """CPU seconds of every kcat process so far."""
        return sum(process_cpu_seconds(p.pid) for p in self.processes)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()
        self.processes = []


def mirror_config(args: argparse.Namespace, a: str, b: str) -> str:
    """bench/mirror.py's mm2.properties for topic ``lat`` (a later line wins), with
    ``--exactly-once`` and ``--mm2`` last."""
    extra = {
        "A->B.topics": SOURCE_TOPIC,
        **(EXACTLY_ONCE if args.exactly_once else {}),
        **args.mm2,
    }
    return mm2_properties(argparse.Namespace(master=args.master, mm2=extra), a, b)


def probe_for(args: argparse.Namespace, b: str, topic: str, log: Path) -> Probe:
    """The probe process of one target topic (not started)."""
    isolation = "read_committed" if args.exactly_once else "read_uncommitted"
    return Probe(
        [
            *("--bootstrap", b, "--topic", topic, "--partitions", str(args.partitions)),
            *("--isolation", isolation, "--topic-timeout", str(args.ready_timeout)),
            *("--drain-timeout", str(args.drain_timeout)),
        ],
        log,
    )


# --------------------------------------------------------------------------- run


def wait_first(
    probes: dict[str, Probe],
    alive: dict[str, Callable[[], bool]],
    timeout: float,
    copies: dict[str, Copy],
    started: float,
) -> None:
    """Wait until every probe saw its first record; fail when a copy or probe died."""
    deadline = time.monotonic() + timeout
    while True:
        for name, probe in probes.items():
            if probe.first.is_set() and copies[name].first_record_s is None:
                copies[name].first_record_s = time.monotonic() - started
                progress(f"{name}: first record on B after {copies[name].first_record_s:.1f} s")
            if not probe.alive() or not alive[name]():
                raise RuntimeError(f"{name}: the copy or its probe stopped before its first record")
        if all(copies[name].first_record_s is not None for name in probes):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"no first record on B within {timeout:.0f} s")
        time.sleep(0.05)


def run_all(args: argparse.Namespace, root: Path, results: Results) -> None:
    """Start the brokers, the copies and the probes, produce, and collect the latencies."""
    broker_a = SeawayBroker(root / "a", {})
    broker_b = SeawayBroker(root / "b", {})
    probes: dict[str, Probe] = {}
    alive: dict[str, Callable[[], bool]] = {}
    cpu: dict[str, Callable[[], float]] = {}
    pipes: KcatPipes | None = None
    maker: MirrorMakerProcess | None = None
    producer: PacedProducer | None = None
    try:
        a, pid_a = broker_a.start()
        b, pid_b = broker_b.start()
        progress(f"brokers: A on {a} (pid {pid_a}), B on {b} (pid {pid_b})")
        create_topics(a, [SOURCE_TOPIC], args.partitions)
        if "kcat" in args.variants:
            create_topics(b, [KCAT_TOPIC], args.partitions)
            commands = kcat_pipe_commands(a, b, args.partitions)
            pipes = KcatPipes(commands, root / "kcat.log")
            pipes.start()
            results.copies["kcat"] = Copy(command=[*commands[0][0], "|", *commands[0][1]])
            probes["kcat"] = probe_for(args, b, KCAT_TOPIC, root / "probe-kcat.log")
            alive["kcat"], cpu["kcat"] = pipes.alive, pipes.cpu_seconds
            progress(
                f"kcat: {args.partitions} pipes, e.g. {' '.join(results.copies['kcat'].command)}"
            )
        if "seaway" in args.variants:
            config = root / "mm2.properties"
            config.write_text(mirror_config(args, a, b))
            maker = MirrorMakerProcess(config, root / "mirror-maker.log", args.spark_conf)
            pid = maker.start()
            results.copies["seaway"] = Copy(command=maker.command)
            probes["seaway"] = probe_for(args, b, REMOTE_TOPIC, root / "probe-seaway.log")
            alive["seaway"], cpu["seaway"] = maker.alive, tree_cpu(pid)
            progress(f"seaway: {' '.join(maker.command)} (pid {pid})")
        for probe in probes.values():
            probe.start()
        producer = PacedProducer(
            a,
            SOURCE_TOPIC,
            args.partitions,
            args.rate,
            args.seconds,
            args.value_size,
            {"acks": "all", "linger.ms": args.linger_ms},
            ready_rate=READY_RATE,
        )
        results.producer = producer.stats
        started = time.monotonic()
        producer.start()
        progress(f"producing {producer.ready_rate:,.0f} rec/s of warm-up records")
        wait_first(probes, alive, args.ready_timeout, results.copies, started)
        producer.full_rate()
        progress(f"both copies live; {args.warmup_seconds:.0f} s of warm-up at the full rate")
        time.sleep(args.warmup_seconds)
        cpu["brokers"] = lambda: process_cpu(pid_a)() + process_cpu(pid_b)()
        meter = CpuMeter(**cpu)
        progress(f"measuring {args.seconds:.0f} s at {args.rate:,.0f} rec/s")
        producer.measure()
        if not producer.window_done.wait(args.seconds + 60):
            raise TimeoutError("the producer did not finish the measured window")
        used = meter.read()
        results.brokers_cpu_seconds = used.pop("brokers")
        for name, seconds in used.items():
            results.copies[name].cpu_seconds = seconds
        stats = producer.stats
        progress(
            f"window: {stats.measured_records:,} records in {stats.window_seconds:.1f} s; "
            "waiting for them on B"
        )
        for name, probe in probes.items():
            if not alive[name]():
                results.errors.append(f"{name}: the copy stopped during the window")
            probe.end(stats.measured_records)
        for name, probe in probes.items():
            wait = partial(probe.wait, args.drain_timeout + 60)
            results.copies[name].probe = attempt(results.errors, f"{name} probe", wait)
    except BaseException:
        if maker is not None:
            progress("mirror-maker log tail:\n" + maker.log_tail())
        raise
    finally:
        if producer is not None:
            producer.stop()
            producer.join(70)
        for probe in probes.values():
            probe.stop()
        if maker is not None:
            maker.stop()
        if pipes is not None:
            pipes.stop()
        broker_b.stop()
        broker_a.stop()


# --------------------------------------------------------------------------- report


def check_delivery(results: Results) -> None:
    """Every measured record must reach B through every copy: missing ones are errors."""
    for name, copy in results.copies.items():
        found = copy.probe
        if found is not None and not found.complete:
            results.errors.append(
                f"{name}: {found.missing:,} of {found.expected:,} measured records missing "
                f"after {found.drain_seconds:.0f} s (first: {found.missing_sequences[:5]})"
            )
    producer = results.producer
    if producer is not None and (producer.delivery_errors or producer.errors):
        results.errors.append(
            f"producer: {producer.delivery_errors} delivery errors {producer.errors[:3]}"
        )


def build_rows(results: Results) -> list[Row]:
    """Table rows, Seaway against kcat."""
    seaway, kcat = results.copies.get("seaway"), results.copies.get("kcat")

    def both(pick: Callable[[Copy], float | None]) -> tuple[float | None, float | None]:
        return (pick(seaway) if seaway else None, pick(kcat) if kcat else None)

    def received(copy: Copy) -> float | None:
        return None if copy.probe is None else copy.probe.received

    def per_record(copy: Copy) -> float | None:
        return us_per(copy.cpu_seconds, copy.probe.expected) if copy.probe else None

    names = [*PERCENTILES, "max", "mean"]
    return [
        *(Row(f"latency {n}", "ms", *both(partial(Copy.latency, name=n))) for n in names),
        Row("records measured on B", "rec", *both(received)),
        Row("CPU over the window", "s", *both(lambda c: c.cpu_seconds)),
        Row("CPU per record", "us/rec", *both(per_record)),
    ]


def p99_ratio(results: Results) -> float | None:
    """Seaway's p99 over kcat's."""
    seaway, kcat = results.copies.get("seaway"), results.copies.get("kcat")
    if seaway is None or kcat is None:
        return None
    return ratio(seaway.latency("p99"), kcat.latency("p99"))


def print_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> None:
    """Print the human-readable report to stdout."""
    mode = "exactly-once, read_committed" if args.exactly_once else "read_uncommitted"
    print(
        f"\nMirror latency: {args.rate:,.0f} rec/s for {args.seconds:.0f} s ({args.value_size} B "
        f"values, {args.partitions} partitions, {mode}) from broker A to broker B (two Seaway "
        f"broker subprocesses); Python {platform.python_version()}, {KAFKA_CLIENT}, "
        f"{kcat_version()}, {os.cpu_count()} CPUs"
    )
    producer = results.producer
    if producer is not None:
        print(
            f"producer: acks=all linger.ms={args.linger_ms:g}, {producer.measured_records:,} "
            f"measured records in {producer.window_seconds:.2f} s "
            f"({fmt(producer.achieved_rate)} rec/s) after {producer.warmup_records:,} warm-up "
            f"records; longest gap between ticks {producer.max_tick_gap_ms:.1f} ms"
        )
    for name, copy in results.copies.items():
        print(f"{name}: {' '.join(copy.command)}")
    print(comparison_table(rows, "seaway", "kcat", "seaway/kcat"))
    print(
        "latency = arrival at a probe on B (fetch.wait.max.ms=5) minus the send time stamped "
        "in the value; CPU = the mirror-maker process tree / the kcat processes, over the "
        f"measured window; brokers (A + B): {fmt(results.brokers_cpu_seconds)} s"
    )
    for name, copy in results.copies.items():
        found = copy.probe
        if found is not None:
            print(
                f"{name}: first record on B {fmt(copy.first_record_s)} s after the producer "
                f"started; {found.received:,}/{found.expected:,} measured records arrived, "
                f"{found.missing:,} missing, {found.duplicates:,} duplicates"
            )
            seconds = " ".join(f"{fmt(p50)}/{fmt(top)}" for p50, top in found.per_second_ms)
            print(f"{name}: p50/max ms by second of the window (send time): {seconds}")
    times = p99_ratio(results)
    if times is not None:
        verdict = "MET" if times <= AIM_P99_RATIO else "NOT MET"
        print(f"aim Seaway p99 <= {AIM_P99_RATIO:g}x kcat's: {fmt(times)}x -> {verdict}")
    for error in results.errors:
        print(f"ERROR {error}")


def json_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> dict[str, Any]:
    """Every figure as one JSON-serialisable document."""
    producer = results.producer
    times = p99_ratio(results)
    return {
        **report_head("bench/mirror_latency.py", kcat=kcat_version()),
        "config": {
            "rate": args.rate,
            "seconds": args.seconds,
            "warmup_seconds": args.warmup_seconds,
            "partitions": args.partitions,
            "value_size": args.value_size,
            "linger_ms": args.linger_ms,
            "master": args.master,
            "exactly_once": args.exactly_once,
            "mm2": args.mm2,
            "spark_conf": args.spark_conf,
            "kcat_producer": dict(KCAT_PRODUCER),
            "quick": args.quick,
        },
        "rows": [r.json("seaway", "kcat") for r in rows],
        "producer": {**asdict(producer), "achieved_rate": producer.achieved_rate}
        if producer
        else None,
        "copies": {name: asdict(copy) for name, copy in results.copies.items()},
        "brokers_cpu_seconds": results.brokers_cpu_seconds,
        "aim": {
            "p99_ratio_max": AIM_P99_RATIO,
            "p99_ratio": times,
            "met": None if times is None else times <= AIM_P99_RATIO,
        },
        "errors": results.errors,
    }


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the benchmark, print the report and a final JSON line."""
    args = parse_args(argv)

    def run(root: Path) -> dict[str, Any]:
        results = Results()
        attempt(results.errors, "run", lambda: run_all(args, root, results))
        check_delivery(results)
        rows = build_rows(results)
        print_report(args, results, rows)
        return json_report(args, results, rows)

    return run_in_data_dir(args, "mirror-latency", run)


if __name__ == "__main__":
    sys.exit(main())
