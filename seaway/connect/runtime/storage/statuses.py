"""Connector and task statuses: the status types, the store protocol and the memory store.

A status says what a connector or task is doing (``state``), where (``worker_id``), why it
failed (``trace``) and in which rebalance generation it was written. Status stores also
keep the topics each connector has used (KIP-558, ``GET /connectors/<c>/topics``).
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from seaway.connect.runtime.storage.ids import ConnectorTaskId

__all__ = [
    "ConnectorStatus",
    "MemoryStatusStore",
    "State",
    "StatusReads",
    "StatusStore",
    "StatusTable",
    "TaskStatus",
    "TopicStatus",
]


class State(enum.Enum):
    """A connector's or task's state (Kafka's ``AbstractStatus.State``).

    STOPPED is only ever shown for connectors. DESTROYED is never shown: putting a status
    with it deletes the stored status (a tombstone on the status topic).
    """

    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    DESTROYED = "DESTROYED"


@dataclass(frozen=True, slots=True)
class ConnectorStatus:
    """The status of connector *id*.

    >>> ConnectorStatus("sink", State.RUNNING, "host:8083").to_rest()
    {'state': 'RUNNING', 'worker_id': 'host:8083'}
    """

    id: str
    state: State
    worker_id: str
    generation: int = 0
    trace: str | None = None

    @property
    def connector(self) -> str:
        return self.id

    def to_rest(self) -> dict[str, Any]:
        """The ``connector`` object of the REST ``ConnectorStateInfo`` (no empty trace)."""
        out: dict[str, Any] = {"state": self.state.value, "worker_id": self.worker_id}
        if self.trace:
            out["trace"] = self.trace
        return out


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """The status of task *id*.

    >>> TaskStatus(ConnectorTaskId("sink", 0), State.FAILED, "host:8083", trace="boom").to_rest()
    {'id': 0, 'state': 'FAILED', 'worker_id': 'host:8083', 'trace': 'boom'}
    """

    id: ConnectorTaskId
    state: State
    worker_id: str
    generation: int = 0
    trace: str | None = None

    @property
    def connector(self) -> str:
        return self.id.connector

    def to_rest(self) -> dict[str, Any]:
        """One ``tasks`` entry of the REST ``ConnectorStateInfo`` (no empty trace)."""
        out: dict[str, Any] = {
            "id": self.id.task,
            "state": self.state.value,
            "worker_id": self.worker_id,
        }
        if self.trace:
            out["trace"] = self.trace
        return out


@dataclass(frozen=True, slots=True)
class TopicStatus:
    """Connector *connector* (task *task*) used *topic*, first at *discover_timestamp* (ms)."""

    topic: str
    connector: str
    task: int
    discover_timestamp: int


@runtime_checkable
class StatusStore(Protocol):
    """Where connector, task and topic statuses are kept."""

    def start(self) -> None:
        """Load the stored statuses."""

    def stop(self) -> None:
        """Release resources."""

    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        """Store a status (DESTROYED deletes it)."""

    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        """Store a status unless a newer generation from another worker is stored."""

    def put_topic(self, status: TopicStatus) -> None:
        """Record that a connector used a topic."""

    def delete_topic(self, connector: str, topic: str) -> None:
        """Forget that a connector used a topic."""

    def get_connector(self, connector: str) -> ConnectorStatus | None:
        """A connector's status, or None."""

    def get_task(self, task: ConnectorTaskId) -> TaskStatus | None:
        """A task's status, or None."""

    def get_all(self, connector: str) -> list[TaskStatus]:
        """The statuses of a connector's tasks, by task number."""

    def get_topic(self, connector: str, topic: str) -> TopicStatus | None:
        """Whether (and when) a connector used a topic."""

    def get_all_topics(self, connector: str) -> list[TopicStatus]:
        """The topics a connector has used."""

    def connectors(self) -> set[str]:
        """Names of the connectors that have a status."""

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until the statuses put so far are written."""

    def refresh(self, timeout: float = 30.0) -> None:
        """Catch up with every status written so far, anywhere in the cluster."""


class StatusTable:
    """Thread-safe statuses, kept the way both stores need them."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.connectors: dict[str, ConnectorStatus] = {}
        self.tasks: dict[str, dict[int, TaskStatus]] = {}
        self.topics: dict[str, dict[str, TopicStatus]] = {}

    def current(self, status: ConnectorStatus | TaskStatus) -> ConnectorStatus | TaskStatus | None:
        """What is stored under the id of *status*."""
        with self.lock:
            if isinstance(status, ConnectorStatus):
                return self.connectors.get(status.id)
            return self.tasks.get(status.id.connector, {}).get(status.id.task)

    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        with self.lock:
            if isinstance(status, ConnectorStatus):
                self.connectors[status.id] = status
            else:
                self.tasks.setdefault(status.id.connector, {})[status.id.task] = status

    def remove_connector(self, connector: str) -> None:
        """Forget a connector and all its tasks (a connector tombstone does both)."""
        with self.lock:
            self.connectors.pop(connector, None)
            self.tasks.pop(connector, None)

    def remove_task(self, task: ConnectorTaskId) -> None:
        with self.lock:
            tasks = self.tasks.get(task.connector)
            if tasks is not None:
                tasks.pop(task.task, None)
                if not tasks:
                    del self.tasks[task.connector]

    def put_topic(self, status: TopicStatus) -> None:
        with self.lock:
            self.topics.setdefault(status.connector, {})[status.topic] = status

    def remove_topic(self, connector: str, topic: str) -> None:
        with self.lock:
            self.topics.get(connector, {}).pop(topic, None)

    def get_all(self, connector: str) -> list[TaskStatus]:
        with self.lock:
            return [s for _, s in sorted(self.tasks.get(connector, {}).items())]

    def get_all_topics(self, connector: str) -> list[TopicStatus]:
        with self.lock:
            return list(self.topics.get(connector, {}).values())


def can_write_safely(
    current: ConnectorStatus | TaskStatus | None, status: ConnectorStatus | TaskStatus
) -> bool:
    """Kafka's ``putSafe`` rule: nothing stored, same worker, or not an older generation."""
    return (
        current is None
        or current.worker_id == status.worker_id
        or current.generation <= status.generation
    )


class StatusReads:
    """The read side of a status store, answered from its :class:`StatusTable`."""

    table: StatusTable

    def get_connector(self, connector: str) -> ConnectorStatus | None:
        """A connector's status, or None."""
        with self.table.lock:
            return self.table.connectors.get(connector)

    def get_task(self, task: ConnectorTaskId) -> TaskStatus | None:
        """A task's status, or None."""
        with self.table.lock:
            return self.table.tasks.get(task.connector, {}).get(task.task)

    def get_all(self, connector: str) -> list[TaskStatus]:
        """The statuses of a connector's tasks, by task number."""
        return self.table.get_all(connector)

    def get_topic(self, connector: str, topic: str) -> TopicStatus | None:
        """Whether (and when) a connector used a topic."""
        with self.table.lock:
            return self.table.topics.get(connector, {}).get(topic)

    def get_all_topics(self, connector: str) -> list[TopicStatus]:
        """The topics a connector has used."""
        return self.table.get_all_topics(connector)

    def connectors(self) -> set[str]:
        """Names of the connectors that have a status."""
        with self.table.lock:
            return set(self.table.connectors)


class MemoryStatusStore(StatusReads):
    """Statuses in memory (standalone mode); ``put_safe`` is ``put``."""

    def __init__(self) -> None:
        self.table = StatusTable()

    def start(self) -> None:
        """Nothing to load."""

    def stop(self) -> None:
        """Nothing to release."""

    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        """Store a status; DESTROYED deletes the connector's or task's status."""
        if status.state is not State.DESTROYED:
            self.table.put(status)
        elif isinstance(status, ConnectorStatus):
            with self.table.lock:
                self.table.connectors.pop(status.id, None)
        else:
            self.table.remove_task(status.id)

    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        """Same as :meth:`put`: one worker, no conflicts."""
        self.put(status)

    def put_topic(self, status: TopicStatus) -> None:
        """Record that a connector used a topic."""
        self.table.put_topic(status)

    def delete_topic(self, connector: str, topic: str) -> None:
        """Forget that a connector used a topic."""
        self.table.remove_topic(connector, topic)

    def flush(self, timeout: float = 30.0) -> None:
        """Nothing to write."""

    def refresh(self, timeout: float = 30.0) -> None:
        """Always up to date."""
