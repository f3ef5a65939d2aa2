"""MirrorMaker 2 on Seaway (``seaway mirror-maker``) copying a topic from cluster A to
cluster B, next to a ``kcat -C | kcat -P`` pipe between the same two brokers.

Run from the repository root::

    .venv/bin/python -m bench.mirror                 # 2,000,000 records (~2 minutes)
    .venv/bin/python -m bench.mirror --quick         # 200,000 records, smoke run
    .venv/bin/python -m bench.mirror --only kcat     # the reference pipe only
    .venv/bin/python -m bench.mirror --kcat-pipes 1  # one pipe for all partitions
    .venv/bin/python -m bench.mirror --profile bench/out/mirror-profile.txt
    .venv/bin/python -m bench.mirror --json bench/out/mirror.json

What is measured (progress on stderr, results on stdout):

1. Two Seaway brokers, A and B, each a ``seaway broker`` subprocess (``BrokerProcess``).
   Topic ``bench`` on A gets ``--records`` records of ``--value-size`` bytes (ASCII, no
   tab or newline, so kcat's line framing holds) and 8-byte keys, round-robin over
   ``--partitions`` partitions, produced with confluent-kafka before any timing.
2. kcat (the reference): ``--kcat-pipes`` pipes (default one per partition)
   ``kcat -C -b A -t bench -p <i> -o beginning -e -f '%k<TAB>%s\\n'`` into
   ``kcat -P -b B -t kcat-copy -p <i> -K <TAB>`` with the producer settings of Seaway's
   mirror copy (acks=all, linger.ms=5, batch.size=1000000); ``kcat-copy`` is created with
   the same partitions beforehand. This keeps partition, order and key of every record but
   not its timestamp (kcat -P stamps the produce time) nor headers (the records have none).
   With one pipe (``--kcat-pipes 1``) the producer's partitioner picks the partitions.
3. Seaway: ``python -m seaway mirror-maker mm2.properties`` as a subprocess with
   ``clusters=A,B``, ``A->B.enabled=true``, ``A->B.topics=bench``, replication factors 1
   and ``spark.master=--master`` (default ``local[2]``): MM2's MirrorSource flow as a Spark
   query (remote topic ``A.bench`` created with the source's partitions; each task copies
   its offset range A -> B itself, record batches whole with Seaway's batch client, every
   record's partition, key, value, headers and timestamp kept, offset syncs written; the
   sink stores MM2 offsets) plus the checkpoint flow.

Both copies are timed from their process start until B's end offsets (one ListOffsets
per ``TICK_S``) sum to ``--records`` ("end to end"; kcat: until both ends of every pipe
exited, which is when its producer flushed). "Steady" is from the first tick that saw
records on B to the last; for Seaway it leaves out the JVM/SparkSession start-up and the
query's first planning. Afterwards the last record of every partition is compared with A's
(key and value; Seaway also the timestamp). CPU seconds: client side (kcat processes; the
mirror-maker process tree: driver, Spark JVM, Python workers) and both brokers.

Seaway's steady CPU is also split by process (Spark JVM, Python workers, driver) and the
JVM's by thread (task threads, JIT compilers, GC) from /proc. ``--profile PATH`` samples
the Python processes of the mirror-maker tree with py-spy (``record --subprocesses
--format raw``: folded stacks in PATH) and records the JVM with JFR from the first record
on B (``jcmd JFR.start``, ``PATH`` with suffix ``.jfr``), then prints where the samples
fall (copy loop, imports, Arrow hand-over ...) and the hottest lines and methods.
``--spark-conf KEY=VALUE`` passes Spark settings to the mirror-maker (mm2.properties only
carries ``spark.master``) through a spark-defaults.conf in the run directory.
The last stdout line is a JSON document with every figure (also written to ``--json``).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from bench._brokers import SeawayBroker
from bench._mirror_profile import CpuSplit, Profile, SeawayProbe
from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    Row,
    add_pairs,
    add_size,
    arg_parser,
    attempt,
    comparison_table,
    fmt,
    ratio,
    report_head,
    run_in_data_dir,
    us_per,
)
from bench._util import MB, PeakRss, process_cpu_seconds, progress
from bench._workload import Throughput, create_topics

DEFAULT_RECORDS = 2_000_000
QUICK_RECORDS = 200_000
SOURCE_TOPIC = "bench"
KCAT_TOPIC = "kcat-copy"
#: The aim: Seaway's mirror at least this fraction of the kcat pipe's records/s.
#: Issue 11's aims: end to end and steady, as ratios to kcat; the first record, in seconds.
AIMS = {"end to end": 1.0, "steady": 2.0}
FIRST_RECORD_AIM_S = 8.0
#: Seconds between end-offset checks on B.
TICK_S = 0.1
KEY_BYTES = 8
KCAT = "kcat"
VARIANTS = ("kcat", "seaway")

#: kcat -P settings = the librdkafka producer settings the mirror used before its batch copy.
KCAT_PRODUCER = {"acks": "all", "linger.ms": "5", "batch.size": "1000000"}
#: The fill producer (not timed against anything; as fast as it goes).
FILL_PRODUCER: dict[str, str | int] = {
    "acks": 1,
    "linger.ms": 20,
    "batch.size": 1_000_000,
    "queue.buffering.max.messages": 1_000_000,
    "queue.buffering.max.kbytes": 1_048_576,
    "delivery.report.only.error": True,
}


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Cpu:
    """CPU seconds of the copying processes and of the two brokers."""

    client: float
    brokers: float


@dataclass
class CopyRun:
    """One A -> B copy, timed from its process start."""

    records: int
    #: Process start until B holds every record (kcat: until the pipes exited).
    seconds: float
    #: Process start until the first tick that saw records on B.
    first_seconds: float | None
    #: Records on B at that first tick (counted out of the steady rate).
    first_count: int
    #: Process start until the tick that saw every record on B.
    last_seconds: float
    cpu: Cpu
    #: Seaway: CPU of the mirror-maker tree by process kind, all of it and between the
    #: first and the last tick.
    split: CpuSplit | None = None
    steady_split: CpuSplit | None = None
    #: Seaway: process start until mirror-maker printed "running flows".
    ready_seconds: float | None = None
    tail_matches: bool | None = None
    command: list[str] = field(default_factory=list)
    #: Seaway: CPU seconds of the JVM's threads between the first and the last tick.
    jvm_threads: list[tuple[str, float]] = field(default_factory=list)
    #: Seaway: peak resident bytes of the largest process of each role (driver, jvm,
    #: python worker).
    peak_rss: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Records per second, end to end."""
        return self.records / self.seconds

    @property
    def steady_rate(self) -> float | None:
        """Records per second from the first tick with records on B to the last."""
        if self.first_seconds is None or self.last_seconds <= self.first_seconds:
            return None
        return (self.records - self.first_count) / (self.last_seconds - self.first_seconds)

    @property
    def client_us_per_record(self) -> float | None:
        """Client-side CPU microseconds per record copied (start-up included)."""
        return us_per(self.cpu.client, self.records)

    @property
    def brokers_us_per_record(self) -> float | None:
        """Broker CPU microseconds (A + B) per record copied."""
        return us_per(self.cpu.brokers, self.records)


