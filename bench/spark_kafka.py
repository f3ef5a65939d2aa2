"""Seaway's Spark Kafka source and sink, side by side with a plain confluent-kafka loop.

Run from the repository root::

    .venv/bin/python -m bench.spark_kafka             # 2,000,000 records, about a minute
    .venv/bin/python -m bench.spark_kafka --quick     # 200,000 records
    .venv/bin/python -m bench.spark_kafka --json bench/out/spark_kafka.json
    .venv/bin/python -m bench.spark_kafka --source-option kafka.fetch.wait.max.ms=10
    .venv/bin/python -m bench.spark_kafka --sink-option kafka.reconnect.backoff.ms=10

Phases (progress on stderr, results on stdout):

1. A fresh Seaway broker subprocess (``BrokerProcess``) in a temporary directory; ``--records``
   values of ``--value-size`` bytes produced round-robin over ``--partitions`` partitions
   with confluent-kafka.
2. A SparkSession on ``local[--cores]`` with ``format("kafka")`` resolving to Seaway's
   source, then a warm-up that is not measured: one ``availableNow`` read into ``noop``, a
   full-size read of the ceiling source (below) and two topic-to-topic copies of a small
   topic (at-least-once, exactly-once), so JVM start, JIT compilation,
   Python worker start and first-use code paths stay out of the figures.
3. Read: ``readStream.format("kafka")`` with ``trigger(availableNow=True)`` into the ``noop``
   sink; the same over a source of prebuilt Arrow batches of the same shape (the ceiling
   of Spark's Python Data Source, ``bench/_arrow_ceiling.py``); next to a plain loop (one
   Consumer, every partition assigned from the beginning,
   ``consume(num_messages=10000)``, key/value/offset/timestamp of each record touched).
4. Copy: the same stream, ``selectExpr("key", "value")``, written with
   ``writeStream.format("kafka")`` to a second topic (at-least-once), then the same again with
   the sink option ``exactlyOnce=true`` to a third (every task writes its part of the batch in
   one Kafka transaction), next to a plain consume + produce loop (linger.ms=5,
   batch.size=1000000, flush at the end) into a fourth. The at-least-once and plain
   destinations must then hold exactly ``--records`` records (sum of high - low watermarks);
   the exactly-once one must yield exactly ``--records`` records to a ``read_committed``
   consumer (counted record by record: its watermarks also count transaction markers).

Spark figures come two ways: from the query progress (sum of ``numInputRows`` over the sum of
``durationMs.triggerExecution``) and from wall time around ``start()`` ..
``awaitTermination()``, query start included. "Per core" divides Spark's rate by its cores
(``--cores``) and the plain loop's by one. The exactly-once copy is also compared with the
at-least-once Spark copy (target: >= 0.7x its rate, by progress). The last stdout line is a
JSON document with every figure (also written to ``--json``). ``--source-option`` passes
extra options to the Spark source (``kafka.*`` ones reach its librdkafka consumers) and
``--sink-option`` to the Kafka sink of both Spark copies (``kafka.*`` ones reach its
producers and, exactly-once, its admin client and group metadata consumer), to try client
settings.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyspark
from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from pyspark import cloudpickle
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

import seaway.spark
from bench import _arrow_ceiling
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
    own_cpu,
    report_head,
    run_in_data_dir,
    tree_cpu,
)
from bench._util import progress
from bench._workload import CONSUMER_CONFIG, create_topics, produce, stored_records, unique_name
from seaway.broker import BrokerProcess

DEFAULT_RECORDS = 2_000_000
QUICK_RECORDS = 200_000
WARMUP_RECORDS = 20_000
#: Issue 11's aim: Spark's read rate per core used >= this times the plain loop's.
PER_CORE_TARGET = 0.5
#: The exactly-once copy's target: its rate >= this times the at-least-once Spark copy's.
EXACTLY_ONCE_TARGET = 0.7

#: Sink options of the exactly-once copy (one Kafka transaction per task and batch).
EXACTLY_ONCE_SINK_OPTIONS = {"exactlyOnce": "true"}

SPARK_CONFIG = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"}

#: The plain copy loop's producer: the settings Seaway's Kafka sink uses by default.
COPY_PRODUCER_CONFIG: dict[str, str | int | bool] = {
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "delivery.report.only.error": True,
}

#: Records per ``consume()`` call in the plain loops (the Spark reader asks for as many).
CONSUME_BATCH = 10_000


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Cpu:
    """CPU seconds spent during one measurement, by process."""

    broker: float
    #: This Python process: the plain loop, or the Spark driver's Python side.
    client: float
    #: The Spark JVM and every process under it (Python workers); 0 for the plain loops.
    spark: float

    @property
    def client_side(self) -> float:
        """Everything but the broker."""
        return self.client + self.spark


def cpu_meter(broker_pid: int, jvm_pid: int | None) -> CpuMeter:
    """CPU time of the broker's tree, this process, and the Spark JVM's tree."""
    spark = tree_cpu(jvm_pid) if jvm_pid else lambda: 0.0
    return CpuMeter(broker=tree_cpu(broker_pid), client=own_cpu, spark=spark)


@dataclass(frozen=True)
class SparkRun:
    """One ``availableNow`` query: rows and trigger time from its progress, and wall time."""

    records: int
    trigger_seconds: float
    wall_seconds: float
    batches: int
    #: ``durationMs`` summed over the batches, in seconds, e.g. ``addBatch``.
    durations: dict[str, float]
    #: From ``start()`` to the first trigger's start (its progress ``timestamp``).
    before_first_trigger: float
    cpu: Cpu

    @property
    def progress_rate(self) -> float:
        """Records per second of trigger execution (what the progress reports)."""
        return self.records / self.trigger_seconds if self.trigger_seconds else 0.0

    @property
    def wall_rate(self) -> float:
        """Records per second of wall time, query start included."""
        return self.records / self.wall_seconds

    @property
    def outside_triggers(self) -> float:
        """Wall time outside any trigger: query start and stop."""
        return max(0.0, self.wall_seconds - self.trigger_seconds)

    @property
    def after_last_trigger(self) -> float:
        """From the end of the last trigger until ``awaitTermination()`` returned."""
        return max(0.0, self.outside_triggers - self.before_first_trigger)


@dataclass(frozen=True)
class PlainRun:
    """One plain confluent-kafka loop."""

    records: int
    bytes: int
    seconds: float
    cpu: Cpu

    @property
    def rate(self) -> float:
        """Records per second, client creation to the last record (copy: to flush)."""
        return self.records / self.seconds


@dataclass
class Results:
    """Everything one run measured; a failed step leaves None and a message in ``errors``."""

    produce_rate: float | None = None
    warmup_seconds: float | None = None
    spark_read: SparkRun | None = None
    #: The same query shape over prebuilt Arrow batches (bench/_arrow_ceiling.py).
    ceiling_read: SparkRun | None = None
    plain_read: PlainRun | None = None
    spark_copy: SparkRun | None = None
    exactly_once_copy: SparkRun | None = None
    plain_copy: PlainRun | None = None
    #: Sum of high - low watermarks of the at-least-once and plain destinations.
    destination_counts: dict[str, int] = field(default_factory=dict)
    #: Records a read_committed consumer reads from the exactly-once destination.
    exactly_once_committed: int | None = None
    #: Its high - low watermarks: records plus transaction markers (plus aborted records).
    exactly_once_watermarks: int | None = None
    errors: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line and fill the size defaults that depend on ``--quick``."""
    parser = arg_parser("spark_kafka", __doc__)
    add = parser.add_argument
    add_size(parser, DEFAULT_RECORDS, QUICK_RECORDS, "records in the input topic")
    add("--value-size", type=int, default=100, help="bytes per record value")
    add("--partitions", type=int, default=8, help="partitions of every topic")
    add("--cores", type=int, default=2, help="Spark runs on local[CORES]")
    add("--warmup-records", type=int, default=WARMUP_RECORDS, help="records in the warm-up")
    add_pairs(
        parser,
        "--source-option",
        "extra Spark Kafka source option, e.g. kafka.fetch.wait.max.ms=10 (repeatable)",
        "source_options",
    )
    add_pairs(
        parser,
        "--sink-option",
        "extra Spark Kafka sink option for both Spark copies, e.g. "
        "kafka.reconnect.backoff.ms=10 (repeatable)",
        "sink_options",
    )
    args = parser.parse_args(argv)
    args.records = args.records or (QUICK_RECORDS if args.quick else DEFAULT_RECORDS)
    args.master = f"local[{args.cores}]"
    return args


