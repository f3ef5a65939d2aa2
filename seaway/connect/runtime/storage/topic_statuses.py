"""Distributed mode's status store: the compacted ``status.storage.topic``.

Records are exactly those of Kafka's ``KafkaStatusBackingStore``:

==========================================  ============================================
key                                         value
==========================================  ============================================
``status-connector-<name>``                 ``{"state":"RUNNING","trace":null,"worker_id":"host:port","generation":N}``
``status-task-<name>-<n>``                  the same shape
``status-topic-<topic>:connector-<name>``   ``{"topic":{"name":..,"connector":..,"task":N,"discoverTimestamp":ms}}``
==========================================  ============================================

A DESTROYED status is written as a tombstone; a connector tombstone also forgets its tasks.
Writes are asynchronous and a status becomes visible once read back, as in Kafka.

>>> status_value(ConnectorStatus("c", State.RUNNING, "host:8083", 3))
b'{"state":"RUNNING","trace":null,"worker_id":"host:8083","generation":3}'
"""  # noqa: E501

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from seaway.connect.api.errors import ConnectError, DataError
from seaway.connect.runtime.storage import _json, settings
from seaway.connect.runtime.storage.ids import ConnectorTaskId
from seaway.connect.runtime.storage.statuses import (
    ConnectorStatus,
    State,
    StatusReads,
    StatusTable,
    TaskStatus,
    TopicStatus,
    can_write_safely,
)
from seaway.connect.runtime.storage.topic_log import (
    DEFAULT_TIMEOUT_S,
    LogRecord,
    TopicBackedLog,
    TopicSpec,
)

log = logging.getLogger(__name__)

__all__ = [
    "TopicStatusStore",
    "connector_status_key",
    "status_value",
    "task_status_key",
    "topic_status_key",
    "topic_status_value",
]

CONNECTOR_STATUS_PREFIX: Final = "status-connector-"
TASK_STATUS_PREFIX: Final = "status-task-"
TOPIC_STATUS_PREFIX: Final = "status-topic-"
TOPIC_STATUS_SEPARATOR: Final = ":connector-"


def connector_status_key(connector: str) -> str:
    return CONNECTOR_STATUS_PREFIX + connector


def task_status_key(task: ConnectorTaskId) -> str:
    return f"{TASK_STATUS_PREFIX}{task.connector}-{task.task}"


def topic_status_key(connector: str, topic: str) -> str:
    return f"{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}"


def status_value(status: ConnectorStatus | TaskStatus) -> bytes | None:
    """``{"state","trace","worker_id","generation"}``; None (tombstone) for DESTROYED."""
    if status.state is State.DESTROYED:
        return None
    return _json.encode(
        {
            "state": status.state.value,
            "trace": status.trace,
            "worker_id": status.worker_id,
            "generation": status.generation,
        }
    )


def topic_status_value(status: TopicStatus) -> bytes | None:
    """``{"topic":{"name","connector","task","discoverTimestamp"}}``."""
    return _json.encode(
        {
            "topic": {
                "name": status.topic,
                "connector": status.connector,
                "task": status.task,
                "discoverTimestamp": status.discover_timestamp,
            }
        }
    )


def _parse_status(value: bytes) -> tuple[State, str | None, str, int] | None:
    """(state, trace, worker id, generation) of a status value, or None (logged)."""
    try:
        parsed = _json.decode(value)
    except DataError:
        log.error("Failed to deserialize status: not JSON")
        return None
    if not isinstance(parsed, Mapping):
        log.error("Invalid status type %s", type(parsed).__name__)
        return None
    state, trace = parsed.get("state"), parsed.get("trace")
    worker_id, generation = parsed.get("worker_id"), parsed.get("generation")
    try:
        valid_state = State(state)
    except ValueError:
        log.error("Failed to deserialize status: unknown state %r", state)
        return None
    if (
        not isinstance(worker_id, str)
        or not isinstance(generation, int)
        or isinstance(generation, bool)
        or (trace is not None and not isinstance(trace, str))
    ):
        log.error("Failed to deserialize status: %r", parsed)
        return None
    return valid_state, trace, worker_id, generation


