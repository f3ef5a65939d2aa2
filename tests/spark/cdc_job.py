"""Change data capture from MariaDB straight into a Parquet table, as a user's own PySpark
job: ``readStream.format("connect")`` with Debezium's MariaDB connector (its schema history in
a file: no Kafka anywhere) into Spark's file sink. Run as its own driver process, killed with
-9 by tests.

Usage: python -m tests.spark.cdc_job CONFIG_JSON TABLE CHECKPOINT
"""

from __future__ import annotations

import json
import sys

from seaway.spark import spark_session


def main() -> None:
    config, table, checkpoint = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    spark = spark_session("local[2]", app_name="cdc-job", config={"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    changes = spark.readStream.format("connect").options(**config).load()
    query = (
        changes.selectExpr("topic", "offset", "CAST(value AS STRING) AS value")
        .writeStream.format("parquet")
        .option("path", table)
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime="300 milliseconds")
        .start()
    )
    print("started", flush=True)
    query.awaitTermination()


if __name__ == "__main__":
    main()
