"""Helpers for Spark tests: run a streaming query to completion, read a topic back."""

from __future__ import annotations

import json
from typing import Any

from confluent_kafka import Consumer, TopicPartition
from pyspark.sql import DataFrame, SparkSession

from tests.broker.clients import quiet


def run_caught_up(writer: Any) -> None:
    """Start a ``writeStream`` on a 200 ms trigger, wait until it has processed all its
    source has, and stop it."""
    query = writer.trigger(processingTime="200 milliseconds").start()
    try:
        query.processAllAvailable()
    finally:
        query.stop()


def run_available_now(writer: Any) -> Any:
    """Start a ``writeStream`` with trigger(availableNow=True) and wait for it to finish."""
    query = writer.trigger(availableNow=True).start()
    query.awaitTermination(120)
    assert not query.isActive, "query did not finish in 120 s"
    if query.exception() is not None:
        raise AssertionError(str(query.exception()))
    return query


def kafka_df(spark: SparkSession, bootstrap: str, **options: str) -> DataFrame:
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def kafka_stream(spark: SparkSession, bootstrap: str, topic: str) -> DataFrame:
    """*topic*'s records from the earliest, as a stream (Seaway's Kafka source)."""
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
    )


def end_offsets(bootstrap: str, topic: str, partitions: int) -> list[int]:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "ends"}))
    try:
        return [
            consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1]
            for p in range(partitions)
        ]
    finally:
        consumer.close()


def progress_rows(query: Any) -> list[int]:
    return [p["numInputRows"] for p in query.recentProgress]


def offsets_json(value: Any) -> dict[str, dict[str, int]]:
    return json.loads(value) if isinstance(value, str) else value
