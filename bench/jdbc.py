"""A MariaDB table copied into PostgreSQL through Kafka: Seaway's JDBC source and sink on a
Connect worker, next to a plain Python script doing the same copy.

    .venv/bin/python -m bench.jdbc                 # 200,000 rows
    .venv/bin/python -m bench.jdbc --rows 20000    # a small run
    .venv/bin/python -m bench.jdbc --source-config batch.max.rows=5000

What is measured, against one Seaway broker subprocess and MariaDB and PostgreSQL servers
started for the run (``tests/databases.py``, Debian's packages):

1. A MariaDB table ``events(id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64), amount
   DECIMAL(12,2), created DATETIME(3))`` of ``--rows`` rows, written before any timing.
2. Plain reference (one process): PyMySQL streams ``SELECT * ... ORDER BY id`` and
   confluent-kafka produces each row as a JSON object (acks=all) to a fresh 1-partition
   topic; then a consumer reads the topic and psycopg inserts the rows into a PostgreSQL
   table in transactions of 3,000 (``executemany``). Timed from the SELECT to the last
   commit.
3. Seaway: a distributed worker in this process (JsonConverter with schemas, Connect's
   default), a ``JdbcSourceConnector`` (``mode=incrementing``) into a fresh topic and a
   ``JdbcSinkConnector`` (``upsert`` by ``id``, ``auto.create``) into PostgreSQL, POSTed
   together. Timed from the POSTs until PostgreSQL holds every row (the worker's start-up
   is not counted; each connector's first micro-batch is).

Reported: seconds, rows/s, Seaway's rate divided by the reference's, and CPU µs per row of
the client side (this process and its Spark children) and of the broker.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from bench._brokers import SeawayBroker
from bench._connect_worker import create_connector, failed_parts, query_summaries, worker_props
from bench._report import (
    CpuMeter,
    add_pairs,
    arg_parser,
    process_cpu,
    render_table,
    report_head,
    run_in_data_dir,
    tree_cpu,
    us_per,
)
from bench._util import progress
from bench._workload import CONSUMER_CONFIG, create_topics
from tests.databases import MariaDbServer, PostgresServer

TABLE = ("CREATE TABLE events (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64) NOT NULL, "
         "amount DECIMAL(12,2) NOT NULL, created DATETIME(3) NOT NULL)")  # fmt: skip
SINK_TABLE = ("CREATE TABLE events (id BIGINT PRIMARY KEY, name TEXT NOT NULL, "
              "amount DECIMAL(12,2) NOT NULL, created TIMESTAMP NOT NULL)")  # fmt: skip
INSERT_BATCH = 3000


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = arg_parser("jdbc", __doc__)
    parser.add_argument("--rows", type=int, default=200_000, help="rows copied (default 200,000)")
    parser.add_argument("--master", default="local[2]", help="the worker's spark.master")
    add_pairs(
        parser, "--source-config", "extra JDBC source config (repeatable)", "source_overrides"
    )
    add_pairs(parser, "--sink-config", "extra JDBC sink config (repeatable)", "sink_overrides")
    add_pairs(parser, "--worker-config", "extra worker property (repeatable)", "worker_overrides")
    args = parser.parse_args(argv)
    args.converter = "json"
    return args


def fill(mariadb: MariaDbServer, database: str, rows: int) -> None:
    mariadb.create_database(database)
    with mariadb.connect(database) as db, db.cursor() as cursor:
        cursor.execute(TABLE)
        for start in range(0, rows, 10_000):
            cursor.executemany(
                "INSERT INTO events (name, amount, created) VALUES (%s, %s, %s)",
                [(f"event {i}", f"{i % 100000}.{i % 100:02d}", f"2026-11-20 10:00:{i % 60:02d}")
                 for i in range(start, min(rows, start + 10_000))],
            )  # fmt: skip


def postgres_rows(postgres: PostgresServer, database: str) -> int:
    with postgres.connect(database) as db:
        if db.execute("SELECT to_regclass('events')").fetchone()[0] is None:
            return 0
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


def run_plain(bootstrap: str, mariadb: MariaDbServer, source: str, postgres: PostgresServer,
              target: str, rows: int) -> float:  # fmt: skip
    """The reference copy; its seconds."""
    import pymysql.cursors

    topic = f"plain-{uuid.uuid4().hex[:8]}"
    create_topics(bootstrap, [topic], 1)
    with postgres.connect(target) as db:
        db.execute(SINK_TABLE)
    started = time.perf_counter()
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    connection = mariadb.connect(source)
    with connection.cursor(pymysql.cursors.SSCursor) as cursor:
        cursor.execute("SELECT id, name, amount, created FROM events ORDER BY id")
        for id_, name, amount, created in cursor:
            value = {"id": id_, "name": name, "amount": str(amount),
                     "created": int(created.timestamp() * 1000)}  # fmt: skip
            while True:
                try:
                    producer.produce(topic, json.dumps(value).encode())
                    break
                except BufferError:
                    producer.poll(0.1)
    connection.close()
    assert producer.flush(60) == 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": topic, **CONSUMER_CONFIG})
    consumer.assign([TopicPartition(topic, 0, 0)])
    seen = 0
    with postgres.connect(target) as db:
        db.autocommit = False
        with db.cursor() as cursor:
            while seen < rows:
                batch = []
                for message in consumer.consume(INSERT_BATCH, 1.0):
                    if message.error() is None:
                        v = json.loads(message.value())
                        batch.append((v["id"], v["name"], v["amount"],
                                      time.strftime("%Y-%m-%d %H:%M:%S",
                                                    time.gmtime(v["created"] / 1000))))  # fmt: skip
                if batch:
                    cursor.executemany("INSERT INTO events VALUES (%s, %s, %s, %s)", batch)
                    db.commit()
                    seen += len(batch)
    consumer.close()
    return time.perf_counter() - started


def run_seaway(args: argparse.Namespace, bootstrap: str, mariadb: MariaDbServer, source: str,
               postgres: PostgresServer, target: str, root: Path) -> float:  # fmt: skip
    """The Connect copy; its seconds from the POSTs to the last row in PostgreSQL."""
    from seaway.connect.assembly import distributed_worker

    name = f"bench-jdbc-{uuid.uuid4().hex[:6]}"
    create_topics(bootstrap, [f"{name}-events"], 1)
    connect = distributed_worker(worker_props(args, bootstrap, name, root))
    try:
        connect.start()
        if connect.herder.worker.warm_up is not None:
            connect.herder.worker.warm_up.join(60)
        url = connect.rest.url
        connectors = {
            f"{name}-source": {
                "connector.class": "JdbcSourceConnector", "connection.url": mariadb.url(source),
                "mode": "incrementing", "incrementing.column.name": "id",
                "table.whitelist": "events", "topic.prefix": f"{name}-",
                "batch.max.rows": "10000", "poll.interval.ms": "200", **args.source_overrides,
            },
            f"{name}-sink": {
                "connector.class": "JdbcSinkConnector", "connection.url": postgres.url(target),
                "topics": f"{name}-events", "table.name.format": "events",
                "insert.mode": "upsert", "pk.mode": "record_value", "pk.fields": "id",
                "auto.create": "true", **args.sink_overrides,
            },
        }  # fmt: skip
        started = time.perf_counter()
        for connector, config in connectors.items():
            create_connector(url, connector, config)
        progress(f"seaway: POSTed {', '.join(connectors)}")
        while (count := postgres_rows(postgres, target)) < args.rows:
            if failed := failed_parts(url, list(connectors)):
                raise RuntimeError("; ".join(failed))
            progress(f"seaway: {count:,} rows in PostgreSQL")
            time.sleep(2)
        seconds = time.perf_counter() - started
        for summary in query_summaries(connect):  # where the micro-batches spent their time
            progress(f"seaway: {summary.describe()}")
        return seconds
    finally:
        connect.stop()


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_in_data_dir(args, "jdbc", lambda root: run_all(args, root))


def run_all(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Both copies, each into its own PostgreSQL database; the JSON report."""
    broker = SeawayBroker(root / "broker", {})
    bootstrap, broker_pid = broker.start()
    report: dict[str, Any] = {**report_head("bench/jdbc.py"), "rows": args.rows}
    try:
        with MariaDbServer() as mariadb, PostgresServer() as postgres:
            progress(f"filling MariaDB with {args.rows:,} rows")
            fill(mariadb, "shop", args.rows)
            for label, run in (
                ("plain", lambda: run_plain(bootstrap, mariadb, "shop", postgres, "plain",
                                            args.rows)),
                ("seaway", lambda: run_seaway(args, bootstrap, mariadb, "shop", postgres,
                                              "seaway", root)),
            ):  # fmt: skip
                postgres.create_database(label)
                meter = CpuMeter(client=tree_cpu(os.getpid()), broker=process_cpu(broker_pid))
                seconds = run()
                assert postgres_rows(postgres, label) == args.rows, label
                cpu = {name: us_per(used, args.rows) or 0.0 for name, used in meter.read().items()}
                report[label] = {
                    "seconds": round(seconds, 2), "rows_per_s": round(args.rows / seconds),
                    "client_cpu_us_per_row": round(cpu["client"], 1),
                    "broker_cpu_us_per_row": round(cpu["broker"], 1),
                }  # fmt: skip
                progress(f"{label}: {report[label]}")
    finally:
        broker.stop()
    report["ratio"] = round(report["plain"]["seconds"] / report["seaway"]["seconds"], 3)
    cells = [
        (label, f"{r['seconds']:.2f}", f"{r['rows_per_s']:,}",
         f"{r['client_cpu_us_per_row']:.1f}", f"{r['broker_cpu_us_per_row']:.1f}")
        for label, r in ((label, report[label]) for label in ("plain", "seaway"))
    ]  # fmt: skip
    print(render_table(("", "seconds", "rows/s", "client µs/row", "broker µs/row"), cells))
    print(f"Seaway / plain (rate): {report['ratio']:.3f}x")
    return report


if __name__ == "__main__":
    sys.exit(main())