@dataclass
class Results:
    """Everything one run measured; a failed step leaves None and a message in ``errors``."""

    records: int
    value_size: int
    fill: Throughput | None = None
    kcat: CopyRun | None = None
    seaway: CopyRun | None = None
    profile: Profile | None = None
    errors: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line and fill the defaults that depend on ``--quick``."""
    parser = arg_parser("mirror", __doc__)
    add = parser.add_argument
    add_size(parser, DEFAULT_RECORDS, QUICK_RECORDS, "records to mirror")
    add("--partitions", type=int, default=8, help="partitions of the source topic")
    add("--value-size", type=int, default=100, help="bytes per record value")
    add("--only", choices=VARIANTS, help="run one copy only")
    add("--master", default="local[2]", help="spark.master of the mirror (default local[2])")
    add(
        "--kcat-pipes",
        type=int,
        help="kcat pipes: one per partition (default; keeps partitions) or 1 (partitioner)",
    )
    add_pairs(parser, "--mm2", "extra mm2.properties setting (repeatable)", "mm2")
    add_pairs(
        parser,
        "--source-producer",
        "librdkafka setting of the fill producer, e.g. compression.type=zstd or linger.ms=0 "
        "(repeatable)",
        "source_producer",
    )
    add_pairs(
        parser,
        "--spark-conf",
        "Spark setting for the mirror-maker (spark-defaults.conf; repeatable)",
        "spark_conf",
    )
    add(
        "--profile",
        type=Path,
        metavar="PATH",
        help="py-spy (folded stacks in PATH) and JFR (PATH.jfr) on the Seaway copy",
    )
    add("--stall-timeout", type=float, default=180.0, help="give up after this long w/o growth")
    args = parser.parse_args(argv)
    args.records = args.records or (QUICK_RECORDS if args.quick else DEFAULT_RECORDS)
    args.kcat_pipes = args.kcat_pipes or args.partitions
    if args.kcat_pipes not in (1, args.partitions):
        parser.error("--kcat-pipes is 1 or the number of partitions")
    if args.value_size < 12:
        parser.error("--value-size must be at least 12 (the record number is in the value)")
    args.variants = [args.only] if args.only else list(VARIANTS)
    return args


# --------------------------------------------------------------------------- topics


def fill_source(
    bootstrap: str, records: int, partitions: int, value_size: int, settings: dict[str, str]
) -> Throughput:
    """Produce ``records`` keyed ASCII records round-robin over the partitions of
    ``SOURCE_TOPIC`` (value: the 12-digit record number, then filler), with the fill
    producer's settings and *settings* (``--source-producer``) over them."""
    producer = Producer({"bootstrap.servers": bootstrap, **FILL_PRODUCER, **settings})
    producer.list_topics(SOURCE_TOPIC, timeout=30)
    filler = (b"mirror-bench-" * (value_size // 13 + 1))[: value_size - 12]
    started = time.perf_counter()
    produce = producer.produce
    for index in range(records):
        value = b"%012d" % index + filler
        while True:
            try:
                produce(SOURCE_TOPIC, value, b"k%07d" % (index % 10_000_000), index % partitions)
                break
            except BufferError:
                producer.poll(0.01)
    if producer.flush(300):
        raise TimeoutError("filling the source topic: records still unacknowledged after 300 s")
    seconds = time.perf_counter() - started
    return Throughput(records=records, bytes=records * value_size, seconds=seconds)


class EndOffsets:
    """Sum of a topic's end offsets on one cluster, one ListOffsets request per call."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.topic = topic
        self.partitions = partitions

    def __call__(self) -> int:
        """Records on the topic now; 0 while it does not exist yet."""
        wanted = {
            TopicPartition(self.topic, p): OffsetSpec.latest() for p in range(self.partitions)
        }
        try:
            futures = self.admin.list_offsets(wanted, request_timeout=10)
            return sum(future.result(10).offset for future in futures.values())
        except confluent_kafka.KafkaException:
            return 0


def last_records(bootstrap: str, topic: str, partitions: int) -> list[tuple[Any, ...]]:
    """(key, value, timestamp) of the last record of every partition (``()`` if empty).

    Reads the last few offsets of each partition to its end: under exactly-once the last
    offsets are transaction markers, not records.
    """
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "mirror-bench-check",
            "enable.auto.commit": 0,
            "enable.partition.eof": True,
        }
    )
    out: dict[int, tuple[Any, ...]] = {}
    try:
        assignment = []
        for partition in range(partitions):
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), 30)
            if high > low:
                assignment.append(TopicPartition(topic, partition, max(low, high - 64)))
        consumer.assign(assignment)
        ended: set[int] = set()
        deadline = time.monotonic() + 30
        while len(ended) < len(assignment) and time.monotonic() < deadline:
            for message in consumer.consume(500, 1.0):
                if message.error() is None:
                    out[message.partition()] = (
                        message.key(), message.value(), message.timestamp()[1]
                    )  # fmt: skip
                elif message.error().code() == confluent_kafka.KafkaError._PARTITION_EOF:
                    ended.add(message.partition())
    finally:
        consumer.close()
    return [out.get(partition, ()) for partition in range(partitions)]


def tails_match(a: str, b: str, remote: str, partitions: int, timestamps: bool) -> bool:
    """Whether the last record of every partition of ``remote`` on B is A's last record."""
    source = last_records(a, SOURCE_TOPIC, partitions)
    copy = last_records(b, remote, partitions)
    width = 3 if timestamps else 2
    return all(s and s[:width] == c[:width] for s, c in zip(source, copy, strict=True))


# --------------------------------------------------------------------------- timing


@dataclass
class Timeline:
    """When records showed up on B, in seconds since the copy started."""

    first_seconds: float | None = None
    first_count: int = 0
    first_cpu: CpuSplit | None = None
    last_seconds: float = 0.0


def watch(
    count: Callable[[], int],
    expected: int,
    started: float,
    alive: Callable[[], bool],
    stall_timeout: float,
    cpu: Callable[[], CpuSplit] | None = None,
) -> Timeline:
    """Poll ``count`` every ``TICK_S`` until it reaches ``expected``.

    Fails when ``alive`` turns false first or nothing grew for ``stall_timeout`` seconds.
    """
    timeline = Timeline()
    seen, grew, said = 0, time.perf_counter(), 0.0
    while True:
        running = alive()  # read before counting: a copy that ended has all it will write
        now_count = count()
        now = time.perf_counter()
        if now_count > seen:
            seen, grew = now_count, now
            if timeline.first_seconds is None:
                timeline.first_seconds, timeline.first_count = now - started, now_count
                timeline.first_cpu = cpu() if cpu else None
        if seen >= expected:
            timeline.last_seconds = now - started
            return timeline
        if now - said >= 5.0:
            progress(f"  {seen:,}/{expected:,} records on B")
            said = now
        if not running:
            raise RuntimeError(f"the copy stopped with {seen:,}/{expected:,} records on B")
        if now - grew > stall_timeout:
            raise TimeoutError(f"no growth on B for {stall_timeout:.0f} s ({seen:,}/{expected:,})")
        time.sleep(TICK_S)


def cpu_meter(broker_pids: Sequence[int]) -> CpuMeter:
    """CPU time of the brokers, and of this process's reaped children (kcat's pipes)."""
    return CpuMeter(
        client=lambda: sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2]),
        brokers=lambda: sum(process_cpu_seconds(pid) for pid in broker_pids),
    )


