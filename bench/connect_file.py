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
import json
import logging
import math
import os
import platform
import re
import shutil
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import pyspark
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    add_pairs,
    arg_parser,
    attempt,
    cleanup,
    fmt,
    ratio,
    render_table,
    report_head,
    run_in_data_dir,
    tree_cpu,
)
from bench._util import MB, progress
from bench._workload import CONSUMER_CONFIG, create_topics, unique_name
from seaway.broker import BrokerProcess

DEFAULT_MB = 200.0
#: Bytes per input line, the newline included (so 10,000 lines per MB).
LINE_BYTES = 100
VARIANTS = ("plain", "seaway")

#: Text the lines are cut from (each line starts with its number, then a slice of this).
_TEXT = (
    "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. ut enim ad minim veniam, quis nostrud "
) * 2

#: The plain reference's producer.
PLAIN_PRODUCER_CONFIG: dict[str, str | int | bool] = {
    "acks": "all",
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "compression.type": "none",
    "queue.buffering.max.messages": 1_000_000,
    "queue.buffering.max.kbytes": 1_048_576,
    # Only failed deliveries call back, so no per-record Python callback.
    "delivery.report.only.error": True,
}

CONVERTERS = {
    "string": "org.apache.kafka.connect.storage.StringConverter",
    "json": "org.apache.kafka.connect.json.JsonConverter",
}

CONSUME_BATCH = 10_000
#: Seconds between checks of the topic's end offset and the copy's size.
TICK_S = 0.2
#: Bytes read from the growing copy per read (it is compared with the input as it grows).
COMPARE_CHUNK = 8 * 1024 * 1024
REST_TIMEOUT_S = 60.0


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Span:
    """Lines (and input bytes) moved in some seconds."""

    lines: int
    bytes: int
    seconds: float

    @property
    def lines_per_s(self) -> float:
        """Lines per second."""
        return self.lines / self.seconds if self.seconds else 0.0

    @property
    def mb_per_s(self) -> float:
        """Megabytes (10^6 bytes) of the input file per second."""
        return self.bytes / MB / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class Cpu:
    """CPU seconds used during a measurement: client side (this process tree) and broker."""

    client: float
    broker: float

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.client - other.client, self.broker - other.broker)


def cpu_meter(broker_pid: int) -> CpuMeter:
    """CPU time of the broker, and of this process and its children (the broker aside):
    the Spark JVM and its Python workers."""
    return CpuMeter(client=tree_cpu(os.getpid(), without=broker_pid), broker=tree_cpu(broker_pid))


@dataclass
class PlainRun:
    """The plain confluent-kafka copy."""

    produce: Span
    consume: Span
    end_to_end: Span
    produce_cpu: Cpu
    end_to_end_cpu: Cpu
    topic_records: int
    identical: bool


@dataclass(frozen=True)
class QuerySummary:
    """A connector query's micro-batches that read rows (from its recent progress)."""

    name: str
    batches: int
    rows: int
    first_batch_rows: int
    #: ``durationMs.triggerExecution`` of the first batch with rows, and of the rest summed.
    first_batch_seconds: float
    other_batches_seconds: float
    #: The first batch's ``durationMs`` phases that took 100 ms or more, in seconds.
    first_batch_phases: dict[str, float]

    def describe(self) -> str:
        """One line for the report."""
        phases = ", ".join(f"{k} {v:.1f}" for k, v in self.first_batch_phases.items())
        head = (
            f"{self.name}: {self.rows:,} rows in {self.batches} batch(es); the first "
            f"({self.first_batch_rows:,} rows) took {self.first_batch_seconds:.1f} s ({phases})"
        )
        if self.batches == 1 or self.other_batches_seconds <= 0:
            return head
        rate = (self.rows - self.first_batch_rows) / self.other_batches_seconds
        return (
            f"{head}, the other {self.batches - 1} {self.other_batches_seconds:.1f} s "
            f"({rate:,.0f} rows/s)"
        )


def query_summaries(connect: Any) -> list[QuerySummary]:
    """Sum up the worker's active connector queries' progress (a diagnostic; reads the
    worker's SparkSession, so it depends on Seaway internals and never fails the run)."""
    summaries = []
    try:
        queries = connect.herder.worker.spark.streams.active
        for query in queries:
            batches = [p for p in query.recentProgress if p.numInputRows]
            if not batches:
                continue
            first = dict(batches[0].durationMs)
            summaries.append(
                QuerySummary(
                    name=str(query.name),
                    batches=len(batches),
                    rows=sum(p.numInputRows for p in batches),
                    first_batch_rows=batches[0].numInputRows,
                    first_batch_seconds=first.get("triggerExecution", 0) / 1000,
                    other_batches_seconds=sum(
                        p.durationMs.get("triggerExecution", 0) for p in batches[1:]
                    )
                    / 1000,
                    first_batch_phases={
                        k: v / 1000
                        for k, v in sorted(first.items(), key=lambda kv: -kv[1])
                        if v >= 100 and k != "triggerExecution"
                    },
                )
            )
    except Exception as exc:  # diagnostics only
        progress(f"seaway: could not read the queries' progress: {type(exc).__name__}: {exc}")
    return summaries


