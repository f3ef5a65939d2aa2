"""A following copy task (``seaway.flow.follow.ms``), without Spark: it copies what arrives
after its planned ranges until its deadline, stores MM2's offsets of all of it, records
its progress for this run only, and the next micro-batch's plan starts after it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from dataclasses import replace
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.ledger import copied_up_to, progress, request_stop, stop_requested
from seaway.mirror.copy.loop import copy_ranges
from seaway.mirror.copy.source import MirrorCopyReader, parse_copy_options
from seaway.mirror.copy.spec import MirrorCopySpec
from seaway.mirror.formats import OffsetSync
from seaway.mirror.lag import stored_offsets
from seaway.spark.kafka.stream import KafkaRangePartition
from tests.broker.clients import quiet, read_partition

pytestmark = pytest.mark.waits

PARTITIONS = 2
FIRST = 10  # records per partition before the task starts; as many arrive while it follows


def _produce(bootstrap: str, topic: str, start: int) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 0}))
    for partition in range(PARTITIONS):
        for i in range(start, start + FIRST):
            producer.produce(topic, f"p{partition}-{i}".encode(), partition=partition)
    assert producer.flush(30) == 0


@pytest.fixture
def following(cluster_a: Any, cluster_b: Any) -> tuple[MirrorCopySpec, dict[str, str]]:
    """A topic of FIRST records per partition on A, its remote topic and offsets topic on
    B, and the options of a copy that follows for 2 s."""
    tag = uuid.uuid4().hex[:6]
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic, alias = f"src-{tag}", f"F{tag}"
    source_admin = AdminClient(quiet({"bootstrap.servers": a}))
    source_admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    admin = AdminClient(quiet({"bootstrap.servers": b}))
    for name, partitions, config in (
        (f"{alias}.{topic}", PARTITIONS, {}),
        (f"mm2-offsets.{alias}.internal", 25, {"cleanup.policy": "compact"}),
    ):
        admin.create_topics([NewTopic(name, partitions, 1, config=config)])[name].result(30)
    _produce(a, topic, 0)
    spec = MirrorCopySpec(
        source_alias=alias,
        remote_topics={topic: f"{alias}.{topic}"},
        target_producer={"bootstrap.servers": b},
        offsets_topic=f"mm2-offsets.{alias}.internal",
        target_alias="B",
        follow_ms=2000,
        run_id="run-1",
    )
    options = {"kafka.bootstrap.servers": a, "subscribe": topic, "spec": spec.to_json()}
    return spec, options


def test_a_following_task_copies_what_arrives_after_its_ranges(
    following: tuple[MirrorCopySpec, dict[str, str]], cluster_a: Any, cluster_b: Any
) -> None:
    spec, raw = following
    source, spec_again = parse_copy_options(raw)
    assert spec_again == spec
    ((topic, remote),) = spec.remote_topics.items()
    b = cluster_b.bootstrap_servers
    later = threading.Timer(0.5, _produce, (cluster_a.bootstrap_servers, topic, FIRST))
    later.start()
    ranges = [(source, OffsetRange(topic, p, 0, FIRST)) for p in range(PARTITIONS)]
    summaries = copy_ranges(spec, ranges)
    later.join()

    last = 2 * FIRST - 1  # the planned ranges ended at FIRST
    assert [s.copied for s in summaries] == [[(topic, p, last)] for p in range(PARTITIONS)]
    assert [s.end for s in summaries] == [last + 1] * PARTITIONS
    for p in range(PARTITIONS):  # every record once, in order
        copied = [m.value() for m in read_partition(b, remote, partition=p)]
        assert copied == [f"p{p}-{i}".encode() for i in range(2 * FIRST)]
    done = {(topic, p): last for p in range(PARTITIONS)}
    assert stored_offsets(b, spec.source_alias, topic=spec.offsets_topic) == done
    progress = {(topic, p): last + 1 for p in range(PARTITIONS)}
    assert copied_up_to(spec, done) == progress
    assert copied_up_to(replace(spec, run_id="run-2"), done) == {}  # another start's

    # The next micro-batch: Spark planned [FIRST, 2 * FIRST + 5) of partition 0 and nothing
    # of partition 1; the ranges start after what the task copied, and partition 1 gets an
    # empty one at its end for its task to follow.
    reader = MirrorCopyReader(source, spec)
    planned = [KafkaRangePartition(source, OffsetRange(topic, 0, FIRST, last + 6))]
    moved = reader._following(planned, {(topic, 0): last + 6, (topic, 1): last + 1})
    assert [p.range for p in moved] == [
        OffsetRange(topic, 0, last + 1, last + 6),
        OffsetRange(topic, 1, last + 1, last + 1),
    ]


def test_a_following_task_stops_when_the_driver_asks(
    following: tuple[MirrorCopySpec, dict[str, str]], cluster_b: Any
) -> None:
    """The driver stopping a flow asks its run's tasks to stop following (a mark in the
    progress group): a task due to follow for 10 minutes ends, its copy stored (as soon as
    it started following)."""
    spec, raw = following
    spec = replace(spec, follow_ms=600_000)
    source, _ = parse_copy_options(raw)
    ((topic, _remote),) = spec.remote_topics.items()
    ranges = [(source, OffsetRange(topic, p, 0, FIRST)) for p in range(PARTITIONS)]
    summaries: list[Any] = []
    task = threading.Thread(target=lambda: summaries.extend(copy_ranges(spec, ranges)))
    task.start()
    request_stop(replace(spec, run_id="another-run"))  # not this run's: it follows on
    task.join(3)
    assert task.is_alive()
    assert not stop_requested(spec) and stop_requested(replace(spec, run_id="another-run"))
    # What its planned ranges copied is stored as it starts following, not at its end.
    done = {(topic, p): FIRST - 1 for p in range(PARTITIONS)}
    b = cluster_b.bootstrap_servers
    assert stored_offsets(b, spec.source_alias, topic=spec.offsets_topic) == done
    request_stop(spec)
    task.join(60)
    assert not task.is_alive(), "the task did not stop following when asked"
    assert [s.end for s in summaries] == [FIRST] * PARTITIONS
    assert stored_offsets(b, spec.source_alias, topic=spec.offsets_topic) == done


def test_a_following_task_sends_its_delayed_offset_syncs_as_it_stores(
    following: tuple[MirrorCopySpec, dict[str, str]], cluster_a: Any
) -> None:
    """MM2 promotes the offset syncs its rule delayed on each offset commit: a following
    task does on each periodic store, so checkpoints need not wait for its period's end."""
    spec, raw = following
    a = cluster_a.bootstrap_servers
    syncs_topic = f"mm2-offset-syncs.{spec.target_alias}.{uuid.uuid4().hex[:6]}"
    admin = AdminClient(quiet({"bootstrap.servers": a}))
    admin.create_topics([NewTopic(syncs_topic, 1, 1)])[syncs_topic].result(30)
    spec = replace(spec, follow_ms=600_000, offset_syncs_topic=syncs_topic,
                   offset_syncs_producer={"bootstrap.servers": a})  # fmt: skip
    source, _ = parse_copy_options(raw)
    ((topic, _remote),) = spec.remote_topics.items()
    ranges = [(source, OffsetRange(topic, p, 0, FIRST)) for p in range(PARTITIONS)]
    task = threading.Thread(target=copy_ranges, args=(spec, ranges))
    task.start()
    try:
        _produce(a, topic, FIRST)  # copied while following, each within offset.lag.max
        last = {(topic, p): 2 * FIRST - 1 for p in range(PARTITIONS)}
        synced: dict[tuple[str, int], int] = {}
        deadline = time.monotonic() + 30
        while synced != last and time.monotonic() < deadline:
            time.sleep(0.2)
            for record in read_partition(a, syncs_topic, committed=False):
                sync = OffsetSync.from_record(record.key(), record.value())
                synced[(sync.topic, sync.partition)] = sync.upstream_offset
        assert synced == last, "the delayed syncs waited for the task's end"
    finally:
        request_stop(spec)
        task.join(60)


