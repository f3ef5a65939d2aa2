"""The processes of ``bench/connect_format.py``, each a driver of its own (as a user runs a
PySpark job, and a Connect worker runs apart from it):

``direct``  a user's job: ``readStream.format("connect")`` with the JDBC source into Parquet;
``kafka``   a user's job: ``readStream.format("kafka")`` of the connector's topic, the JSON
            envelope parsed with ``from_json``, into the same Parquet columns (``alone``:
            the same, run again over the full topic);
``worker``  a Seaway distributed Connect worker (its REST URL printed), until stdin closes.

A job starts its SparkSession, prints ``ready`` and waits for a ``go`` line on stdin; then it
builds and starts its query and watches its progress (``committed N`` lines) until ``rows``
rows are committed (``done T``, T its ``time.monotonic()``: system-wide, so the parent
compares it with its own clock); then it stops the query, checks the table (rows, distinct
ids, a hash of every column) and prints one JSON line: its instants, the micro-batches'
phases and the check.

Usage: python -m bench._connect_format_job ROLE CONFIG_JSON
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Final

#: The table's columns as the JDBC source types them, and as the JSON envelope's payload
#: carries them: ``created`` (Connect's Timestamp) in epoch milliseconds, ``amount``
#: (Connect's Decimal) as JsonConverter's ``decimal.format`` writes it: BASE64 (the
#: default), the unscaled value's big-endian two's-complement bytes, or NUMERIC, a number.
COLUMNS: Final = ("id", "name", "quantity", "amount", "created")
AMOUNT: Final = "DECIMAL(12,2)"
PAYLOAD_DDL: Final = (
    "payload STRUCT<id: INT, name: STRING, quantity: INT, amount: {}, created: BIGINT>"
)
#: A BASE64 decimal of scale 2 in Spark SQL: the bytes as hex, read as an unsigned number
#: (``conv``; up to 8 bytes, 18 digits), less 2^(bits) when the sign bit is set.
BASE64_DECIMAL: Final = (
    "CAST((CAST(conv(hex(unbase64({0})), 16, 10) AS DECIMAL(38,0)) - "
    "IF(substr(hex(unbase64({0})), 1, 1) >= '8', "
    "CAST(pow(2, 4 * length(hex(unbase64({0})))) AS DECIMAL(38,0)), 0)) / 100 AS {1})"
)
POLL_S: Final = 0.05


def _session(config: dict[str, Any]) -> Any:
    from seaway.spark import spark_session

    root = Path(config["root"])
    spark = spark_session(
        config["master"],
        app_name=f"bench-connect-format-{config['role']}",
        config={
            "spark.ui.enabled": "false",
            "spark.local.dir": str(root / "spark-local"),
            "spark.sql.warehouse.dir": str(root / "spark-warehouse"),
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    if config.get("warm_up"):  # the Python workers started, as a Connect worker has them
        from seaway.spark.warmup import warm_up_in_background

        thread = warm_up_in_background(spark, write=False)
        if thread is not None:
            thread.join(120)
    return spark


def _frame(spark: Any, config: dict[str, Any]) -> Any:
    """The user's DataFrame of the table's rows, as the role reads them."""
    from pyspark.sql import functions as F

    if config["role"] == "direct":
        rows = spark.readStream.format("connect").options(**config["connector"]).load()
        return rows.select("value.*")
    raw = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", config["bootstrap"])
        .option("subscribe", config["topic"])
        .option("startingOffsets", "earliest")
        .options(**config.get("kafka_options", {}))
        .load()
    )
    numeric = config["decimal_format"] == "NUMERIC"
    ddl = PAYLOAD_DDL.format(AMOUNT if numeric else "STRING")
    parsed = raw.select(F.from_json(F.col("value").cast("string"), ddl).payload.alias("p"))
    amount = F.col("p.amount") if numeric else F.expr(BASE64_DECIMAL.format("p.amount", AMOUNT))
    return parsed.select(
        "p.id", "p.name", "p.quantity", amount.alias("amount"),
        F.timestamp_millis("p.created").alias("created"),
    )  # fmt: skip


def _phases(progress: list[dict[str, Any]]) -> dict[str, Any]:
    """The micro-batches that read rows: how many, their rows, and their ``durationMs``
    phases summed (seconds)."""
    batches = [p for p in progress if p.get("numInputRows")]
    phases: dict[str, float] = {}
    for batch in batches:
        for phase, ms in (batch.get("durationMs") or {}).items():
            phases[phase] = phases.get(phase, 0.0) + ms / 1000
    return {
        "batches": len(batches),
        "rows": sum(int(p["numInputRows"]) for p in batches),
        "largest_batch_rows": max((int(p["numInputRows"]) for p in batches), default=0),
        "phases_s": {k: round(v, 2) for k, v in sorted(phases.items(), key=lambda kv: -kv[1])},
    }


def _check(spark: Any, table: str) -> dict[str, Any]:
    """What the table holds: rows, distinct ids, id range and a hash of every column (the
    same for two tables with the same rows, whatever their order and files)."""
    from pyspark.sql import functions as F

    rows = spark.read.parquet(table)
    got = rows.agg(
        F.count(F.lit(1)).alias("rows"),
        F.count_distinct("id").alias("ids"),
        F.min("id").alias("min_id"),
        F.max("id").alias("max_id"),
        F.sum(F.xxhash64(*COLUMNS).cast("decimal(38,0)")).cast("string").alias("hash"),
    ).collect()[0]
    return got.asDict()  # type: ignore[no-any-return]


def run_job(config: dict[str, Any]) -> dict[str, Any]:
    """A ``direct`` or ``kafka`` job, from ``go`` until ``rows`` rows are committed."""
    spark = _session(config)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")
    started = time.monotonic()
    frame = _frame(spark, config)
    query = (
        frame.writeStream.format("parquet")
        .option("path", config["table"])
        .option("checkpointLocation", config["checkpoint"])
        .trigger(processingTime=config["trigger"])
        .start()
    )
    progress: dict[int, dict[str, Any]] = {}
    committed, first_row = 0, 0.0
    try:
        while committed < config["rows"]:
            if (error := query.exception()) is not None:
                raise RuntimeError(f"the query failed: {error}")
            for report in query.recentProgress:
                batch = json.loads(report.json)
                progress.setdefault(int(batch["batchId"]), batch)
            now = sum(int(p.get("numInputRows") or 0) for p in progress.values())
            if now != committed:
                committed = now
                first_row = first_row or time.monotonic()
                print(f"committed {committed}", flush=True)
            time.sleep(POLL_S)
        done = time.monotonic()
        print(f"done {done}", flush=True)
    finally:
        query.stop()
    for report in query.recentProgress:  # a batch the last poll did not see
        batch = json.loads(report.json)
        progress.setdefault(int(batch["batchId"]), batch)
    ordered = [progress[k] for k in sorted(progress)]
    return {
        "started": started,
        "first_row": first_row or None,
        "done": done,
        "progress": _phases(ordered),
        "check": _check(spark, config["table"]),
    }


def run_worker(config: dict[str, Any]) -> dict[str, Any]:
    """A distributed Connect worker until stdin closes; its queries' micro-batches (a
    connector's query counts a row per task and batch, not records)."""
    from bench._connect_worker import worker_logging, worker_props
    from seaway.connect.assembly import distributed_worker

    root = Path(config["root"])
    args = argparse.Namespace(
        converter="json", master=config["master"], worker_overrides=config["worker_overrides"]
    )
    props = worker_props(args, config["bootstrap"], config["name"], root)
    with worker_logging(root / "worker.log") as problems:
        connect = distributed_worker(props)
        try:
            connect.start()
            if connect.herder.worker.warm_up is not None:
                connect.herder.worker.warm_up.join(60)
            print(json.dumps({"url": connect.rest.url}), flush=True)
            sys.stdin.read()  # until the parent closes it
            summaries = [
                {
                    "name": str(query.name),
                    **_phases([json.loads(p.json) for p in query.recentProgress]),
                }
                for query in connect.herder.worker.spark.streams.active
            ]
        finally:
            connect.stop()
    return {"queries": summaries, "problems": problems.records[-20:]}


def main() -> None:
    config = json.loads(sys.argv[2])
    config["role"] = sys.argv[1]
    run = run_worker if config["role"] == "worker" else run_job
    print(json.dumps(run(config), default=str), flush=True)


if __name__ == "__main__":
    main()
