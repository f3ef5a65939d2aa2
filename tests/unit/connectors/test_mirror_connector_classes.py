"""The mirror connectors without clusters: plugins, validation, task configs, flow handles.

Their flows against real clusters are tested in tests/connect/test_mirror_connectors.py.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from seaway.connect.api import SourceConnector
from seaway.connect.api.flow import FlowConnector, FlowTask
from seaway.connect.runtime.plugins import Plugins
from seaway.connectors.mirror import (
    MirrorCheckpointConnector,
    MirrorHeartbeatConnector,
    MirrorSourceConnector,
    MirrorSourceTask,
)
from seaway.connectors.mirror.base import split_contiguous, split_round_robin
from seaway.connectors.mirror.handles import Periodic, PeriodicFlowHandle

KAFKA = "org.apache.kafka.connect.mirror."
BASE = {
    "name": "mm2",
    "connector.class": "MirrorSourceConnector",
    "source.cluster.alias": "A",
    "target.cluster.alias": "B",
    "source.cluster.bootstrap.servers": "a:9092",
    "target.cluster.bootstrap.servers": "b:9092",
}


def errors(connector: Any, props: dict[str, str]) -> dict[str, list[str]]:
    config = {**props, "connector.class": type(connector).__name__}
    return connector.validate(config).errors()


def wait_until(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


# ---------------------------------------------------------------------------- plugins


@pytest.mark.parametrize(
    "cls", [MirrorSourceConnector, MirrorCheckpointConnector, MirrorHeartbeatConnector]
)
def test_kafka_names_and_aliases(cls: type) -> None:
    simple = cls.__name__
    for name in (KAFKA + simple, simple, simple.removesuffix("Connector")):
        assert Plugins().connector_class(name) is cls
    assert Plugins().class_name(cls) == KAFKA + simple
    assert issubclass(cls, SourceConnector) and issubclass(cls, FlowConnector)


def test_plugins_list_them_as_sources() -> None:
    listed = {d.class_name: d.to_rest() for d in Plugins().connector_plugins(True)}
    for simple in (
        "MirrorSourceConnector",
        "MirrorCheckpointConnector",
        "MirrorHeartbeatConnector",
    ):
        info = listed[KAFKA + simple]
        assert info["type"] == "source" and info["version"]


# ---------------------------------------------------------------------------- validation


def test_required_alias_and_bootstrap_servers_are_named() -> None:
    found = errors(MirrorSourceConnector(), {"name": "x"})
    assert found == {
        "source.cluster.alias": [
            'Missing required configuration "source.cluster.alias" which has no default value.'
        ],
        "source.cluster.bootstrap.servers": [
            'Missing required configuration "source.cluster.bootstrap.servers" which has no '
            "default value."
        ],
        "target.cluster.bootstrap.servers": [
            'Missing required configuration "target.cluster.bootstrap.servers" which has no '
            "default value."
        ],
    }
    assert errors(MirrorSourceConnector(), BASE) == {}
    # A client-level bootstrap setting counts too.
    props = {
        **BASE,
        "source.cluster.bootstrap.servers": "",
        "source.consumer.bootstrap.servers": "x",
    }
    assert errors(MirrorSourceConnector(), props) == {}


def test_heartbeats_need_only_the_target_cluster() -> None:
    props = {k: v for k, v in BASE.items() if k != "source.cluster.bootstrap.servers"}
    assert errors(MirrorHeartbeatConnector(), props) == {}
    props.pop("target.cluster.bootstrap.servers")
    assert list(errors(MirrorHeartbeatConnector(), props)) == ["target.cluster.bootstrap.servers"]


def test_kafka_extra_rules() -> None:
    props = {**BASE, "emit.offset-syncs.enabled": "false", "offset-syncs.topic.location": "target"}
    assert errors(MirrorSourceConnector(), props) == {
        "emit.offset-syncs.enabled": [
            "MirrorSourceConnector can't setup offset-syncs feature while "
            "emit.offset-syncs.enabled set to false"
        ]
    }
    props = {**BASE, "emit.checkpoints.enabled": "false"}
    assert errors(MirrorCheckpointConnector(), props) == {
        "emit.checkpoints.enabled": [
            "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false"
        ]
    }
    bad = errors(MirrorHeartbeatConnector(), {**BASE, "emit.heartbeats.interval.seconds": "x"})
    assert list(bad) == ["emit.heartbeats.interval.seconds"]


# ---------------------------------------------------------------------------- task configs


def test_source_partitions_are_dealt_round_robin() -> None:
    partitions = [("t", p) for p in range(5)]
    assert split_round_robin(partitions, 2) == [
        [("t", 0), ("t", 2), ("t", 4)],
        [("t", 1), ("t", 3)],
    ]
    assert split_round_robin(partitions, 1) == [partitions]


def test_groups_are_split_in_contiguous_chunks() -> None:
    groups = ["g1", "g2", "g3", "g4", "g5"]
    assert split_contiguous(groups, 2) == [["g1", "g2", "g3"], ["g4", "g5"]]
    assert split_contiguous(groups, 5) == [[g] for g in groups]


def test_disabled_connectors_have_no_tasks_and_touch_no_cluster() -> None:
    source = MirrorSourceConnector()
    source.start({**BASE, "source.cluster.bootstrap.servers": "nowhere:1", "enabled": "false"})
    assert source.task_configs(4) == []
    checkpoints = MirrorCheckpointConnector()
    checkpoints.start({**BASE, "enabled": "false"})
    assert checkpoints.task_configs(4) == []
    for stop in (source, checkpoints):
        stop.stop()


def test_one_heartbeat_task_whatever_enabled_says() -> None:
    heartbeats = MirrorHeartbeatConnector()
    props = {**BASE, "enabled": "false", "tasks.max": "3"}
    heartbeats.start(props)
    assert heartbeats.task_configs(3) == [props]
    heartbeats.start({**BASE, "emit.heartbeats.enabled": "false"})
    assert heartbeats.task_configs(3) == []
    heartbeats.start({**BASE, "emit.heartbeats.interval.seconds": "-1"})
    assert heartbeats.task_configs(3) == []


def test_flow_tasks_are_never_started_as_tasks() -> None:
    assert MirrorSourceConnector().task_class() is MirrorSourceTask
    with pytest.raises(NotImplementedError, match="run by its connector's flow"):
        FlowTask().start({})


# ---------------------------------------------------------------------------- handles


def test_periodic_handle_starts_then_repeats_its_job_until_stopped() -> None:
    calls: list[str] = []

    def job() -> None:
        calls.append("job")
        if len(calls) == 3:
            raise RuntimeError("a failed emit is retried at the next interval")

    handle = PeriodicFlowHandle(
        "test", start=lambda: calls.append("start"), job=job, interval_s=0.01,
        close=lambda: calls.append("close"),
    )  # fmt: skip
    wait_until(lambda: calls.count("job") >= 5)
    assert handle.active and handle.started and handle.failure() is None
    handle.stop()
    handle.stop()  # idempotent
    assert not handle.active
    assert calls[0] == "start" and calls[-1] == "close" and calls.count("close") == 1


def test_periodic_handle_fails_when_its_start_fails() -> None:
    closed = threading.Event()

    def start() -> None:
        raise RuntimeError("heartbeats.topic.replication.factor too large")

    handle = PeriodicFlowHandle(
        "test", start=start, job=lambda: None, interval_s=1, close=closed.set
    )
    wait_until(lambda: handle.failure() is not None)
    assert "heartbeats.topic.replication.factor" in (handle.failure() or "")
    assert not handle.active and not handle.started and closed.is_set()
    handle.stop()


def test_periodic_handle_waits_until_ready() -> None:
    ready = threading.Event()
    started = threading.Event()
    handle = PeriodicFlowHandle(
        "test", start=started.set, job=lambda: None, interval_s=1, close=lambda: None,
        ready=ready.is_set, waiting_for="the offset-syncs topic",
    )  # fmt: skip
    time.sleep(0.2)
    assert not started.is_set() and handle.active
    ready.set()
    wait_until(started.is_set, 5)
    handle.stop()


def test_periodic_job_survives_errors() -> None:
    calls: list[int] = []

    def job() -> None:
        calls.append(1)
        raise RuntimeError("boom")

    periodic = Periodic("test", 0.01, job)
    wait_until(lambda: len(calls) >= 3)
    periodic.stop()
    count = len(calls)
    time.sleep(0.05)
    assert len(calls) == count
