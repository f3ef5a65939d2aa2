"""What a worker herder's collaborators share, and the statuses they write.

:class:`HerderState` is a plain object: the worker, the stores, the connectors this worker
runs (one :class:`RunningConnector` each, under :attr:`HerderState.lock`), the connectors
marked for the herder thread, the metrics, and the status writes. The herder builds it and
hands it to its collaborators (``herder_queries``, ``herder_requests``, ``offsets_api``). Two
callbacks carry what only a worker in a group knows: the generation its statuses carry and
its rebalance metrics.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping
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
    ConnectorTaskId,
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


def _no_group() -> int:
    return 0


def _no_rebalance() -> dict[str, Any] | None:
    return None


class HerderState:
    """A worker herder's shared state: worker, stores, running connectors, marks, statuses."""

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
        group_generation: Callable[[], int] = _no_group,
        rebalance_metrics: Callable[[], dict[str, Any] | None] = _no_rebalance,
    ) -> None:
        self.worker = worker
        self.config = worker.config
        # config.providers*: ${provider:path:key} in connector configs, resolved at start.
        self.transformer = ConfigTransformer.from_worker(worker.config.originals)
        self.plugins = plugins
        self.configs = configs
        self.offsets = offsets
        self.statuses = statuses
        self.worker_id = worker_id
        self.offsets_topic = offsets_topic
        self.running: dict[str, RunningConnector] = {}
        self.lock = threading.RLock()  # held while the running connectors change
        self._group_generation = group_generation
        self._rebalance_metrics = rebalance_metrics
        self._marked: dict[str, bool] = {}
        self._marked_lock = threading.Lock()
        self._wake = threading.Event()
        self._written: dict[tuple[type, str], tuple[State, str | None, str]] = {}
        self.metrics = ConnectMetrics(self._metrics_state)

    # --- connectors marked for the herder thread ------------------------------------------

    def mark(self, name: str, regenerate: bool = False) -> None:
        """Have the herder thread reconcile connector *name* soon."""
        with self._marked_lock:
            self._marked[name] = self._marked.get(name, False) or regenerate
        self._wake.set()

    def wake_up(self) -> None:
        """End :meth:`wait` now."""
        self._wake.set()

    def wait(self, timeout_s: float) -> None:
        """Wait until something is marked (or :meth:`wake_up`), at most *timeout_s*."""
        self._wake.wait(timeout_s)
        self._wake.clear()

    def take_marked(self) -> dict[str, bool]:
        """The marked connectors (name -> regenerate its task configs), unmarked."""
        with self._marked_lock:
            marked, self._marked = self._marked, {}
        return marked

    # --- what the stores and the worker config say ----------------------------------------

    @property
    def topic_tracking(self) -> tuple[bool, bool]:
        """``(topic.tracking.enable, topic.tracking.allow.reset)``."""
        return (
            bool(self.config.get("topic.tracking.enable")),
            bool(self.config.get("topic.tracking.allow.reset")),
        )

    def connector_type(self, config: Mapping[str, str]) -> str:
        """``source``, ``sink`` or ``unknown`` for a connector config."""
        try:
            return connector_type(self.plugins.connector_class(config[cc.CONNECTOR_CLASS]))
        except Exception:
            return "unknown"

    def sink_client_config(self, config: Mapping[str, str]) -> tuple[str, dict[str, str]]:
        """(group, client settings) of a sink connector: ``connect-<name>``
        unless ``consumer.override.group.id`` says otherwise."""
        consumer = self.worker.client_config(config, "consumer")
        group = consumer.pop("group.id", None) or f"connect-{config[cc.NAME]}"
        return group, consumer

    def _metrics_state(self) -> WorkerState:
        """The connectors and tasks this worker runs, for the metrics."""
        snapshot = self.configs.snapshot()
        connectors: dict[str, tuple[str, str, str, str]] = {}
        tasks: dict[tuple[str, int], str] = {}
        with self.lock:
            running = {n: r for n, r in self.running.items() if r.connector is not None}
        for name, run in running.items():
            status = self.statuses.get_connector(name)
            version = getattr(run.connector, "version", lambda: "")()
            connectors[name] = (
                self.connector_type(run.config),
                run.config.get(cc.CONNECTOR_CLASS, ""),
                str(version),
                status.state.value if status is not None else "UNASSIGNED",
            )
            for task in snapshot.tasks(name):
                task_status = self.statuses.get_task(task)
                if task_status is not None and task_status.worker_id == self.worker_id:
                    tasks[(name, task.task)] = task_status.state.value
        return WorkerState(connectors, tasks, self._rebalance_metrics())

    # --- statuses -------------------------------------------------------------------------

    def destroy_statuses(self, name: str, tasks: Iterable[ConnectorTaskId]) -> None:
        """DESTROYED for *tasks*, every stored task status of *name*, and the connector's
        own status once its config is gone."""
        for task in tasks:
            if self.statuses.get_task(task) is not None:
                self.put_status(TaskStatus(task, State.DESTROYED, self.worker_id))
        for status in self.statuses.get_all(name):
            self.put_status(TaskStatus(status.id, State.DESTROYED, self.worker_id))
        deleted = self.configs.snapshot().connector_config(name) is None
        if deleted and self.statuses.get_connector(name) is not None:
            self.put_status(ConnectorStatus(name, State.DESTROYED, self.worker_id))

    @staticmethod
    def _status_key(status: ConnectorStatus | TaskStatus) -> tuple[type, str]:
        return type(status), status.id if isinstance(status, ConnectorStatus) else str(status.id)

    def put_status_safe(self, status: ConnectorStatus | TaskStatus) -> None:
        """Write *status* unless another worker stored a newer one (Kafka's ``putSafe``)."""
        self._written.pop(self._status_key(status), None)  # the next put_status writes again
        self.statuses.put_safe(status)

    def put_status(self, status: ConnectorStatus | TaskStatus) -> None:
        """Write *status*, unless it is what this worker wrote last for its id."""
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
