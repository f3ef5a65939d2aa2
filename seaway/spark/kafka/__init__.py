"""Spark's Kafka source and sink as a Python Data Source, over librdkafka."""

from seaway.spark.kafka.options import KafkaOptionError
from seaway.spark.kafka.source import SOURCE_NAME, KafkaDataSource

__all__ = ["SOURCE_NAME", "KafkaDataSource", "KafkaOptionError"]
