"""Seaway: Kafka Connect and MirrorMaker 2 on Spark, with an embedded Kafka-compatible broker."""

__version__ = "0.1.0"