# --------------------------------------------------------------------------- Spark


@contextmanager
def spark_session(args: argparse.Namespace, root: Path) -> Iterator[SparkSession]:
    """A Seaway SparkSession on ``local[--cores]``, stopped afterwards."""
    config = {**SPARK_CONFIG, "spark.sql.warehouse.dir": str(root / "spark-warehouse")}
    spark = seaway.spark.spark_session(args.master, app_name="seaway-bench", config=config)
    try:
        spark.sparkContext.setLogLevel("ERROR")
        # By value: the Python workers do not have the repository's bench/ on their path.
        cloudpickle.register_pickle_by_value(_arrow_ceiling)
        spark.dataSource.register(_arrow_ceiling.PrebuiltArrowSource)
        yield spark
    finally:
        spark.stop()


def jvm_pid(spark: SparkSession) -> int | None:
    """PID of the driver JVM PySpark launched (None if PySpark did not launch it)."""
    process = getattr(spark.sparkContext._gateway, "proc", None)  # type: ignore[attr-defined]
    return None if process is None else int(process.pid)


def kafka_stream(
    spark: SparkSession, bootstrap: str, topic: str, options: dict[str, str]
) -> DataFrame:
    """``readStream.format("kafka")`` over ``topic`` from the earliest offsets."""
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .options(**options)
        .load()
    )


