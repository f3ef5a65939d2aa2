"""Source and sink option parsing: Spark's rules and messages that name the option."""

from __future__ import annotations

import pytest

from seaway.spark.kafka.options import (
    KafkaOptionError,
    parse_sink_options,
    parse_source_options,
)

BASE = {"kafka.bootstrap.servers": "h:9092"}


def test_defaults_and_kafka_passthrough() -> None:
    o = parse_source_options(
        {**BASE, "subscribe": "a, b", "kafka.security.protocol": "SSL"}, streaming=True
    )
    assert o.subscribe == ("a", "b")
    assert o.starting.kind == "latest"
    assert o.kafka_params == {"security.protocol": "SSL"}
    assert o.consumer_config()["security.protocol"] == "SSL"
    assert o.group_id.startswith("spark-kafka-source-")
    batch = parse_source_options({**BASE, "subscribe": "a"}, streaming=False)
    assert (batch.starting.kind, batch.ending.kind) == ("earliest", "latest")


@pytest.mark.parametrize(
    ("options", "streaming", "message"),
    [
        (
            {"subscribe": "a"} | {"kafka.bootstrap.servers": ""},
            True,
            "'kafka.bootstrap.servers' must be specified",
        ),
        (
            {"subscribe": "a", "startingOffsets": "latest"},
            False,
            "cannot be 'latest' for a batch query",
        ),
        (
            {"subscribe": "a", "endingOffsets": "latest"},
            True,
            "'endingOffsets' is for batch queries only",
        ),
        ({"subscribe": "a", "startingOffsets": '{"a": {"0": -7}}'}, True, "is not an offset"),
        (
            {"subscribe": "a", "startingOffsets": '{"a": [1]}'},
            True,
            "must map partitions to numbers",
        ),
        ({"assign": '{"a": "0"}'}, True, "must map to a list of partition"),
        (
            {"subscribe": "a", "failOnDataLoss": "maybe"},
            True,
            "'failOnDataLoss' must be 'true' or 'false'",
        ),
        (
            {"subscribe": "a", "kafka.enable.auto.commit": "true"},
            True,
            "does not commit any offset",
        ),
        (
            {"subscribe": "a", "startingTimestamp": "noon"},
            True,
            "'startingTimestamp' must be a timestamp",
        ),
    ],
)
def test_bad_source_options(options: dict[str, str], streaming: bool, message: str) -> None:
    with pytest.raises(KafkaOptionError, match=message.replace("[", r"\[")):
        parse_source_options({**BASE, **options}, streaming=streaming)


def test_sink_options() -> None:
    o = parse_sink_options({**BASE, "topic": " out ", "kafka.linger.ms": "50"})
    assert o.topic == "out"
    assert o.producer_config()["linger.ms"] == "50"
    with pytest.raises(KafkaOptionError, match="Unknown Kafka sink option 'subscribe'"):
        parse_sink_options({**BASE, "subscribe": "x"})
