"""Status stores: the shared contract, and the status topic's records and conflict rules."""

from __future__ import annotations

import time
from typing import Any

import pytest

from seaway.connect.runtime.storage import (
    ConnectorStatus,
    ConnectorTaskId,
    MemoryStatusStore,
    State,
    StatusStore,
    TaskStatus,
    TopicStatus,
    TopicStatusStore,
)
from tests.connect.storage_helpers import murmur2_partition, produce, read_raw

T0 = ConnectorTaskId("sink", 0)
T1 = ConnectorTaskId("sink", 1)
WORKER = "10.0.0.1:8083"
OTHER_WORKER = "10.0.0.2:8083"


@pytest.fixture(params=["memory", "topic"])
def store(request: pytest.FixtureRequest, props: dict[str, Any], started: Any) -> StatusStore:
    if request.param == "memory":
        return started(MemoryStatusStore())
    return started(TopicStatusStore.from_worker_config(props))


def new_topic_store(props: dict[str, Any], started: Any) -> TopicStatusStore:
    return started(TopicStatusStore.from_worker_config(props))


def settle(store: StatusStore) -> None:
    """Make puts visible: topic stores show a status once it is read back."""
    store.flush()
    store.refresh()


# ---------------------------------------------------------------------- the contract


def test_round_trip(store: StatusStore) -> None:
    store.put(ConnectorStatus("sink", State.RUNNING, WORKER, 1))
    store.put(TaskStatus(T1, State.FAILED, WORKER, 1, trace="Traceback: boom"))
    store.put(TaskStatus(T0, State.RUNNING, WORKER, 1))
    settle(store)
    assert store.get_connector("sink") == ConnectorStatus("sink", State.RUNNING, WORKER, 1)
    assert store.get_task(T1) == TaskStatus(T1, State.FAILED, WORKER, 1, "Traceback: boom")
    assert [s.id for s in store.get_all("sink")] == [T0, T1]
    assert store.connectors() == {"sink"}
    assert store.get_connector("other") is None and store.get_task(ConnectorTaskId("x", 0)) is None


def test_destroyed_deletes(store: StatusStore) -> None:
    store.put(ConnectorStatus("sink", State.RUNNING, WORKER))
    store.put(TaskStatus(T0, State.RUNNING, WORKER))
    store.put(TaskStatus(T1, State.RUNNING, WORKER))
    settle(store)
    store.put(TaskStatus(T1, State.DESTROYED, WORKER))
    settle(store)
    assert [s.id for s in store.get_all("sink")] == [T0]
    store.put(ConnectorStatus("sink", State.DESTROYED, WORKER))
    settle(store)
    assert store.get_connector("sink") is None
    assert store.connectors() == set()


def test_topic_statuses(store: StatusStore) -> None:
    store.put_topic(TopicStatus("lines", "sink", 0, 1700000000000))
    store.put_topic(TopicStatus("words", "sink", 1, 1700000000001))
    settle(store)
    assert store.get_topic("sink", "lines") == TopicStatus("lines", "sink", 0, 1700000000000)
    assert {t.topic for t in store.get_all_topics("sink")} == {"lines", "words"}
    store.delete_topic("sink", "lines")
    settle(store)
    assert store.get_topic("sink", "lines") is None
    assert [t.topic for t in store.get_all_topics("sink")] == ["words"]


def test_rest_shapes() -> None:
    assert ConnectorStatus("c", State.FAILED, WORKER, trace="t").to_rest() == {
        "state": "FAILED",
        "worker_id": WORKER,
        "trace": "t",
    }
    assert TaskStatus(T0, State.RUNNING, WORKER, trace="").to_rest() == {
        "id": 0,
        "state": "RUNNING",
        "worker_id": WORKER,
    }


# ---------------------------------------------------------------------- the status topic


def test_records_are_kafkas(bootstrap: str, props: dict[str, Any], started: Any) -> None:
    store = new_topic_store(props, started)
    store.put(ConnectorStatus("my-sink", State.RUNNING, WORKER, 7))
    store.put(TaskStatus(ConnectorTaskId("my-sink", 3), State.FAILED, WORKER, 7, 'a\n\t"b"'))
    store.put_topic(TopicStatus("lines", "my-sink", 3, 1700000000000))
    store.delete_topic("my-sink", "lines")
    store.put(TaskStatus(ConnectorTaskId("my-sink", 3), State.DESTROYED, WORKER, 8))
    store.flush()
    records = read_raw(bootstrap, props["status.storage.topic"])
    expected = [
        (
            b"status-connector-my-sink",
            b'{"state":"RUNNING","trace":null,"worker_id":"10.0.0.1:8083","generation":7}',
        ),
        (
            b"status-task-my-sink-3",
            b'{"state":"FAILED","trace":"a\\n\\t\\"b\\"","worker_id":"10.0.0.1:8083",'
            b'"generation":7}',
        ),
        (
            b"status-topic-lines:connector-my-sink",
            b'{"topic":{"name":"lines","connector":"my-sink","task":3,'
            b'"discoverTimestamp":1700000000000}}',
        ),
        (b"status-topic-lines:connector-my-sink", None),
        (b"status-task-my-sink-3", None),
    ]
    by_key: dict[bytes | None, list[bytes | None]] = {}
    for partition, pairs in records.items():
        for key, value in pairs:
            assert key is not None and murmur2_partition(key, 2) == partition
            by_key.setdefault(key, []).append(value)
    expected_by_key: dict[bytes | None, list[bytes | None]] = {}
    for key, value in expected:
        expected_by_key.setdefault(key, []).append(value)
    assert by_key == expected_by_key


