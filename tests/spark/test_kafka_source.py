"""Seaway's Kafka source in real Spark (local[2]) against the embedded broker."""

from __future__ import annotations

import datetime
import json
import re
import time

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewPartitions
from pyspark.sql import SparkSession

from seaway.spark import jvm_kafka_available
from seaway.spark.kafka.metrics import offsets_behind_latest
from tests.broker.clients import create_topic, produce, quiet
from tests.spark.helpers import kafka_df, progress_rows, run_available_now

pytestmark = pytest.mark.timeout(300)


def fill(bootstrap: str, topic: str, partitions: int, per_partition: int, **kw: object) -> None:
    create_topic(bootstrap, topic, partitions=partitions)
    produce(
        bootstrap,
        topic,
        [
            (f"k{p}-{i}".encode(), f"v{p}-{i}".encode(), p)
            for i in range(per_partition)
            for p in range(partitions)
        ],
    )


def test_format_kafka_resolves_to_seaway_when_spark_has_no_kafka(
    spark: SparkSession, bootstrap: str, topic_name: str
) -> None:
    assert not jvm_kafka_available(spark)
    fill(bootstrap, topic_name, 2, 5)
    df = kafka_df(spark, bootstrap, subscribe=topic_name)
    assert df.count() == 10
    assert df.schema.simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,"
        "timestamp:timestamp,timestampType:int>"
    )
    same = (
        spark.read.format("seaway-kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic_name)
        .load()
    )
    assert sorted(same.collect()) == sorted(df.collect())


def test_batch_read_values_headers_and_timestamps(
    spark: SparkSession, bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    producer.produce(
        topic_name,
        key=b"a",
        value=b"1",
        timestamp=1_700_000_000_123,
        headers=[("h", b"x"), ("h", None)],
        partition=0,
    )
    producer.produce(topic_name, key=None, value=None, timestamp=1_700_000_000_456, partition=0)
    assert producer.flush(10) == 0
    rows = (
        kafka_df(spark, bootstrap, subscribe=topic_name, includeHeaders="true")
        .orderBy("offset")
        .collect()
    )
    assert [(r.key, r.value, r.offset, r.timestampType) for r in rows] == [
        (b"a", b"1", 0, 0),
        (None, None, 1, 0),
    ]
    assert rows[0].timestamp == datetime.datetime(2023, 11, 14, 22, 13, 20, 123000)
    assert [(h.key, h.value) for h in rows[0].headers] == [("h", b"x"), ("h", None)]
    assert rows[1].headers is None


def test_batch_offsets_json_timestamps_and_assign(
    spark: SparkSession, bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    for i in range(10):
        for p in range(2):
            producer.produce(
                topic_name, value=f"{p}:{i}".encode(), partition=p, timestamp=1_000_000 + i * 1000
            )
    assert producer.flush(10) == 0

    def offsets(**options: str) -> list[tuple[int, int]]:
        df = kafka_df(spark, bootstrap, **options)
        return sorted((r.partition, r.offset) for r in df.select("partition", "offset").collect())

    got = offsets(
        subscribe=topic_name,
        startingOffsets=json.dumps({topic_name: {"0": 3, "1": -2}}),
        endingOffsets=json.dumps({topic_name: {"0": 5, "1": -1}}),
    )
    assert got == [(0, 3), (0, 4)] + [(1, i) for i in range(10)]
    got = offsets(
        assign=json.dumps({topic_name: [1]}),
        startingOffsetsByTimestamp=json.dumps({topic_name: {"1": 1_007_000}}),
    )
    assert got == [(1, 7), (1, 8), (1, 9)]
    got = offsets(
        subscribe=topic_name,
        startingTimestamp="1008500",
        endingOffsetsByTimestamp=json.dumps(
            {topic_name: {"0": 1_009_000, "1": 9_999_999}}
        ),  # 0: [9, 9)
    )
    assert got == [(1, 9)]  # partition 1: no timestamp that late, so up to the latest
    assert (
        kafka_df(
            spark, bootstrap, subscribePattern=topic_name[:-3] + ".*", minPartitions="6"
        ).rdd.getNumPartitions()
        >= 6
    )


def test_stream_respects_max_offsets_per_trigger_and_reports_lag(
    spark: SparkSession, bootstrap: str, topic_name: str, checkpoint: str, tmp_path
) -> None:
    fill(bootstrap, topic_name, 3, 100)
    stream = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic_name)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", 120)
        .load()
    )
    out = tmp_path / "out"
    query = run_available_now(
        stream.selectExpr("partition", "offset")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", checkpoint)
    )
    rows = [r for r in progress_rows(query) if r]
    assert sum(rows) == 300
    assert max(rows) <= 120 and len(rows) >= 3
    first = query.recentProgress[0]["sources"][0]
    lag = offsets_behind_latest(first)
    assert lag is not None and lag["maxOffsetsBehindLatest"] > 0
    last = query.lastProgress["sources"][0]
    assert offsets_behind_latest(last)["maxOffsetsBehindLatest"] == 0
    result = spark.read.parquet(str(out)).collect()
    assert sorted((r.partition, r.offset) for r in result) == [
        (p, o) for p in range(3) for o in range(100)
    ]


def test_stream_picks_up_added_partitions_and_new_topics(
    spark: SparkSession, bootstrap: str, topic_name: str, checkpoint: str
) -> None:
    fill(bootstrap, topic_name, 1, 10)
    query = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribePattern", topic_name + "(-more)?")
        .option("startingOffsets", "earliest")
        .load()
        .selectExpr("topic", "partition", "offset")
        .writeStream.format("memory")
        .queryName("added_" + topic_name.replace("-", "_").replace(".", "_"))
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime="500 milliseconds")
        .start()
    )
    table = "added_" + topic_name.replace("-", "_").replace(".", "_")
    try:

        def seen() -> set[tuple[str, int, int]]:
            return {(r.topic, r.partition, r.offset) for r in spark.table(table).collect()}

        deadline = time.monotonic() + 60
        while len(seen()) < 10:
            assert time.monotonic() < deadline, "first records never arrived"
            time.sleep(0.3)
        admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
        admin.create_partitions([NewPartitions(topic_name, 3)])[topic_name].result(10)
        produce(bootstrap, topic_name, [(None, b"new", p) for p in (1, 2) for _ in range(4)])
        fill(bootstrap, topic_name + "-more", 2, 3)
        expected = (
            {(topic_name, 0, o) for o in range(10)}
            | {(topic_name, p, o) for p in (1, 2) for o in range(4)}
            | {(topic_name + "-more", p, o) for p in (0, 1) for o in range(3)}
        )
        while seen() != expected:
            assert time.monotonic() < deadline, f"missing {expected - seen()}"
            time.sleep(0.3)
    finally:
        query.stop()


