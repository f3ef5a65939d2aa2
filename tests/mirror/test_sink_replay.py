"""The exactly-once mirror sink, without Spark: a task attempt repeated after its
transaction committed (what a Spark task retry does) writes nothing twice, and an attempt
that fails mid-way leaves nothing visible."""

from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa
import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.mirror.sink import MirrorSinkSpec, copy_in_transaction
from seaway.spark.kafka.schema import arrow_schema
from tests.broker.clients import quiet


def _batch(topic: str, partition: int, offsets: range) -> pa.RecordBatch:
    n = len(offsets)
    return pa.RecordBatch.from_pydict(
        {
            "key": [f"k{o}".encode() for o in offsets],
            "value": [f"v{o}".encode() for o in offsets],
            "topic": [topic] * n,
            "partition": [partition] * n,
            "offset": list(offsets),
            "timestamp": [1_700_000_000_000_000 + o for o in offsets],
            "timestampType": [0] * n,
            "headers": [[{"key": "h", "value": b"x"}]] * n,
        },
        schema=arrow_schema(True),
    )


def _committed_values(bootstrap: str, topic: str) -> list[bytes]:
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"read-{uuid.uuid4().hex[:6]}",
                "isolation.level": "read_committed",
                "enable.partition.eof": True,
            }
        )
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    values: list[bytes] = []
    try:
        while True:
            messages = consumer.consume(500, 5.0)
            if not messages:
                break
            values += [m.value() for m in messages if m.error() is None]
            if any(m.error() is not None and m.error().code() == -191 for m in messages):
                break
    finally:
        consumer.close()
    return values


@pytest.fixture
def spec(cluster_b: Any) -> MirrorSinkSpec:
    tag = uuid.uuid4().hex[:6]
    admin = AdminClient({"bootstrap.servers": cluster_b.bootstrap_servers})
    for name, config in ((f"R.src-{tag}", {}), (f"mm2-offsets.R{tag}.internal",
                                                 {"cleanup.policy": "compact"})):  # fmt: skip
        admin.create_topics([NewTopic(name, 1, 1, config=config)])[name].result(30)
    return MirrorSinkSpec(
        source_alias=f"R{tag}",
        remote_topics={f"src-{tag}": f"R.src-{tag}"},
        target_producer={"bootstrap.servers": cluster_b.bootstrap_servers},
        offsets_topic=f"mm2-offsets.R{tag}.internal",
        exactly_once=True,
        target_alias="B",
    )


def test_a_repeated_attempt_writes_nothing_twice(spec: MirrorSinkSpec, cluster_b: Any) -> None:
    source = next(iter(spec.remote_topics))
    remote = spec.remote_topics[source]
    first = copy_in_transaction(spec, iter([_batch(source, 0, range(0, 100))]))
    assert first.records == 100 and first.copied == [(source, 0, 99)]
    again = copy_in_transaction(spec, iter([_batch(source, 0, range(0, 100))]))
    assert again.records == 0  # every row below the committed marker: skipped
    overlap = copy_in_transaction(spec, iter([_batch(source, 0, range(50, 150))]))
    assert overlap.records == 50 and overlap.copied == [(source, 0, 149)]
    values = _committed_values(cluster_b.bootstrap_servers, remote)
    assert values == [f"v{o}".encode() for o in range(150)]


def test_a_failed_attempt_leaves_nothing_visible(spec: MirrorSinkSpec, cluster_b: Any) -> None:
    source = next(iter(spec.remote_topics))
    remote = spec.remote_topics[source]
    copy_in_transaction(spec, iter([_batch(source, 0, range(0, 10))]))

    def failing() -> Any:
        yield _batch(source, 0, range(10, 20))
        raise RuntimeError("the executor died mid-task")

    with pytest.raises(RuntimeError, match="mid-task"):
        copy_in_transaction(spec, failing())
    copy_in_transaction(spec, iter([_batch(source, 0, range(10, 30))]))  # the retry
    values = _committed_values(cluster_b.bootstrap_servers, remote)
    assert values == [f"v{o}".encode() for o in range(30)]
