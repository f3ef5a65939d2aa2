"""The copy of offset ranges, without Spark. Exactly once, through Seaway's batch client
and through librdkafka (forced; the clusters whose SASL mechanism only it speaks): an
attempt repeated after its transaction committed (what a Spark task retry does) writes
nothing twice, and an attempt that fails mid-way leaves nothing visible. At least once: a
task stores its MM2 offsets only for what was acknowledged."""

from __future__ import annotations

import functools
import time
import uuid
from dataclasses import replace
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.loop import copy_range, copy_ranges
from seaway.mirror.copy.spec import MirrorCopySpec
from seaway.mirror.formats import OffsetSync
from seaway.mirror.lag import stored_offsets
from seaway.spark.kafka.options import SourceOptions, parse_source_options
from tests.broker.clients import quiet, read_partition

pytestmark = pytest.mark.waits

RECORDS = 150
BIG = 120  # the record the remote topic first refuses (over its max.message.bytes)

# Recent record timestamps: the broker's 7-day retention would delete older ones.
BASE_MS = (int(time.time()) - 3600) * 1000


def _messages(bootstrap: str, topic: str, committed: bool = True) -> list[Any]:
    return read_partition(bootstrap, topic, committed=committed)


def _records(bootstrap: str, topic: str, committed: bool = True) -> dict[int, bytes]:
    """Offset -> value of every record."""
    return {m.offset(): m.value() for m in _messages(bootstrap, topic, committed)}


def _values(bootstrap: str, topic: str, committed: bool = True) -> list[bytes]:
    return list(_records(bootstrap, topic, committed).values())


def _value(offset: int) -> bytes:
    return b"x" * 3000 if offset == BIG else f"v{offset}".encode()


@pytest.fixture
def flow(cluster_a: Any, cluster_b: Any) -> tuple[MirrorCopySpec, SourceOptions]:
    """A source topic of RECORDS records on A, its remote topic (max.message.bytes 2000) on
    B, and the spec and source options of an exactly-once copy between them."""
    tag = uuid.uuid4().hex[:6]
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    source, remote, alias = f"src-{tag}", f"R{tag}.src-{tag}", f"R{tag}"
    source_admin = AdminClient(quiet({"bootstrap.servers": a}))
    source_admin.create_topics([NewTopic(source, 1, 1)])[source].result(30)
    admin = AdminClient(quiet({"bootstrap.servers": b}))
    for name, partitions, config in (
        (remote, 1, {"max.message.bytes": "2000"}),
        (f"mm2-offsets.{alias}.internal", 25, {"cleanup.policy": "compact"}),
        (f"syncs-{tag}", 1, {"cleanup.policy": "compact"}),
    ):
        admin.create_topics([NewTopic(name, partitions, 1, config=config)])[name].result(30)
    producer = Producer(quiet({"bootstrap.servers": a}))
    for offset in range(RECORDS):
        producer.produce(source, _value(offset), f"k{offset}".encode(), 0,
                         timestamp=BASE_MS + offset, headers=[("h", b"x")])  # fmt: skip
    assert producer.flush(30) == 0
    target = {"bootstrap.servers": b, "linger.ms": "0", "batch.size": "1000"}
    spec = MirrorCopySpec(
        source_alias=alias,
        remote_topics={source: remote},
        target_producer=target,
        offsets_topic=f"mm2-offsets.{alias}.internal",
        offset_syncs_topic=f"syncs-{tag}",
        offset_syncs_producer={"bootstrap.servers": b},
        exactly_once=True,
        target_alias="B",
    )
    options = parse_source_options(
        {"kafka.bootstrap.servers": a, "subscribe": source, "kafka.isolation.level":
         "read_committed"}, streaming=True
    )  # fmt: skip
    return spec, options


@pytest.fixture(params=["batches", "records"])
def copy(request: pytest.FixtureRequest) -> Any:
    """The copy of one range: through the batch client, or through librdkafka (the record
    path of the clusters whose SASL mechanism the batch client does not speak)."""
    return functools.partial(copy_range, librdkafka=request.param == "records")


