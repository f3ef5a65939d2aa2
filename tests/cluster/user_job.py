"""A user's own PySpark job: ``import seaway.spark``, then its own ``SparkSession.builder``
(no ``seaway.spark.spark_session()``) streams a Kafka topic with ``format("kafka")``.

Usage: python -m tests.cluster.user_job MASTER BOOTSTRAP TOPIC RESULT
Writes to RESULT the rows read and where each Python worker found Seaway.
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

import seaway.spark  # noqa: F401  (the import is all the job does with Seaway)


def _seaway_file(_: int) -> str:
    import seaway

    return str(seaway.__file__)


def main() -> None:
    master, bootstrap, topic, result_path = sys.argv[1:5]
    spark = SparkSession.builder.master(master).config("spark.cores.max", "2").getOrCreate()
    (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .writeStream.format("memory")
        .queryName("records")
        .trigger(availableNow=True)
        .start()
        .awaitTermination()
    )
    files = spark.sparkContext.parallelize(range(2), 2).map(_seaway_file).distinct().collect()
    result = {"read": spark.table("records").count(), "seaway": sorted(files)}
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
    spark.stop()


if __name__ == "__main__":
    main()