def test_starting_latest_reads_only_new_records(
    spark: SparkSession, bootstrap: str, topic_name: str, checkpoint: str
) -> None:
    fill(bootstrap, topic_name, 2, 5)
    table = "latest_" + topic_name.replace("-", "_").replace(".", "_")
    query = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic_name)
        .load()
        .selectExpr("CAST(value AS STRING) AS v")
        .writeStream.format("memory")
        .queryName(table)
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime="300 milliseconds")
        .start()
    )
    try:
        deadline = time.monotonic() + 60
        while not query.recentProgress:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        produce(bootstrap, topic_name, [(None, b"fresh", 0), (None, b"fresher", 1)])
        while len(spark.table(table).collect()) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        time.sleep(1)
        assert sorted(r.v for r in spark.table(table).collect()) == ["fresh", "fresher"]
    finally:
        query.stop()


def test_fail_on_data_loss(spark: SparkSession, bootstrap: str, topic_name: str, tmp_path) -> None:
    fill(bootstrap, topic_name, 1, 20)

    def stream(fail: str, name: str):
        return (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", topic_name)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", 5)
            .option("failOnDataLoss", fail)
            .load()
            .selectExpr("offset")
            .writeStream.format("parquet")
            .option("path", str(tmp_path / name))
            .option("checkpointLocation", str(tmp_path / f"{name}-ckpt"))
        )

    def first_batch_only(name: str, fail: str) -> None:
        query = stream(fail, name).trigger(processingTime="1 hour").start()
        deadline = time.monotonic() + 60
        while not query.recentProgress:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        query.stop()

    # A first batch reads offsets 0-4; then the records before 12 are deleted.
    first_batch_only("strict", "true")
    first_batch_only("lenient", "false")
    from confluent_kafka import TopicPartition

    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    tp = TopicPartition(topic_name, 0, 12)
    admin.delete_records([tp])[tp].result(10)
    with pytest.raises(Exception, match="failOnDataLoss"):
        run_available_now(stream("true", "strict"))
    run_available_now(stream("false", "lenient"))
    offsets = sorted(r.offset for r in spark.read.parquet(str(tmp_path / "lenient")).collect())
    assert offsets == list(range(5)) + list(range(12, 20))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"subscribe": "t", "bogusOption": "1"}, "Unknown Kafka source option 'bogusoption'"),
        ({"subscribe": "t", "assign": '{"t":[0]}'}, "Exactly one of the options"),
        (
            {"subscribe": "t", "startingOffsets": '{"t": {"0": 1'},
            "Option 'startingOffsets' is not valid JSON",
        ),
        (
            {"subscribe": "t", "kafka.auto.offset.reset": "earliest"},
            "'kafka.auto.offset.reset' is not supported",
        ),
        (
            {"subscribe": "t", "maxOffsetsPerTrigger": "-4"},
            "'maxOffsetsPerTrigger' must be a positive integer",
        ),
        ({"subscribePattern": "(["}, "'subscribePattern' is not a valid regular expression"),
    ],
)
def test_bad_options_name_the_option(
    spark: SparkSession, bootstrap: str, options: dict[str, str], message: str
) -> None:
    with pytest.raises(Exception, match=re.escape(message)) as exc:
        kafka_df(spark, bootstrap, **options).count()
    assert "Py4JJavaError" not in str(exc.type)