def start_read(
    spark: SparkSession, bootstrap: str, topic: str, options: dict[str, str], checkpoint: Path
) -> StreamingQuery:
    """Start an ``availableNow`` read of ``topic`` into the ``noop`` sink."""
    return (
        kafka_stream(spark, bootstrap, topic, options)
        .writeStream.format("noop")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )


def start_ceiling(
    spark: SparkSession, args: argparse.Namespace, rows: int, checkpoint: Path
) -> StreamingQuery:
    """Start an ``availableNow`` read of prebuilt Arrow batches (as many rows, partitions
    and bytes per value as the Kafka read) into the ``noop`` sink."""
    return (
        spark.readStream.format(_arrow_ceiling.NAME)
        .option("rows", str(rows))
        .option("partitions", str(args.partitions))
        .option("valueSize", str(args.value_size))
        .load()
        .writeStream.format("noop")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )


def start_copy(
    spark: SparkSession,
    bootstrap: str,
    source: str,
    destination: str,
    options: dict[str, str],
    checkpoint: Path,
    sink_options: dict[str, str] | None = None,
) -> StreamingQuery:
    """Start an ``availableNow`` copy of ``source``'s keys and values into ``destination``.

    ``sink_options`` go to the Kafka sink (see :func:`sink_options`).
    """
    return (
        kafka_stream(spark, bootstrap, source, options)
        .selectExpr("key", "value")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", destination)
        .options(**(sink_options or {}))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )


def sink_options(args: argparse.Namespace, exactly_once: bool) -> dict[str, str]:
    """The Kafka sink options of a Spark copy: ``--sink-option`` values, plus
    ``EXACTLY_ONCE_SINK_OPTIONS`` for the exactly-once one."""
    return {**args.sink_options, **(EXACTLY_ONCE_SINK_OPTIONS if exactly_once else {})}


def run_query(start: Callable[[], StreamingQuery], watch: CpuMeter) -> SparkRun:
    """Start a query, wait for it to end, and sum its progress (rows, durations)."""
    with watch:
        started_at = time.time()  # the clock of the progress timestamps
        started = time.perf_counter()
        query = start()
        query.awaitTermination()  # raises StreamingQueryException if the query failed
        wall = time.perf_counter() - started
    batches = query.recentProgress
    if not batches:
        raise RuntimeError("the query reported no progress")
    durations: dict[str, float] = {}
    for batch in batches:
        for name, millis in batch.durationMs.items():
            durations[name] = durations.get(name, 0.0) + millis / 1000
    first_trigger = datetime.datetime.fromisoformat(batches[0].timestamp).timestamp()
    return SparkRun(
        records=sum(batch.numInputRows for batch in batches),
        trigger_seconds=durations.get("triggerExecution", 0.0),
        wall_seconds=wall,
        batches=len(batches),
        durations=durations,
        before_first_trigger=max(0.0, first_trigger - started_at),
        cpu=Cpu(**watch.used),
    )


# --------------------------------------------------------------------------- plain loops


def plain_read(
    bootstrap: str, topic: str, partitions: int, expected: int, watch: CpuMeter
) -> PlainRun:
    """Consume ``topic`` from the beginning, touching every record, until ``expected`` arrive."""
    records = size = 0
    with watch:
        started = time.perf_counter()
        consumer = new_consumer(bootstrap)
        try:
            assign_from_beginning(consumer, topic, partitions)
            for batch in batches_of(consumer, expected):
                for message in batch:
                    key, value = message.key(), message.value()
                    _, timestamp = message.timestamp()
                    if message.offset() < 0 or timestamp < 0:
                        raise ValueError(f"record without offset or timestamp in {topic}")
                    size += len(value or b"") + len(key or b"")
                records += len(batch)
            seconds = time.perf_counter() - started
        finally:
            consumer.close()
    return PlainRun(records=records, bytes=size, seconds=seconds, cpu=Cpu(**watch.used))


