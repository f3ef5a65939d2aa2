"""The executor-side reader, without Spark: exact ranges in bounded Arrow batches."""

from __future__ import annotations

from seaway.spark.kafka.options import parse_source_options
from seaway.spark.kafka.planner import OffsetRange
from seaway.spark.kafka.reader import BATCH_ROWS, read_range
from tests.broker.clients import create_topic, produce


def test_read_range_yields_exactly_the_range_in_bounded_batches(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    produce(bootstrap, topic_name, [(None, str(i).encode(), 0) for i in range(25_000)])
    options = parse_source_options(
        {"kafka.bootstrap.servers": bootstrap, "subscribe": topic_name}, streaming=False
    )
    batches = list(read_range(options, OffsetRange(topic_name, 0, 1_234, 23_456)))
    assert all(0 < b.num_rows <= BATCH_ROWS for b in batches)
    offsets = [o for b in batches for o in b.column("offset").to_pylist()]
    assert offsets == list(range(1_234, 23_456))
    values = [v for b in batches for v in b.column("value").to_pylist()]
    assert values == [str(i).encode() for i in range(1_234, 23_456)]
