"""A MariaDB table into Parquet with Spark: straight through ``format("connect")``, against
the same through a Connect worker, Kafka and ``format("kafka")``, in one run.

    .venv/bin/python -m bench.connect_format                  # 1,000,000 rows
    .venv/bin/python -m bench.connect_format --rows 100000    # a quick run
    .venv/bin/python -m bench.connect_format --json bench/out/connect_format.json
    .venv/bin/python -m bench.connect_format --source-config batch.max.rows=20000

What is measured, against one Seaway broker subprocess and a MariaDB server started for the
run (``tests/databases.py``, Debian's packages):

1. A MariaDB table ``events(id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64), quantity
   INT, amount DECIMAL(12,2), created DATETIME(3))`` of ``--rows`` rows, written before any
   timing. Both paths read it with the same ``JdbcSourceConnector`` configuration
   (``mode=incrementing`` on ``id``, ``batch.max.rows=10000``, ``poll.interval.ms=200``;
   ``--source-config`` for both).
2. Direct: a user's PySpark job (its own driver, ``local[2]``; ``bench/_connect_format_job.py``)
   runs ``readStream.format("connect")`` with the connector's options, ``select("value.*")``,
   into a Parquet table (``trigger(processingTime=--trigger)``). Timed from the moment it is
   told to go (its session already up) until its query's progress has committed every row.
3. Through Kafka: a distributed Connect worker in its own process (``local[2]``, JsonConverter
   with schemas and ``decimal.format`` BASE64, Connect's defaults; ``--decimal-format
   NUMERIC`` for numbers), and a user's job, its own driver, reading the connector's topic
   (``--partitions``, default 1) with ``readStream.format("kafka")`` from the earliest offset,
   the value parsed with ``from_json`` (the envelope's payload; ``timestamp_millis`` for the
   Timestamp, the base64 decimal's bytes made a number in Spark SQL) into the same Parquet
   columns. Both already started; the job is told to go and
   the connector POSTed at the same moment, and the path is timed from then until the job
   has committed every row: what a user waits for. Its legs: the connector (POST -> every
   record in the topic) and the job (first row in Parquet; from the full topic to the last
   row), and the same job run again alone over the full topic into a second table.
4. Every table is then read back: ``--rows`` rows, as many distinct ids, and the same hash
   of every column (``sum(xxhash64(...))``) in all of them.

Reported: seconds, rows/s, the direct rate over the Kafka path's (the aim: >= 1.5x), CPU µs
per row of the Spark processes (the jobs' and the worker's process trees: driver, JVM,
Python workers), of the broker and of MariaDB, the CPU seconds the machine spent on
anything else meanwhile (``other``: another test run shows there), and each query's
micro-batch phases summed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Final

from confluent_kafka import Consumer, TopicPartition

from bench._brokers import SeawayBroker
from bench._connect_worker import CONVERTERS, create_connector, failed_parts
from bench._report import (
    CpuMeter,
    add_pairs,
    arg_parser,
    own_cpu,
    process_cpu,
    render_table,
    report_head,
    run_in_data_dir,
    tree_cpu,
    us_per,
)
from bench._util import progress
from bench._workload import CONSUMER_CONFIG, create_topics, stored_records
from tests.databases import MariaDbServer

REPO: Final = Path(__file__).resolve().parents[1]
DATABASE: Final = "shop"
TABLE: Final = ("CREATE TABLE events (id INT AUTO_INCREMENT PRIMARY KEY, "
                "name VARCHAR(64) NOT NULL, quantity INT NOT NULL, "
                "amount DECIMAL(12,2) NOT NULL, created DATETIME(3) NOT NULL)")  # fmt: skip
FILL_CHUNK: Final = 200_000
#: The issue's aim: the direct path's rate at least this times the Kafka path's.
AIM: Final = 1.5
START_TIMEOUT_S: Final = 180.0
STALL_TIMEOUT_S: Final = 300.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = arg_parser("connect_format", __doc__)
    add = parser.add_argument
    add("--rows", type=int, default=1_000_000, help="rows in the table (default 1,000,000)")
    add("--master", default="local[2]", help="every driver's spark.master (default local[2])")
    add("--trigger", default="200 milliseconds", help="the jobs' processingTime trigger")
    add("--partitions", type=int, default=1, help="partitions of the connector's topic")
    add("--decimal-format", choices=("BASE64", "NUMERIC"), default="BASE64",
        help="JsonConverter's decimal.format (default BASE64, Connect's)")  # fmt: skip
    add(
        "--warm-up",
        action="store_true",
        help="the jobs warm their Python workers up before they go (as the worker does)",
    )
    add("--skip-alone", action="store_true", help="skip the Kafka job's run over the full topic")
    add_pairs(parser, "--source-config", "extra JDBC source config, both paths (repeatable)",
              "source_overrides")  # fmt: skip
    add_pairs(parser, "--worker-config", "extra worker property (repeatable)", "worker_overrides")
    add_pairs(parser, "--kafka-option", "extra option of the Kafka job's source (repeatable)",
              "kafka_options")  # fmt: skip
    return parser.parse_args(argv)


def fill(mariadb: MariaDbServer, rows: int) -> None:
    """The table, ids 1..rows, from MariaDB's sequence engine (no rows cross the client)."""
    mariadb.create_database(DATABASE)
    with mariadb.connect(DATABASE) as db, db.cursor() as cursor:
        cursor.execute(TABLE)
        for start in range(0, rows, FILL_CHUNK):
            end = min(rows, start + FILL_CHUNK) - 1
            cursor.execute(
                "INSERT INTO events (id, name, quantity, amount, created) "
                "SELECT seq + 1, CONCAT('customer ', seq % 50000), seq % 1000, "
                "(seq % 100000) + (seq % 100) / 100, "
                "TIMESTAMP'2026-11-20 00:00:00' + INTERVAL seq * 1001000 MICROSECOND "
                f"FROM seq_{start}_to_{end}"
            )


