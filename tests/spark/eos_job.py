"""An exactly-once streaming copy run as its own driver process (killed with -9 by tests).

Usage: python -m tests.spark.eos_job BOOTSTRAP SOURCE SINK CHECKPOINT MODE [MASTER]
MODE: "topic" copies the Kafka topic SOURCE; "files" copies the text files in directory
SOURCE (one record per line). Runs until killed, or to the end with "...-available-now".
MASTER: the Spark master (default local[2]; the cluster tests give a spark:// one).
"""

from __future__ import annotations

import sys

from seaway.spark import spark_session


def main() -> None:
    bootstrap, source, sink, checkpoint, mode = sys.argv[1:6]
    master = sys.argv[6] if len(sys.argv) > 6 else "local[2]"
    spark = spark_session(master, app_name="eos-job", config={"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    if mode.startswith("topic"):
        stream = (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", source)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", 200)
            .load()
            .selectExpr("key", "value", "partition")
        )
    else:
        stream = (
            spark.readStream.format("text")
            .option("maxFilesPerTrigger", 1)
            .load(source)
            .selectExpr("value", "CAST(substring_index(value, ':', 1) AS INT) % 3 AS partition")
        )
    writer = (
        stream.writeStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", sink)
        .option("exactlyOnce", "true")
        .option("checkpointLocation", checkpoint)
    )
    if mode.endswith("available-now"):
        writer.trigger(availableNow=True).start().awaitTermination()
        return
    query = writer.trigger(processingTime="100 milliseconds").start()
    print("started", flush=True)
    query.awaitTermination()


if __name__ == "__main__":
    main()
