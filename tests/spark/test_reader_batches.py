"""The executor-side reader, without Spark: exact ranges in bounded Arrow batches, and the
batch client's fetcher giving the same rows as the librdkafka fetcher (its messages
encoded again as batches; both decoded in C) for every codec, headers, nulls,
LogAppendTime and aborted transactions."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest
from confluent_kafka import Producer

from seaway.kafka.ranges import OffsetRange
from seaway.spark.kafka.options import parse_source_options
from seaway.spark.kafka.reader import BATCH_ROWS, read_range
from tests.broker.clients import create_topic, produce, quiet


@pytest.mark.parametrize("batch_client", [True, False], ids=["batch-path", "record-path"])
def test_read_range_yields_exactly_the_range_in_bounded_batches(
    bootstrap: str, topic_name: str, batch_client: bool
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    produce(bootstrap, topic_name, [(None, str(i).encode(), 0) for i in range(25_000)])
    options = parse_source_options(
        {"kafka.bootstrap.servers": bootstrap, "subscribe": topic_name}, streaming=False
    )
    r = OffsetRange(topic_name, 0, 1_234, 23_456)
    batches = list(read_range(options, r, batch_client=batch_client))
    assert all(0 < b.num_rows <= BATCH_ROWS for b in batches)
    offsets = [o for b in batches for o in b.column("offset").to_pylist()]
    assert offsets == list(range(1_234, 23_456))
    values = [v for b in batches for v in b.column("value").to_pylist()]
    assert values == [str(i).encode() for i in range(1_234, 23_456)]


def _fill(bootstrap: str, topic: str, codec: str) -> int:
    """Records with and without keys, values and headers, committed and aborted
    transactions among them; the number of records a read_committed reader sees."""
    rng = random.Random(codec)
    plain = Producer(quiet({"bootstrap.servers": bootstrap, "compression.type": codec}))
    txn = Producer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "compression.type": codec,
                "transactional.id": f"{topic}-txn",
            }
        )
    )
    txn.init_transactions(30)
    visible = 0
    for round_ in range(6):
        for i in range(500):
            headers = [(f"h{j}", None if rng.random() < 0.2 else rng.randbytes(4))
                       for j in range(rng.randrange(0, 3))]  # fmt: skip
            plain.produce(
                topic,
                key=None if rng.random() < 0.3 else b"k%d" % i,
                value=None if rng.random() < 0.05 else rng.randbytes(rng.randrange(0, 200)),
                headers=headers or None,
                timestamp=1_700_000_000_000 + round_ * 1000 + i,
            )
        plain.flush(30)
        visible += 500
        txn.begin_transaction()
        for i in range(100):
            txn.produce(topic, key=b"t%d" % i, value=b"round %d" % round_)
        txn.flush(30)  # in the log before the marker, aborted or not
        if round_ % 2:
            txn.abort_transaction(30)
        else:
            txn.commit_transaction(30)
            visible += 100
    return visible


@pytest.mark.parametrize(
    ("codec", "timestamps"),
    [(codec, "CreateTime") for codec in ("none", "gzip", "snappy", "lz4", "zstd")]
    + [("none", "LogAppendTime"), ("zstd", "LogAppendTime")],
)
def test_batch_path_and_record_path_give_the_same_rows(
    bootstrap: str, topic_name: str, codec: str, timestamps: str
) -> None:
    # The records carry 2023 timestamps: a segment of only those is past the default
    # retention (7 days) and the broker deletes it, as Kafka does, unless retention is off.
    config = {"message.timestamp.type": timestamps, "retention.ms": "-1"}
    create_topic(bootstrap, topic_name, partitions=1, config=config)
    visible = _fill(bootstrap, topic_name, codec)
    options = parse_source_options(
        {
            "kafka.bootstrap.servers": bootstrap,
            "kafka.isolation.level": "read_committed",
            "subscribe": topic_name,
            "includeHeaders": "true",
        },
        streaming=False,
    )
    end = 6 * 600 + 6  # records and one marker per transaction
    whole = OffsetRange(topic_name, 0, 0, end)
    fast = pa.Table.from_batches(list(read_range(options, whole, batch_client=True)))
    slow = pa.Table.from_batches(list(read_range(options, whole, batch_client=False)))
    assert fast.num_rows == visible
    assert fast.equals(slow), "the two read paths disagree"
    assert fast.column("key").null_count > 0 and fast.column("headers").null_count > 0
    kinds = set(fast.column("timestampType").to_pylist())
    assert kinds == {1 if timestamps == "LogAppendTime" else 0}
    part = OffsetRange(topic_name, 0, 777, 2_345)  # edges inside batches
    fast = pa.Table.from_batches(list(read_range(options, part, batch_client=True)))
    slow = pa.Table.from_batches(list(read_range(options, part, batch_client=False)))
    assert fast.equals(slow)
    assert fast.column("offset")[0].as_py() >= 777 and fast.column("offset")[-1].as_py() < 2_345