def source_config(args: argparse.Namespace, mariadb: MariaDbServer, prefix: str) -> dict[str, str]:
    """The JDBC source's configuration, the same on both paths."""
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": mariadb.url(DATABASE), "mode": "incrementing",
        "incrementing.column.name": "id", "table.whitelist": "events", "topic.prefix": prefix,
        "batch.max.rows": "10000", "poll.interval.ms": "200", **args.source_overrides,
    }  # fmt: skip


# --------------------------------------------------------------------------- the processes


class Child:
    """A process of ``bench._connect_format_job``: its stdout lines queued by a thread."""

    def __init__(self, role: str, config: dict[str, Any], log: Path) -> None:
        self.role = role
        self.log = log
        self._log: IO[bytes] = log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench._connect_format_job", role, json.dumps(config)],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True,
        )  # fmt: skip
        self.pid = self.process.pid
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def line(self, timeout: float) -> str:
        """The next stdout line; raises if the process ends or says nothing for *timeout*."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(
                f"{self.role}: nothing for {timeout:.0f} s; see {self.log}"
            ) from None
        if line is None:
            raise RuntimeError(
                f"{self.role} exited ({self.process.wait()}): {self.tail()}; see {self.log}"
            )
        return line

    def next_line(self) -> str | None:
        """A line already printed, or None."""
        try:
            line = self.lines.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            raise RuntimeError(f"{self.role} exited ({self.process.wait()}): {self.tail()}")
        return line

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def result(self, timeout: float = START_TIMEOUT_S) -> dict[str, Any]:
        """Its last line, a JSON object, once its stdin is closed and it exits."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        while not (line := self.line(timeout)).startswith("{"):
            pass
        self.process.wait(timeout)
        result: dict[str, Any] = json.loads(line)
        return result

    def tail(self, lines: int = 5) -> str:
        self._log.flush()
        text = self.log.read_text(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._log.close()


def job_config(args: argparse.Namespace, root: Path, label: str, **more: Any) -> dict[str, Any]:
    return {
        "root": str(root / label), "master": args.master, "rows": args.rows,
        "trigger": args.trigger, "warm_up": args.warm_up, "table": str(root / label / "table"),
        "checkpoint": str(root / label / "checkpoint"), **more,
    }  # fmt: skip


def ready(child: Child) -> None:
    if (line := child.line(START_TIMEOUT_S)) != "ready":
        raise RuntimeError(f"{child.role}: expected ready, got {line!r}")


def until_done(child: Child, watch: Callable[[], None] = lambda: None) -> float:
    """Wait for the job's ``done`` line (its instant), calling *watch* meanwhile and telling
    of its progress."""
    last_rows, last_change, last_told = 0, time.monotonic(), 0.0
    while True:
        while (line := child.next_line()) is not None:
            word, _, value = line.partition(" ")
            if word == "done":
                return float(value)
            if word == "committed":
                last_rows, last_change = int(value), time.monotonic()
        if time.monotonic() - last_change > STALL_TIMEOUT_S:
            raise TimeoutError(f"{child.role}: no progress for {STALL_TIMEOUT_S:.0f} s")
        if time.monotonic() - last_told > 5:
            progress(f"{child.role}: {last_rows:,} rows committed")
            last_told = time.monotonic()
        watch()
        time.sleep(0.05)


def machine_cpu_seconds() -> float:
    """CPU seconds every core of the machine spent busy (``/proc/stat``), any process."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def meter(**readers: Callable[[], float]) -> CpuMeter:
    """The path's processes' CPU, and the machine's (what else ran shows as ``other``)."""
    return CpuMeter(machine=machine_cpu_seconds, harness=own_cpu, **readers)


def cpu_report(used: dict[str, float], rows: int) -> dict[str, Any]:
    """µs per row of each process (tree) measured, their total, and the CPU seconds the
    machine spent on anything else meanwhile (another test run would show there)."""
    ours = {name: s for name, s in used.items() if name not in ("machine", "harness")}
    if "worker" in ours:  # the Kafka path: the worker's and the job's Spark processes
        ours = {"spark": ours["worker"] + ours["job"], **ours}
    cpu: dict[str, Any] = {
        f"{name}_cpu_us_per_row": round(us_per(s, rows) or 0.0, 1) for name, s in ours.items()
    }
    measured = sum(v for k, v in ours.items() if k not in ("worker", "job"))
    cpu["total_cpu_us_per_row"] = round(us_per(measured, rows) or 0.0, 1)
    cpu["other_cpu_s"] = round(used["machine"] - used["harness"] - measured, 1)
    return cpu


def path_report(rows: int, seconds: float, used: dict[str, float], job: dict[str, Any],
                started: float) -> dict[str, Any]:  # fmt: skip
    first = job["first_row"]
    return {
        "seconds": round(seconds, 2), "rows_per_s": round(rows / seconds),
        "first_row_s": None if first is None else round(first - started, 2),
        **cpu_report(used, rows), "query": job["progress"], "check": job["check"],
    }  # fmt: skip


# --------------------------------------------------------------------------- the paths


def run_direct(args: argparse.Namespace, root: Path, meters: dict[str, Callable[[], float]],
               mariadb: MariaDbServer) -> dict[str, Any]:  # fmt: skip
    config = job_config(args, root, "direct", connector=source_config(args, mariadb, "db-"))
    return timed_job(args, Child("direct", config, root / "direct.log"), meters)


def timed_job(
    args: argparse.Namespace, job: Child, meters: dict[str, Callable[[], float]]
) -> dict[str, Any]:
    """Run one job alone, timed from its go (its session already up) to its last row."""
    try:
        ready(job)
        progress(f"{job.role}: the job's session is up; go")
        used_by = meter(spark=tree_cpu(job.pid), **meters)
        started = time.monotonic()
        job.send("go")
        done = until_done(job)
        used = used_by.read()
        result = job.result()
    finally:
        job.stop()
    return path_report(args.rows, done - started, used, result, started)


class TopicWatch:
    """When the connector's topic first holds every row; the connector's failures."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, rows: int, url: str,
                 connector: str) -> None:  # fmt: skip
        self.consumer = Consumer(
            {"bootstrap.servers": bootstrap, "group.id": f"watch-{topic}", **CONSUMER_CONFIG}
        )
        self.partitions = [TopicPartition(topic, p) for p in range(partitions)]
        self.rows, self.url, self.connector = rows, url, connector
        self.full: float | None = None
        self._checked = 0.0

    def __call__(self) -> None:
        now = time.monotonic()
        if self.full is None and stored_records(self.consumer, self.partitions) >= self.rows:
            self.full = now
            progress("kafka: every row is in the topic")
        if now - self._checked > 2:
            self._checked = now
            if failed := failed_parts(self.url, [self.connector]):
                raise RuntimeError("; ".join(failed))

    def close(self) -> None:
        self.consumer.close()


def run_kafka(args: argparse.Namespace, root: Path, meters: dict[str, Callable[[], float]],
              mariadb: MariaDbServer, bootstrap: str) -> dict[str, Any]:  # fmt: skip
    name = f"bench-fmt-{uuid.uuid4().hex[:6]}"
    topic = f"{name}-events"
    create_topics(bootstrap, [topic], args.partitions)
    (root / "worker").mkdir()
    worker = Child(
        "worker",
        {"root": str(root / "worker"), "master": args.master, "bootstrap": bootstrap,
         "name": name, "worker_overrides": args.worker_overrides},
        root / "worker.err",
    )  # fmt: skip
    kafka_job = {"bootstrap": bootstrap, "topic": topic, "kafka_options": args.kafka_options,
                 "decimal_format": args.decimal_format}  # fmt: skip
    job = Child("kafka", job_config(args, root, "kafka", **kafka_job), root / "kafka.log")
    watch: TopicWatch | None = None
    try:
        url = json.loads(worker.line(START_TIMEOUT_S))["url"]
        ready(job)
        progress("kafka: the worker and the job are up; go and POST")
        connector = {
            **source_config(args, mariadb, f"{name}-"),
            "value.converter": CONVERTERS["json"],
            "value.converter.schemas.enable": "true",
            "value.converter.decimal.format": args.decimal_format,
        }
        watch = TopicWatch(bootstrap, topic, args.partitions, args.rows, url, name)
        used_by = meter(worker=tree_cpu(worker.pid), job=tree_cpu(job.pid), **meters)
        started = time.monotonic()
        job.send("go")
        create_connector(url, name, connector)
        done = until_done(job, watch)
        used = used_by.read()
        watch()
        result = job.result()
        workers = worker.result()
    finally:
        if watch is not None:
            watch.close()
        job.stop()
        worker.stop()
    report = path_report(args.rows, done - started, used, result, started)
    full = watch.full or done
    report["legs"] = {
        "connector_s": round(full - started, 2),
        "connector_rows_per_s": round(args.rows / (full - started)),
        "job_after_topic_full_s": round(done - full, 2),
    }
    report["worker"] = workers
    for query in workers["queries"]:
        progress(f"worker: {query['name']}: {query['batches']} batch(es), {query['phases_s']}")
    report["topic"] = topic
    return report


def run_alone(args: argparse.Namespace, root: Path, meters: dict[str, Callable[[], float]],
              bootstrap: str, topic: str) -> dict[str, Any]:  # fmt: skip
    """The Kafka job again, over the full topic, into a table of its own."""
    kafka_job = {"bootstrap": bootstrap, "topic": topic, "kafka_options": args.kafka_options,
                 "decimal_format": args.decimal_format}  # fmt: skip
    job = Child("alone", job_config(args, root, "alone", **kafka_job), root / "alone.log")
    return timed_job(args, job, meters)


# --------------------------------------------------------------------------- the run


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_in_data_dir(args, "connect-format", lambda root: run_all(args, root))


def run_all(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Both paths over one table; the JSON report."""
    broker = SeawayBroker(root / "broker", {})
    bootstrap, broker_pid = broker.start()
    report: dict[str, Any] = {
        **report_head("bench/connect_format.py"),
        "rows": args.rows, "master": args.master, "trigger": args.trigger,
        "partitions": args.partitions, "decimal_format": args.decimal_format,
        "warm_up": args.warm_up,
        "source_overrides": args.source_overrides,
    }  # fmt: skip
    try:
        with MariaDbServer() as mariadb:
            progress(f"filling MariaDB with {args.rows:,} rows")
            fill(mariadb, args.rows)
            assert mariadb.process is not None
            meters = {
                "broker": process_cpu(broker_pid),
                "mariadb": process_cpu(mariadb.process.pid),
            }
            report["direct"] = run_direct(args, root, meters, mariadb)
            progress(f"direct: {summary(report['direct'])}")
            report["kafka"] = run_kafka(args, root, meters, mariadb, bootstrap)
            progress(f"kafka: {summary(report['kafka'])}")
            if not args.skip_alone:
                report["kafka_job_alone"] = run_alone(
                    args, root, meters, bootstrap, report["kafka"]["topic"]
                )
                progress(f"kafka job alone: {summary(report['kafka_job_alone'])}")
    finally:
        broker.stop()
    report["ratio"] = round(report["direct"]["rows_per_s"] / report["kafka"]["rows_per_s"], 3)
    report["errors"] = checks(report, args.rows)
    print_report(report)
    return report


def summary(path: dict[str, Any]) -> str:
    keys = ("seconds", "rows_per_s", "first_row_s", "spark_cpu_us_per_row", "legs")
    return json.dumps({k: path[k] for k in keys if k in path})


def checks(report: dict[str, Any], rows: int) -> list[str]:
    """Every table holds the rows once each, with the same content."""
    errors = []
    tables = {k: report[k]["check"] for k in ("direct", "kafka", "kafka_job_alone") if k in report}
    for label, got in tables.items():
        if (got["rows"], got["ids"], got["min_id"], got["max_id"]) != (rows, rows, 1, rows):
            errors.append(f"{label}: the table holds {got}, not ids 1..{rows} once each")
    if len({got["hash"] for got in tables.values()}) != 1:
        errors.append(f"the tables differ: {tables}")
    return errors


def print_report(report: dict[str, Any]) -> None:
    labels = {"direct": 'format("connect")', "kafka": "Connect + Kafka + format(kafka)",
              "kafka_job_alone": "  format(kafka) job alone"}  # fmt: skip
    cells = [
        (label, f"{r['seconds']:.2f}", f"{r['rows_per_s']:,}", f"{r['first_row_s']}",
         f"{r['spark_cpu_us_per_row']:.1f}", f"{r['broker_cpu_us_per_row']:.1f}",
         f"{r['mariadb_cpu_us_per_row']:.1f}", f"{r['total_cpu_us_per_row']:.1f}",
         f"{r['other_cpu_s']:.1f}")
        for key, label in labels.items() if (r := report.get(key))
    ]  # fmt: skip
    header = ("", "seconds", "rows/s", "first row s", "Spark µs/row", "broker µs/row",
              "MariaDB µs/row", "total µs/row", "other CPU s")  # fmt: skip
    print(render_table(header, cells))
    kafka = report["kafka"]
    legs = kafka["legs"]
    print(
        f"Kafka path legs: connector POST -> topic full {legs['connector_s']:.2f} s "
        f"({legs['connector_rows_per_s']:,} rows/s); job from topic full to the last row "
        f"{legs['job_after_topic_full_s']:.2f} s; Spark CPU µs/row: the worker "
        f"{kafka['worker_cpu_us_per_row']:.1f}, the job {kafka['job_cpu_us_per_row']:.1f}"
    )
    for key in ("direct", "kafka", "kafka_job_alone"):
        if key in report:
            query = report[key]["query"]
            phases = ", ".join(f"{k} {v:.1f}" for k, v in list(query["phases_s"].items())[:5])
            print(f"{key} query: {query['rows']:,} rows in {query['batches']} batch(es): "
                  f"{phases} s")  # fmt: skip
    verdict = "met" if report["ratio"] >= AIM else "NOT met"
    print(f"direct / through Kafka (rate): {report['ratio']:.3f}x (aim >= {AIM}x: {verdict})")
    for error in report["errors"]:
        print(f"ERROR {error}")


if __name__ == "__main__":
    sys.exit(main())