# --------------------------------------------------------------------------- kcat


def kcat_commands(a: str, b: str, pipes: int) -> list[tuple[list[str], list[str]]]:
    """(consumer, producer) command lines of every pipe."""
    produce = [arg for key, value in KCAT_PRODUCER.items() for arg in ("-X", f"{key}={value}")]
    out = []
    for pipe in range(pipes):
        part = ["-p", str(pipe)] if pipes > 1 else []
        consumer = [KCAT, "-C", "-b", a, "-t", SOURCE_TOPIC, *part, "-o", "beginning", "-e", "-q"]
        consumer += ["-f", "%k\t%s\n"]
        if pipes == 1:
            # librdkafka 2.0 pauses a partition's fetches once queued.min.messages (100k)
            # are buffered; with one pipe for all partitions that halved the rate.
            consumer += ["-X", "queued.min.messages=1000000"]
        producer = [KCAT, "-P", "-b", b, "-t", KCAT_TOPIC, *part, "-K", "\t", *produce]
        out.append((consumer, producer))
    return out


def _note_exit(process: subprocess.Popen[bytes], exits: list[float]) -> None:
    process.wait()
    exits.append(time.perf_counter())


def run_kcat(args: argparse.Namespace, a: str, b: str, broker_pids: Sequence[int]) -> CopyRun:
    """Copy with kcat pipes; timed until every pipe has exited and B holds every record."""
    if shutil.which(KCAT) is None:
        raise FileNotFoundError("kcat not found: apt-get install kcat")
    create_topics(b, [KCAT_TOPIC], args.partitions)
    commands = kcat_commands(a, b, args.kcat_pipes)
    progress(
        f"kcat: {args.kcat_pipes} pipe(s), e.g. {' '.join(commands[0][0])} | "
        f"{' '.join(commands[0][1])}"
    )
    count = EndOffsets(b, KCAT_TOPIC, args.partitions)
    meter = cpu_meter(broker_pids)
    started = time.perf_counter()
    processes: list[subprocess.Popen[bytes]] = []
    exits: list[float] = []  # when each process ended, to the microsecond (not the tick)
    for consumer, producer in commands:
        left = subprocess.Popen(consumer, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        right = subprocess.Popen(producer, stdin=left.stdout)
        assert left.stdout is not None
        left.stdout.close()  # the producer owns the read end now
        processes += [left, right]
    waiters = [threading.Thread(target=_note_exit, args=(p, exits)) for p in processes]
    for waiter in waiters:
        waiter.start()
    try:
        timeline = watch(
            count,
            args.records,
            started,
            lambda: any(p.poll() is None for p in processes),
            args.stall_timeout,
        )
        codes = [p.wait(60) for p in processes]
        for waiter in waiters:
            waiter.join(60)
        seconds = max(exits) - started
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    if any(codes):
        raise RuntimeError(f"kcat exited with {codes}")
    run = CopyRun(
        records=args.records,
        seconds=seconds,
        first_seconds=timeline.first_seconds,
        first_count=timeline.first_count,
        last_seconds=timeline.last_seconds,
        cpu=Cpu(**meter.read()),
        command=[*commands[0][0], "|", *commands[0][1]],
    )
    if args.kcat_pipes > 1:  # with one pipe the partitioner moved records: nothing to compare
        run.tail_matches = tails_match(a, b, KCAT_TOPIC, args.partitions, timestamps=False)
    return run


# --------------------------------------------------------------------------- seaway


def mm2_properties(args: argparse.Namespace, a: str, b: str) -> str:
    """The mm2.properties of the run."""
    lines = [
        "clusters = A, B",
        f"A.bootstrap.servers = {a}",
        f"B.bootstrap.servers = {b}",
        "A->B.enabled = true",
        f"A->B.topics = {SOURCE_TOPIC}",
        "replication.factor = 1",
        "offset-syncs.topic.replication.factor = 1",
        "checkpoints.topic.replication.factor = 1",
        "heartbeats.topic.replication.factor = 1",
        f"spark.master = {args.master}",
        *(f"{key} = {value}" for key, value in args.mm2.items()),
    ]
    return "\n".join(lines) + "\n"


class MirrorMakerProcess:
    """``python -m seaway mirror-maker`` in its own session, stderr to a log file."""

    def __init__(self, config: Path, log: Path, spark_conf: dict[str, str]) -> None:
        self.command = [sys.executable, "-m", "seaway", "mirror-maker", str(config)]
        self.log = log
        self.env = dict(os.environ)
        if spark_conf:
            # mm2.properties only carries spark.master; spark-submit reads the rest from
            # $SPARK_CONF_DIR/spark-defaults.conf.
            conf_dir = config.parent / "spark-conf"
            conf_dir.mkdir(exist_ok=True)
            lines = "".join(f"{key} {value}\n" for key, value in spark_conf.items())
            (conf_dir / "spark-defaults.conf").write_text(lines)
            self.env["SPARK_CONF_DIR"] = str(conf_dir)
        self.ready = threading.Event()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> int:
        """Spawn it; a thread sets ``ready`` when it prints "running flows"."""
        with self.log.open("ab") as err:
            self.process = subprocess.Popen(
                self.command,
                stdout=subprocess.PIPE,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=self.env,
            )
        threading.Thread(target=self._read_stdout, args=(self.process.stdout,), daemon=True).start()
        return self.process.pid

    def _read_stdout(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            if b"running flows" in line:
                self.ready.set()

    def alive(self) -> bool:
        """Whether the process still runs."""
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM (it stops its query and Spark), then SIGKILL to its session."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                progress("mirror-maker did not stop in time; killing its process group")
        try:
            os.killpg(process.pid, signal.SIGKILL)  # its Spark JVM and Python workers too
        except ProcessLookupError:
            pass
        process.wait()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of its stderr."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(line for line in text.splitlines() if not line.startswith("%"))[-6000:]


def run_seaway(
    args: argparse.Namespace,
    a: str,
    b: str,
    broker_pids: Sequence[int],
    root: Path,
    results: Results,
) -> CopyRun:
    """Run ``seaway mirror-maker`` until B's ``A.bench`` holds every record."""
    config = root / "mm2.properties"
    config.write_text(mm2_properties(args, a, b))
    maker = MirrorMakerProcess(config, root / "mirror-maker.log", args.spark_conf)
    count = EndOffsets(b, f"A.{SOURCE_TOPIC}", args.partitions)
    progress(f"seaway: {' '.join(maker.command)}")
    meter = cpu_meter(broker_pids)
    started = time.perf_counter()
    pid = maker.start()
    ready: list[float] = []
    threading.Thread(
        target=lambda: maker.ready.wait(600) and ready.append(time.perf_counter() - started),
        daemon=True,
    ).start()
    probe = SeawayProbe(pid, args.profile)
    memory = PeakRss(pid)
    try:
        timeline = watch(
            count, args.records, started, maker.alive, args.stall_timeout, cpu=probe.first_tick
        )
        seconds = time.perf_counter() - started
        split = probe.last_tick()
        broker_cpu = meter.read()["brokers"]
    except BaseException:
        progress("mirror-maker log tail:\n" + maker.log_tail())
        raise
    finally:
        probe.stop()
        peak_rss = memory.stop()
        maker.stop()
    run = CopyRun(
        records=args.records,
        seconds=seconds,
        first_seconds=timeline.first_seconds,
        first_count=timeline.first_count,
        last_seconds=timeline.last_seconds,
        cpu=Cpu(client=split.total, brokers=broker_cpu),
        split=split,
        steady_split=None if timeline.first_cpu is None else split - timeline.first_cpu,
        ready_seconds=ready[0] if ready else None,
        command=maker.command,
        jvm_threads=probe.threads,
        peak_rss=peak_rss,
    )
    run.tail_matches = tails_match(a, b, f"A.{SOURCE_TOPIC}", args.partitions, timestamps=True)
    results.profile = probe.summary()
    return run


# --------------------------------------------------------------------------- report


def build_rows(results: Results) -> list[Row]:
    """Table rows, Seaway against kcat."""
    seaway, kcat = results.seaway, results.kcat

    def both(pick: Callable[[CopyRun], float | None]) -> tuple[float | None, float | None]:
        return (pick(seaway) if seaway else None, pick(kcat) if kcat else None)

    def steady_cpu(run: CopyRun) -> float | None:
        if run.steady_split is None or run.records <= run.first_count:
            return None
        return run.steady_split.total / (run.records - run.first_count) * 1e6

    mb = results.value_size / MB
    return [
        Row("mirror A -> B, end to end", "rec/s", *both(lambda r: r.rate)),
        Row("mirror A -> B, end to end", "MB/s", *both(lambda r: r.rate * mb)),
        Row("mirror A -> B, steady", "rec/s", *both(lambda r: r.steady_rate)),
        Row("Seaway steady vs kcat end to end", "rec/s",
            seaway.steady_rate if seaway else None, kcat.rate if kcat else None),
        Row("first record on B after", "s", *both(lambda r: r.first_seconds)),
        Row("client CPU, start-up included", "us/rec", *both(lambda r: r.client_us_per_record)),
        Row("client CPU, steady", "us/rec",
            steady_cpu(seaway) if seaway else None, kcat.client_us_per_record if kcat else None),
        Row("broker CPU (A + B)", "us/rec", *both(lambda r: r.brokers_us_per_record)),
    ]  # fmt: skip


def print_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> None:
    """Print the human-readable report to stdout."""
    print(
        f"\nMirror benchmark: {results.records:,} records ({results.value_size} B values, "
        f"{KEY_BYTES} B keys, {args.partitions} partitions) from broker A to broker B (two "
        f"Seaway broker subprocesses); Python {platform.python_version()}, {KAFKA_CLIENT}, "
        f"{kcat_version()}, {os.cpu_count()} CPUs"
    )
    if results.fill is not None:
        print(f"source filled at {results.fill.records_per_s:,.0f} rec/s (not part of the figures)")
    pipes = "one pipe per partition" if args.kcat_pipes > 1 else "one pipe, partitioner"
    print(
        f"kcat: kcat -C -f '%k\\t%s\\n' | kcat -P -K '\\t' ({pipes}; acks=all linger.ms=5 "
        "batch.size=1000000); keeps key, value"
        + (", partition, order" if args.kcat_pipes > 1 else "")
        + "; NOT timestamps (set at produce), headers, offsets syncs"
    )
    print(
        f"seaway: seaway mirror-maker mm2.properties (A->B, spark.master={args.master}); keeps "
        "partition, order, key, value, headers, timestamp; writes offset syncs + MM2 offsets"
    )
    print(comparison_table(rows, "seaway", "kcat", "seaway/kcat"))
    print(
        "end to end = process start until B's end offsets sum to the record count (Seaway: "
        "JVM + SparkSession start-up included); steady = first to last tick with records on "
        f"B ({TICK_S} s ticks); client CPU = kcat processes / the mirror-maker process tree"
    )
    seaway, kcat = results.seaway, results.kcat
    if seaway is not None:
        print(
            f'seaway: mirror-maker ready ("running flows") after {fmt(seaway.ready_seconds)} s, '
            f"first record on B after {fmt(seaway.first_seconds)} s, last after "
            f"{fmt(seaway.last_seconds)} s; last record of every partition equal to A's "
            f"(key, value, timestamp): {seaway.tail_matches}"
        )
        if seaway.peak_rss:
            print(
                "seaway peak RSS (largest process of each kind): "
                + ", ".join(f"{role} {rss / MB:,.0f} MB" for role, rss in seaway.peak_rss.items())
            )
    if kcat is not None:
        print(
            f"kcat: last record of every partition equal to A's (key, value): {kcat.tail_matches}"
        )
    if seaway is not None and kcat is not None:
        for label, value in (("end to end", seaway.rate), ("steady", seaway.steady_rate)):
            times = ratio(value, kcat.rate)
            aim = AIMS[label]
            verdict = "-" if times is None else ("MET" if times >= aim else "NOT MET")
            print(f"aim Seaway >= {aim}x kcat, {label}: {fmt(times)} -> {verdict}")
    if seaway is not None and seaway.first_seconds is not None:
        verdict = "MET" if seaway.first_seconds <= FIRST_RECORD_AIM_S else "NOT MET"
        print(
            f"aim first record on B <= {FIRST_RECORD_AIM_S:.0f} s: "
            f"{fmt(seaway.first_seconds)} s -> {verdict}"
        )
    if seaway is not None and seaway.steady_split is not None:
        per = 1e6 / max(1, seaway.records - seaway.first_count)
        steady = seaway.steady_split
        print(
            f"seaway steady CPU by process, us/rec: Spark JVM {steady.jvm * per:.1f}, Python "
            f"workers (copy tasks + summary sink) {steady.python_workers * per:.1f}, driver "
            f"{steady.driver * per:.1f}"
        )
        threads = ", ".join(f"{name} {cpu * per:.1f}" for name, cpu in seaway.jvm_threads[:6])
        print(f"seaway steady JVM CPU by thread, us/rec: {threads}")
    if results.profile is not None:
        print(f"profile: {args.profile}")
        print("\n".join(results.profile.render()))
    for error in results.errors:
        print(f"ERROR {error}")


def kcat_version() -> str:
    """``kcat 1.7.1 (librdkafka 2.0.2)``, or a note that kcat is missing."""
    try:
        text = subprocess.run([KCAT, "-V"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "kcat missing"
    words = text.split()
    version = words[words.index("Version") + 1] if "Version" in words else "?"
    lib = text.partition("librdkafka ")[2].split(" ")[0] or "?"
    return f"kcat {version} (librdkafka {lib})"


def run_json(run: CopyRun | None) -> dict[str, Any] | None:
    """A copy's figures for the JSON document."""
    if run is None:
        return None
    return {
        **asdict(run),
        "rate": run.rate,
        "steady_rate": run.steady_rate,
        "client_us_per_record": run.client_us_per_record,
        "brokers_us_per_record": run.brokers_us_per_record,
    }


def json_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> dict[str, Any]:
    """Every figure as one JSON-serialisable document."""
    return {
        **report_head("bench/mirror.py", kcat=kcat_version()),
        "config": {
            "records": results.records,
            "value_size": results.value_size,
            "key_size": KEY_BYTES,
            "partitions": args.partitions,
            "master": args.master,
            "kcat_pipes": args.kcat_pipes,
            "mm2": args.mm2,
            "spark_conf": args.spark_conf,
            "source_producer": args.source_producer,
            "quick": args.quick,
        },
        "rows": [r.json("seaway", "kcat") for r in rows],
        "fill": asdict(results.fill) if results.fill else None,
        "kcat": run_json(results.kcat),
        "seaway": run_json(results.seaway),
        "profile": asdict(results.profile) if results.profile else None,
        "errors": results.errors,
    }


# --------------------------------------------------------------------------- main


def run_all(args: argparse.Namespace, root: Path, results: Results) -> None:
    """Start both brokers, fill A, run the copies."""
    broker_a = SeawayBroker(root / "a", {})
    broker_b = SeawayBroker(root / "b", {})
    try:
        a, pid_a = broker_a.start()
        b, pid_b = broker_b.start()
        progress(f"brokers: A on {a} (pid {pid_a}), B on {b} (pid {pid_b})")
        create_topics(a, [SOURCE_TOPIC], args.partitions)
        progress(f"filling {SOURCE_TOPIC} on A with {args.records:,} records")
        results.fill = fill_source(
            a, args.records, args.partitions, args.value_size, args.source_producer
        )
        progress(f"filled at {results.fill.records_per_s:,.0f} rec/s")
        pids = (pid_a, pid_b)
        if "kcat" in args.variants:
            results.kcat = attempt(results.errors, "kcat", lambda: run_kcat(args, a, b, pids))
            if results.kcat:
                progress(f"kcat: {results.kcat.rate:,.0f} rec/s in {results.kcat.seconds:.2f} s")
        if "seaway" in args.variants:
            results.seaway = attempt(
                results.errors, "seaway", lambda: run_seaway(args, a, b, pids, root, results)
            )
            if results.seaway:
                progress(
                    f"seaway: {results.seaway.rate:,.0f} rec/s end to end in "
                    f"{results.seaway.seconds:.1f} s, steady {fmt(results.seaway.steady_rate)}"
                )
    finally:
        broker_b.stop()
        broker_a.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run the benchmark, print the report and a final JSON line."""
    args = parse_args(argv)

    def run(root: Path) -> dict[str, Any]:
        results = Results(records=args.records, value_size=args.value_size)
        run_all(args, root, results)
        rows = build_rows(results)
        print_report(args, results, rows)
        return json_report(args, results, rows)

    return run_in_data_dir(args, "mirror", run)


if __name__ == "__main__":
    sys.exit(main())