def plain_copy(
    bootstrap: str, source: str, destination: str, partitions: int, expected: int, watch: CpuMeter
) -> PlainRun:
    """Copy ``expected`` records' keys and values from ``source`` to ``destination``."""
    failures: list[str] = []

    def on_delivery(error: Any, _message: Any) -> None:
        if error is not None:
            failures.append(error.str())

    records = size = 0
    with watch:
        started = time.perf_counter()
        consumer = new_consumer(bootstrap)
        producer = Producer(
            {"bootstrap.servers": bootstrap, **COPY_PRODUCER_CONFIG, "on_delivery": on_delivery}
        )
        try:
            producer.list_topics(destination, timeout=30)  # connect before the first produce
            assign_from_beginning(consumer, source, partitions)
            for batch in batches_of(consumer, expected):
                for message in batch:
                    key, value = message.key(), message.value()
                    size += len(value or b"") + len(key or b"")
                    while True:
                        try:
                            producer.produce(destination, value, key)
                            break
                        except BufferError:
                            producer.poll(0.005)  # local queue full: let deliveries drain
                producer.poll(0)
                records += len(batch)
            remaining = producer.flush(300)
            seconds = time.perf_counter() - started
        finally:
            consumer.close()
    if remaining or failures:
        raise KafkaException(f"{remaining} unacknowledged, {len(failures)} failed: {failures[:3]}")
    return PlainRun(records=records, bytes=size, seconds=seconds, cpu=Cpu(**watch.used))


def new_consumer(bootstrap: str) -> Consumer:
    """A consumer with the broker benchmark's settings, outside any consumer group."""
    return Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique_name("bench"), **CONSUMER_CONFIG}
    )


def assign_from_beginning(consumer: Consumer, topic: str, partitions: int) -> None:
    """Assign every partition of ``topic`` from the beginning, metadata loaded first.

    librdkafka resolves a logical offset (BEGINNING) only once it knows the partition's
    leader; assigned before the first metadata response, it retries after a fixed 500 ms,
    which would be most of a small run. Loading metadata first avoids that client pause.
    """
    consumer.list_topics(topic, timeout=30)
    consumer.assign(whole_topic(topic, partitions))


def whole_topic(topic: str, partitions: int) -> list[TopicPartition]:
    """Every partition of ``topic``, from the beginning."""
    return [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)]


def batches_of(consumer: Consumer, expected: int, idle_timeout: float = 30.0) -> Iterator[list]:
    """``consume()`` batches until ``expected`` records came; a record error raises."""
    records = 0
    last_progress = time.monotonic()
    while records < expected:
        batch = consumer.consume(num_messages=CONSUME_BATCH, timeout=0.5)
        for message in batch:
            if message.error() is not None:
                raise KafkaException(message.error())
        if batch:
            records += len(batch)
            last_progress = time.monotonic()
            yield batch
        elif time.monotonic() - last_progress > idle_timeout:
            raise TimeoutError(f"consumer stalled at {records:,}/{expected:,} records")


def topic_records(bootstrap: str, topic: str, partitions: int) -> int:
    """Records stored in ``topic``: the sum of high - low watermarks."""
    consumer = new_consumer(bootstrap)
    try:
        return stored_records(consumer, whole_topic(topic, partitions))
    finally:
        consumer.close()


def committed_records(
    bootstrap: str, topic: str, partitions: int, idle_timeout: float = 30.0
) -> int:
    """Records a ``read_committed`` consumer reads from ``topic``, counted one by one.

    Reads every partition from the beginning until each reports end of partition, which
    librdkafka does at the last stable offset under read_committed; transaction markers and
    aborted records are never delivered, so they are not counted (watermarks count both).
    """
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": unique_name("bench"),
            **CONSUMER_CONFIG,
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
        }
    )
    records = 0
    at_end: set[int] = set()
    try:
        assign_from_beginning(consumer, topic, partitions)
        last_progress = time.monotonic()
        while len(at_end) < partitions:
            batch = consumer.consume(num_messages=CONSUME_BATCH, timeout=0.5)
            for message in batch:
                error = message.error()
                if error is None:
                    records += 1
                elif error.code() == KafkaError._PARTITION_EOF:
                    at_end.add(message.partition())
                else:
                    raise KafkaException(error)
            if batch:
                last_progress = time.monotonic()
            elif time.monotonic() - last_progress > idle_timeout:
                raise TimeoutError(
                    f"read_committed count of {topic} stalled at {records:,} records, "
                    f"{len(at_end)}/{partitions} partitions at their end"
                )
    finally:
        consumer.close()
    return records


