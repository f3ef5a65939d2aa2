"""A Spark Kafka read and an exactly-once copy on a standalone cluster, as its own driver
process (one SparkContext per process; the suite's shared session is local).

Usage: python -m tests.cluster.kafka_job MASTER BOOTSTRAP SOURCE SINK CHECKPOINT RESULT
Writes to RESULT (not stdout, which the JVM shares: a first run's class-data-sharing dump
logs there) a JSON document: rows read, the tasks each executor ran (from the driver's
monitoring REST API), and the interpreter and Seaway each executor's Python workers ran.
"""

from __future__ import annotations

import json
import sys
import urllib.request

from seaway.spark import spark_session


def tasks_by_executor(spark: object) -> dict[str, int]:
    sc = spark.sparkContext  # type: ignore[attr-defined]
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/allexecutors"
    with urllib.request.urlopen(url, timeout=60) as response:  # the UI is slow under load
        return {e["id"]: e["totalTasks"] for e in json.loads(response.read())}


def _where(_: int) -> tuple[str, str]:
    import sys

    import seaway

    return sys.executable, seaway.__file__


def main() -> None:
    master, bootstrap, source, sink, checkpoint, result_path = sys.argv[1:7]
    spark = spark_session(
        master,
        app_name="seaway-cluster-kafka-job",
        config={"spark.ui.enabled": "true", "spark.ui.port": "0", "spark.cores.max": "2"},
    )
    spark.sparkContext.setLogLevel("WARN")
    read = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .load()
        .count()
    )
    (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .load()
        .selectExpr("key", "value")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("exactlyOnce", "true")
        .option("checkpointLocation", checkpoint)
        .trigger(availableNow=True)
        .start()
        .awaitTermination()
    )
    workers = spark.sparkContext.parallelize(range(4), 4).map(_where).distinct().collect()
    result = {"read": read, "tasks": tasks_by_executor(spark), "workers": sorted(workers)}
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
    spark.stop()


if __name__ == "__main__":
    main()
