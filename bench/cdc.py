"""Debezium-compatible CDC: MariaDB's binlog into Kafka by Seaway's MariaDB connector on a
Connect worker, next to a plain Python script reading the same binlog with the same library.

    .venv/bin/python -m bench.cdc                        # 50,000 changes, 20 s of lag
    .venv/bin/python -m bench.cdc --changes 1000000 --lag-seconds 60
    .venv/bin/python -m bench.cdc --lag-seconds 0        # throughput only
    .venv/bin/python -m bench.cdc --changes 0 --rate 1000  # lag only, at 1,000 changes/s
    .venv/bin/python -m bench.cdc --source-config max.batch.size=20000

What is measured, against one Seaway broker subprocess and a MariaDB server with its binlog
on (row format, full images and metadata; ``tests/databases.py``), both started for the run:

1. Throughput. A ``customers(id INT PK, email VARCHAR(64), balance DECIMAL(10,2),
   updated_at DATETIME(3))`` table; ``io.debezium.connector.mariadb.MariaDbConnector`` is
   created on the empty table (``snapshot.mode=no_data``, Debezium's other defaults), streams
   a sentinel row, and is paused once its offset is flushed. Then ``--changes`` row changes
   go into the binlog in transactions of 100 (60 inserts, 30 updates, 10 deletes;
   ``bench/_cdc_workload.py``): 1.1 Kafka records per change (a tombstone after each delete).
   * Plain reference (``bench/_cdc_plain.py``, its own process): pymysqlreplication's
     ``BinLogStreamReader`` from the GTID position before the load, each row change made into
     Debezium's JSON key and envelope (schemas included, the schema part serialised once) and
     produced with confluent-kafka (acks=all, linger.ms=5, as Seaway's source writer).
   * Seaway: the connector resumed, reading from its stored offset, the same position.
   Each is timed from its start (the script's launch, the resume PUT) until its topic holds
   every record (end offset polled every 0.1 s). The first records of both topics are then
   compared: equal but for the envelopes' ``ts_*`` fields.
2. Lag (``--lag-seconds``; ``bench/_cdc_lag.py``, its own process): a fresh table written at a
   steady ``--rate`` changes/s while the pipeline streams it; each record's lag is its
   receive time at a consumer minus the time its transaction's COMMIT returned. The script
   follows the binlog, then a second connector does.

Reported: seconds, records/s, Seaway's rate over the script's (and from the first record on),
CPU µs per record of the worker (this process tree: driver, Spark JVM, Python workers; not the
broker's or MariaDB's) and of the script, of MariaDB (the binlog dump) and of the broker, peak
RSS; lag p50/p99/max with the CPU in % of a core at the steady rate.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import _cdc_workload as workload
from bench._brokers import SeawayBroker
from bench._cdc_runs import Plain, run_plain, run_probe, same_records
from bench._cdc_seaway import (
    CdcWorker,
    WorkerRss,
    connector_config,
    cpu_without,
    data_topic,
    topic_end,
    until_streaming,
    wait_for_records,
)
from bench._report import (
    CpuMeter,
    add_pairs,
    arg_parser,
    process_cpu,
    render_table,
    report_head,
    run_in_data_dir,
)
from bench._util import MB, progress
from bench._workload import create_topics
from tests.databases import MariaDbServer


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = arg_parser("cdc", __doc__)
    add = parser.add_argument
    add("--changes", type=int, default=50_000,
        help="row changes streamed (default 50,000; 0: the lag run only)")  # fmt: skip
    add("--lag-seconds", type=float, default=20.0, help="lag run per side (0: none)")
    add("--rate", type=float, default=5000.0, help="changes/s of the lag run (default 5,000)")
    add("--master", default="local[2]", help="the worker's spark.master")
    add("--stall-timeout", type=float, default=180.0, help="give up after this long idle")
    add_pairs(parser, "--source-config", "extra connector config (repeatable)", "source_overrides")
    add_pairs(parser, "--worker-config", "extra worker property (repeatable)", "worker_overrides")
    args = parser.parse_args(argv)
    args.converter = "json"
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_in_data_dir(args, "cdc", lambda root: run_all(args, root))


def mariadb_pid(db: MariaDbServer) -> int:
    assert db.process is not None
    return db.process.pid


def per_record(used: dict[str, float], records: int) -> dict[str, float]:
    return {name: round(seconds / records * 1e6, 1) for name, seconds in used.items()}


def throughput(args: argparse.Namespace, bootstrap: str, broker_pid: int, db: MariaDbServer,
               worker: CdcWorker, root: Path, report: dict[str, Any]) -> None:  # fmt: skip
    """Part 1: the loaded binlog through the script, then through the connector."""
    database, prefix, name = "shop", "seaway", "cdc-shop"
    topic = data_topic(prefix, database, workload.TABLE)
    workload.create_table(db, database)
    worker.create(name, connector_config(db.port, bootstrap, prefix, database,
                                         args.source_overrides), topic)  # fmt: skip
    seconds = until_streaming(worker, name, db, database, topic, args.stall_timeout)
    flush_s = float(worker.props["offset.flush.interval.ms"]) / 1000
    progress(f"seaway: the connector streams ({seconds:.1f} s after the POST); pausing it "
             f"once its offsets are flushed ({flush_s:g} s)")  # fmt: skip
    time.sleep(flush_s + 1)
    worker.pause(name)
    gtid = workload.gtid_position(db)
    transactions = workload.transactions_for(args.changes)
    records = workload.records_of(transactions)
    progress(f"writing {transactions * workload.CHANGES_PER_TX:,} changes into the binlog")
    load_s = workload.load(
        db, database, transactions, lambda k: progress(f"  {k * workload.CHANGES_PER_TX:,} changes")
    )
    report.update(changes=transactions * workload.CHANGES_PER_TX, records=records,
                  load_changes_per_s=round(transactions * workload.CHANGES_PER_TX / load_s),
                  binlog_mb=round(workload.binlog_bytes(db) / MB, 1))  # fmt: skip
    progress(f"loaded in {load_s:.1f} s; binlog {report['binlog_mb']} MB; {records:,} records")

    plain_topic = f"plain-{gtid.replace('-', '_')}"
    create_topics(bootstrap, [plain_topic], 1)
    side = CpuMeter(mariadb=process_cpu(mariadb_pid(db)), broker=process_cpu(broker_pid))
    plain = run_plain({"port": db.port, "gtid": gtid, "database": database,
                       "bootstrap": bootstrap, "topic": plain_topic, "prefix": prefix},
                      records, bootstrap, root / "plain.log", args.stall_timeout)  # fmt: skip
    used = {"process": plain.pop("cpu_seconds"), **side.read()}
    report["plain"] = {**plain, "cpu_us_per_record": per_record(used, records)}
    progress(f"plain: {plain['seconds']:.2f} s")

    base = topic_end(bootstrap, topic)
    rss = WorkerRss([broker_pid, mariadb_pid(db)])
    meter = CpuMeter(
        process=cpu_without(broker_pid, mariadb_pid(db)),
        mariadb=process_cpu(mariadb_pid(db)),
        broker=process_cpu(broker_pid),
    )
    started = time.perf_counter()
    worker.resume(name)
    seconds, first = wait_for_records(
        bootstrap,
        topic,
        base + records,
        started,
        lambda: worker.check(name),
        args.stall_timeout,
        "seaway",
    )
    used = meter.read()
    peaks = rss.stop()
    report["seaway"] = {"records": topic_end(bootstrap, topic) - base, "seconds": seconds,
                        "first_record_seconds": first, "peak_rss": peaks,
                        "cpu_us_per_record": per_record(used, records)}  # fmt: skip
    report["seaway"]["micro_batches"] = phases = worker.batch_phases(name)
    progress(f"seaway: {seconds:.2f} s; micro-batches: {phases}")
    worker.delete(name)
    compared = same_records(bootstrap, (topic, base), plain_topic, 1100)
    progress(f"the first {compared:,} records of both topics are the same")


def lag(args: argparse.Namespace, bootstrap: str, broker_pid: int, db: MariaDbServer,
        worker: CdcWorker, root: Path, report: dict[str, Any]) -> None:  # fmt: skip
    """Part 2: commit -> record lag at a steady rate, the script's then the connector's."""
    probe = {"port": db.port, "bootstrap": bootstrap, "rate": args.rate,
             "seconds": args.lag_seconds,
             "drain-timeout": max(120.0, 4 * args.lag_seconds)}  # fmt: skip
    mariadb = mariadb_pid(db)
    workload.create_table(db, "lag_plain")
    topic = "plain-lag"
    create_topics(bootstrap, [topic], 1)
    plain = Plain({"port": db.port, "gtid": workload.gtid_position(db), "database": "lag_plain",
                   "bootstrap": bootstrap, "topic": topic, "prefix": "plain"},
                  root / "plain.log")  # fmt: skip
    try:
        result = run_probe({**probe, "database": "lag_plain", "topic": topic},
                           lambda _: {"process": process_cpu(plain.pid),
                                      "mariadb": process_cpu(mariadb)},
                           root / "lag.log")  # fmt: skip
    finally:
        plain.result(terminate=True)
    report.setdefault("plain", {})["lag"] = result
    progress(f"plain lag: {result}")

    workload.create_table(db, "lag_seaway")
    prefix, name = "seaway_lag", "cdc-lag"
    topic = data_topic(prefix, "lag_seaway", workload.TABLE)
    worker.create(name, connector_config(db.port, bootstrap, prefix, "lag_seaway",
                                         args.source_overrides), topic)  # fmt: skip
    until_streaming(worker, name, db, "lag_seaway", topic, args.stall_timeout)
    result = run_probe({**probe, "database": "lag_seaway", "topic": topic},
                       lambda pid: {"process": cpu_without(broker_pid, mariadb, pid),
                                    "mariadb": process_cpu(mariadb)},
                       root / "lag.log")  # fmt: skip
    worker.check(name)
    worker.delete(name)
    report.setdefault("seaway", {})["lag"] = result
    progress(f"seaway lag: {result}")


def run_all(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Both parts; the printed report and the JSON document."""
    report: dict[str, Any] = {**report_head("bench/cdc.py"), "errors": []}
    broker = SeawayBroker(root / "broker", {})
    bootstrap, broker_pid = broker.start()
    try:
        with MariaDbServer(binlog=True) as db, CdcWorker(args, bootstrap, root) as worker:
            if args.changes > 0:
                throughput(args, bootstrap, broker_pid, db, worker, root, report)
            if args.lag_seconds > 0:
                lag(args, bootstrap, broker_pid, db, worker, root, report)
            report["log_problems"] = worker.problems[:20]
    finally:
        broker.stop()
    print_report(args, report)
    return report