def test_missing_topic_and_unreachable_broker(
    spark: SparkSession, bootstrap: str, topic_name: str
) -> None:
    with pytest.raises(
        Exception, match=f"Topic\\(s\\) {topic_name} named by option 'subscribe' do not exist"
    ):
        kafka_df(
            spark, bootstrap, subscribe=topic_name, **{"kafka.allow.auto.create.topics": "false"}
        ).count()
    with pytest.raises(
        Exception,
        match=re.escape("Cannot reach the Kafka cluster at kafka.bootstrap.servers='127.0.0.1:1'"),
    ):
        kafka_df(
            spark,
            "127.0.0.1:1",
            subscribe="x",
            **{"kafka.default.api.timeout.ms": "3000"},
        ).count()


def test_many_partitions_are_planned_from_batched_offset_lookups(
    spark: SparkSession, bootstrap: str, topic_name: str
) -> None:
    """Above a few partitions the driver lists offsets in batches; the ranges stay exact."""
    from confluent_kafka import TopicPartition

    fill(bootstrap, topic_name, 8, 5)
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    tp = TopicPartition(topic_name, 3, 2)
    admin.delete_records([tp])[tp].result(10)
    rows = kafka_df(spark, bootstrap, subscribe=topic_name).select("partition", "offset").collect()
    expected = [(p, o) for p in range(8) for o in range(5) if not (p == 3 and o < 2)]
    assert sorted((r.partition, r.offset) for r in rows) == expected