def _bridged(spec: MirrorCopySpec, topic: str) -> set[tuple[str, int]]:
    found = progress(spec, [(topic, p) for p in range(PARTITIONS)])
    assert not isinstance(found, Exception)
    return {tp for tp, (_, bridging) in found.items() if bridging}


def _wait_released(spec: MirrorCopySpec, topic: str) -> None:
    deadline = time.monotonic() + 30
    while _bridged(spec, topic) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _bridged(spec, topic) == set(), "the bridge did not end when the run stopped"


def _next_batch(spec: MirrorCopySpec, raw: dict[str, str], topic: str) -> list[Any]:
    """The ranges Spark's next micro-batch would plan from the ledger: nothing new planned,
    every partition an empty range at its recorded progress."""
    source, _ = parse_copy_options(raw)
    done = copied_up_to(spec, [(topic, p) for p in range(PARTITIONS)])
    return [(source, OffsetRange(t, p, offset, offset)) for (t, p), offset in done.items()]


def test_a_bridge_copies_over_the_hand_over_and_the_next_task_takes_over(
    following: tuple[MirrorCopySpec, dict[str, str]], cluster_a: Any, cluster_b: Any
) -> None:
    """A task whose follow period ran out hands its partitions to a bridge in its process:
    what arrives before the next task starts is copied at once, and the next task (here in
    the same process) ends the bridge, starts where it got to and reports its copy."""
    spec, raw = following
    spec = replace(spec, follow_ms=500, bridge_ms=60_000)
    source, _ = parse_copy_options(raw)
    ((topic, remote),) = spec.remote_topics.items()
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    first = copy_ranges(
        spec, [(source, OffsetRange(topic, p, 0, FIRST)) for p in range(PARTITIONS)]
    )
    assert [s.records for s in first] == [FIRST] * PARTITIONS
    assert _bridged(spec, topic) == {(topic, p) for p in range(PARTITIONS)}

    _produce(a, topic, FIRST)  # between two micro-batches: the bridge copies it
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(read_partition(b, remote, partition=1)) < 2 * FIRST:
        time.sleep(0.1)
    assert len(read_partition(b, remote, partition=1)) == 2 * FIRST, "the bridge did not copy"

    ranges = _next_batch(spec, raw, topic)
    assert [r.start for _, r in ranges] == [FIRST] * PARTITIONS  # where the bridge began
    second = copy_ranges(spec, ranges)  # it ends the bridge, then bridges its own period
    request_stop(spec)
    _wait_released(spec, topic)
    # The bridge's rows come with the next task's: FIRST records each, from FIRST on.
    assert sorted((s.partition, s.start, s.records) for s in second if s.records) == [
        (p, FIRST, FIRST) for p in range(PARTITIONS)
    ]
    last = {(topic, p): 2 * FIRST - 1 for p in range(PARTITIONS)}
    assert stored_offsets(b, spec.source_alias, topic=spec.offsets_topic) == last
    for p in range(PARTITIONS):  # every record once, in order
        copied = [m.value() for m in read_partition(b, remote, partition=p)]
        assert copied == [f"p{p}-{i}".encode() for i in range(2 * FIRST)]