class TopicStatusStore(StatusReads):
    """Statuses kept in the status topic and read back into memory by a background thread."""

    def __init__(
        self,
        spec: TopicSpec,
        client_config: Mapping[str, Any],
        *,
        client_id: str = "connect-statuses",
        timeout: float = DEFAULT_TIMEOUT_S,
        **log_options: Any,
    ) -> None:
        self.table = StatusTable()
        self.timeout = timeout
        self.topic_log = TopicBackedLog(
            spec, client_config, self._on_record, client_id=client_id, **log_options
        )

    @classmethod
    def from_worker_config(
        cls,
        props: Mapping[str, Any],
        client_overrides: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> TopicStatusStore:
        """The store a distributed worker with properties *props* uses.

        *client_overrides* are extra librdkafka settings (security, ...) for its clients.
        """
        return cls(
            settings.internal_topic_spec(props, settings.STATUSES),
            {**settings.client_config(props), **(client_overrides or {})},
            client_id=settings.client_id_base(props) + settings.STATUSES.client_suffix,
            **options,
        )

    @property
    def topic(self) -> str:
        return self.topic_log.topic

    def start(self) -> None:
        """Create the topic if needed and read every status in it."""
        log.info("Starting TopicStatusStore on topic %s", self.topic)
        self.topic_log.start()

    def stop(self) -> None:
        """Deliver pending writes and stop reading."""
        self.topic_log.stop()

    def put(self, status: ConnectorStatus | TaskStatus) -> None:
        """Write a status (DESTROYED writes a tombstone)."""
        self._send(_key(status), status_value(status))

    def put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        """Write a status unless another worker stored one of a newer generation."""
        if can_write_safely(self.table.current(status), status):
            self.put(status)

    def put_topic(self, status: TopicStatus) -> None:
        """Record that a connector used a topic."""
        self._send(topic_status_key(status.connector, status.topic), topic_status_value(status))

    def delete_topic(self, connector: str, topic: str) -> None:
        """Tombstone a connector's topic record."""
        self._send(topic_status_key(connector, topic), None)

    def flush(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Wait until the statuses put so far have been written."""
        self.topic_log.flush(timeout)

    def refresh(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Read the topic to its end (own writes included)."""
        self.topic_log.read_to_end(timeout)

    def _send(self, key: str, value: bytes | None) -> None:
        try:
            self.topic_log.send(key, value)
        except ConnectError:
            log.exception("Failed to write status update %s", key)

    # ------------------------------------------------------------------ reading records

    def _on_record(self, record: LogRecord) -> None:
        key = (record.key or b"").decode("utf-8", errors="replace")
        if key.startswith(CONNECTOR_STATUS_PREFIX):
            self._read_connector(key.removeprefix(CONNECTOR_STATUS_PREFIX), record.value)
        elif key.startswith(TASK_STATUS_PREFIX):
            self._read_task(key, record.value)
        elif key.startswith(TOPIC_STATUS_PREFIX):
            self._read_topic(key, record.value)
        else:
            log.warning("Discarding record with invalid key %s", key)

    def _read_connector(self, connector: str, value: bytes | None) -> None:
        if not connector:
            log.warning("Discarding record with invalid connector status key")
            return
        if value is None:
            self.table.remove_connector(connector)
            return
        parsed = _parse_status(value)
        if parsed is not None:
            state, trace, worker_id, generation = parsed
            self._read_status(ConnectorStatus(connector, state, worker_id, generation, trace))

    def _read_task(self, key: str, value: bytes | None) -> None:
        task = ConnectorTaskId.parse(key.removeprefix(TASK_STATUS_PREFIX))
        if task is None:
            log.warning("Discarding record with invalid task status key %s", key)
            return
        if value is None:
            self.table.remove_task(task)
            return
        parsed = _parse_status(value)
        if parsed is None:
            return
        state, trace, worker_id, generation = parsed
        self._read_status(TaskStatus(task, state, worker_id, generation, trace))

    def _read_status(self, status: ConnectorStatus | TaskStatus) -> None:
        with self.table.lock:
            current = self.table.current(status)
            # A worker that missed a newer RUNNING status (frozen, cut off, slow to read)
            # may still send UNASSIGNED for the same or an older generation when it lets
            # its copy go; keep the RUNNING one, or the status would stay UNASSIGNED while
            # the new owner runs it (it writes RUNNING only once).
            if (
                status.state is State.UNASSIGNED
                and current is not None
                and current.state is State.RUNNING
                and current.generation >= status.generation
            ):
                return
            self.table.put(status)

    def _read_topic(self, key: str, value: bytes | None) -> None:
        topic, sep, connector = key.removeprefix(TOPIC_STATUS_PREFIX).partition(
            TOPIC_STATUS_SEPARATOR
        )
        if not sep or not topic or not connector:
            log.warning("Discarding record with invalid topic status key %s", key)
            return
        if value is None:
            self.table.remove_topic(connector, topic)
            return
        try:
            inner: Any = _json.decode(value)
            inner = inner.get("topic") if isinstance(inner, Mapping) else None
            status = TopicStatus(
                inner["name"], inner["connector"], inner["task"], inner["discoverTimestamp"]
            )
        except (DataError, TypeError, KeyError):
            log.warning("Failed to parse topic status with key %s", key)
            return
        self.table.put_topic(status)


def _key(status: ConnectorStatus | TaskStatus) -> str:
    if isinstance(status, ConnectorStatus):
        return connector_status_key(status.id)
    return task_status_key(status.id)
