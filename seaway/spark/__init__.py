"""Seaway on Spark: the Kafka source and sink, and the session that knows them.

Importing this package makes ``format("kafka")`` resolve to Seaway's source whenever
Spark's own Kafka connector is absent, so existing PySpark code runs unchanged:

>>> import seaway.spark                                            # doctest: +SKIP
>>> spark = seaway.spark.spark_session()                           # or any SparkSession
>>> df = spark.readStream.format("kafka").option("subscribe", "t").load()
"""

from seaway.spark.alias import install_kafka_alias, jvm_kafka_available, register
from seaway.spark.kafka import SOURCE_NAME, KafkaDataSource, KafkaOptionError
from seaway.spark.session import JavaMissing, spark_session
from seaway.spark.shipping import NotShipped, install_context_hook

install_kafka_alias()
install_context_hook()  # sessions the user's own code starts get Seaway's Python workers

__all__ = [
    "SOURCE_NAME",
    "JavaMissing",
    "KafkaDataSource",
    "KafkaOptionError",
    "NotShipped",
    "install_context_hook",
    "install_kafka_alias",
    "jvm_kafka_available",
    "register",
    "spark_session",
]