@dataclass
class SeawayRun:
    """The Connect copy on a Seaway worker."""

    startup_seconds: float
    source: Span | None = None
    end_to_end: Span | None = None
    source_cpu: Cpu | None = None
    end_to_end_cpu: Cpu | None = None
    #: From the first POST to the first record in the topic / first byte in the copy.
    first_record_seconds: float | None = None
    first_sink_byte_seconds: float | None = None
    topic_records: int | None = None
    stop_seconds: float | None = None
    #: Worker log records at WARNING and above: (level, logger, message).
    log_problems: list[tuple[str, str, str]] = field(default_factory=list)
    #: The connector queries' progress, summed up when the copy was complete.
    queries: list[QuerySummary] = field(default_factory=list)

    @property
    def source_steady_rate(self) -> float | None:
        """Lines/s into the topic from its first record on (first micro-batch latency out)."""
        if self.source is None or self.first_record_seconds is None:
            return None
        seconds = self.source.seconds - self.first_record_seconds
        return self.source.lines / seconds if seconds > 0 else None

    @property
    def sink_steady_rate(self) -> float | None:
        """Lines/s into the copy from its first bytes on."""
        if self.end_to_end is None or self.first_sink_byte_seconds is None:
            return None
        seconds = self.end_to_end.seconds - self.first_sink_byte_seconds
        return self.end_to_end.lines / seconds if seconds > 0 else None


@dataclass
class Results:
    """Everything one run measured; a failed step leaves None and a message in ``errors``."""

    lines: int
    file_bytes: int
    generate_seconds: float = 0.0
    plain: PlainRun | None = None
    seaway: SeawayRun | None = None
    errors: list[str] = field(default_factory=list)


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


# --------------------------------------------------------------------------- CLI


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


# --------------------------------------------------------------------------- files


def line_text(index: int) -> str:
    """Line ``index`` of the input: its number, text, a newline; ``LINE_BYTES`` bytes."""
    start = index % 97
    return f"{index:09d} {_TEXT[start : start + LINE_BYTES - 11]}\n"


def write_input(path: Path, lines: int, chunk: int = 100_000) -> int:
    """Write ``lines`` lines to ``path``; return its size in bytes."""
    with open(path, "wb") as out:
        for first in range(0, lines, chunk):
            text = "".join(line_text(i) for i in range(first, min(lines, first + chunk)))
            out.write(text.encode("ascii"))
    return path.stat().st_size


def files_equal(a: Path, b: Path, chunk: int = COMPARE_CHUNK) -> bool:
    """Whether two files hold the same bytes."""
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as left, open(b, "rb") as right:
        while True:
            x, y = left.read(chunk), right.read(chunk)
            if x != y:
                return False
            if not x:
                return True


def check_free_space(directory: Path, needed: int) -> None:
    """Fail early unless ``directory`` has ``needed`` bytes free, plus 10 %."""
    free = shutil.disk_usage(directory).free
    if free < needed * 1.1:
        raise RuntimeError(
            f"need ~{needed * 1.1 / 1e9:.1f} GB free in {directory}, have {free / 1e9:.1f} GB"
        )


class GrowingCopy:
    """Follows a file another process appends to: counts its lines and compares it with
    the input as it grows, so "identical" is known the moment the sizes match."""

    def __init__(self, path: Path, original: Path) -> None:
        self.path = path
        self.original = original
        self.size = 0
        self.lines = 0
        self._copy: BinaryIO | None = None
        self._input: BinaryIO | None = None

    def poll(self) -> int:
        """Read what was appended since the last call; return the bytes seen so far.

        Raises ``ValueError`` when the copy differs from the input or outgrows it.
        """
        if self._copy is None:
            if not self.path.exists():
                return 0
            self._copy = open(self.path, "rb")  # noqa: SIM115 - closed in close()
            self._input = open(self.original, "rb")  # noqa: SIM115 - closed in close()
        assert self._input is not None
        while True:
            data = self._copy.read(COMPARE_CHUNK)
            if not data:
                return self.size
            expected = self._input.read(len(data))
            if data != expected:
                raise ValueError(self._mismatch(data, expected))
            self.size += len(data)
            self.lines += data.count(b"\n")

    def _mismatch(self, data: bytes, expected: bytes) -> str:
        if len(expected) < len(data):
            return (
                f"the copy {self.path} outgrew the input: more than "
                f"{self.size + len(expected):,} bytes (extra or duplicated lines?)"
            )
        at = next(i for i, (x, y) in enumerate(zip(data, expected, strict=False)) if x != y)
        line = self.lines + data[:at].count(b"\n") + 1
        where = f"byte {self.size + at:,} (line {line:,})"
        return f"the copy {self.path} differs from the input at {where}"

    def close(self) -> None:
        """Close both files."""
        for handle in (self._copy, self._input):
            if handle is not None:
                handle.close()


