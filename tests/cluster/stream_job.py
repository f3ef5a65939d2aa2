"""An exactly-once streaming copy on a standalone cluster, as its own driver process (the
tests kill Spark workers under it). Runs until killed.

Usage: python -m tests.cluster.stream_job MASTER BOOTSTRAP SOURCE SINK CHECKPOINT
"""

from __future__ import annotations

import sys

from seaway.spark import spark_session


def main() -> None:
    master, bootstrap, source, sink, checkpoint = sys.argv[1:6]
    spark = spark_session(
        master,
        app_name="seaway-cluster-stream-job",
        config={"spark.ui.enabled": "false", "spark.cores.max": "2"},
    )
    spark.sparkContext.setLogLevel("WARN")
    query = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", 400)
        .load()
        .selectExpr("key", "value", "partition")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("exactlyOnce", "true")
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    print("started", flush=True)
    query.awaitTermination()


if __name__ == "__main__":
    main()
