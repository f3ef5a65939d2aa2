"""The herder of a Seaway worker: connector lifecycle over the state stores and Spark queries.

Requests change the config store (connector configs, task configs, target states); the
store's listener marks the connector for reconciliation, and one background thread brings
each connector to its target state: it starts the :class:`~seaway.connect.api.Connector`,
generates task configs, and runs the connector's tasks as one Spark streaming query
(:class:`~seaway.connect.runtime.worker.Worker`); a
:class:`~seaway.connect.api.flow.FlowConnector` runs its own flow for all its tasks instead.
The same thread watches the queries: a task that throws is FAILED with its trace (the query
restarts without it, so the connector's other tasks and every other connector keep running),
source offsets are flushed every ``offset.flush.interval.ms`` (at-least-once mode) and used
topics are recorded.

A standalone worker runs every connector of its stores (memory and a file). A distributed
worker (:class:`~seaway.connect.runtime.distributed.herder.DistributedHerder`) keeps its
stores in Kafka topics and runs only the connectors its group's leader assigns to it; the
hooks for that (``_start_assignment``, ``_owns``, ``_may_run``, ``_require_leader``,
``_require_owner``, ``_publish_task_configs``, ``_before_exactly_once_start``, the
generations) are no-ops here.

The herder holds the lifecycle, the reconciling thread and those hooks, and answers the
:class:`~seaway.connect.runtime.herder.Herder` contract through collaborators sharing one
``herder_state.HerderState`` (stores, running connectors, marks, statuses):
``herder_queries.ConnectorQueries`` (a connector's Spark query started, watched, its offsets
flushed, stopped), ``herder_requests.ConnectorRequests`` (configs, statuses, restarts,
target states, topics), ``herder_validation.ConfigValidator`` (plugins, config validation)
and ``offsets_api.ConnectorOffsetsApi`` (KIP-875). The hooks reach them as callbacks.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any, Final

from seaway import __version__
from seaway.connect.api import ConnectorContext, TableCatalog
from seaway.connect.api.errors import ConnectError
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.herder import Herder, InternalRequest, JsonDict
from seaway.connect.runtime.herder_queries import ConnectorQueries
from seaway.connect.runtime.herder_requests import ConnectorRequests
from seaway.connect.runtime.herder_state import HerderState, RunningConnector
from seaway.connect.runtime.herder_validation import ConfigValidator
from seaway.connect.runtime.offsets_api import ConnectorOffsetsApi
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.storage import (
    ConfigStore,
    ConfigUpdateListener,
    ConnectorStatus,
    OffsetStore,
    State,
    StatusStore,
    TargetState,
    TaskStatus,
)
from seaway.connect.runtime.worker import Worker
from seaway.kafka import clients

log = logging.getLogger(__name__)

_TICK_S: Final = 0.2
_COMMIT: Final = "unknown"


class _Context(ConnectorContext):
    def __init__(self, herder: WorkerHerder, name: str) -> None:
        self._herder = herder
        self._name = name

    def request_task_reconfiguration(self) -> None:
        self._herder.mark(self._name, regenerate=True)

    def raise_error(self, error: Exception) -> None:
        self._herder.connector_failed(self._name, error)

    def table_catalog(self) -> TableCatalog | None:
        """Spark's catalog when the worker's session keeps tables (a Hive metastore)."""
        spark = self._herder.worker.spark
        if spark.conf.get("spark.sql.catalogImplementation", "") != "hive":
            return None
        from seaway.connect.runtime.table_catalog import SparkTableCatalog

        return SparkTableCatalog(spark)


class _Listener(ConfigUpdateListener):
    def __init__(self, herder: WorkerHerder) -> None:
        self._herder = herder

    def on_connector_config_update(self, connector: str) -> None:
        self._herder.mark(connector)

    def on_connector_config_remove(self, connector: str) -> None:
        self._herder.mark(connector)

    def on_task_config_update(self, tasks: Any) -> None:
        for task in tasks:
            self._herder.mark(task.connector)

    def on_connector_target_state_change(self, connector: str) -> None:
        self._herder.mark(connector)


class WorkerHerder(Herder):
    """A worker running every connector of its config store on its SparkSession."""

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
        self.state = HerderState(
            worker,
            plugins,
            configs,
            offsets,
            statuses,
            worker_id=worker_id,
            offsets_topic=offsets_topic,
            group_generation=self._group_generation,
            rebalance_metrics=self._rebalance_metrics,
        )
        self.validator = ConfigValidator(plugins, worker.config)
        # The hooks below (a DistributedHerder's overrides) reach the collaborators bound.
        self.queries = ConnectorQueries(
            self.state,
            may_run=self._may_run,
            publish_task_configs=self._publish_task_configs,
            before_exactly_once_start=self._before_exactly_once_start,
            status_generation=self._status_generation,
        )
        self.requests = ConnectorRequests(
            self.state,
            self.queries,
            self.validator,
            require_leader=self._require_leader,
            require_owner=self._require_owner,
        )
        self.offsets_api = ConnectorOffsetsApi(self.state)
        self.url = ""  # the advertised REST URL, once the REST server is bound
        self.rest_client_context: Any = None  # TLS context for https:// workers
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._cluster_id: str | None = None

    @property
    def worker(self) -> Worker:
        """The worker that runs the Spark queries."""
        return self.state.worker

    @property
    def worker_id(self) -> str:
        """This worker's id in the statuses it writes (its advertised host:port)."""
        return self.state.worker_id

    @worker_id.setter
    def worker_id(self, worker_id: str) -> None:
        self.state.worker_id = worker_id

    def mark(self, name: str, regenerate: bool = False) -> None:
        """Have the herder thread reconcile connector *name* soon."""
        self.state.mark(name, regenerate)

    def connector_failed(self, name: str, error: BaseException) -> None:
        """Connector *name* raised *error*: FAILED, its query stopped."""
        self.queries.connector_failed(name, error)

    # --- what a distributed worker changes (no-ops for a worker that runs everything) -------

    def _start_assignment(self) -> None:
        """Begin running connectors: here all of them, at once."""
        for name in self.state.configs.snapshot().connectors():
            self.mark(name)
        self._ready.set()

    def _owns(self, name: str) -> bool:
        """Whether this worker runs connector *name*."""
        return True

    def _may_run(self, name: str) -> bool:
        """Whether this worker may run connector *name* right now."""
        return self._owns(name)

    def _require_leader(self, message: str) -> None:
        """Raise NotLeaderError (with *message*) unless this worker may write configs."""

    def _require_owner(self, name: str) -> None:
        """Raise a RequestTargetError unless this worker runs connector *name*."""

    def _publish_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        """Store task configs the connector generated (through the leader in a cluster)."""
        self.state.configs.put_task_configs(name, configs)

    def _before_exactly_once_start(self, name: str) -> bool:
        """Called before a source connector's exactly-once tasks start (zombie fencing);
        False to start them later."""
        return True

    def _status_generation(self, run: RunningConnector) -> int:
        """The generation written with a task's status."""
        return run.generation

    def _group_generation(self) -> int:
        """The generation written with statuses that name none (0 outside a group)."""
        return 0

    def _rebalance_metrics(self) -> dict[str, Any] | None:
        """``connect-worker-rebalance-metrics``; None for a worker outside any group."""
        return None

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Start Spark, the stores and the reconciling thread, and resume stored connectors;
        return once the REST API can answer, Spark's JVM still starting in the background
        (connectors assigned meanwhile wait for the session; :meth:`await_spark`)."""
        state = self.state
        state.worker.start()
        try:
            state.offsets.start()
            state.statuses.start()
            state.configs.set_update_listener(_Listener(self))
            state.configs.start()
            self._thread = threading.Thread(target=self._run, name="connect-herder", daemon=True)
            self._thread.start()
            self._start_assignment()
        except BaseException:
            self.stop()
            raise
        log.info("Herder started as worker %s", self.worker_id)

    def await_spark(self) -> None:
        """Wait until the worker's Spark session is up; raise why it could not start."""
        self.state.worker.spark  # noqa: B018 - waits for the session; raises why it failed

    def stop(self) -> None:
        """Stop every connector (flushing offsets), Spark and the stores."""
        self._stopping.set()
        self.state.wake_up()
        if self._thread is not None:
            self._thread.join(60)
        with self.state.lock:
            for name in list(self.state.running):
                self.queries.stop_connector(name, State.UNASSIGNED)
        self.state.worker.stop()
        for store in (self.state.configs, self.state.statuses, self.state.offsets):
            try:
                store.stop()
            except Exception:
                log.warning("Stopping %s failed", type(store).__name__, exc_info=True)

    def _run(self) -> None:
        while not self._stopping.is_set():
            self.state.wait(_TICK_S)
            if self._stopping.is_set():
                return
            marked = self.state.take_marked()
            with self.state.lock:
                for name, regenerate in marked.items():
                    try:
                        self._reconcile(name, regenerate)
                    except Exception as error:
                        log.exception("Reconciling connector %s failed", name)
                        self.connector_failed(name, error)
                for name in list(self.state.running):
                    try:
                        self.queries.watch(name)
                    except Exception:
                        log.exception("Watching connector %s failed", name)

    # --- reconciliation ---------------------------------------------------------------------

    def _reconcile(self, name: str, regenerate: bool) -> None:
        state, queries = self.state, self.queries
        snapshot = state.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            if name in state.running:
                queries.stop_connector(name, State.DESTROYED)
            if self._owns(name):
                state.destroy_statuses(name, ())
            state.metrics.forget(name)
            return
        if not self._owns(name):
            if name in state.running:
                queries.release(name)
            return
        config = dict(config)
        target = snapshot.target_state(name) or TargetState.STARTED
        run = state.running.get(name)
        if run is not None and run.config != config:
            queries.stop_connector(name, None)
            run = None
        if target is not TargetState.STARTED:
            if run is not None:
                queries.stop_connector(name, None)
            state.running[name] = RunningConnector(config)
            if target is TargetState.PAUSED:
                state.put_status(ConnectorStatus(name, State.PAUSED, state.worker_id))
                for task in snapshot.tasks(name):
                    state.put_status(TaskStatus(task, State.PAUSED, state.worker_id))
            else:
                state.put_status(ConnectorStatus(name, State.STOPPED, state.worker_id))
                state.destroy_statuses(name, snapshot.tasks(name))
            return
        if run is None or run.connector is None:
            if run is None:
                run = state.running[name] = RunningConnector(config)
            state.metrics.startup("connector", None)
            try:
                connector = state.plugins.new_connector(config[cc.CONNECTOR_CLASS])
                connector.initialize(_Context(self, name))
                connector.start(state.transformer.transform(config))  # ${provider:...} resolved
            except BaseException:
                state.metrics.startup("connector", False)
                raise
            state.metrics.startup("connector", True)
            run.connector = connector
            regenerate = True
        state.put_status(ConnectorStatus(name, State.RUNNING, state.worker_id))
        regenerate = regenerate or not snapshot.tasks(name)
        if regenerate and queries.generate_task_configs(name, run, snapshot):
            return  # the store's listener marks the connector again
        task_ids = snapshot.tasks(name)
        if not task_ids:
            return
        if run.query is not None and run.query.active:
            return
        if run.stopped_on_error and run.query is None:
            return
        queries.start_query(name, run, [dict(snapshot.task_config(t) or {}) for t in task_ids])

    # --- Herder: worker ---------------------------------------------------------------------

    def server_info(self) -> JsonDict:
        return {"version": __version__, "commit": _COMMIT, "kafka_cluster_id": self._cluster()}

    def _cluster(self) -> str | None:
        if self._cluster_id is None:
            try:
                admin = clients.admin({"bootstrap.servers": self.state.config.bootstrap_servers})
                self._cluster_id = admin.describe_cluster().result(10).cluster_id
            except Exception:
                log.warning("Could not describe the Kafka cluster", exc_info=True)
        return self._cluster_id

    def ready(self) -> bool:
        return self._ready.is_set()

    def metrics_exposition(self) -> bytes:
        return self.state.metrics.exposition()

    # --- Herder: connectors (ConnectorRequests) ---------------------------------------------

    def connectors(self) -> list[str]:
        return self.requests.connectors()

    def connector_info(self, name: str) -> JsonDict:
        return self.requests.connector_info(name)

    def connector_config(self, name: str) -> dict[str, str]:
        return self.requests.connector_config(name)

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: str | None = None,
    ) -> tuple[bool, JsonDict]:
        return self.requests.put_connector_config(
            name, config, allow_replace=allow_replace, initial_state=initial_state
        )

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> JsonDict:
        return self.requests.patch_connector_config(name, patch)

    def delete_connector(self, name: str) -> None:
        self.requests.delete_connector(name)

    def connector_status(self, name: str) -> JsonDict:
        return self.requests.connector_status(name)

    def task_infos(self, name: str) -> list[JsonDict]:
        return self.requests.task_infos(name)

    def task_status(self, name: str, task: int) -> JsonDict:
        return self.requests.task_status(name, task)

    def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> JsonDict | None:
        return self.requests.restart_connector(
            name, include_tasks=include_tasks, only_failed=only_failed
        )

    def restart_task(self, name: str, task: int) -> None:
        self.requests.restart_task(name, task)

    def pause_connector(self, name: str) -> None:
        self.requests.pause_connector(name)

    def resume_connector(self, name: str) -> None:
        self.requests.resume_connector(name)

    def stop_connector(self, name: str) -> None:
        self.requests.stop_connector(name)

    # --- Herder: internal requests (a cluster's; DistributedHerder answers them) ------------

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], request: InternalRequest
    ) -> None:
        raise ConnectError(
            "Kafka Connect in standalone mode does not support externally setting task "
            "configurations."
        )

    def fence_zombies(self, name: str, request: InternalRequest) -> None:
        raise ConnectError("Kafka Connect in standalone mode does not support zombie fencing.")

    # --- Herder: offsets (ConnectorOffsetsApi) ----------------------------------------------

    def connector_offsets(self, name: str) -> JsonDict:
        return self.offsets_api.connector_offsets(name)

    def alter_connector_offsets(self, name: str, offsets: list[JsonDict]) -> str:
        self._require_leader("Only the leader can alter connector offsets.")
        return self.offsets_api.alter_connector_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        self._require_leader("Only the leader can reset connector offsets.")
        return self.offsets_api.reset_connector_offsets(name)

    # --- Herder: topics (ConnectorRequests) -------------------------------------------------

    def connector_active_topics(self, name: str) -> list[str]:
        return self.requests.connector_active_topics(name)

    def reset_connector_active_topics(self, name: str) -> None:
        self.requests.reset_connector_active_topics(name)

    @property
    def topic_tracking(self) -> tuple[bool, bool]:
        return self.state.topic_tracking

    # --- Herder: plugins (ConfigValidator) --------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[JsonDict]:
        return self.validator.connector_plugins(connectors_only)

    def plugin_config(self, plugin: str) -> list[JsonDict]:
        return self.validator.plugin_config(plugin)

    def validate_connector_config(
        self, config: Mapping[str, str], plugin: str | None = None
    ) -> JsonDict:
        return self.validator.validate_connector_config(config, plugin)


__all__ = ["WorkerHerder"]
