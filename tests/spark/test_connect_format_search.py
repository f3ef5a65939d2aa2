"""A Kafka topic read with Seaway's Kafka source and written to the search sink with
``format("connect")`` (the book's Kafka -> Elasticsearch leg in a user's own PySpark job):
documents named topic+partition+offset, a restart from the checkpoint adding only the new
records, and the same sink from ``foreachBatch``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from pyspark.sql import SparkSession

from seaway.connect.spark_format import foreach_batch
from tests.broker.clients import create_topic
from tests.search import SearchServer
from tests.spark.helpers import kafka_stream, run_caught_up

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def search() -> Iterator[SearchServer]:
    with SearchServer() as server:
        yield server


def _produce(bootstrap: str, topic: str, first: int, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(first, first + count):
        value = {"user": f"u{i}", "amount": i}
        producer.produce(topic, key=f"k{i}".encode(), value=json.dumps(value).encode())
    assert producer.flush(30) == 0


def _documents(search: SearchServer, index: str) -> dict[str, Any]:
    search.request("POST", f"/{index}/_refresh")
    status, body = search.request("GET", f"/{index}/_search?size=1000")
    assert status == 200, body
    return {hit["_id"]: hit["_source"] for hit in body["hits"]["hits"]}


def _sink(search: SearchServer, topic: str) -> dict[str, str]:
    return {
        "connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
        "connection.url": search.url, "topics": topic, "key.ignore": "true",
        "schema.ignore": "true",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    }  # fmt: skip


def test_kafka_into_the_search_sink_once_across_a_restart(
    spark: SparkSession, bootstrap: str, topic_name: str, search: SearchServer, tmp_path: Path
) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    _produce(bootstrap, topic_name, 0, 60)
    records = kafka_stream(spark, bootstrap, topic_name)

    writer = (
        records.writeStream.format("connect")
        .options(**_sink(search, topic_name))
        .option("checkpointLocation", str(tmp_path / "ckpt"))
    )
    run_caught_up(writer)
    assert len(_documents(search, topic_name)) == 60
    _produce(bootstrap, topic_name, 60, 40)
    run_caught_up(writer)
    documents = _documents(search, topic_name)
    assert sorted(d["amount"] for d in documents.values()) == list(range(100))
    offsets = {json.dumps(d, sort_keys=True): key for key, d in documents.items()}
    rows = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic_name)
        .load()
        .collect()
    )
    for row in rows:  # each document is named by the record it came from
        name = offsets[json.dumps(json.loads(row.value), sort_keys=True)]
        assert name == f"{topic_name}+{row.partition}+{row.offset}"


def test_the_search_sink_from_foreach_batch(
    spark: SparkSession, bootstrap: str, topic_name: str, search: SearchServer, tmp_path: Path
) -> None:
    create_topic(bootstrap, topic_name)
    _produce(bootstrap, topic_name, 0, 25)
    run_caught_up(
        kafka_stream(spark, bootstrap, topic_name)
        .writeStream.foreachBatch(foreach_batch(**_sink(search, topic_name)))
        .option("checkpointLocation", str(tmp_path / "ckpt"))
    )
    assert sorted(d["amount"] for d in _documents(search, topic_name).values()) == list(range(25))
