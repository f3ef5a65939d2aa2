"""Exactly-once mirroring (``B.exactly.once.source.support = enabled``) through kill -9.

The mirror process is killed twice while it copies (``make soak``: 20 times); a
read_committed consumer of the remote topic must then see every source record exactly
once, in the source's order per partition, and MM2's stored offsets must point at the end
of the source.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.broker.clients import quiet
from tests.mirror.test_mirror_maker import (
    PARTITIONS,
    _count,
    _kill,
    _mm2_properties,
    _produce,
    _start,
    _stop,
    _values,
    _wait,
)
from tests.soak import soak

pytestmark = pytest.mark.slow

RECORDS = soak(60_000)
KILLS = soak(2)


def _committed(bootstrap: str, topic: str) -> dict[int, list[bytes]]:
    """Every record a read_committed consumer sees, per partition (reads up to the LSO)."""
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"check-{uuid.uuid4().hex[:6]}",
                "isolation.level": "read_committed",
                "enable.partition.eof": True,
            }
        )
    )
    out: dict[int, list[bytes]] = {p: [] for p in range(PARTITIONS)}
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
        at_end: set[int] = set()
        deadline = time.monotonic() + 60
        while len(at_end) < PARTITIONS and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.5):
                if message.error() is None:
                    out[message.partition()].append(message.value())
                elif message.error().code() == -191:  # _PARTITION_EOF
                    at_end.add(message.partition())
    finally:
        consumer.close()
    return out


def _committed_count(bootstrap: str, topic: str, wanted: int) -> int:
    """How many records of *topic* are committed, read only once its end offsets (the
    records, aborted ones and markers) add up to more than *wanted*, else 0."""
    try:
        if _count(bootstrap, topic) <= wanted:
            return 0
        return sum(len(v) for v in _committed(bootstrap, topic).values())
    except Exception:
        return 0


def test_kill9_repeatedly_every_record_exactly_once(
    tmp_path: Path, cluster_a: Any, cluster_b: Any
) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic = f"eos-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    _produce(a, topic, 0, RECORDS)
    config = _mm2_properties(
        tmp_path / "mm2.properties", a, b, topic, **{"B.exactly.once.source.support": "enabled"}
    )
    remote = f"A.{topic}"
    log = tmp_path / "mm2.log"
    copied = 0
    for kill in range(KILLS):
        proc = _start(config, log)
        try:
            wanted = copied + 4_000
            _wait(
                f"more records on B before kill {kill + 1}",
                lambda wanted=wanted: _committed_count(b, remote, wanted) > wanted,
            )
            copied = _committed_count(b, remote, 0)
        finally:
            _kill(proc)
        _produce(a, topic, RECORDS + kill * 5_000, 5_000)  # written while the mirror is down
    total = RECORDS + KILLS * 5_000
    proc = _start(config, log)
    try:
        _wait("every record on B", lambda: _committed_count(b, remote, total - 1) >= total)
    finally:
        _stop(proc)
    source, copy = _values(a, topic), _committed(b, remote)
    for p in range(PARTITIONS):
        assert copy[p] == source[p], f"partition {p}: not exactly the source's records in order"
    assert sum(len(v) for v in copy.values()) == total