# --------------------------------------------------------------------------- phases


def describe_spark(run: SparkRun, cores: int) -> str:
    """Summary of a Spark query: rates, where the wall time went, CPU use."""
    phases = sorted(
        ((name, s) for name, s in run.durations.items() if name != "triggerExecution"),
        key=lambda item: -item[1],
    )
    breakdown = ", ".join(f"{name} {seconds:.2f}" for name, seconds in phases)
    busy = run.cpu.client_side / run.wall_seconds
    cpu = run.cpu
    return (
        f"{run.records:,} rows: {run.progress_rate:,.0f} rec/s by progress, "
        f"{run.wall_rate:,.0f} rec/s wall\n"
        f"  wall {run.wall_seconds:.2f} s = start() to first trigger "
        f"{run.before_first_trigger:.2f} s + {run.batches} trigger(s) {run.trigger_seconds:.2f} s"
        f" + last trigger to termination {run.after_last_trigger:.2f} s\n"
        f"  trigger time: {breakdown}\n"
        f"  CPU s: broker {cpu.broker:.2f}, Spark JVM + Python workers {cpu.spark:.2f}, "
        f"driver {cpu.client:.2f} ({busy:.2f} of {cores} cores busy on average)"
    )


def describe_plain(run: PlainRun) -> str:
    """One-line summary of a plain loop."""
    return (
        f"{run.records:,} records: {run.rate:,.0f} rec/s in {run.seconds:.2f} s "
        f"(CPU s: broker {run.cpu.broker:.2f}, client {run.cpu.client:.2f})"
    )


def check_count(results: Results, what: str, found: int, expected: int) -> None:
    """Record an error unless ``found == expected``."""
    if found != expected:
        message = f"{what}: {found:,} records, expected {expected:,}"
        progress(f"FAILED {message}")
        results.errors.append(message)


def warm_up(spark: SparkSession, bootstrap: str, args: argparse.Namespace, root: Path) -> float:
    """Run a small read and small copies (both sink modes), unmeasured; return the time."""
    source, destination = unique_name("warmup"), unique_name("warmup-copy")
    eos_destination = unique_name("warmup-eos")
    create_topics(bootstrap, [source, destination, eos_destination], args.partitions)
    produce(
        bootstrap,
        [(source, p) for p in range(args.partitions)],
        args.warmup_records,
        args.value_size,
    )
    started = time.perf_counter()
    for start in (
        lambda: start_read(spark, bootstrap, source, args.source_options, root / "ck-warm-read"),
        # At full size: the JVM's JIT compiles the Arrow-to-rows path only once it is hot,
        # and whichever query ran first would pay for it (3x its CPU here).
        lambda: start_ceiling(spark, args, args.records, root / "ck-warm-ceiling"),
        lambda: start_copy(
            spark,
            bootstrap,
            source,
            destination,
            args.source_options,
            root / "ck-warm-copy",
            sink_options(args, exactly_once=False),
        ),
        lambda: start_copy(
            spark,
            bootstrap,
            source,
            eos_destination,
            args.source_options,
            root / "ck-warm-eos",
            sink_options(args, exactly_once=True),
        ),
    ):
        start().awaitTermination()
    return time.perf_counter() - started


@dataclass(frozen=True)
class Topics:
    """The run's input topic and the three copy destinations."""

    source: str
    spark_copy: str
    exactly_once_copy: str
    plain_copy: str