# --------------------------------------------------------------------------- plain


def new_consumer(bootstrap: str) -> Consumer:
    """A consumer outside any group (``assign`` only), the broker benchmark's settings."""
    return Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique_name("bench"), **CONSUMER_CONFIG}
    )


def end_offset(consumer: Consumer, topic: str) -> int:
    """The high watermark of partition 0 of ``topic`` (asked of the broker, not cached)."""
    _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
    return int(high)


def plain_produce(bootstrap: str, topic: str, source: Path) -> int:
    """Produce every line of ``source`` (without its newline) to partition 0 of ``topic``."""
    failures: list[str] = []

    def on_delivery(error: Any, _message: Any) -> None:
        if error is not None:
            failures.append(str(error))

    producer = Producer(
        {"bootstrap.servers": bootstrap, **PLAIN_PRODUCER_CONFIG, "on_delivery": on_delivery}
    )
    producer.list_topics(topic, timeout=30)
    lines = 0
    produce = producer.produce
    with open(source, "rb", buffering=4 * 1024 * 1024) as lines_in:
        for line in lines_in:
            value = line[:-1] if line.endswith(b"\n") else line
            while True:
                try:
                    produce(topic, value, partition=0)
                    break
                except BufferError:
                    producer.poll(0.005)  # local queue full: let deliveries drain
            lines += 1
            if lines % 100_000 == 0:
                producer.poll(0)
    remaining = producer.flush(600)
    if remaining or failures:
        raise KafkaException(f"{remaining} unacknowledged, {len(failures)} failed: {failures[:3]}")
    return lines


def plain_consume(
    bootstrap: str, topic: str, copy: Path, expected: int, idle_timeout: float
) -> int:
    """Write ``expected`` values of ``topic`` (from the beginning) to ``copy``, one a line."""
    consumer = new_consumer(bootstrap)
    lines = 0
    try:
        consumer.list_topics(topic, timeout=30)  # metadata first: no 500 ms retry on assign
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        last = time.monotonic()
        with open(copy, "wb", buffering=4 * 1024 * 1024) as out:
            while lines < expected:
                batch = consumer.consume(num_messages=CONSUME_BATCH, timeout=0.5)
                if not batch:
                    if time.monotonic() - last > idle_timeout:
                        raise TimeoutError(f"consumer stalled at {lines:,}/{expected:,} lines")
                    continue
                for message in batch:
                    if message.error() is not None:
                        raise KafkaException(message.error())
                out.write(b"\n".join([m.value() or b"" for m in batch]))
                out.write(b"\n")
                lines += len(batch)
                last = time.monotonic()
            out.flush()
            os.fsync(out.fileno())
    finally:
        consumer.close()
    return lines


def run_plain(
    bootstrap: str, broker_pid: int, source: Path, root: Path, results: Results, stall: float
) -> PlainRun:
    """The reference: produce the file, then consume it into a copy; verify the copy."""
    topic = unique_name("plain-lines")
    copy = root / "plain-copy.txt"
    create_topics(bootstrap, [topic], 1)
    progress(f"plain: producing {results.lines:,} lines to {topic} (acks=all)")
    cpu = cpu_meter(broker_pid)
    started = time.perf_counter()
    produced = plain_produce(bootstrap, topic, source)
    produced_at = time.perf_counter()
    produce_cpu = Cpu(**cpu.read())
    progress(
        f"plain: produced {produced:,} lines in {produced_at - started:.2f} s; consuming into "
        f"{copy.name}"
    )
    consumed = plain_consume(bootstrap, topic, copy, produced, stall)
    finished = time.perf_counter()
    end_to_end_cpu = Cpu(**cpu.read())
    consumer = new_consumer(bootstrap)
    try:
        stored = end_offset(consumer, topic)
    finally:
        consumer.close()
    identical = files_equal(source, copy)
    size = results.file_bytes
    run = PlainRun(
        produce=Span(produced, size, produced_at - started),
        consume=Span(consumed, size, finished - produced_at),
        end_to_end=Span(consumed, size, finished - started),
        produce_cpu=produce_cpu,
        end_to_end_cpu=end_to_end_cpu,
        topic_records=stored,
        identical=identical,
    )
    progress(
        f"plain: end to end {run.end_to_end.seconds:.2f} s, "
        f"{run.end_to_end.lines_per_s:,.0f} lines/s; topic holds {stored:,} records; "
        f"copy identical: {identical}"
    )
    if not identical:
        raise ValueError(f"the plain copy {copy} differs from the input")
    if produced != results.lines:
        raise ValueError(f"plain: produced {produced:,} lines, the file has {results.lines:,}")
    copy.unlink()  # keep the disk footprint down before the Seaway run
    return run


