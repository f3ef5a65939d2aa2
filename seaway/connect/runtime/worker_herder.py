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
hooks for that (``_start_assignment``, ``_owns``, ``_require_leader``, ``_require_owner``,
``_publish_task_configs``, ``_before_exactly_once_start``) are no-ops here.

This module holds the lifecycle and the reconciling thread; the class builds on layers of
its own modules: ``herder_state`` (stores, running connectors, hooks, statuses),
``herder_queries`` (a connector's Spark query: started, watched, offsets flushed, stopped),
``herder_validation`` (plugins, config validation) and ``herder_requests`` (the REST contract).
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Final

from seaway.connect.api import ConnectorContext, TableCatalog
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.herder_requests import HerderRequests
from seaway.connect.runtime.herder_state import RunningConnector
from seaway.connect.runtime.storage import (
    ConfigUpdateListener,
    ConnectorStatus,
    State,
    TargetState,
    TaskStatus,
)

log = logging.getLogger(__name__)

_TICK_S: Final = 0.2


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


class WorkerHerder(HerderRequests):
    """A worker running every connector of its config store on its SparkSession."""

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Start Spark, the stores and the reconciling thread, and resume stored connectors;
        return once Spark is up. Spark's JVM starts while the stores open and a distributed
        worker joins its group (connectors assigned meanwhile wait for the session)."""
        self.worker.start()
        try:
            self.offsets.start()
            self.statuses.start()
            self.configs.set_update_listener(_Listener(self))
            self.configs.start()
            self._thread = threading.Thread(target=self._run, name="connect-herder", daemon=True)
            self._thread.start()
            self._start_assignment()
            self.worker.spark  # noqa: B018 - waits for the session; raises why it failed
        except BaseException:
            self.stop()
            raise
        log.info("Herder started as worker %s", self.worker_id)

    def stop(self) -> None:
        """Stop every connector (flushing offsets), Spark and the stores."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(60)
        with self._lock:
            for name in list(self._running):
                self._stop_connector(name, State.UNASSIGNED)
        self.worker.stop()
        for store in (self.configs, self.statuses, self.offsets):
            try:
                store.stop()
            except Exception:
                log.warning("Stopping %s failed", type(store).__name__, exc_info=True)

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(_TICK_S)
            self._wake.clear()
            if self._stopping.is_set():
                return
            with self._dirty_lock:
                dirty, self._dirty = self._dirty, {}
            with self._lock:
                for name, regenerate in dirty.items():
                    try:
                        self._reconcile(name, regenerate)
                    except Exception as error:
                        log.exception("Reconciling connector %s failed", name)
                        self.connector_failed(name, error)
                for name in list(self._running):
                    try:
                        self._watch(name)
                    except Exception:
                        log.exception("Watching connector %s failed", name)

    # --- reconciliation ---------------------------------------------------------------------

    def _reconcile(self, name: str, regenerate: bool) -> None:
        snapshot = self.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            if name in self._running:
                self._stop_connector(name, State.DESTROYED)
            if self._owns(name):
                self._destroy_statuses(name, ())
            self.metrics.forget(name)
            return
        if not self._owns(name):
            if name in self._running:
                self._release(name)
            return
        config = dict(config)
        target = snapshot.target_state(name) or TargetState.STARTED
        run = self._running.get(name)
        if run is not None and run.config != config:
            self._stop_connector(name, None)
            run = None
        if target is not TargetState.STARTED:
            if run is not None:
                self._stop_connector(name, None)
            self._running[name] = RunningConnector(config)
            if target is TargetState.PAUSED:
                self._put(ConnectorStatus(name, State.PAUSED, self.worker_id))
                for task in snapshot.tasks(name):
                    self._put(TaskStatus(task, State.PAUSED, self.worker_id))
            else:
                self._put(ConnectorStatus(name, State.STOPPED, self.worker_id))
                self._destroy_statuses(name, snapshot.tasks(name))
            return
        if run is None or run.connector is None:
            if run is None:
                run = self._running[name] = RunningConnector(config)
            self.metrics.startup("connector", None)
            try:
                connector = self.plugins.new_connector(config[cc.CONNECTOR_CLASS])
                connector.initialize(_Context(self, name))
                connector.start(self.transformer.transform(config))  # ${provider:...} resolved
            except BaseException:
                self.metrics.startup("connector", False)
                raise
            self.metrics.startup("connector", True)
            run.connector = connector
            regenerate = True
        self._put(ConnectorStatus(name, State.RUNNING, self.worker_id))
        regenerate = regenerate or not snapshot.tasks(name)
        if regenerate and self._generate_task_configs(name, run, snapshot):
            return  # the store's listener marks the connector again
        task_ids = snapshot.tasks(name)
        if not task_ids:
            return
        if run.query is not None and run.query.active:
            return
        if run.stopped_on_error and run.query is None:
            return
        self._start_query(name, run, [dict(snapshot.task_config(t) or {}) for t in task_ids])


__all__ = ["WorkerHerder"]