def measure(
    spark: SparkSession,
    bootstrap: str,
    watch: Callable[[], CpuMeter],
    topics: Topics,
    args: argparse.Namespace,
    root: Path,
    results: Results,
) -> None:
    """Spark read, plain read, Spark copy (at-least-once, exactly-once), plain copy."""
    options = args.source_options
    steps: list[tuple[str, str, Callable[[], Any]]] = [
        (
            "Spark read -> noop",
            "spark_read",
            lambda: run_query(
                lambda: start_read(spark, bootstrap, topics.source, options, root / "ck-read"),
                watch(),
            ),
        ),
        (
            "Python Data Source ceiling (prebuilt Arrow) -> noop",
            "ceiling_read",
            lambda: run_query(
                lambda: start_ceiling(spark, args, args.records, root / "ck-ceiling"), watch()
            ),
        ),
        (
            "plain read",
            "plain_read",
            lambda: plain_read(bootstrap, topics.source, args.partitions, args.records, watch()),
        ),
        (
            "Spark copy",
            "spark_copy",
            lambda: run_query(
                lambda: start_copy(
                    spark,
                    bootstrap,
                    topics.source,
                    topics.spark_copy,
                    options,
                    root / "ck-copy",
                    sink_options(args, exactly_once=False),
                ),
                watch(),
            ),
        ),
        (
            "Spark copy exactly-once",
            "exactly_once_copy",
            lambda: run_query(
                lambda: start_copy(
                    spark,
                    bootstrap,
                    topics.source,
                    topics.exactly_once_copy,
                    options,
                    root / "ck-copy-eos",
                    sink_options(args, exactly_once=True),
                ),
                watch(),
            ),
        ),
        (
            "plain copy",
            "plain_copy",
            lambda: plain_copy(
                bootstrap,
                topics.source,
                topics.plain_copy,
                args.partitions,
                args.records,
                watch(),
            ),
        ),
    ]
    for label, name, step in steps:
        progress(f"{label}: running")
        result = attempt(results.errors, label, step)
        setattr(results, name, result)
        if isinstance(result, SparkRun):
            progress(f"{label}: {describe_spark(result, args.cores)}")
            check_count(results, f"{label} numInputRows", result.records, args.records)
        elif isinstance(result, PlainRun):
            progress(f"{label}: {describe_plain(result)}")


def run_all(args: argparse.Namespace, root: Path, results: Results) -> None:
    """Start the broker, produce the input, start Spark, warm up, measure, verify the copies."""
    config = {"num.partitions": str(args.partitions)}
    with BrokerProcess(root / "broker", port=0, config=config) as broker:
        bootstrap = broker.bootstrap_servers
        progress(f"broker: listening on {bootstrap} (pid {broker.pid})")
        topics = Topics(
            unique_name("spark-src"),
            unique_name("spark-dst"),
            unique_name("spark-eos-dst"),
            unique_name("plain-dst"),
        )
        create_topics(
            bootstrap,
            [topics.source, topics.spark_copy, topics.exactly_once_copy, topics.plain_copy],
            args.partitions,
        )
        progress(f"producing {args.records:,} x {args.value_size} B records to {topics.source}")
        destinations = [(topics.source, p) for p in range(args.partitions)]
        produced = produce(bootstrap, destinations, args.records, args.value_size)
        results.produce_rate = produced.records_per_s
        progress(f"produced at {produced.records_per_s:,.0f} rec/s")

        started = time.perf_counter()
        with spark_session(args, root) as spark:
            pid = jvm_pid(spark)
            progress(
                f"Spark {pyspark.__version__} on {args.master} up in "
                f"{time.perf_counter() - started:.1f} s (JVM pid {pid})"
            )
            progress(f"warm-up (not measured): read + copy of {args.warmup_records:,} records")
            results.warmup_seconds = warm_up(spark, bootstrap, args, root)
            progress(f"warm-up took {results.warmup_seconds:.1f} s")
            measure(
                spark, bootstrap, lambda: cpu_meter(broker.pid, pid), topics, args, root, results
            )

        for label, topic in (("Spark copy", topics.spark_copy), ("plain copy", topics.plain_copy)):
            count = topic_records(bootstrap, topic, args.partitions)
            results.destination_counts[label] = count
            progress(f"{label}: {topic} holds {count:,} records")
            check_count(results, f"{label} destination {topic}", count, args.records)
        verify_exactly_once(bootstrap, topics.exactly_once_copy, args, results)


def verify_exactly_once(
    bootstrap: str, topic: str, args: argparse.Namespace, results: Results
) -> None:
    """Count the exactly-once destination's records as a read_committed reader sees them."""
    label = "Spark copy exactly-once"
    results.exactly_once_watermarks = topic_records(bootstrap, topic, args.partitions)
    count = attempt(
        results.errors,
        f"{label} read_committed count",
        lambda: committed_records(bootstrap, topic, args.partitions),
    )
    if count is None:
        return
    results.exactly_once_committed = count
    progress(
        f"{label}: {topic} yields {count:,} records to a read_committed reader "
        f"(high - low watermarks {results.exactly_once_watermarks:,})"
    )
    check_count(results, f"{label} destination {topic} (read_committed)", count, args.records)


# --------------------------------------------------------------------------- report


