"""The copy source's options and the summary rows its tasks hand to Spark."""

from __future__ import annotations

import json

import pytest

from seaway.mirror.copy.source import parse_copy_options
from seaway.mirror.copy.spec import SUMMARY_FIELDS, MirrorCopySpec, RangeSummary
from seaway.mirror.metrics import MirrorMetrics, PartitionStats, record_ranges
from seaway.spark.kafka.options import KafkaOptionError

SPEC = MirrorCopySpec("A", {"orders": "A.orders"}, {"bootstrap.servers": "b:9092"}, "offsets")
OPTIONS = {"kafka.bootstrap.servers": "a:9092", "subscribe": "orders", "spec": SPEC.to_json()}


def _as_row(summary: RangeSummary) -> dict[str, object]:
    """What Spark's progress shows of a row: a dict of the summary's columns."""
    return dict(zip([name for name, _ in SUMMARY_FIELDS], summary.row(), strict=True))


def test_a_summary_survives_the_trip_through_spark() -> None:
    stats = PartitionStats(records=3, bytes=30, timed=3, age_min_ms=1, age_max_ms=9)
    summary = RangeSummary("orders", 2, 10, 20, 19, 3, 0, stats)
    assert RangeSummary.from_row(_as_row(summary)) == summary
    bare = RangeSummary("orders", 2, 10, 20, -1, 0)
    assert RangeSummary.from_row(_as_row(bare)) == bare
    assert bare.copied == [] and summary.copied == [("orders", 2, 19)]


def test_observed_summaries_record_remote_stats_and_copied_offsets() -> None:
    """What the flow reads from Spark's progress (the summary rows as JSON, as the copy query
    observes them) becomes MM2's metrics per remote partition and the copied offsets."""
    one = PartitionStats(records=2, bytes=4)
    summaries = [
        RangeSummary("orders", 0, 0, 50, 49, 50, stats=one),
        RangeSummary("orders", 0, 50, 90, 89, 40, stats=one),
        RangeSummary("orders", 1, 7, 9, -1, 0),
    ]
    rows = [json.dumps(dict(zip([n for n, _ in SUMMARY_FIELDS], s.row(), strict=True)))
            for s in summaries]  # fmt: skip
    registry = MirrorMetrics()
    record_ranges(registry, "A", "B", rows, lambda topic: f"A.{topic}")
    name = "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,"
    attributes = registry.snapshot()[name + "topic=A.orders,partition=0"]
    assert (attributes["record-count"], attributes["byte-count"]) == (4, 8)
    assert registry.copied("A", "B") == {("orders", 0): 89}


def test_copy_options_take_the_spec_and_the_kafka_source_options() -> None:
    source, spec = parse_copy_options(
        {**OPTIONS, "maxOffsetsPerTrigger": "1000", "failOnDataLoss": "false"}
    )
    assert spec == SPEC
    assert (source.subscribe, source.max_offsets_per_trigger) == (("orders",), 1000)
    assert not source.fail_on_data_loss


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({k: v for k, v in OPTIONS.items() if k != "spec"}, "Option 'spec' must be specified"),
        ({**OPTIONS, "spec": "{not json"}, "Option 'spec' is not a MirrorCopySpec"),
        ({**OPTIONS, "spec": '{"source_alias": "A"}'}, "Option 'spec' is not a MirrorCopySpec"),
        ({**OPTIONS, "subscribe": ""}, "Option 'subscribe' must list at least one topic"),
        ({**OPTIONS, "includeHeadrs": "true"}, "(?i)Unknown Kafka source option 'includeHeadrs'"),
    ],
)
def test_bad_copy_options_name_the_option(options: dict[str, str], message: str) -> None:
    with pytest.raises(KafkaOptionError, match=message):
        parse_copy_options(options)


@pytest.mark.parametrize("split", ["minPartitions", "maxRecordsPerPartition"])
@pytest.mark.parametrize("exactly_once", [False, True])
def test_a_copy_refuses_to_split_a_partition(split: str, exactly_once: bool) -> None:
    spec = MirrorCopySpec(**{**SPEC.__dict__, "exactly_once": exactly_once})
    with pytest.raises(KafkaOptionError, match="out of order"):
        parse_copy_options({**OPTIONS, "spec": spec.to_json(), split: "4"})
