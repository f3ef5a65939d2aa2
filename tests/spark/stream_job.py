"""A streaming job run as its own driver process by the restart tests (killed with -9).

Usage: python -m tests.spark.stream_job BOOTSTRAP TOPIC OUT_DIR CHECKPOINT (forever|available-now)
"""

from __future__ import annotations

import sys

from seaway.spark import spark_session


def main() -> None:
    bootstrap, topic, out, checkpoint, mode = sys.argv[1:6]
    spark = spark_session("local[2]", app_name="restart-job", config={"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    stream = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", 50)
        .load()
        .selectExpr("partition", "offset", "CAST(value AS STRING) AS value")
    )
    writer = (
        stream.writeStream.format("json")
        .option("path", out)
        .option("checkpointLocation", checkpoint)
    )
    if mode == "available-now":
        writer.trigger(availableNow=True).start().awaitTermination()
    else:
        query = writer.trigger(processingTime="100 milliseconds").start()
        print("started", flush=True)
        query.awaitTermination()


if __name__ == "__main__":
    main()