def build_rows(results: Results, cores: int) -> list[Row]:
    """Table rows: rates by progress and by wall time, per core, and CPU use."""
    rows = []
    for label, spark, plain in (
        ("read -> noop", results.spark_read, results.plain_read),
        ("copy topic -> topic", results.spark_copy, results.plain_copy),
        ("copy exactly-once", results.exactly_once_copy, results.plain_copy),
    ):
        plain_rate = plain.rate if plain else None
        progress_rate = spark.progress_rate if spark else None
        wall_rate = spark.wall_rate if spark else None
        rows += [
            Row(label, "rec/s (progress)", progress_rate, plain_rate),
            Row(label, "rec/s (wall)", wall_rate, plain_rate),
            Row(label, "rec/s/core (progress)", per_core(progress_rate, cores), plain_rate),
            Row(label, "rec/s/core (wall)", per_core(wall_rate, cores), plain_rate),
            Row(
                label,
                "rec per CPU s",
                spark.records / spark.cpu.client_side if spark else None,
                plain.records / plain.cpu.client if plain else None,
            ),
            Row(
                label,
                "client CPU s",
                spark.cpu.client_side if spark else None,
                plain.cpu.client if plain else None,
            ),
            Row(
                label,
                "broker CPU s",
                spark.cpu.broker if spark else None,
                plain.cpu.broker if plain else None,
            ),
        ]
    ceiling, read = results.ceiling_read, results.spark_read
    if ceiling is not None:
        rows += [
            Row("ceiling: prebuilt Arrow -> noop", "rec/s (progress)", ceiling.progress_rate,
                results.plain_read.rate if results.plain_read else None),
            Row("ceiling: prebuilt Arrow -> noop", "client CPU s", ceiling.cpu.client_side, None),
        ]  # fmt: skip
    if ceiling is not None and read is not None:
        rows.append(
            Row("read -> noop vs ceiling", "rec/s (progress)", read.progress_rate,
                ceiling.progress_rate)
        )  # fmt: skip
    return rows


def per_core(value: float | None, cores: int) -> float | None:
    """``value`` divided by ``cores`` (None stays None)."""
    return None if value is None else value / cores


def per_core_ratios(results: Results, cores: int) -> dict[str, float] | None:
    """Spark's read rate per core over the plain loop's (one core), by progress and wall."""
    spark, plain = results.spark_read, results.plain_read
    if spark is None or plain is None:
        return None
    return {
        "progress": spark.progress_rate / cores / plain.rate,
        "wall": spark.wall_rate / cores / plain.rate,
    }


def exactly_once_ratios(results: Results) -> dict[str, float] | None:
    """The exactly-once Spark copy's rate over the at-least-once one's, by progress and wall."""
    eos, alo = results.exactly_once_copy, results.spark_copy
    if eos is None or alo is None or not alo.progress_rate:
        return None
    return {
        "progress": eos.progress_rate / alo.progress_rate,
        "wall": eos.wall_rate / alo.wall_rate,
    }


def print_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> None:
    """Print the human-readable report to stdout."""
    print(
        f"\nSpark Kafka benchmark: {args.records:,} records x {args.value_size} B, "
        f"{args.partitions} partitions, Seaway broker subprocess; Spark {pyspark.__version__} "
        f"{args.master}, {KAFKA_CLIENT}, {os.cpu_count()} CPUs on this host"
    )
    print(
        f"warm-up first, not measured: an availableNow read into noop and two copies "
        f"(at-least-once, exactly-once) of {args.warmup_records:,} records "
        f"({fmt(results.warmup_seconds)} s)"
    )
    if args.source_options:
        print(f"extra source options: {args.source_options}")
    if args.sink_options:
        print(f"extra sink options (both Spark copies): {args.sink_options}")
    print(comparison_table(rows, "seaway spark", "plain loop", "spark/plain"))
    print(
        "progress = sum numInputRows / sum durationMs.triggerExecution; wall = start() .. "
        "awaitTermination(), query start included; plain loops: client creation .. last "
        f"record (copy: .. flush). Per core: Spark / {args.cores}, plain loop / 1. "
        f"copy exactly-once: sink option {EXACTLY_ONCE_SINK_OPTIONS}."
    )
    for name, run in (
        ("Spark read", results.spark_read),
        ("Python Data Source ceiling", results.ceiling_read),
        ("Spark copy", results.spark_copy),
        ("Spark copy exactly-once", results.exactly_once_copy),
    ):
        if run is not None:
            print(f"{name}: {describe_spark(run, args.cores)}")
    ratios = per_core_ratios(results, args.cores)
    if ratios is not None:
        verdict = "PASS" if ratios["progress"] >= PER_CORE_TARGET else "FAIL"
        print(
            f"target: Spark read per core used >= {PER_CORE_TARGET}x the plain loop: "
            f"{ratios['progress']:.3f}x by progress, {ratios['wall']:.3f}x by wall time: {verdict}"
        )
    if results.spark_read is not None and results.ceiling_read is not None:
        ceiling = results.ceiling_read.progress_rate
        print(
            f"Spark's Python Data Source ceiling here (prebuilt Arrow batches, same shape): "
            f"{ceiling:,.0f} rec/s by progress; the Kafka read reaches "
            f"{results.spark_read.progress_rate / ceiling:.3f}x of it"
        )
    eos = exactly_once_ratios(results)
    if eos is not None:
        verdict = "PASS" if eos["progress"] >= EXACTLY_ONCE_TARGET else "FAIL"
        print(
            f"target: exactly-once Spark copy >= {EXACTLY_ONCE_TARGET}x the at-least-once one: "
            f"{eos['progress']:.3f}x by progress, {eos['wall']:.3f}x by wall time: {verdict}"
        )
    counts = ", ".join(f"{k} {v:,}" for k, v in results.destination_counts.items())
    if counts:
        print(f"destination topics (high - low watermarks): {counts}")
    if results.exactly_once_committed is not None:
        watermarks = results.exactly_once_watermarks or 0
        print(
            f"exactly-once destination: {results.exactly_once_committed:,} records for a "
            f"read_committed reader (expected {args.records:,}); high - low watermarks "
            f"{watermarks:,}, i.e. {watermarks - results.exactly_once_committed:,} transaction "
            "markers or aborted records"
        )
    for message in results.errors:
        print(f"ERROR {message}")


