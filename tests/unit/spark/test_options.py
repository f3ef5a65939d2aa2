"""Source and sink option parsing: Spark's rules and messages that name the option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from seaway.spark.kafka.options import (
    SINK_CONFIG_DEF,
    SOURCE_CONFIG_DEF,
    KafkaOptionError,
    options_table,
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
    assert (o.poll_timeout_ms, o.max_trigger_delay_ms, o.min_offsets_per_trigger) == (
        120_000,
        900_000,
        None,
    )
    batch = parse_source_options({**BASE, "subscribe": "a"}, streaming=False)
    assert (batch.starting.kind, batch.ending.kind) == ("earliest", "latest")


def test_default_api_timeout_bounds_the_driver_lookups_and_is_not_passed_on() -> None:
    assert parse_source_options({**BASE, "subscribe": "a"}, streaming=True).api_timeout_s == 30
    o = parse_source_options(
        {**BASE, "subscribe": "a", "kafka.default.api.timeout.ms": "2500"}, streaming=True
    )
    assert o.api_timeout_s == 2.5
    assert "default.api.timeout.ms" not in o.consumer_config()
    for bad in ("0", "-5", "soon"):
        with pytest.raises(
            KafkaOptionError, match=re.escape("'kafka.default.api.timeout.ms' must be a")
        ):
            parse_source_options(
                {**BASE, "subscribe": "a", "kafka.default.api.timeout.ms": bad}, streaming=True
            )


def test_names_are_case_insensitive_and_values_typed() -> None:
    o = parse_source_options(
        {
            **BASE,
            "SUBSCRIBEPATTERN": "a.*",
            "minoffsetspertrigger": "10",
            "MaxTriggerDelay": "2M",
            "failondataloss": " FALSE ",
            "kafka.group.id": "g",
        },
        streaming=True,
    )
    assert (o.subscribe_pattern, o.min_offsets_per_trigger, o.max_trigger_delay_ms) == (
        "a.*",
        10,
        120_000,
    )
    assert (o.fail_on_data_loss, o.group_id) == (False, "g")
    delays = {"250": 250, "1500us": 1, "30s": 30_000, "1h": 3_600_000, "1d": 86_400_000}
    for raw, ms in delays.items():
        opts = parse_source_options(
            {**BASE, "assign": '{"a":[0]}', "maxTriggerDelay": raw}, streaming=True
        )
        assert opts.max_trigger_delay_ms == ms


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
        ({"subscribe": "a", "minPartitions": "0"}, True, "'minPartitions' must be a positive"),
        (
            {"subscribe": "a", "maxTriggerDelay": "soon"},
            True,
            "'maxTriggerDelay' must be a duration such as '15m'",
        ),
        (
            {"subscribe": "a", "minOffsetsPerTrigger": "9", "maxOffsetsPerTrigger": "5"},
            True,
            "minOffsetsPerTrigger (9) is higher than the maxOffsetsPerTrigger (5)",
        ),
        (
            {"subscribe": "a", "startingOffsetsByTimestampStrategy": "never"},
            True,
            "must be 'error' or 'latest', got 'never'",
        ),
    ],
)
def test_bad_source_options(options: dict[str, str], streaming: bool, message: str) -> None:
    with pytest.raises(KafkaOptionError, match=re.escape(message)):
        parse_source_options({**BASE, **options}, streaming=streaming)


def test_sink_options() -> None:
    o = parse_sink_options({**BASE, "topic": " out ", "kafka.linger.ms": "50"})
    assert o.topic == "out"
    assert o.producer_config()["linger.ms"] == "50"
    with pytest.raises(KafkaOptionError, match="Unknown Kafka sink option 'subscribe'"):
        parse_sink_options({**BASE, "subscribe": "x"})
    with pytest.raises(KafkaOptionError, match="'transactionalIdPrefix' must be non-empty"):
        parse_sink_options({**BASE, "transactionalIdPrefix": " "})


def test_docs_list_the_declared_options() -> None:
    docs = (Path(__file__).parents[3] / "docs" / "spark.md").read_text()
    assert options_table(SOURCE_CONFIG_DEF) in docs
    assert options_table(SINK_CONFIG_DEF) in docs
