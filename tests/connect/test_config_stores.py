"""Config stores: the shared contract, and the config topic's records, order and commits."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api.errors import NotFoundError
from seaway.connect.runtime.storage import (
    ConfigStore,
    ConfigUpdateListener,
    ConnectorTaskId,
    MemoryConfigStore,
    RestartRequest,
    SessionKey,
    TargetState,
    TopicConfigStore,
)
from seaway.connect.runtime.storage.config_records import target_state_value
from tests.broker.clients import create_topic
from tests.connect.storage_helpers import produce, read_all

SOURCE = {"connector.class": "FileStreamSource", "file": "/tmp/in.txt", "topic": "lines"}
TASK0 = {"task.class": "FileStreamSourceTask", "file": "/tmp/in.txt", "topic": "lines"}
TASK1 = {"task.class": "FileStreamSourceTask", "file": "/tmp/in2.txt", "topic": "lines"}


class Recorder(ConfigUpdateListener):
    """Remembers every listener call, thread-safely."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.lock = threading.Lock()

    def _add(self, name: str, arg: Any) -> None:
        with self.lock:
            self.calls.append((name, arg))

    def on_connector_config_update(self, connector: str) -> None:
        self._add("update", connector)

    def on_connector_config_remove(self, connector: str) -> None:
        self._add("remove", connector)

    def on_task_config_update(self, tasks: Collection[ConnectorTaskId]) -> None:
        self._add("tasks", sorted(tasks))

    def on_connector_target_state_change(self, connector: str) -> None:
        self._add("target", connector)

    def on_session_key_update(self, session_key: SessionKey) -> None:
        self._add("session", session_key)

    def on_restart_request(self, request: RestartRequest) -> None:
        self._add("restart", request)

    def on_logging_level_update(self, namespace: str, level: str) -> None:
        self._add("level", (namespace, level))

    def wait_for(self, count: int, timeout: float = 10.0) -> list[tuple[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.calls) >= count:
                    return list(self.calls)
            time.sleep(0.02)
        return list(self.calls)


Factory = Callable[[], ConfigStore]


@pytest.fixture(params=["memory", "topic"])
def store(request: pytest.FixtureRequest, props: dict[str, Any], started: Any) -> ConfigStore:
    if request.param == "memory":
        return started(MemoryConfigStore())
    return started(TopicConfigStore.from_worker_config(props))


def new_topic_store(props: dict[str, Any], started: Any) -> TopicConfigStore:
    return started(TopicConfigStore.from_worker_config(props))


# ---------------------------------------------------------------------- the contract


def test_connector_lifecycle(store: ConfigStore) -> None:
    recorder = Recorder()
    store.set_update_listener(recorder)
    store.put_connector_config("src", SOURCE)
    snapshot = store.snapshot()
    assert store.contains("src") and snapshot.contains("src")
    assert snapshot.connector_config("src") == SOURCE
    assert snapshot.target_state("src") is TargetState.STARTED
    assert snapshot.tasks("src") == []

    store.put_task_configs("src", [TASK0, TASK1])
    snapshot = store.snapshot()
    assert snapshot.tasks("src") == [ConnectorTaskId("src", 0), ConnectorTaskId("src", 1)]
    assert snapshot.task_config(ConnectorTaskId("src", 1)) == TASK1
    assert snapshot.applied_connector_config("src") == SOURCE

    store.put_target_state("src", TargetState.PAUSED)
    store.refresh()
    assert store.snapshot().target_state("src") is TargetState.PAUSED

    store.remove_connector_config("src")
    snapshot = store.snapshot()
    assert not store.contains("src")
    assert snapshot.connectors() == set()
    assert snapshot.tasks("src") == []
    assert snapshot.target_state("src") is None

    calls = recorder.wait_for(4)
    assert calls == [
        ("update", "src"),
        ("tasks", [ConnectorTaskId("src", 0), ConnectorTaskId("src", 1)]),
        ("target", "src"),
        ("remove", "src"),
    ]


def test_initial_target_state(store: ConfigStore) -> None:
    store.put_connector_config("src", SOURCE, TargetState.STOPPED)
    assert store.snapshot().target_state("src") is TargetState.STOPPED
    store.put_connector_config("src", {**SOURCE, "topic": "other"})
    snapshot = store.snapshot()
    assert snapshot.target_state("src") is TargetState.STOPPED
    assert snapshot.connector_config("src") == {**SOURCE, "topic": "other"}


def test_fewer_tasks_replace_more(store: ConfigStore) -> None:
    store.put_connector_config("src", SOURCE)
    store.put_task_configs("src", [TASK0, TASK1])
    store.put_task_configs("src", [TASK1])
    snapshot = store.snapshot()
    assert snapshot.task_count("src") == 1
    assert snapshot.tasks("src") == [ConnectorTaskId("src", 0)]
    assert snapshot.task_config(ConnectorTaskId("src", 0)) == TASK1


def test_memory_store_needs_the_connector() -> None:
    store = MemoryConfigStore()
    with pytest.raises(NotFoundError):
        store.put_task_configs("nope", [TASK0])
    with pytest.raises(NotFoundError):
        store.put_target_state("nope", TargetState.PAUSED)


# ---------------------------------------------------------------------- the config topic


def test_records_are_kafkas(bootstrap: str, props: dict[str, Any], started: Any) -> None:
    store = new_topic_store(props, started)
    store.put_connector_config("src", {"b": "2", "a": "1"}, TargetState.STOPPED)
    store.put_task_configs("src", [{"task.class": "T", "n": "0"}, {"task.class": "T", "n": "1"}])
    store.put_target_state("src", TargetState.PAUSED)
    store.put_target_state("src", TargetState.STARTED)
    store.put_restart_request(RestartRequest("src", only_failed=True, include_tasks=False))
    store.put_task_count_record("src", 2)
    store.put_session_key(SessionKey(b"\x00\x01secret", "HmacSHA256", 1700000000000))
    store.put_logger_level("org.apache.kafka", "DEBUG")
    store.put_task_configs("src", [])
    store.remove_connector_config("src")
    assert read_all(bootstrap, props["config.storage.topic"]) == [
        (b"target-state-src", b'{"state":"PAUSED","state.v2":"STOPPED"}'),
        (b"connector-src", b'{"properties":{"b":"2","a":"1"}}'),
        (b"task-src-0", b'{"properties":{"task.class":"T","n":"0"}}'),
        (b"task-src-1", b'{"properties":{"task.class":"T","n":"1"}}'),
        (b"commit-src", b'{"tasks":2}'),
        (b"target-state-src", b'{"state":"PAUSED","state.v2":"PAUSED"}'),
        (b"target-state-src", b'{"state":"STARTED","state.v2":"STARTED"}'),
        (b"restart-connector-src", b'{"include-tasks":false,"only-failed":true}'),
        (b"tasks-fencing-src", b'{"task-count":2}'),
        (
            b"session-key",
            b'{"key":"AAFzZWNyZXQ=","algorithm":"HmacSHA256","creation-timestamp":1700000000000}',
        ),
        (b"logger-cluster-org.apache.kafka", b'{"level":"DEBUG"}'),
        (b"commit-src", b'{"tasks":0}'),
        (b"connector-src", None),
        (b"target-state-src", None),
    ]


def test_restarted_worker_sees_the_same_state(props: dict[str, Any], started: Any) -> None:
    store = new_topic_store(props, started)
    store.put_connector_config("src", SOURCE)
    store.put_task_configs("src", [TASK0, TASK1])
    store.put_connector_config("sink", {"connector.class": "Sink"}, TargetState.PAUSED)
    store.put_connector_config("gone", {"connector.class": "Gone"})
    store.put_task_configs("gone", [TASK0])
    store.remove_connector_config("gone")
    store.put_session_key(SessionKey(b"k", "HmacSHA256", 5))
    before = store.snapshot()
    store.stop()

    again = new_topic_store(props, started).snapshot()
    assert again.connectors() == {"src", "sink"}
    assert again.connector_configs == before.connector_configs
    assert again.target_states == before.target_states
    assert again.task_configs == before.task_configs
    assert again.connector_task_counts == before.connector_task_counts
    assert again.session_key == SessionKey(b"k", "HmacSHA256", 5)
    assert again.offset == before.offset > 0
    assert again.tasks("src") == [ConnectorTaskId("src", 0), ConnectorTaskId("src", 1)]
    assert again.tasks("gone") == []


def test_connectors_changed_offset_moves_on_creates_and_removals_only(
    props: dict[str, Any], started: Any
) -> None:
    """A worker joins its group again when a connector was created or removed after the
    config its last assignment was made from; other config records must not rebalance."""
    store = new_topic_store(props, started)
    assert store.snapshot().connectors_changed_offset == -1
    store.put_connector_config("src", SOURCE)
    created = store.snapshot()
    assert created.connectors_changed_offset == created.offset > 0
    store.put_connector_config("src", {**SOURCE, "topic": "other"})
    store.put_task_configs("src", [TASK0])
    store.put_target_state("src", TargetState.PAUSED)
    store.put_session_key(SessionKey(b"k", "HmacSHA256", 5))
    store.refresh()
    later = store.snapshot()
    assert later.offset > created.offset
    assert later.connectors_changed_offset == created.offset  # an assignment at it still holds
    store.put_connector_config("late", SOURCE)  # e.g. written while a rebalance ran
    assert store.snapshot().connectors_changed_offset == store.snapshot().offset > later.offset
    store.remove_connector_config("late")
    removed = store.snapshot()
    assert removed.connectors_changed_offset > later.offset
    assert new_topic_store(props, started).snapshot().connectors_changed_offset == (
        removed.connectors_changed_offset
    )  # a restarted worker reads the same


def test_task_configs_wait_for_the_commit(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    store = new_topic_store(props, started)
    recorder = Recorder()
    store.set_update_listener(recorder)
    store.put_connector_config("src", SOURCE)
    topic = props["config.storage.topic"]
    produce(
        bootstrap,
        topic,
        [
            (b"task-src-0", b'{"properties":{"task.class":"T0"}}'),
            (b"task-src-1", b'{"properties":{"task.class":"T1"}}'),
        ],
    )
    store.refresh()
    snapshot = store.snapshot()
    assert snapshot.tasks("src") == [] and snapshot.task_configs == {}
    assert snapshot.task_config_generation("src") is None

    produce(bootstrap, topic, [(b"commit-src", b'{"tasks":2}')])
    store.refresh()
    snapshot = store.snapshot()
    assert snapshot.tasks("src") == [ConnectorTaskId("src", 0), ConnectorTaskId("src", 1)]
    assert snapshot.task_config(ConnectorTaskId("src", 1)) == {"task.class": "T1"}
    assert snapshot.task_config_generation("src") == 0
    assert snapshot.pending_fencing == {"src"}
    assert recorder.wait_for(2)[-1] == ("tasks", snapshot.tasks("src"))


def test_incomplete_commit_marks_the_connector_inconsistent(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    store = new_topic_store(props, started)
    store.put_connector_config("src", SOURCE)
    store.put_task_configs("src", [TASK0])
    topic = props["config.storage.topic"]
    # a leader wrote task 1 of 2 and a commit after compaction lost task 0's new record
    produce(
        bootstrap, topic, [(b"task-src-1", b'{"properties":{}}'), (b"commit-src", b'{"tasks":2}')]
    )
    store.refresh()
    snapshot = store.snapshot()
    assert snapshot.inconsistent == {"src"}
    assert snapshot.tasks("src") == []
    assert snapshot.task_config(ConnectorTaskId("src", 0)) == TASK0  # the old ones stay
    store.put_task_configs("src", [TASK0, TASK1])
    snapshot = store.snapshot()
    assert snapshot.inconsistent == frozenset()
    assert len(snapshot.tasks("src")) == 2


def test_stale_task_configs_of_a_deleted_connector_are_ignored(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    create_topic(bootstrap, props["config.storage.topic"], 1, {"cleanup.policy": "compact"})
    # compaction kept these task records and commit, but not the connector or its tombstone
    produce(
        bootstrap,
        props["config.storage.topic"],
        [
            (b"task-old-0", b'{"properties":{"task.class":"T"}}'),
            (b"commit-old", b'{"tasks":1}'),
            (b"connector-old", b'{"properties":{"connector.class":"New"}}'),
        ],
    )
    snapshot = new_topic_store(props, started).snapshot()
    assert snapshot.connectors() == {"old"}
    assert snapshot.tasks("old") == []
    assert snapshot.task_configs == {}


def test_target_state_from_an_older_worker(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    store = new_topic_store(props, started)
    store.put_connector_config("src", SOURCE)
    produce(
        bootstrap, props["config.storage.topic"], [(b"target-state-src", b'{"state":"PAUSED"}')]
    )
    store.refresh()
    assert store.snapshot().target_state("src") is TargetState.PAUSED
    assert target_state_value(TargetState.STARTED) == b'{"state":"STARTED","state.v2":"STARTED"}'


def test_another_worker_hears_about_changes(props: dict[str, Any], started: Any) -> None:
    leader = new_topic_store(props, started)
    leader.put_connector_config("early", SOURCE)
    follower = new_topic_store(props, started)
    recorder = Recorder()
    follower.set_update_listener(recorder)
    leader.put_connector_config("src", SOURCE)
    leader.put_task_configs("src", [TASK0])
    leader.put_target_state("src", TargetState.PAUSED)
    leader.put_restart_request(RestartRequest("src", include_tasks=True))
    leader.put_logger_level("org.example", "TRACE")
    leader.remove_connector_config("src")
    calls = recorder.wait_for(6)
    assert calls == [  # records read during start ("early") are not reported
        ("update", "src"),
        ("tasks", [ConnectorTaskId("src", 0)]),
        ("target", "src"),
        ("restart", RestartRequest("src", only_failed=False, include_tasks=True)),
        ("level", ("org.example", "TRACE")),
        ("remove", "src"),
    ]
    follower.refresh()
    assert follower.snapshot().connectors() == {"early"}


def test_config_topic_must_have_one_partition(bootstrap: str, props: dict[str, Any]) -> None:
    create_topic(bootstrap, props["config.storage.topic"], 2, {"cleanup.policy": "compact"})
    store = TopicConfigStore.from_worker_config(props)
    with pytest.raises(ConfigException, match="required to have a single partition"):
        store.start()
    with pytest.raises(NotImplementedError):
        store.remove_task_configs("src")
