"""Which path moves rows between a database and Python faster: the Python drivers the JDBC
connectors use, or Spark's own JDBC data source (JVM) with Debian's JDBC drivers?

    .venv/bin/python -m bench.jdbc_paths [--rows 200000]

Needs Debian's ``libmariadb-java`` and ``libpostgresql-jdbc-java``. For the same MariaDB
table of ``--rows`` rows (``bench.jdbc``'s ``events``) and a PostgreSQL table like it:

* read: PyMySQL streaming the rows into Python tuples (what the source task does), against
  ``spark.read.format("jdbc")`` with the MariaDB driver collected into Python as Arrow
  (``toArrow()``: the JVM path must hand the rows to Python for Connect's converters), in
  one partition and in two id ranges read in parallel ("x2");
* write: psycopg ``executemany`` in transactions of 3,000 (what the sink task does),
  against ``DataFrame.write.format("jdbc")`` with the PostgreSQL driver from an Arrow table
  made in Python (``batchsize`` 3,000).

Spark's session start is not counted; each Spark figure is the best of two runs (the first
pays the JVM's class loading). Reported: seconds and rows/s per path, and the ratio.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench._report import arg_parser, render_table, report_head, run_in_data_dir
from bench._util import progress
from bench.jdbc import SINK_TABLE, fill
from tests.databases import MariaDbServer, PostgresServer

JARS = "/usr/share/java/mariadb-java-client.jar:/usr/share/java/postgresql.jar"


def timed(run: Callable[[], Any], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = arg_parser("jdbc_paths", __doc__)
    parser.add_argument("--rows", type=int, default=200_000, help="default 200,000")
    args = parser.parse_args(argv)
    return run_in_data_dir(args, "jdbc-paths", lambda root: measure(args.rows, root))


def measure(count: int, root: Path) -> dict[str, Any]:
    """Seconds of every path for *count* rows; the JSON report."""
    import pyarrow as pa
    import pymysql.cursors
    from pyspark.sql import SparkSession

    with MariaDbServer() as mariadb, PostgresServer() as postgres:
        progress(f"filling MariaDB with {count:,} rows")
        fill(mariadb, "shop", count)
        spark = (
            SparkSession.builder.master("local[2]").appName("jdbc-paths")
            .config("spark.driver.extraClassPath", JARS).config("spark.ui.enabled", "false")
            .config("spark.local.dir", str(root))
            .getOrCreate()
        )  # fmt: skip
        rows: list[tuple[Any, ...]] = []

        def python_read() -> None:
            rows.clear()
            with mariadb.connect("shop") as db, db.cursor(pymysql.cursors.SSCursor) as cursor:
                cursor.execute("SELECT * FROM events ORDER BY id")
                rows.extend(cursor)

        def spark_read(partitions: int) -> None:
            reader = (
                spark.read.format("jdbc").option("url", mariadb.url("shop"))
                .option("driver", "org.mariadb.jdbc.Driver").option("dbtable", "events")
                .option("fetchsize", 10_000)
            )  # fmt: skip
            if partitions > 1:  # id ranges read in parallel
                reader = reader.options(partitionColumn="id", lowerBound=1,
                                        upperBound=count, numPartitions=partitions)  # fmt: skip
            assert reader.load().toArrow().num_rows == count

        results = {
            "python read": timed(python_read),
            "spark read": timed(lambda: spark_read(1), 2),
            "spark read x2": timed(lambda: spark_read(2), 2),
        }
        assert len(rows) == count
        table = pa.table({
            "id": [r[0] for r in rows], "name": [r[1] for r in rows],
            "amount": pa.array([r[2] for r in rows], pa.decimal128(12, 2)),
            "created": [r[3] for r in rows]})  # fmt: skip
        postgres.create_database("python")
        postgres.create_database("spark")
        with postgres.connect("python") as db:
            db.execute(SINK_TABLE)

        def python_write() -> None:
            with postgres.connect("python") as db, db.cursor() as cursor:
                for start in range(0, len(rows), 3000):
                    with db.transaction():
                        cursor.executemany("INSERT INTO events VALUES (%s, %s, %s, %s)",
                                           rows[start:start + 3000])  # fmt: skip

        def spark_write() -> None:
            (spark.createDataFrame(table).write.format("jdbc").mode("overwrite")
             .option("url", postgres.url("spark")).option("driver", "org.postgresql.Driver")
             .option("dbtable", "events").option("batchsize", 3000).save())  # fmt: skip

        results["python write"] = timed(python_write)
        results["spark write"] = timed(spark_write, 2)
        spark.stop()
    cells = [(k, f"{v:.2f}", f"{count / v:,.0f}") for k, v in results.items()]
    print(render_table(("path", "seconds", "rows/s"), cells))
    read = results["python read"] / min(results["spark read"], results["spark read x2"])
    write = results["python write"] / results["spark write"]
    print(f"read: Spark / Python = {read:.2f}x; write: Spark / Python = {write:.2f}x")
    return {
        **report_head("bench/jdbc_paths.py"),
        "rows": count,
        "seconds": results,
        "read_ratio": read,
        "write_ratio": write,
    }


if __name__ == "__main__":
    sys.exit(main())
