"""The mirroring part of ``make demo``: a second cluster, A -> B with MirrorMaker 2's
driver, replication lag, a consumer group failed over with translated offsets, and a
record-for-record check of the copy."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import TopicPartition

from seaway.broker import BrokerThread
from seaway.kafka import clients

BILLING = "demo-billing"  # a group that stopped part way through, on cluster A
CAUGHT_UP = "demo-group"  # the demo's group: it consumed everything before the failover

STEPS = (
    "cluster B and MirrorMaker 2",
    "replication catching up",
    "checkpoints and fail-over",
    "verify",
)
"""The steps of :func:`run_mirror_demo`, in order, as it names them to its *step* callback."""


def _commit_part_way(bootstrap: str, topic: str, partitions: int) -> dict[int, int]:
    """Group ``demo-billing`` has processed about 60% of each partition, then stopped."""
    consumer = clients.consumer({"bootstrap.servers": bootstrap, "group.id": BILLING})
    try:
        positions = {}
        for p in range(partitions):
            _low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), 10)
            positions[p] = high * 6 // 10
        offsets = [TopicPartition(topic, p, o) for p, o in positions.items()]
        consumer.commit(offsets=offsets, asynchronous=False)
        return positions
    finally:
        consumer.close()


def _end(bootstrap: str, topic: str, partition: int) -> int:
    consumer = clients.consumer({"bootstrap.servers": bootstrap, "group.id": "demo-end"})
    try:
        return int(consumer.get_watermark_offsets(TopicPartition(topic, partition), 10)[1])
    finally:
        consumer.close()


def _translated(b: str, group: str, partitions: int) -> dict[tuple[str, int], int] | None:
    from seaway.mirror.failover import translated_offsets

    offsets = translated_offsets(b, "A", group)
    return offsets if len(offsets) == partitions else None


def _wait(check: Callable[[], Any], timeout: float = 180, interval: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(interval)
    return None


def _no_step(_name: str) -> None:
    pass


def run_mirror_demo(
    say: Callable[[str], None],
    a: str,
    directory: Path,
    topic: str,
    partitions: int,
    step: Callable[[str], None] = _no_step,
    consoles: dict[str, str] | None = None,
) -> bool:
    """Mirror *topic* from cluster A (*a*) to a new cluster B; True when all checks pass.

    *step* is called with each of :data:`STEPS` as it starts; the driver's web console URL
    is put in *consoles* (under ``mirror``)."""
    from seaway.mirror.config import MirrorMakerConfig
    from seaway.mirror.driver import MirrorMaker
    from seaway.mirror.failover import fail_over_group
    from seaway.mirror.lag import replication_lag
    from seaway.mirror.verify import verify_mirror

    step(STEPS[0])
    stopped_at = _commit_part_way(a, topic, partitions)
    say(f"group {BILLING} on A stopped part way: committed {stopped_at}")
    say("starting a second embedded broker as cluster B")
    with BrokerThread(directory / "cluster-b") as cluster_b:
        b = cluster_b.bootstrap_servers
        remote = f"A.{topic}"
        props = {
            "clusters": "A, B",
            "A.bootstrap.servers": a,
            "B.bootstrap.servers": b,
            "A->B.enabled": "true",
            "A->B.topics": topic,
            "replication.factor": "1",
            "offset-syncs.topic.replication.factor": "1",
            "checkpoints.topic.replication.factor": "1",
            "heartbeats.topic.replication.factor": "1",
            "emit.checkpoints.interval.seconds": "1",
            "spark.master": "local[2]",
        }
        say("mm2.properties: " + ", ".join(f"{k}={v}" for k, v in props.items()))
        logging.getLogger("seaway.connect.runtime.storage").setLevel(logging.WARNING)
        maker = MirrorMaker(MirrorMakerConfig(props))
        maker.start()
        runner = threading.Thread(target=maker.run, name="mirror-maker", daemon=True)
        runner.start()
        try:
            say(f"seaway mirror-maker running A->B: {topic} on A -> {remote} on B")
            assert maker.metrics_server is not None  # started by maker.start()
            console = f"{maker.metrics_server.url}/ui/"
            say(f"MirrorMaker's web console at {console} while the mirror runs")
            if consoles is not None:
                consoles["mirror"] = console

            def caught_up() -> bool:
                rows = replication_lag(a, b, "A", [topic])
                total = sum(r.lag for r in rows)
                parts = ", ".join(f"p{r.partition}={r.lag}" for r in rows)
                say(f"  replication lag A->B: {total} records ({parts})")
                return bool(rows) and total == 0 and all(r.mirrored is not None for r in rows)

            step(STEPS[1])
            if not _wait(caught_up, interval=2.0):
                say("the mirror did not catch up in time")
                return False
            step(STEPS[2])
            caught = _wait(lambda: _translated(b, CAUGHT_UP, partitions), timeout=60)
            lagging = _wait(lambda: _translated(b, BILLING, partitions), timeout=60)
            if not caught or not lagging:
                say("no checkpoints arrived on B")
                return False
            ends = {p: _end(a, topic, p) for p in range(partitions)}
            say("checkpoints on B translate each group's offsets from A (never ahead):")
            for group, stopped, translated in (
                (CAUGHT_UP, ends, caught),
                (BILLING, stopped_at, lagging),
            ):
                for p in range(partitions):
                    say(f"  {group} {remote}[{p}]: A offset {stopped[p]} -> B offset "
                        f"{translated[(remote, p)]}")  # fmt: skip
            moved = fail_over_group(b, "A", CAUGHT_UP, execute=True)
            say(f"$ seaway mirror fail-over --source A --group {CAUGHT_UP} --execute -> {moved}")
            # A and B offsets coincide here (copied from offset 0), so the gap between where
            # the group stopped on A and its offset on B is what it re-reads after failover.
            reread = {p: ends[p] - moved[(remote, p)] for p in range(partitions)}
            say(
                f"{CAUGHT_UP} resumes on B re-reading {reread} records per partition: fewer "
                f"than offset.lag.max=100, none skipped. {BILLING}, far behind, gets a coarser "
                "(earlier, never later) position, as in MirrorMaker 2."
            )
            never_ahead = all(lagging[(remote, p)] <= stopped_at[p] for p in range(partitions))
            step(STEPS[3])
            result = verify_mirror(a, b, topic, remote)
            say(
                f"$ seaway mirror verify --topic {topic} -> {result.total('source_records')} "
                f"source records, {result.total('lost')} lost, "
                f"{result.total('duplicated')} duplicated, checksums match: "
                f"{all(p.checksum_match for p in result.partitions)}"
            )
            return result.ok and never_ahead and all(0 <= n < 100 for n in reread.values())
        finally:
            maker.stop()
            runner.join(10)
            say("mirror-maker stopped; cluster B stopped")


__all__ = ["STEPS", "run_mirror_demo"]