def test_restarted_worker_sees_the_same_statuses(props: dict[str, Any], started: Any) -> None:
    store = new_topic_store(props, started)
    store.put(ConnectorStatus("sink", State.PAUSED, WORKER, 2))
    store.put(TaskStatus(T0, State.RUNNING, WORKER, 2))
    store.put(ConnectorStatus("gone", State.RUNNING, WORKER, 2))
    store.put(TaskStatus(ConnectorTaskId("gone", 0), State.RUNNING, WORKER, 2))
    store.put(ConnectorStatus("gone", State.DESTROYED, WORKER, 3))
    store.put_topic(TopicStatus("lines", "sink", 0, 5))
    store.flush()
    store.stop()
    again = new_topic_store(props, started)
    assert again.connectors() == {"sink"}
    assert again.get_connector("sink") == ConnectorStatus("sink", State.PAUSED, WORKER, 2)
    assert again.get_all("sink") == [TaskStatus(T0, State.RUNNING, WORKER, 2)]
    assert again.get_all_topics("sink") == [TopicStatus("lines", "sink", 0, 5)]
    # a connector tombstone forgets its tasks too (Kafka's remove(connector))
    assert again.get_all("gone") == []


def test_put_safe_keeps_newer_generations(props: dict[str, Any], started: Any) -> None:
    store = new_topic_store(props, started)
    store.put(TaskStatus(T0, State.RUNNING, OTHER_WORKER, 5))
    settle(store)
    store.put_safe(TaskStatus(T0, State.FAILED, WORKER, 4))  # older, from another worker
    settle(store)
    assert store.get_task(T0) == TaskStatus(T0, State.RUNNING, OTHER_WORKER, 5)
    store.put_safe(TaskStatus(T0, State.PAUSED, OTHER_WORKER, 4))  # same worker: allowed
    settle(store)
    assert store.get_task(T0) == TaskStatus(T0, State.PAUSED, OTHER_WORKER, 4)
    store.put_safe(TaskStatus(T0, State.UNASSIGNED, WORKER, 6))  # newer generation: allowed
    settle(store)
    assert store.get_task(T0) == TaskStatus(T0, State.UNASSIGNED, WORKER, 6)


def test_stale_unassigned_does_not_hide_running(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    """A worker frozen while its connector moved lets its copy go when it wakes up, writing
    UNASSIGNED for an older generation: the new owner's RUNNING stays, connector and tasks
    alike (the new owner writes RUNNING only once)."""
    store = new_topic_store(props, started)
    store.put(TaskStatus(T0, State.RUNNING, OTHER_WORKER, 5))
    store.put(TaskStatus(T0, State.UNASSIGNED, WORKER, 5))
    store.put(ConnectorStatus("sink", State.RUNNING, OTHER_WORKER, 7))
    store.put(ConnectorStatus("sink", State.UNASSIGNED, WORKER, 3))
    settle(store)
    assert store.get_task(T0) == TaskStatus(T0, State.RUNNING, OTHER_WORKER, 5)
    assert store.get_connector("sink") == ConnectorStatus("sink", State.RUNNING, OTHER_WORKER, 7)
    store.put(ConnectorStatus("sink", State.UNASSIGNED, OTHER_WORKER, 8))  # a newer round
    settle(store)
    assert store.get_connector("sink") == ConnectorStatus("sink", State.UNASSIGNED, OTHER_WORKER, 8)


def test_a_second_worker_sees_statuses_and_skips_garbage(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    first = new_topic_store(props, started)
    second = new_topic_store(props, started)
    first.put(ConnectorStatus("sink", State.RUNNING, WORKER, 1))
    first.flush()
    produce(
        bootstrap,
        props["status.storage.topic"],
        [
            (b"status-connector-bad", b'{"state":"DANCING","worker_id":"w","generation":1}'),
            (b"status-task-bad", b'{"state":"RUNNING","worker_id":"w","generation":1}'),
            (b"status-task-bad-0", b"not json"),
            (b"unrelated", b"{}"),
        ],
    )
    deadline = time.monotonic() + 10
    while second.get_connector("sink") is None and time.monotonic() < deadline:
        time.sleep(0.02)  # picked up by the background reader, no refresh needed
    second.refresh()
    assert second.get_connector("sink") == ConnectorStatus("sink", State.RUNNING, WORKER, 1)
    assert second.connectors() == {"sink"}
    assert second.get_all("bad") == []