# --------------------------------------------------------------------------- Seaway


class ProblemLog(logging.Handler):
    """Keeps worker log records at WARNING and above."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[tuple[str, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not break the benchmark
            message = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            message += f" [{type(record.exc_info[1]).__name__}: {record.exc_info[1]}]"
        self.records.append((record.levelname, record.name, message))


@contextmanager
def worker_logging(path: Path) -> Iterator[ProblemLog]:
    """Python logging to ``path`` (INFO and up) while the worker runs; problems kept aside."""
    root = logging.getLogger()
    file_handler = logging.FileHandler(path, encoding="utf-8")
    file_handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s")
    )
    problems = ProblemLog()
    old_level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(file_handler)
    root.addHandler(problems)
    try:
        yield problems
    finally:
        root.removeHandler(problems)
        root.removeHandler(file_handler)
        root.setLevel(old_level)
        file_handler.close()


def worker_props(args: argparse.Namespace, bootstrap: str, name: str, root: Path) -> dict[str, str]:
    """The distributed worker's properties (internal topics unique to ``name``)."""
    converter = CONVERTERS[args.converter]
    props: dict[str, Any] = {
        "bootstrap.servers": bootstrap,
        "group.id": f"connect-{name}",
        "config.storage.topic": f"{name}-configs",
        "offset.storage.topic": f"{name}-offsets",
        "status.storage.topic": f"{name}-status",
        "config.storage.replication.factor": 1,
        "offset.storage.replication.factor": 1,
        "status.storage.replication.factor": 1,
        "offset.storage.partitions": 3,
        "status.storage.partitions": 1,
        "key.converter": converter,
        "value.converter": converter,
        "offset.flush.interval.ms": 10_000,
        "listeners": "http://127.0.0.1:0",
        "spark.master": args.master,
        "spark.ui.enabled": "false",
        "spark.checkpoint.dir": str(root / "checkpoints"),
        "spark.local.dir": str(root / "spark-local"),
        "spark.sql.warehouse.dir": str(root / "spark-warehouse"),
        **args.worker_overrides,
    }
    return {key: str(value) for key, value in props.items()}


def rest(url: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One REST call: JSON in, ``(status, parsed body)`` out (HTTP errors included)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=REST_TIMEOUT_S) as response:
            payload, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        payload, status = error.read(), error.code
    return status, json.loads(payload) if payload else None


def create_connector(url: str, name: str, config: dict[str, str]) -> None:
    """POST a connector; retry while the worker answers 409 (rebalance in progress)."""
    deadline = time.monotonic() + REST_TIMEOUT_S
    while True:
        status, body = rest(url, "POST", "/connectors", {"name": name, "config": config})
        if status == 201:
            return
        if status != 409 or time.monotonic() > deadline:
            raise RuntimeError(f"POST /connectors {name} -> {status} {body}")
        time.sleep(0.2)


def failed_parts(url: str, names: Sequence[str]) -> list[str]:
    """Connectors or tasks reported FAILED, with the first lines of their traces."""
    failures = []
    for name in names:
        status, body = rest(url, "GET", f"/connectors/{name}/status")
        if status != 200 or not isinstance(body, dict):
            continue
        parts = [("connector", body.get("connector") or {})]
        parts += [(f"task {t.get('id')}", t) for t in body.get("tasks") or []]
        for label, part in parts:
            if part.get("state") == "FAILED":
                failures.append(f"{name} {label} FAILED: {trace_summary(part.get('trace'))}")
    return failures


def trace_summary(trace: Any, limit: int = 3) -> str:
    """The first line of a status trace and its last few ``...Error:``/``Exception:`` lines."""
    lines = [line.strip() for line in str(trace or "").splitlines() if line.strip()]
    if not lines:
        return "(no trace)"
    causes = [line for line in lines[1:] if re.search(r"(Error|Exception)\b.*:", line)]
    return " | ".join(dict.fromkeys([lines[0], *causes[-limit:]]))


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


# --------------------------------------------------------------------------- report


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


# --------------------------------------------------------------------------- main


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