def print_report(args: argparse.Namespace, report: dict[str, Any]) -> None:
    plain, seaway = report["plain"], report["seaway"]
    if "seconds" in seaway:
        print_throughput(report)
    if "lag" in seaway:
        print_lag(args, plain["lag"], seaway["lag"])


def print_throughput(report: dict[str, Any]) -> None:
    records = report["records"]
    plain, seaway = report["plain"], report["seaway"]
    for side in (plain, seaway):
        side["records_per_s"] = round(records / side["seconds"])
        flowing = side["seconds"] - (side["first_record_seconds"] or 0)
        side["streaming_records_per_s"] = round(records / flowing) if flowing > 0 else None
    report["ratio"] = round(plain["seconds"] / seaway["seconds"], 3)
    report["streaming_ratio"] = round(
        seaway["streaming_records_per_s"] / plain["streaming_records_per_s"], 3
    )
    peaks = seaway["peak_rss"]
    rss = {"plain": f"{plain['peak_rss'] / MB:,.0f}",
           "seaway": " + ".join(f"{peaks[r] / MB:,.0f}" for r in ("driver", "jvm",
                                                                   "python worker"))}  # fmt: skip
    cells = [
        (label, f"{s['seconds']:.2f}", f"{s['first_record_seconds'] or 0:.2f}",
         f"{s['records_per_s']:,}", f"{s['streaming_records_per_s'] or 0:,}",
         f"{s['cpu_us_per_record']['process']:.1f}", f"{s['cpu_us_per_record']['mariadb']:.1f}",
         f"{s['cpu_us_per_record']['broker']:.1f}", rss[label])
        for label, s in (("plain", plain), ("seaway", seaway))
    ]  # fmt: skip
    print(f"{report['changes']:,} changes -> {records:,} records "
          f"(binlog {report['binlog_mb']} MB)")  # fmt: skip
    print(render_table(("", "seconds", "first rec s", "records/s", "from first/s", "proc µs/rec",
                        "MariaDB µs/rec", "broker µs/rec", "peak RSS MB"), cells))  # fmt: skip
    print("(Seaway's RSS: driver + JVM + Python worker)")
    print(f"Seaway / plain (rate): {report['ratio']:.3f}x; from the first record on: "
          f"{report['streaming_ratio']:.3f}x")  # fmt: skip


def print_lag(args: argparse.Namespace, plain: dict[str, Any], seaway: dict[str, Any]) -> None:
    cells = [
        (label, f"{lag['changes_per_s']:,}", f"{lag['p50_ms']}", f"{lag['p99_ms']}",
         f"{lag['max_ms']}", f"{lag['records']:,}/{lag['expected']:,}",
         f"{lag['cpu_percent'].get('process', 0)}", f"{lag['cpu_percent'].get('mariadb', 0)}")
        for label, lag in (("plain", plain), ("seaway", seaway))
    ]  # fmt: skip
    print(f"\nLag, commit -> record received, at {args.rate:,.0f} changes/s for "
          f"{args.lag_seconds:g} s")  # fmt: skip
    print(render_table(("", "changes/s", "p50 ms", "p99 ms", "max ms", "records",
                        "proc CPU %", "MariaDB CPU %"), cells))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
