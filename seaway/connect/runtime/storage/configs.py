"""Connector and task configurations: the store protocol, its snapshot and the memory store.

A :class:`ConfigStore` holds each connector's config, its target state and the task configs
generated from it. Task configs change as a whole: Kafka's config topic only applies them
when the ``commit-<connector>`` record arrives, and every store here shows the same rule
through :class:`ClusterConfigState` snapshots. Changes are reported to a
:class:`ConfigUpdateListener`.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast, runtime_checkable

from seaway.connect.api.errors import NotFoundError
from seaway.connect.runtime.storage.ids import ConnectorTaskId

__all__ = [
    "ClusterConfigState",
    "ConfigStore",
    "ConfigUpdateListener",
    "MemoryConfigStore",
    "RestartRequest",
    "SessionKey",
    "TargetState",
]

Config = Mapping[str, str | None]


class TargetState(enum.Enum):
    """What a connector should be doing (Kafka's ``TargetState``)."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


@dataclass(frozen=True, slots=True)
class RestartRequest:
    """``POST /connectors/<name>/restart?includeTasks=..&onlyFailed=..`` (KIP-745)."""

    connector: str
    only_failed: bool = False
    include_tasks: bool = False


@dataclass(frozen=True, slots=True)
class SessionKey:
    """The key workers sign internal REST requests with (KIP-507)."""

    key: bytes
    algorithm: str
    creation_timestamp: int


@dataclass(frozen=True)
class ClusterConfigState:
    """An immutable snapshot of every connector's configuration (Kafka's class of that name).

    ``offset`` is the config topic offset the snapshot reflects (-1 for memory stores);
    ``connectors_changed_offset`` the offset just after the last record that created or
    removed a connector (-1 if none), so a worker can tell whether an assignment made at
    some offset knew of every connector there is now.
    ``inconsistent`` names connectors whose last task commit found task configs missing
    (compaction after a failed write); they have no tasks until configs are written again.
    """

    offset: int = -1
    session_key: SessionKey | None = None
    connector_task_counts: Mapping[str, int] = field(default_factory=dict)
    connector_configs: Mapping[str, Config] = field(default_factory=dict)
    target_states: Mapping[str, TargetState] = field(default_factory=dict)
    task_configs: Mapping[ConnectorTaskId, Config] = field(default_factory=dict)
    task_count_records: Mapping[str, int] = field(default_factory=dict)
    task_config_generations: Mapping[str, int] = field(default_factory=dict)
    applied_connector_configs: Mapping[str, Config] = field(default_factory=dict)
    pending_fencing: frozenset[str] = frozenset()
    inconsistent: frozenset[str] = frozenset()
    connectors_changed_offset: int = -1

    def contains(self, connector: str) -> bool:
        """Whether *connector* has a config."""
        return connector in self.connector_configs

    def connectors(self) -> set[str]:
        """Names of the configured connectors."""
        return set(self.connector_configs)

    def connector_config(self, connector: str) -> Mapping[str, str] | None:
        """The connector's config, or None (as the runtime reads it: a null value another
        worker stored is passed on as None, as Kafka's ``Map<String, String>`` holds it)."""
        return cast("Mapping[str, str] | None", self.connector_configs.get(connector))

    def applied_connector_config(self, connector: str) -> Config | None:
        """The connector config its current task configs were generated from."""
        return self.applied_connector_configs.get(connector)

    def target_state(self, connector: str) -> TargetState | None:
        """The connector's target state, or None if it has none."""
        return self.target_states.get(connector)

    def task_config(self, task: ConnectorTaskId) -> Mapping[str, str] | None:
        """A task's config, or None (null values as in :meth:`connector_config`)."""
        return cast("Mapping[str, str] | None", self.task_configs.get(task))

    def task_count(self, connector: str) -> int:
        """How many tasks the connector's last task commit named (0 if none)."""
        return self.connector_task_counts.get(connector, 0)

    def tasks(self, connector: str) -> list[ConnectorTaskId]:
        """The connector's task ids in order; empty while it is inconsistent."""
        if connector in self.inconsistent:
            return []
        return [ConnectorTaskId(connector, i) for i in range(self.task_count(connector))]

    def task_count_record(self, connector: str) -> int | None:
        """The latest ``tasks-fencing`` task count (exactly-once source), or None."""
        return self.task_count_records.get(connector)

    def task_config_generation(self, connector: str) -> int | None:
        """Increases each time a new set of task configs is applied; None before the first."""
        return self.task_config_generations.get(connector)


class ConfigUpdateListener:
    """Told about config changes; override what you need (each method does nothing).

    Topic-backed stores call it from their reader thread, only for records read after
    start-up, and never while holding the store's lock.
    """

    def on_connector_config_update(self, connector: str) -> None:
        """A connector was created or reconfigured."""

    def on_connector_config_remove(self, connector: str) -> None:
        """A connector was deleted."""

    def on_task_config_update(self, tasks: Collection[ConnectorTaskId]) -> None:
        """New task configs were applied (empty when the commit was inconsistent)."""

    def on_connector_target_state_change(self, connector: str) -> None:
        """A connector's target state changed."""

    def on_session_key_update(self, session_key: SessionKey) -> None:
        """A new session key was distributed."""

    def on_restart_request(self, request: RestartRequest) -> None:
        """A connector (and maybe its tasks) should restart."""

    def on_logging_level_update(self, namespace: str, level: str) -> None:
        """A cluster-wide log level was set (KIP-976)."""


@runtime_checkable
class ConfigStore(Protocol):
    """Where connector configs, task configs and target states are kept."""

    def start(self) -> None:
        """Load the stored configs."""

    def stop(self) -> None:
        """Release resources."""

    def set_update_listener(self, listener: ConfigUpdateListener) -> None:
        """Report later changes to *listener*."""

    def snapshot(self) -> ClusterConfigState:
        """The current configuration of every connector."""

    def contains(self, connector: str) -> bool:
        """Whether *connector* has a config."""

    def put_connector_config(
        self, connector: str, config: Config, target_state: TargetState | None = None
    ) -> None:
        """Create or replace a connector's config, optionally setting its target state."""

    def remove_connector_config(self, connector: str) -> None:
        """Delete a connector's config and target state."""

    def put_task_configs(self, connector: str, configs: Sequence[Config]) -> None:
        """Replace the connector's task configs, all at once."""

    def remove_task_configs(self, connector: str) -> None:
        """Drop the connector's task configs (memory stores only)."""

    def put_target_state(self, connector: str, state: TargetState) -> None:
        """Set a connector's target state."""

    def put_restart_request(self, request: RestartRequest) -> None:
        """Ask the cluster to restart a connector."""

    def put_session_key(self, session_key: SessionKey) -> None:
        """Distribute a session key."""

    def put_task_count_record(self, connector: str, task_count: int) -> None:
        """Record the task count after zombie fencing (exactly-once source)."""

    def put_logger_level(self, namespace: str, level: str) -> None:
        """Set a log level on every worker."""

    def refresh(self, timeout: float = 30.0) -> None:
        """Catch up with every change made so far, anywhere in the cluster."""


@dataclass
class _Connector:
    config: Config
    target_state: TargetState
    task_configs: dict[ConnectorTaskId, Config] = field(default_factory=dict)
    applied_config: Config | None = None


class MemoryConfigStore:
    """Configs in memory (standalone mode): changes apply at once; nothing survives a restart.

    As in Kafka's ``MemoryConfigBackingStore``, the listener is called synchronously, and
    session keys, restart requests, task count records and log levels are not kept.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._connectors: dict[str, _Connector] = {}
        self._listener = ConfigUpdateListener()

    def start(self) -> None:
        """Nothing to load."""

    def stop(self) -> None:
        """Nothing to release."""

    def set_update_listener(self, listener: ConfigUpdateListener) -> None:
        """Report later changes to *listener*."""
        self._listener = listener

    def snapshot(self) -> ClusterConfigState:
        """The current configuration of every connector."""
        with self._lock:
            connectors = self._connectors.items()
            return ClusterConfigState(
                connector_task_counts={n: len(c.task_configs) for n, c in connectors},
                connector_configs={n: c.config for n, c in connectors},
                target_states={n: c.target_state for n, c in connectors},
                task_configs={
                    t: cfg for c in self._connectors.values() for t, cfg in c.task_configs.items()
                },
                applied_connector_configs={
                    n: c.applied_config for n, c in connectors if c.applied_config is not None
                },
            )

    def contains(self, connector: str) -> bool:
        """Whether *connector* has a config."""
        with self._lock:
            return connector in self._connectors

    def put_connector_config(
        self, connector: str, config: Config, target_state: TargetState | None = None
    ) -> None:
        """Create or replace a connector's config; a new connector starts STARTED by default."""
        with self._lock:
            state = self._connectors.get(connector)
            if state is None:
                self._connectors[connector] = _Connector(
                    dict(config), target_state or TargetState.STARTED
                )
            else:
                state.config = dict(config)
                if target_state is not None:
                    state.target_state = target_state
        self._listener.on_connector_config_update(connector)

    def remove_connector_config(self, connector: str) -> None:
        """Delete a connector with its task configs and target state."""
        with self._lock:
            removed = self._connectors.pop(connector, None)
        if removed is not None:
            self._listener.on_connector_config_remove(connector)

    def put_task_configs(self, connector: str, configs: Sequence[Config]) -> None:
        """Replace the connector's task configs."""
        with self._lock:
            state = self._require(connector)
            state.task_configs = {
                ConnectorTaskId(connector, i): dict(c) for i, c in enumerate(configs)
            }
            state.applied_config = state.config
            tasks = list(state.task_configs)
        self._listener.on_task_config_update(tasks)

    def remove_task_configs(self, connector: str) -> None:
        """Drop the connector's task configs."""
        with self._lock:
            state = self._require(connector)
            tasks = list(state.task_configs)
            state.task_configs = {}
            state.applied_config = None
        self._listener.on_task_config_update(tasks)

    def put_target_state(self, connector: str, state: TargetState) -> None:
        """Set a connector's target state."""
        with self._lock:
            entry = self._require(connector)
            changed = entry.target_state != state
            entry.target_state = state
        if changed:
            self._listener.on_connector_target_state_change(connector)

    def put_restart_request(self, request: RestartRequest) -> None:
        """Not kept in memory mode."""

    def put_session_key(self, session_key: SessionKey) -> None:
        """Not kept in memory mode."""

    def put_task_count_record(self, connector: str, task_count: int) -> None:
        """Not kept in memory mode."""

    def put_logger_level(self, namespace: str, level: str) -> None:
        """Not kept in memory mode."""

    def refresh(self, timeout: float = 30.0) -> None:
        """Always up to date."""

    def _require(self, connector: str) -> _Connector:
        state = self._connectors.get(connector)
        if state is None:
            raise NotFoundError(f"Connector {connector} not found")
        return state
