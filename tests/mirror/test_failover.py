"""The failover tools against a real broker: translate, fail over, reset to a datetime."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.cli.main import main
from seaway.mirror.failover import FailoverError, fail_over_group, reset_group_to_datetime
from seaway.mirror.formats import Checkpoint
from tests.broker.clients import quiet

pytestmark = pytest.mark.waits

# Recent record timestamps: the broker's 7-day retention would delete older ones.
BASE_MS = (int(time.time()) - 3600) * 1000


def _committed(bootstrap: str, group: str, topic: str, partitions: int) -> list[int]:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": group}))
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        return [tp.offset for tp in consumer.committed(tps, 10)]
    finally:
        consumer.close()


def _setup(bootstrap: str) -> tuple[str, str, str]:
    alias = f"S{uuid.uuid4().hex[:6]}"
    remote = f"{alias}.orders"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for topic, n in ((remote, 2), (f"{alias}.checkpoints.internal", 1)):
        admin.create_topics([NewTopic(topic, n, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": bootstrap})
    for p in range(2):
        for i in range(50):
            producer.produce(remote, value=b"x", partition=p, timestamp=BASE_MS + i)
    group = f"app-{uuid.uuid4().hex[:6]}"
    for checkpoint in (
        Checkpoint(group, remote, 0, 100, 10, ""),
        Checkpoint(group, remote, 0, 140, 17, ""),  # the latest wins
        Checkpoint(group, remote, 1, 90, 30, ""),
        Checkpoint("other-group", remote, 1, 5, 1, ""),
    ):
        producer.produce(
            f"{alias}.checkpoints.internal",
            key=checkpoint.record_key(),
            value=checkpoint.record_value(),
            partition=0,
        )
    assert producer.flush(10) == 0
    return alias, remote, group


def test_fail_over_commits_translated_offsets(broker: Any, capsys: Any) -> None:
    bootstrap = broker.bootstrap_servers
    alias, remote, group = _setup(bootstrap)
    assert fail_over_group(bootstrap, alias, group) == {(remote, 0): 17, (remote, 1): 30}
    assert _committed(bootstrap, group, remote, 2) == [-1001, -1001]  # a dry run commits nothing
    code = main(["mirror", "fail-over", "--bootstrap-server", bootstrap, "--source", alias,
                 "--group", group, "--execute"])  # fmt: skip
    assert code == 0
    assert _committed(bootstrap, group, remote, 2) == [17, 30]
    assert "2 partition(s) committed for group" in capsys.readouterr().out
    with pytest.raises(FailoverError, match="No checkpoint of group nobody"):
        fail_over_group(bootstrap, alias, "nobody")


def test_fail_over_refuses_an_active_group(broker: Any) -> None:
    bootstrap = broker.bootstrap_servers
    alias, remote, group = _setup(bootstrap)
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": group}))
    consumer.subscribe([remote])
    try:
        for _ in range(20):
            consumer.poll(0.5)
            if consumer.assignment():
                break
        with pytest.raises(FailoverError, match="active members"):
            fail_over_group(bootstrap, alias, group, execute=True)
    finally:
        consumer.close()


def test_reset_to_datetime(broker: Any) -> None:
    bootstrap = broker.bootstrap_servers
    _, remote, group = _setup(bootstrap)
    when = dt.datetime.fromtimestamp((BASE_MS + 20) / 1000, dt.UTC)
    assert reset_group_to_datetime(bootstrap, group, [remote], when, execute=True) == {
        (remote, 0): 20,
        (remote, 1): 20,
    }
    assert _committed(bootstrap, group, remote, 2) == [20, 20]
    later = when + dt.timedelta(days=1)
    assert reset_group_to_datetime(bootstrap, group, [remote], later) == {
        (remote, 0): 50,
        (remote, 1): 50,
    }