def json_report(args: argparse.Namespace, results: Results, rows: list[Row]) -> dict[str, Any]:
    """Every figure of the run as plain JSON types."""

    def spark_json(run: SparkRun | None) -> dict[str, Any] | None:
        if run is None:
            return None
        return {
            **asdict(run),
            "progress_records_per_s": run.progress_rate,
            "wall_records_per_s": run.wall_rate,
            "outside_triggers_seconds": run.outside_triggers,
            "after_last_trigger_seconds": run.after_last_trigger,
        }

    def plain_json(run: PlainRun | None) -> dict[str, Any] | None:
        return None if run is None else {**asdict(run), "records_per_s": run.rate}

    ratios = per_core_ratios(results, args.cores)
    eos = exactly_once_ratios(results)
    return {
        **report_head("bench/spark_kafka.py", pyspark=pyspark.__version__),
        "config": {
            "records": args.records,
            "value_size": args.value_size,
            "partitions": args.partitions,
            "master": args.master,
            "cores": args.cores,
            "spark": SPARK_CONFIG,
            "source_options": args.source_options,
            "sink_options": args.sink_options,
            "warmup_records": args.warmup_records,
            "consumer": dict(CONSUMER_CONFIG),
            "copy_producer": dict(COPY_PRODUCER_CONFIG),
            "exactly_once_sink_options": EXACTLY_ONCE_SINK_OPTIONS,
            "quick": args.quick,
        },
        "rows": [r.json("spark", "plain") for r in rows],
        "produce_records_per_s": results.produce_rate,
        "warmup_seconds": results.warmup_seconds,
        "spark_read": spark_json(results.spark_read),
        "ceiling_read": spark_json(results.ceiling_read),
        "plain_read": plain_json(results.plain_read),
        "spark_copy": spark_json(results.spark_copy),
        "exactly_once_copy": spark_json(results.exactly_once_copy),
        "plain_copy": plain_json(results.plain_copy),
        "destination_counts": results.destination_counts,
        "exactly_once_read_committed_records": results.exactly_once_committed,
        "exactly_once_watermarks": results.exactly_once_watermarks,
        "target": {
            "per_core_ratio_min": PER_CORE_TARGET,
            "per_core_ratio_progress": ratios["progress"] if ratios else None,
            "per_core_ratio_wall": ratios["wall"] if ratios else None,
            "pass": None if ratios is None else ratios["progress"] >= PER_CORE_TARGET,
        },
        "exactly_once_target": {
            "ratio_min": EXACTLY_ONCE_TARGET,
            "ratio_progress": eos["progress"] if eos else None,
            "ratio_wall": eos["wall"] if eos else None,
            "pass": None if eos is None else eos["progress"] >= EXACTLY_ONCE_TARGET,
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
        rows = build_rows(results, args.cores)
        print_report(args, results, rows)
        return json_report(args, results, rows)

    return run_in_data_dir(args, "spark", run, keep_on_failure=True)


if __name__ == "__main__":
    sys.exit(main())
