"""A user's own PySpark job on a cluster: ``import seaway.spark``, its own
``SparkSession.builder``, and a JDBC table read with ``format("connect")`` (typed rows) then
written with ``format("connect")`` into the JDBC sink of another database, in executors.

Usage: python -m tests.cluster.connect_format_job MASTER SOURCE_URL TARGET_URL RESULT
Writes to RESULT the rows read, the sum of their ids, where each Python worker found Seaway,
and why the FileStream source (bound to the driver's host) was refused.
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import seaway.spark  # noqa: F401  (registers format("connect"), ships Seaway)


def _seaway_file(_: int) -> str:  # defined here: the executors have no tests package
    import seaway

    return str(seaway.__file__)


def main() -> None:
    master, source_url, target_url, result_path = sys.argv[1:5]
    spark = SparkSession.builder.master(master).config("spark.cores.max", "2").getOrCreate()
    rows = (
        spark.read.format("connect")
        .option("connector.class", "JdbcSourceConnector")
        .option("connection.url", source_url)
        .option("mode", "incrementing")
        .option("incrementing.column.name", "id")
        .option("table.whitelist", "parts")
        .option("topic.prefix", "cluster-")
        .load()
        .select("value")
        .cache()
    )
    (
        rows.repartition(2)
        .write.format("connect")
        .option("connector.class", "JdbcSinkConnector")
        .option("connection.url", target_url)
        .option("topics", "parts")
        .option("auto.create", "true")
        .option("insert.mode", "upsert")
        .option("pk.mode", "record_value")
        .option("pk.fields", "id")
        .mode("append")
        .save()
    )
    files = spark.sparkContext.parallelize(range(2), 2).map(_seaway_file).distinct().collect()
    try:  # a connector bound to the driver's host cannot run on the cluster's executors
        spark.read.format("connect").options(
            **{"connector.class": "FileStreamSource", "file": __file__, "topic": "t"}
        ).load()
        refused = ""
    except Exception as error:
        refused = str(error)
    result = {
        "read": rows.count(),
        "ids": rows.selectExpr("sum(value.id)").first()[0],
        "seaway": sorted(files),
        "file_source_refused": refused,
    }
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
    spark.stop()


if __name__ == "__main__":
    main()
