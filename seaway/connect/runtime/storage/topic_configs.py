"""Distributed mode's config store: the single-partition, compacted ``config.storage.topic``.

Writes and reads the records of :mod:`~seaway.connect.runtime.storage.config_records`, in
the order Kafka's ``KafkaConfigBackingStore`` writes them:

* create/update: ``target-state-<c>`` (only with an explicit initial state), ``connector-<c>``;
* delete: tombstones for ``connector-<c>`` and ``target-state-<c>``; task records stay;
* task configs: every ``task-<c>-<n>``, read back, then ``commit-<c>``.

Task configs are buffered as they are read and only applied when the commit record arrives,
and only if the commit names a complete set; otherwise the connector is *inconsistent*.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from seaway.config import ConfigException
from seaway.connect.api.errors import DataError
from seaway.connect.runtime.storage import _json, settings
from seaway.connect.runtime.storage import config_records as rec
from seaway.connect.runtime.storage.configs import (
    ClusterConfigState,
    Config,
    ConfigUpdateListener,
    RestartRequest,
    SessionKey,
    TargetState,
)
from seaway.connect.runtime.storage.ids import ConnectorTaskId
from seaway.connect.runtime.storage.topic_log import (
    DEFAULT_TIMEOUT_S,
    LogRecord,
    TopicBackedLog,
    TopicSpec,
)

log = logging.getLogger(__name__)

__all__ = ["TopicConfigStore"]

_Event = Callable[[ConfigUpdateListener], None]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class TopicConfigStore:
    """Connector configs, task configs and target states kept in the config topic.

    Writes return once the records are written and (except target states and log levels,
    as in Kafka) read back, so a :meth:`snapshot` taken afterwards includes them.
    """

    def __init__(
        self,
        spec: TopicSpec,
        client_config: Mapping[str, Any],
        *,
        client_id: str = "connect-configs",
        timeout: float = DEFAULT_TIMEOUT_S,
        **log_options: Any,
    ) -> None:
        self.timeout = timeout
        self.topic_log = TopicBackedLog(
            dataclasses.replace(spec, partitions=1),
            client_config,
            self._on_record,
            client_id=client_id,
            **log_options,
        )
        self._lock = threading.Lock()
        self._listener = ConfigUpdateListener()
        self._started = False
        self._offset = -1
        self._connectors_changed = -1  # the offset after the last create or removal
        self._session_key: SessionKey | None = None
        self._task_counts: dict[str, int] = {}
        self._connector_configs: dict[str, Config] = {}
        self._target_states: dict[str, TargetState] = {}
        self._task_configs: dict[ConnectorTaskId, Config] = {}
        self._deferred: dict[str, dict[ConnectorTaskId, Config]] = {}
        self._task_count_records: dict[str, int] = {}
        self._generations: dict[str, int] = {}
        self._applied: dict[str, Config] = {}
        self._pending_fencing: set[str] = set()
        self._inconsistent: set[str] = set()

    @classmethod
    def from_worker_config(
        cls,
        props: Mapping[str, Any],
        client_overrides: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> TopicConfigStore:
        """The store a distributed worker with properties *props* uses.

        *client_overrides* are extra librdkafka settings (security, ...) for its clients.
        """
        return cls(
            settings.internal_topic_spec(props, settings.CONFIGS),
            {**settings.client_config(props), **(client_overrides or {})},
            client_id=settings.client_id_base(props) + settings.CONFIGS.client_suffix,
            **options,
        )

    @property
    def topic(self) -> str:
        return self.topic_log.topic

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Read the whole topic; listeners only hear about records read after this."""
        log.info("Starting TopicConfigStore on topic %s", self.topic)
        self.topic_log.start()
        if self.topic_log.partition_count > 1:
            count = self.topic_log.partition_count
            self.topic_log.stop()
            raise ConfigException(
                f"Topic '{self.topic}' supplied via the '{self.topic_log.spec.worker_config}' "
                "property is required to have a single partition in order to guarantee "
                f"consistency of connector configurations, but found {count} partitions."
            )
        self._started = True
        log.info("Started TopicConfigStore")

    def stop(self) -> None:
        """Stop reading the topic."""
        self.topic_log.stop()

    def set_update_listener(self, listener: ConfigUpdateListener) -> None:
        """Report later changes to *listener* (called on the reader thread)."""
        self._listener = listener

    def refresh(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Read the topic to its end."""
        self.topic_log.read_to_end(timeout)

    # ------------------------------------------------------------------ reads

    def snapshot(self) -> ClusterConfigState:
        """The configuration read so far (call :meth:`refresh` first to catch up)."""
        with self._lock:
            return ClusterConfigState(
                offset=self._offset,
                session_key=self._session_key,
                connector_task_counts=dict(self._task_counts),
                connector_configs=dict(self._connector_configs),
                target_states=dict(self._target_states),
                task_configs=dict(self._task_configs),
                task_count_records=dict(self._task_count_records),
                task_config_generations=dict(self._generations),
                applied_connector_configs=dict(self._applied),
                pending_fencing=frozenset(self._pending_fencing),
                inconsistent=frozenset(self._inconsistent),
                connectors_changed_offset=self._connectors_changed,
            )

    def contains(self, connector: str) -> bool:
        """Whether *connector* has a config."""
        with self._lock:
            return connector in self._connector_configs

    # ------------------------------------------------------------------ writes

    def put_connector_config(
        self, connector: str, config: Config, target_state: TargetState | None = None
    ) -> None:
        """Write the connector's config (after its target state, if one is given)."""
        records: list[tuple[str, bytes | None]] = []
        if target_state is not None:
            records.append((rec.target_state_key(connector), rec.target_state_value(target_state)))
        records.append((rec.connector_key(connector), rec.config_value(config)))
        self._write(records, read_back=True)

    def remove_connector_config(self, connector: str) -> None:
        """Tombstone the connector's config and target state (task records are left)."""
        self._write(
            [(rec.connector_key(connector), None), (rec.target_state_key(connector), None)],
            read_back=True,
        )

    def put_task_configs(self, connector: str, configs: Sequence[Config]) -> None:
        """Write every task config, read them back, then write the commit record."""
        deadline = time.monotonic() + self.timeout
        self.topic_log.read_to_end(self.timeout)
        tasks = [
            (rec.task_key(ConnectorTaskId(connector, i)), rec.config_value(config))
            for i, config in enumerate(configs)
        ]
        if tasks:
            self.topic_log.send_all(list(tasks), _left(deadline))
            self.topic_log.read_to_end(_left(deadline))
        commit = (rec.commit_key(connector), rec.commit_value(len(tasks)))
        self.topic_log.send_all([commit], _left(deadline))
        self.topic_log.read_to_end(_left(deadline))

    def remove_task_configs(self, connector: str) -> None:
        """Not supported by the config topic (as in Kafka)."""
        raise NotImplementedError("Removal of tasks is not currently supported")

    def put_target_state(self, connector: str, state: TargetState) -> None:
        """Write a target state; returns once written, before it is read back."""
        self._write([(rec.target_state_key(connector), rec.target_state_value(state))])

    def put_restart_request(self, request: RestartRequest) -> None:
        """Write a restart request for the leader to act on."""
        value = rec.restart_value(request)
        self._write([(rec.restart_key(request.connector), value)], read_back=True)

    def put_session_key(self, session_key: SessionKey) -> None:
        """Distribute a session key."""
        self._write([(rec.SESSION_KEY_KEY, rec.session_key_value(session_key))], read_back=True)

    def put_task_count_record(self, connector: str, task_count: int) -> None:
        """Record a task count after zombie fencing."""
        value = rec.task_count_value(task_count)
        self._write([(rec.task_count_key(connector), value)], read_back=True)

    def put_logger_level(self, namespace: str, level: str) -> None:
        """Write a cluster-wide log level; returns once written."""
        self._write([(rec.logger_key(namespace), rec.logger_level_value(level))])

    def _write(self, records: list[tuple[str, bytes | None]], read_back: bool = False) -> None:
        deadline = time.monotonic() + self.timeout
        self.topic_log.send_all(list(records), self.timeout)
        if read_back:
            self.topic_log.read_to_end(_left(deadline))

    # ------------------------------------------------------------------ reading records

    def _on_record(self, record: LogRecord) -> None:
        key = (record.key or b"").decode("utf-8", errors="replace")
        try:
            value = _json.decode(record.value)
        except DataError:
            log.error("Failed to convert config data to Kafka Connect format: %s", key)
            return
        with self._lock:
            self._offset = record.offset + 1
            events = self._apply(key, value)
        if self._started:
            for event in events:
                event(self._listener)

    def _apply(self, key: str, value: Any) -> list[_Event]:
        """Update the state for one record; returns the listener calls it causes."""
        if key.startswith(rec.TARGET_STATE_PREFIX):
            return self._target_state(key.removeprefix(rec.TARGET_STATE_PREFIX), value)
        if key.startswith(rec.CONNECTOR_PREFIX):
            return self._connector_config(key.removeprefix(rec.CONNECTOR_PREFIX), value)
        if key.startswith(rec.TASK_PREFIX):
            task = ConnectorTaskId.parse(key.removeprefix(rec.TASK_PREFIX))
            if task is None:
                log.error("Ignoring task configuration because %s couldn't be parsed", key)
                return []
            return self._task_config(task, value)
        if key.startswith(rec.COMMIT_TASKS_PREFIX):
            return self._commit(key.removeprefix(rec.COMMIT_TASKS_PREFIX), value)
        if key.startswith(rec.RESTART_PREFIX):
            return self._restart(key.removeprefix(rec.RESTART_PREFIX), value)
        if key.startswith(rec.TASK_COUNT_RECORD_PREFIX):
            return self._task_count(key.removeprefix(rec.TASK_COUNT_RECORD_PREFIX), value)
        if key == rec.SESSION_KEY_KEY:
            return self._session(value)
        if key.startswith(rec.LOGGER_CLUSTER_PREFIX):
            return self._logger_level(key.removeprefix(rec.LOGGER_CLUSTER_PREFIX), value)
        log.error("Discarding config update record with invalid key: %s", key)
        return []

    def _target_state(self, connector: str, value: Any) -> list[_Event]:
        if value is None:
            self._target_states.pop(connector, None)
            # A connector that still has a config always has a target state.
            if connector in self._connector_configs:
                self._target_states[connector] = TargetState.STARTED
            return []
        if not isinstance(value, dict):
            log.error("Ignoring target state for connector '%s': wrong format", connector)
            return []
        name = value.get("state.v2")
        if not isinstance(name, str):
            name = value.get("state")  # written by an older worker
        try:
            state = TargetState(name)
        except ValueError:
            log.error("Invalid target state for connector '%s': %s", connector, name)
            return []
        previous = self._target_states.get(connector)
        self._target_states[connector] = state
        if state is previous or connector not in self._connector_configs:
            return []
        return [lambda listener: listener.on_connector_target_state_change(connector)]

    def _connector_config(self, connector: str, value: Any) -> list[_Event]:
        if value is None:
            if connector in self._connector_configs:
                self._connectors_changed = self._offset
            self._remove_connector(connector)
            log.info("Successfully processed removal of connector '%s'", connector)
            return [lambda listener: listener.on_connector_config_remove(connector)]
        properties = value.get("properties") if isinstance(value, dict) else None
        if not isinstance(properties, dict):
            log.error("Ignoring configuration for connector '%s': wrong format", connector)
            return []
        if connector not in self._connector_configs:
            self._connectors_changed = self._offset
        self._connector_configs[connector] = properties
        self._target_states.setdefault(connector, TargetState.STARTED)
        return [lambda listener: listener.on_connector_config_update(connector)]

    def _task_config(self, task: ConnectorTaskId, value: Any) -> list[_Event]:
        properties = value.get("properties") if isinstance(value, dict) else None
        if not isinstance(properties, dict):
            log.error("Ignoring configuration for task %s: wrong format or null", task)
            return []
        self._deferred.setdefault(task.connector, {})[task] = properties
        return []

    def _commit(self, connector: str, value: Any) -> list[_Event]:
        if connector not in self._connector_configs:
            # The connector was deleted and compaction removed its config and tombstone.
            self._remove_connector(connector)
            return []
        count = _int(value.get("tasks")) if isinstance(value, dict) else None
        if count is None:
            log.error("Ignoring task commit for connector '%s': wrong format", connector)
            return []
        deferred = self._deferred.get(connector, {})
        numbers = {task.task for task in deferred}
        updated: list[ConnectorTaskId] = []
        if not all(i in numbers for i in range(count)):
            log.debug("Incomplete set of task configs for connector '%s'", connector)
            self._inconsistent.add(connector)
        else:
            if deferred:
                self._task_configs.update(deferred)
                updated = sorted(deferred)
                self._generations[connector] = self._generations.get(connector, -1) + 1
            self._inconsistent.discard(connector)
            self._applied[connector] = self._connector_configs[connector]
        deferred.clear()
        self._task_counts[connector] = count
        self._pending_fencing.add(connector)
        return [lambda listener: listener.on_task_config_update(updated)]

    def _remove_connector(self, connector: str) -> None:
        self._connector_configs.pop(connector, None)
        self._task_counts.pop(connector, None)
        self._task_configs = {
            t: c for t, c in self._task_configs.items() if t.connector != connector
        }
        self._deferred.pop(connector, None)
        self._applied.pop(connector, None)

    def _restart(self, connector: str, value: Any) -> list[_Event]:
        if not isinstance(value, dict):
            log.error("Ignoring restart request for connector '%s': wrong format", connector)
            return []
        include_tasks = value.get(rec.INCLUDE_TASKS_FIELD)
        only_failed = value.get(rec.ONLY_FAILED_FIELD)
        request = RestartRequest(
            connector,
            only_failed=only_failed if isinstance(only_failed, bool) else False,
            include_tasks=include_tasks if isinstance(include_tasks, bool) else False,
        )
        return [lambda listener: listener.on_restart_request(request)]

    def _task_count(self, connector: str, value: Any) -> list[_Event]:
        count = _int(value.get("task-count")) if isinstance(value, dict) else None
        if count is None:
            log.error("Ignoring task count record for connector '%s': wrong format", connector)
            return []
        self._task_count_records[connector] = count
        self._pending_fencing.discard(connector)
        return []

    def _session(self, value: Any) -> list[_Event]:
        if not isinstance(value, dict):
            log.error("Ignoring session key: wrong format or null")
            return []
        key, algorithm = value.get("key"), value.get("algorithm")
        created = _int(value.get("creation-timestamp"))
        if not isinstance(key, str) or not isinstance(algorithm, str) or created is None:
            log.error("Ignoring session key: wrong format")
            return []
        try:
            session_key = SessionKey(base64.b64decode(key, validate=True), algorithm, created)
        except binascii.Error:
            log.error("Ignoring session key: its key is not base64")
            return []
        self._session_key = session_key
        return [lambda listener: listener.on_session_key_update(session_key)]

    def _logger_level(self, namespace: str, value: Any) -> list[_Event]:
        level = value.get("level") if isinstance(value, dict) else None
        if not isinstance(level, str):
            log.error("Ignoring logging level for namespace %s: wrong format", namespace)
            return []
        return [lambda listener: listener.on_logging_level_update(namespace, level)]


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)