_OTHER_WORKER = """
import sys, threading
from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.loop import copy_ranges
from seaway.mirror.copy.source import parse_copy_options
from seaway.mirror.copy.spec import MirrorCopySpec
spec = MirrorCopySpec.from_json(sys.argv[1])
source, _ = parse_copy_options({"kafka.bootstrap.servers": sys.argv[2], "spec": sys.argv[1],
                                "subscribe": sys.argv[3]})
ranges = [(source, OffsetRange(sys.argv[3], p, 0, int(sys.argv[4]))) for p in range(2)]
print(sum(s.records for s in copy_ranges(spec, ranges)), flush=True)
for thread in threading.enumerate():  # the bridge: until the takeover (or its minute)
    if thread.name.startswith("seaway-mirror-bridge"):
        thread.join()
print("released", flush=True)
"""


def test_a_task_in_another_process_takes_over_with_the_mark(
    following: tuple[MirrorCopySpec, dict[str, str]], cluster_a: Any, cluster_b: Any
) -> None:
    """The next task lands in another Python worker (or executor): it posts the takeover
    mark, the bridge ends and releases its partitions, and the task starts after what the
    bridge copied. The bridge may run a minute: the task must not wait for that."""
    spec, raw = following
    spec = replace(spec, follow_ms=500, bridge_ms=60_000)
    ((topic, remote),) = spec.remote_topics.items()
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    argv = [sys.executable, "-c", _OTHER_WORKER, spec.to_json(), a, topic, str(FIRST)]
    worker = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == str(PARTITIONS * FIRST)
        assert _bridged(spec, topic) == {(topic, p) for p in range(PARTITIONS)}
        _produce(a, topic, FIRST)
        ranges = _next_batch(spec, raw, topic)
        taken = threading.Thread(target=copy_ranges, args=(spec, ranges))
        taken.start()
        taken.join(30)
        assert not taken.is_alive(), "the task waited for the bridge's time to pass"
        assert worker.stdout.readline().strip() == "released"
        assert worker.wait(30) == 0
    finally:
        worker.kill()
        request_stop(spec)
    _wait_released(spec, topic)
    last = {(topic, p): 2 * FIRST - 1 for p in range(PARTITIONS)}
    assert stored_offsets(b, spec.source_alias, topic=spec.offsets_topic) == last
    for p in range(PARTITIONS):  # every record once, in order, whichever copied it
        copied = [m.value() for m in read_partition(b, remote, partition=p)]
        assert copied == [f"p{p}-{i}".encode() for i in range(2 * FIRST)]


