"""What a worker herder holds, and the statuses it writes.

:class:`HerderState` keeps the worker, the stores and the connectors this worker runs (one
:class:`RunningConnector` each), the hooks a distributed worker overrides (no-ops for a worker
that runs every connector), and writes connector and task statuses.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from seaway.config.providers import ConfigTransformer
from seaway.connect.api import Connector
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.metrics import ConnectMetrics, WorkerState
from seaway.connect.runtime.plugins import Plugins, connector_type
from seaway.connect.runtime.storage import (
    ConfigStore,
    ConnectorStatus,
    OffsetStore,
    State,
    StatusStore,
    TaskStatus,
)
from seaway.connect.runtime.worker import ConnectorQuery, FlowQuery, Worker


@dataclass
class RunningConnector:
    """A connector this worker runs."""

    config: dict[str, str]
    connector: Connector | None = None
    query: ConnectorQuery | FlowQuery | None = None
    failed: dict[int, str] = field(default_factory=dict)
    flushed: dict[str, Any] = field(default_factory=dict)
    last_flush: float = field(default_factory=time.monotonic)
    generation: int = 0
    stopped_on_error: bool = False


class HerderState:
    """A worker herder's state and hooks, and its status writes."""

    def __init__(
        self,
        worker: Worker,
        plugins: Plugins,
        configs: ConfigStore,
        offsets: OffsetStore,
        statuses: StatusStore,
        *,
        worker_id: str,
        offsets_topic: str | None = None,
    ) -> None:
        self.worker = worker
        # config.providers*: ${provider:path:key} in connector configs, resolved at start.
        self.transformer = ConfigTransformer.from_worker(worker.config.originals)
        self.plugins = plugins
        self.configs = configs
        self.offsets = offsets
        self.statuses = statuses
        self.worker_id = worker_id
        self.url = ""  # the advertised REST URL, once the REST server is bound
        self.rest_client_context: Any = None  # TLS context for https:// workers
        self.offsets_topic = offsets_topic
        self.config = worker.config
        self._running: dict[str, RunningConnector] = {}
        self._dirty: dict[str, bool] = {}
        self._dirty_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._cluster_id: str | None = None
        self._lock = threading.RLock()
        self._written: dict[tuple[type, str], tuple[State, str | None, str]] = {}
        self.metrics = ConnectMetrics(self._metrics_state)

    # --- what a distributed worker changes (no-ops for a worker that runs everything) -------

    def _start_assignment(self) -> None:
        """Begin running connectors: here all of them, at once."""
        for name in self.configs.snapshot().connectors():
            self.mark(name)
        self._ready.set()

    def _owns(self, name: str) -> bool:
        """Whether this worker runs connector *name*."""
        return True

    def _require_leader(self, message: str) -> None:
        """Raise NotLeaderError (with *message*) unless this worker may write configs."""

    def _require_owner(self, name: str) -> None:
        """Raise a RequestTargetError unless this worker runs connector *name*."""

    def _publish_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        """Store task configs the connector generated (through the leader in a cluster)."""
        self.configs.put_task_configs(name, configs)

    def _before_exactly_once_start(self, name: str) -> bool:
        """Called before a source connector's exactly-once tasks start (zombie fencing);
        False to start them later."""
        return True

    def _may_run(self, name: str) -> bool:
        """Whether this worker may run connector *name* right now."""
        return self._owns(name)

    def _status_generation(self, run: RunningConnector) -> int:
        """The generation written with a task's status."""
        return run.generation

    def _group_generation(self) -> int:
        """The generation written with statuses that name none (0 outside a group)."""
        return 0

    def mark(self, name: str, regenerate: bool = False) -> None:
        """Have the herder thread reconcile connector *name* soon."""
        with self._dirty_lock:
            self._dirty[name] = self._dirty.get(name, False) or regenerate
        self._wake.set()

    @property
    def topic_tracking(self) -> tuple[bool, bool]:
        return (
            bool(self.config.get("topic.tracking.enable")),
            bool(self.config.get("topic.tracking.allow.reset")),
        )

    def _type(self, config: Mapping[str, str]) -> str:
        try:
            return connector_type(self.plugins.connector_class(config[cc.CONNECTOR_CLASS]))
        except Exception:
            return "unknown"

    def _metrics_state(self) -> WorkerState:
        """The connectors and tasks this worker runs, for the metrics."""
        snapshot = self.configs.snapshot()
        connectors: dict[str, tuple[str, str, str, str]] = {}
        tasks: dict[tuple[str, int], str] = {}
        with self._lock:
            running = {n: r for n, r in self._running.items() if r.connector is not None}
        for name, run in running.items():
            status = self.statuses.get_connector(name)
            version = getattr(run.connector, "version", lambda: "")()
            connectors[name] = (
                self._type(run.config),
                run.config.get(cc.CONNECTOR_CLASS, ""),
                str(version),
                status.state.value if status is not None else "UNASSIGNED",
            )
            for task in snapshot.tasks(name):
                task_status = self.statuses.get_task(task)
                if task_status is not None and task_status.worker_id == self.worker_id:
                    tasks[(name, task.task)] = task_status.state.value
        return WorkerState(connectors, tasks, self._rebalance_metrics())

    def _rebalance_metrics(self) -> dict[str, Any] | None:
        """``connect-worker-rebalance-metrics``; None for a worker outside any group."""
        return None

    # --- statuses -------------------------------------------------------------------------

    def _destroy_statuses(self, name: str, tasks: Any) -> None:
        for task in tasks:
            if self.statuses.get_task(task) is not None:
                self._put(TaskStatus(task, State.DESTROYED, self.worker_id))
        for status in self.statuses.get_all(name):
            self._put(TaskStatus(status.id, State.DESTROYED, self.worker_id))
        deleted = self.configs.snapshot().connector_config(name) is None
        if deleted and self.statuses.get_connector(name) is not None:
            self._put(ConnectorStatus(name, State.DESTROYED, self.worker_id))

    @staticmethod
    def _status_key(status: ConnectorStatus | TaskStatus) -> tuple[type, str]:
        return type(status), status.id if isinstance(status, ConnectorStatus) else str(status.id)

    def _put_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        """Write *status* unless another worker stored a newer one (Kafka's ``putSafe``)."""
        self._written.pop(self._status_key(status), None)  # the next _put writes again
        self.statuses.put_safe(status)

    def _put(self, status: ConnectorStatus | TaskStatus) -> None:
        if status.generation == 0:  # what this worker writes carries its group generation
            status = dataclasses.replace(status, generation=self._group_generation())
        current = (
            self.statuses.get_connector(status.id)
            if isinstance(status, ConnectorStatus)
            else self.statuses.get_task(status.id)
        )
        # Skip only what this herder itself wrote last: the store's cache lags behind writes.
        key = self._status_key(status)
        same = (status.state, status.trace, status.worker_id)
        if current is not None and self._written.get(key) == same:
            return
        self._written[key] = same
        self.statuses.put(status)


__all__ = ["HerderState", "RunningConnector"]