def _allow_big_records(bootstrap: str, topic: str) -> None:
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    change = ConfigResource(
        ConfigResource.Type.TOPIC,
        topic,
        incremental_configs=[
            ConfigEntry("max.message.bytes", "10000", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    admin.incremental_alter_configs([change])[change].result(10)


def test_a_repeated_attempt_writes_nothing_twice(
    flow: tuple[MirrorCopySpec, SourceOptions], cluster_b: Any, copy: Any
) -> None:
    spec, options = flow
    source, remote = next(iter(spec.remote_topics.items()))
    b = cluster_b.bootstrap_servers
    _allow_big_records(b, remote)
    first = copy(spec, options, OffsetRange(source, 0, 0, 100))
    assert (first.records, first.copied, first.skipped) == (100, [(source, 0, 99)], 0)
    again = copy(spec, options, OffsetRange(source, 0, 0, 100))
    assert (again.records, again.copied, again.skipped) == (0, [], 100)  # all committed
    overlap = copy(spec, options, OffsetRange(source, 0, 50, 150))
    assert (overlap.records, overlap.copied, overlap.skipped) == (50, [(source, 0, 149)], 50)
    assert _values(b, remote) == [_value(o) for o in range(RECORDS)]
    # The MM2 offset went with each transaction; the offset syncs followed each commit.
    assert stored_offsets(b, spec.source_alias, topic=spec.offsets_topic) == {(source, 0): 149}
    assert spec.offset_syncs_topic is not None
    syncs = [
        OffsetSync.from_record(m.key(), m.value())
        for m in _messages(b, spec.offset_syncs_topic, committed=False)
    ]
    # Each sync points at the copy of its record (commit markers shift the offsets).
    copy = _records(b, remote)
    assert syncs and all(copy[s.downstream_offset] == _value(s.upstream_offset) for s in syncs)
    assert syncs[-1].upstream_offset == 149  # the delayed sync promoted at the end


def test_a_failed_attempt_leaves_nothing_visible(
    flow: tuple[MirrorCopySpec, SourceOptions], cluster_b: Any, copy: Any
) -> None:
    """The failure is real: record BIG is over the remote topic's max.message.bytes, so its
    delivery fails after records before it were written; the transaction is aborted.
    Raising the limit, the retry of the same range writes everything once."""
    spec, options = flow
    source, remote = next(iter(spec.remote_topics.items()))
    b = cluster_b.bootstrap_servers
    copy(spec, options, OffsetRange(source, 0, 0, 10))
    with pytest.raises(RuntimeError, match=rf"Mirroring {source}\[0\] failed"):
        copy(spec, options, OffsetRange(source, 0, 10, RECORDS))
    written = _values(b, remote, committed=False)
    assert len(written) >= 60, "the failed attempt should have written (uncommitted) records"
    assert _values(b, remote) == [_value(o) for o in range(10)]
    _allow_big_records(b, remote)
    retry = copy(spec, options, OffsetRange(source, 0, 10, RECORDS))
    assert (retry.records, retry.copied) == (RECORDS - 10, [(source, 0, RECORDS - 1)])
    assert _values(b, remote) == [_value(o) for o in range(RECORDS)]


def test_at_least_once_a_task_stores_the_offsets_of_what_it_copied(
    flow: tuple[MirrorCopySpec, SourceOptions], cluster_b: Any
) -> None:
    """A task's ranges store their MM2 offsets themselves once all are acknowledged (no
    commit step after the micro-batch); a task that fails stores none, so the restart copies
    its ranges again and misses nothing."""
    eos, options = flow
    spec = replace(eos, exactly_once=False)
    source, remote = next(iter(spec.remote_topics.items()))
    b = cluster_b.bootstrap_servers

    def stored() -> dict[tuple[str, int], int]:
        return stored_offsets(b, spec.source_alias, topic=spec.offsets_topic)

    first = copy_ranges(spec, [(options, OffsetRange(source, 0, 0, 10))])
    assert [s.copied for s in first] == [[(source, 0, 9)]]
    assert stored() == {(source, 0): 9}
    with pytest.raises(RuntimeError, match=rf"Mirroring {source}\[0\] failed"):
        copy_ranges(spec, [(options, OffsetRange(source, 0, 10, RECORDS))])
    assert stored() == {(source, 0): 9}  # records before BIG were written, not stored
    _allow_big_records(b, remote)
    copy_ranges(spec, [(options, OffsetRange(source, 0, 10, RECORDS))])
    assert stored() == {(source, 0): RECORDS - 1}
    assert set(_values(b, remote)) == {_value(o) for o in range(RECORDS)}