def test_a_bridge_ends_when_the_driver_stops_the_run(
    following: tuple[MirrorCopySpec, dict[str, str]],
) -> None:
    spec, raw = following
    spec = replace(spec, follow_ms=300, bridge_ms=60_000)
    source, _ = parse_copy_options(raw)
    ((topic, _remote),) = spec.remote_topics.items()
    copy_ranges(spec, [(source, OffsetRange(topic, p, 0, FIRST)) for p in range(PARTITIONS)])
    assert _bridged(spec, topic)
    request_stop(spec)
    _wait_released(spec, topic)
    assert copied_up_to(spec, [(topic, p) for p in range(PARTITIONS)]) == {
        (topic, p): FIRST for p in range(PARTITIONS)
    }


def test_no_bridge_without_a_partition_for_the_takeover_mark(
    following: tuple[MirrorCopySpec, dict[str, str]], cluster_b: Any
) -> None:
    """An MM2 offsets topic of one partition (made by hand) has nowhere to keep the
    takeover mark: the task ends its period without a bridge, as without bridging."""
    spec, raw = following
    offsets_topic = f"{spec.offsets_topic}-one"
    admin = AdminClient(quiet({"bootstrap.servers": cluster_b.bootstrap_servers}))
    created = admin.create_topics([NewTopic(offsets_topic, 1, 1)])
    created[offsets_topic].result(30)
    spec = replace(spec, follow_ms=300, bridge_ms=60_000, offsets_topic=offsets_topic)
    source, _ = parse_copy_options(raw)
    ((topic, _remote),) = spec.remote_topics.items()
    copy_ranges(spec, [(source, OffsetRange(topic, p, 0, FIRST)) for p in range(PARTITIONS)])
    assert _bridged(spec, topic) == set()
    assert copied_up_to(spec, [(topic, p) for p in range(PARTITIONS)]) == {
        (topic, p): FIRST for p in range(PARTITIONS)
    }
