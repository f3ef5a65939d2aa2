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
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from seaway import __version__
from seaway.config.providers import ConfigTransformer, reverse_transform
from seaway.connect.api import (
    Connector,
    ConnectorContext,
    SinkConnector,
    SourceConnector,
    TableCatalog,
)
from seaway.connect.api.errors import AlreadyExistsError, ConnectError, NotFoundError
from seaway.connect.api.flow import FlowConnector
from seaway.connect.api.source import ExactlyOnceSupport
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import Herder, InternalRequest, JsonDict
from seaway.connect.runtime.metrics import ConnectMetrics, WorkerState
from seaway.connect.runtime.offsets_api import ConnectorOffsetsApi
from seaway.connect.runtime.plugins import Plugins, connector_type
from seaway.connect.runtime.queries.conversion import (
    HEADER,
    KEY,
    VALUE,
    ConversionSpec,
    TaskFailure,
    converter_spec,
)
from seaway.connect.runtime.queries.sink import SinkQuerySpec
from seaway.connect.runtime.queries.source import SourceQuerySpec, class_path
from seaway.connect.runtime.storage import (
    ConfigStore,
    ConfigUpdateListener,
    ConnectorStatus,
    ConnectorTaskId,
    OffsetStore,
    State,
    StatusStore,
    TargetState,
    TaskStatus,
    TopicStatus,
)
from seaway.connect.runtime.worker import ConnectorQuery, FlowQuery, Worker
from seaway.connect.runtime.worker_config import SPARK_MASTER
from seaway.spark.shipping import is_local_master

log = logging.getLogger(__name__)

TASK_CLASS: Final = "task.class"
_TICK_S: Final = 0.2


def java_map(config: Mapping[str, Any]) -> str:
    """A map the way Java's ``AbstractMap.toString`` prints it: ``{k=v, k2=v2}``."""
    return "{" + ", ".join(f"{k}={v}" for k, v in config.items()) + "}"


@dataclass
class _Running:
    """A connector this worker runs."""

    config: dict[str, str]
    connector: Connector | None = None
    query: ConnectorQuery | FlowQuery | None = None
    failed: dict[int, str] = field(default_factory=dict)
    flushed: dict[str, Any] = field(default_factory=dict)
    last_flush: float = field(default_factory=time.monotonic)
    generation: int = 0
    stopped_on_error: bool = False


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
        if spark is None or spark.conf.get("spark.sql.catalogImplementation", "") != "hive":
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


class WorkerHerder(ConnectorOffsetsApi, Herder):
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
        self._running: dict[str, _Running] = {}
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

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Start the stores, Spark and the reconciling thread; resume stored connectors."""
        self.offsets.start()
        self.statuses.start()
        self.configs.set_update_listener(_Listener(self))
        self.configs.start()
        self.worker.start()
        self._thread = threading.Thread(target=self._run, name="connect-herder", daemon=True)
        self._thread.start()
        self._start_assignment()
        log.info("Herder started as worker %s", self.worker_id)

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

    def _status_generation(self, run: _Running) -> int:
        """The generation written with a task's status."""
        return run.generation

    def _group_generation(self) -> int:
        """The generation written with statuses that name none (0 outside a group)."""
        return 0

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

    def mark(self, name: str, regenerate: bool = False) -> None:
        """Have the herder thread reconcile connector *name* soon."""
        with self._dirty_lock:
            self._dirty[name] = self._dirty.get(name, False) or regenerate
        self._wake.set()

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
            self._running[name] = _Running(config)
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
                run = self._running[name] = _Running(config)
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

    def _generate_task_configs(self, name: str, run: _Running, snapshot: Any) -> bool:
        """Ask the connector for task configs; store them if they changed (returns True)."""
        assert run.connector is not None
        max_tasks = int(run.config.get(cc.TASKS_MAX, "1"))
        # Values that came from ${provider:...} references are stored as the references.
        generated = [
            reverse_transform(run.config, t) for t in run.connector.task_configs(max_tasks)
        ]
        enforce = run.config.get("tasks.max.enforce", "true").strip().lower() != "false"
        if len(generated) > max_tasks and enforce:
            raise BadRequestError(
                f"The connector {name} has generated {len(generated)} tasks, which is greater "
                f"than {max_tasks}, the maximum number of tasks it is configured to create."
            )
        task_class = class_path(run.connector.task_class())
        configs = []
        for task_config in generated:
            task_config = {**task_config, TASK_CLASS: task_class}
            if isinstance(run.connector, SinkConnector):
                for key in (cc.TOPICS, cc.TOPICS_REGEX):
                    if run.config.get(key):
                        task_config[key] = run.config[key]
            configs.append(task_config)
        current = [dict(snapshot.task_config(t) or {}) for t in snapshot.tasks(name)]
        if current == configs and snapshot.applied_connector_config(name) == run.config:
            return False
        if run.query is not None:
            self._stop_query(name, run)
        self._publish_task_configs(name, configs)
        return True

    def _start_query(self, name: str, run: _Running, task_configs: list[dict[str, str]]) -> None:
        starting = len(task_configs) - len(run.failed)
        for _ in range(starting):
            self.metrics.startup("task", None)
        try:
            self._start_tasks(name, run, task_configs)
        except BaseException:
            for _ in range(starting):
                self.metrics.startup("task", False)
            raise
        if run.query is not None:
            for _ in range(starting):
                self.metrics.startup("task", True)

    def _start_tasks(self, name: str, run: _Running, task_configs: list[dict[str, str]]) -> None:
        # The tasks get ${provider:...} references resolved; the stores keep them as written.
        task_configs = [self.transformer.transform(t) for t in task_configs]
        if isinstance(run.connector, FlowConnector):
            self._start_flow(name, run, task_configs)
            return
        enabled = [i for i in range(len(task_configs)) if i not in run.failed]
        if not enabled:
            return
        config = self.transformer.transform(run.config)
        conversion = ConversionSpec(
            connector=name,
            key=converter_spec(KEY, config, self.config.originals),
            value=converter_spec(VALUE, config, self.config.originals),
            header=converter_spec(HEADER, config, self.config.originals),
            connector_config=config,
            plugin_path=self.plugins.plugin_path,
        )
        task_class = task_configs[0][TASK_CLASS]
        run.generation += 1
        if isinstance(run.connector, SourceConnector):
            transactional = self.config.exactly_once_source
            if transactional and not self._before_exactly_once_start(name):
                return
            corrupt: list[str] = getattr(self.offsets, "corrupt_offsets", lambda _: [])(name)
            if corrupt:
                raise ConnectError(
                    f"Cannot start connector {name}: {'; '.join(corrupt)}. Set its offsets "
                    f"with PATCH /connectors/{name}/offsets (or reset them with DELETE) while "
                    "it is STOPPED."
                )
            sequences = (
                self.worker.committed_sequences(name, enabled, config, self.offsets_topic)
                if transactional and self.offsets_topic
                else {}
            )
            start = self.offsets.connector_offsets(name)  # after the sequences, never before
            run.flushed = dict(start)
            spec = SourceQuerySpec(
                connector=name,
                task_class=task_class,
                task_configs=task_configs,
                enabled_tasks=enabled,
                start_offsets=start,
                conversion=conversion,
                offsets_topic=self.offsets_topic if transactional else None,
                plans_per_batch=int(self.config.get("spark.source.plans.per.batch")),
                start_sequences=sequences,
            )
            run.query = self.worker.run_source(spec, config, transactional)
        else:
            group, client = self._sink_client_config(config)
            sink_spec = SinkQuerySpec(
                connector=name,
                task_class=task_class,
                task_configs=task_configs,
                enabled_tasks=enabled,
                group_id=group,
                client_config=client,
                conversion=conversion,
            )
            run.query = self.worker.run_sink(sink_spec, config)
        for index in range(len(task_configs)):
            task = ConnectorTaskId(name, index)
            if index in run.failed:
                self._put(TaskStatus(task, State.FAILED, self.worker_id, trace=run.failed[index]))
            else:
                self._put(TaskStatus(task, State.RUNNING, self.worker_id,
                                     self._status_generation(run)))  # fmt: skip
        log.info("Connector %s running tasks %s as Spark query %s", name, enabled, run.query)

    def _start_flow(self, name: str, run: _Running, task_configs: list[dict[str, str]]) -> None:
        """Run a flow connector's own flow: all its tasks at once, so they restart together."""
        assert isinstance(run.connector, FlowConnector)
        run.failed.clear()
        run.generation += 1
        run.query = self.worker.run_flow(name, run.connector, task_configs)
        for index in range(len(task_configs)):
            task = ConnectorTaskId(name, index)
            self._put(TaskStatus(task, State.RUNNING, self.worker_id,
                                 self._status_generation(run)))  # fmt: skip
        log.info("Connector %s running its %d task(s) as one flow", name, len(task_configs))

    def _watch(self, name: str) -> None:
        """Check a running connector's query: failures, offset flushes, topics."""
        run = self._running[name]
        query = run.query
        if query is None:
            return
        if self.topic_tracking[0]:
            self._track_topics(name, query)
        self.metrics.record_batch(name, query.kind, query.task_metrics())
        failure = query.failure()
        if failure is None and query.active:
            interval = float(self.config.get("offset.flush.interval.ms")) / 1000
            if time.monotonic() - run.last_flush >= interval:
                self._flush_offsets(name, run)
            return
        self._flush_offsets(name, run)
        query.stop()
        run.query = None
        if failure is None:
            return
        if _FENCED in failure:
            # Another run of the connector committed since this one planned (a zombie of
            # it, or this worker's run a zombie): never a failure of the connector itself.
            if self._may_run(name):
                log.warning("Connector %s was overtaken by another run of it; starting again "
                            "from the stored offsets", name)  # fmt: skip
                self.mark(name)
            else:
                log.warning("Connector %s runs elsewhere: this run was fenced", name)
            return
        task = TaskFailure.task_of(failure)
        snapshot = self.configs.snapshot()
        tasks = [t.task for t in snapshot.tasks(name)]
        failed = [task] if task is not None and task in tasks else tasks
        generation = self._status_generation(run)
        for index in failed:
            run.failed[index] = failure
            # Safe: a worker that lost the connector meanwhile (a zombie whose transactions
            # were fenced) must not overwrite its new owner's status.
            task_id = ConnectorTaskId(name, index)
            self._put_safe(
                TaskStatus(task_id, State.FAILED, self.worker_id, generation, trace=failure)
            )
        log.error("Connector %s: task(s) %s failed:\n%s", name, failed, failure)
        if len(run.failed) < len(tasks):
            self.mark(name)  # the other tasks go on in a new run
        else:
            run.stopped_on_error = True

    def _flush_offsets(self, name: str, run: _Running) -> None:
        """Commit the source offsets of completed batches (at-least-once mode)."""
        run.last_flush = time.monotonic()
        query = run.query
        if query is None or query.kind != "source" or self.config.exactly_once_source:
            return
        end = query.end_offset()
        if not end:
            return
        changed = {
            key: value[1]
            for key, value in end.items()
            if value[1] is not None and run.flushed.get(key) != value[1]
        }
        if changed:
            self.offsets.set(name, changed)
            self.offsets.flush(float(self.config.get("offset.flush.timeout.ms")) / 1000 + 25)
            run.flushed.update(changed)

    def _track_topics(self, name: str, query: ConnectorQuery | FlowQuery) -> None:
        known = {s.topic for s in self.statuses.get_all_topics(name)}
        now = int(time.time() * 1000)
        for topic in sorted(query.observed_topics() - known):
            if topic == self.offsets_topic:
                continue
            self.statuses.put_topic(TopicStatus(topic, name, 0, now))

    def _stop_query(self, name: str, run: _Running) -> None:
        if run.query is not None:
            self._flush_offsets(name, run)
            try:
                run.query.stop()
            except Exception:
                log.warning("Stopping the query of %s failed", name, exc_info=True)
            run.query = None

    def _stop_connector(self, name: str, state: State | None) -> None:
        run = self._running.pop(name, None)
        if run is None:
            return
        self._stop_query(name, run)
        if run.connector is not None:
            try:
                run.connector.stop()
            except Exception:
                log.warning("Stopping connector %s failed", name, exc_info=True)
        if state is State.DESTROYED:
            self._destroy_statuses(name, ())
        elif state is not None:
            self._put(ConnectorStatus(name, state, self.worker_id))

    def _release(self, name: str) -> None:
        """Stop a connector this worker no longer owns; its statuses say UNASSIGNED unless
        its new owner already wrote newer ones."""
        run = self._running.get(name)
        generation = 0 if run is None else self._status_generation(run)
        self._stop_connector(name, None)
        for task in self.configs.snapshot().tasks(name):
            self._put_safe(TaskStatus(task, State.UNASSIGNED, self.worker_id, generation))
        self._put_safe(ConnectorStatus(name, State.UNASSIGNED, self.worker_id, generation))
        log.info("Connector %s is no longer assigned to this worker", name)

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

    def connector_failed(self, name: str, error: BaseException) -> None:
        trace = "".join(traceback.format_exception(error))
        with self._lock:
            run = self._running.get(name)
            if run is not None:
                self._stop_query(name, run)
                run.stopped_on_error = True
        self._put(ConnectorStatus(name, State.FAILED, self.worker_id, trace=trace))

    # --- Herder: worker ---------------------------------------------------------------------

    def server_info(self) -> JsonDict:
        return {"version": __version__, "commit": _COMMIT, "kafka_cluster_id": self._cluster()}

    def _cluster(self) -> str | None:
        if self._cluster_id is None:
            try:
                from confluent_kafka.admin import AdminClient

                admin = AdminClient({"bootstrap.servers": self.config.bootstrap_servers})
                self._cluster_id = admin.describe_cluster().result(10).cluster_id
            except Exception:
                log.warning("Could not describe the Kafka cluster", exc_info=True)
        return self._cluster_id

    def ready(self) -> bool:
        return self._ready.is_set()

    def metrics_exposition(self) -> bytes:
        return self.metrics.exposition()

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

    # --- Herder: connectors -----------------------------------------------------------------

    def _config(self, name: str) -> dict[str, str]:
        config = self.configs.snapshot().connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return dict(config)

    def connectors(self) -> list[str]:
        return sorted(self.configs.snapshot().connectors())

    def connector_info(self, name: str) -> JsonDict:
        snapshot = self.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return {
            "name": name,
            "config": dict(config),
            "tasks": [t.to_json() for t in snapshot.tasks(name)],
            "type": self._type(config),
        }

    def _type(self, config: Mapping[str, str]) -> str:
        try:
            return connector_type(self.plugins.connector_class(config[cc.CONNECTOR_CLASS]))
        except Exception:
            return "unknown"

    def connector_config(self, name: str) -> dict[str, str]:
        return self._config(name)

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: str | None = None,
    ) -> tuple[bool, JsonDict]:
        self._require_leader("Only the leader can set connector configs.")
        config = {k: v for k, v in config.items() if v is not None}
        if cc.NAME not in config:
            config[cc.NAME] = name
        infos = self.validate_connector_config(config)
        if infos["error_count"]:
            raise BadRequestError(cc.invalid_config_message(infos))
        exists = self.configs.contains(name)
        if exists and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        state = None
        if initial_state and not exists:
            wanted = initial_state.strip().upper()
            state = {"RUNNING": TargetState.STARTED, "PAUSED": TargetState.PAUSED,
                     "STOPPED": TargetState.STOPPED}.get(wanted)  # fmt: skip
            if state is None:
                raise BadRequestError(
                    f"Invalid initial state {initial_state}; it must be one of RUNNING, "
                    "PAUSED or STOPPED"
                )
        self.configs.put_connector_config(name, config, state)
        return not exists, self.connector_info(name)

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> JsonDict:
        config = self._config(name)
        for key, value in patch.items():
            if value is None:
                config.pop(key, None)
            else:
                config[key] = value
        return self.put_connector_config(name, config, allow_replace=True)[1]

    def delete_connector(self, name: str) -> None:
        self._require_leader("Only the leader can delete connector configs.")
        self._config(name)
        self.configs.remove_connector_config(name)

    def connector_status(self, name: str) -> JsonDict:
        status = self.statuses.get_connector(name)
        if status is None:
            raise NotFoundError(f"No status found for connector {name}")
        config = self.configs.snapshot().connector_config(name) or {}
        tasks = sorted(self.statuses.get_all(name), key=lambda s: s.id.task)
        return {
            "name": name,
            "connector": status.to_rest(),
            "tasks": [t.to_rest() for t in tasks],
            "type": self._type(config),
        }

    def task_infos(self, name: str) -> list[JsonDict]:
        snapshot = self.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Connector {name} not found")
        return [
            {"id": t.to_json(), "config": dict(snapshot.task_config(t) or {})}
            for t in snapshot.tasks(name)
        ]

    def task_status(self, name: str, task: int) -> JsonDict:
        status = self.statuses.get_task(ConnectorTaskId(name, task))
        if status is None:
            raise NotFoundError(f"No status found for task {name}-{task}")
        return status.to_rest()

    def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> JsonDict | None:
        if not self.configs.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        self._require_owner(name)
        status = self.connector_status(name)
        restart_connector = not only_failed or status["connector"]["state"] == "FAILED"
        tasks = [
            t["id"]
            for t in status["tasks"]
            if include_tasks and (not only_failed or t["state"] == "FAILED")
        ]
        with self._lock:
            run = self._running.get(name)
            if restart_connector and run is not None:
                # Only the Connector object restarts; its tasks keep running unless asked.
                if run.connector is not None:
                    try:
                        run.connector.stop()
                    except Exception:
                        log.warning("Stopping connector %s failed", name, exc_info=True)
                run.connector = None
                run.stopped_on_error = False
                self._put(ConnectorStatus(name, State.RESTARTING, self.worker_id))
            if tasks and run is not None:
                for index in tasks:
                    run.failed.pop(index, None)
                run.stopped_on_error = False
                self._stop_query(name, run)
            for index in tasks:
                self._put(TaskStatus(ConnectorTaskId(name, index), State.RESTARTING,
                                     self.worker_id))  # fmt: skip
        self.mark(name, regenerate=restart_connector)
        if not include_tasks and not only_failed:
            return None
        if restart_connector:
            status["connector"] = {**status["connector"], "state": "RESTARTING"}
        status["tasks"] = [
            {**t, "state": "RESTARTING"} if t["id"] in tasks else t for t in status["tasks"]
        ]
        return status

    def restart_task(self, name: str, task: int) -> None:
        snapshot = self.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        if ConnectorTaskId(name, task) not in snapshot.tasks(name):
            raise NotFoundError(f"Unknown task: {name}-{task}")
        self._require_owner(name)
        with self._lock:
            run = self._running.get(name)
            if run is not None:
                run.failed.pop(task, None)
                run.stopped_on_error = False
                self._stop_query(name, run)
            self._put(TaskStatus(ConnectorTaskId(name, task), State.RESTARTING, self.worker_id))
        self.mark(name)

    def _require(self, name: str) -> None:
        if not self.configs.contains(name):
            raise NotFoundError(f"Unknown connector {name}")

    def pause_connector(self, name: str) -> None:
        self._require(name)
        self.configs.put_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._require(name)
        self.configs.put_target_state(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._require_leader("Only the leader can stop connectors.")
        self._require(name)
        self.configs.put_task_configs(name, [])  # an empty task set, as Kafka writes it
        self.configs.put_target_state(name, TargetState.STOPPED)

    # --- Herder: internal requests -----------------------------------------------------------

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], request: InternalRequest
    ) -> None:
        raise ConnectError(
            "Kafka Connect in standalone mode does not support externally setting task "
            "configurations."
        )

    def fence_zombies(self, name: str, request: InternalRequest) -> None:
        raise ConnectError("Kafka Connect in standalone mode does not support zombie fencing.")

    def alter_connector_offsets(self, name: str, offsets: list[JsonDict]) -> str:
        self._require_leader("Only the leader can alter connector offsets.")
        return super().alter_connector_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        self._require_leader("Only the leader can reset connector offsets.")
        return super().reset_connector_offsets(name)

    # --- Herder: topics ---------------------------------------------------------------------

    @property
    def topic_tracking(self) -> tuple[bool, bool]:
        return (
            bool(self.config.get("topic.tracking.enable")),
            bool(self.config.get("topic.tracking.allow.reset")),
        )

    def connector_active_topics(self, name: str) -> list[str]:
        return sorted({s.topic for s in self.statuses.get_all_topics(name)})

    def reset_connector_active_topics(self, name: str) -> None:
        for status in self.statuses.get_all_topics(name):
            self.statuses.delete_topic(name, status.topic)
        with self._lock:
            run = self._running.get(name)
            if run is not None and run.query is not None:
                run.query.topics.clear()

    # --- Herder: plugins and validation -----------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[JsonDict]:
        return [p.to_rest() for p in self.plugins.connector_plugins(connectors_only)]

    def plugin_config(self, plugin: str) -> list[JsonDict]:
        desc = self.plugins.plugin(plugin)
        instance = desc.cls()
        keys = list(instance.config().config_keys.values())
        if isinstance(instance, Connector):  # then the framework's keys, as Kafka lists them
            framework = cc.framework_config_def(instance).config_keys
            keys += [k for name, k in framework.items() if name not in instance.config()]
        return [cc.config_key_info(k) for k in keys]

    def validate_connector_config(
        self, config: Mapping[str, str], plugin: str | None = None
    ) -> JsonDict:
        config = {k: ("" if v is None else str(v)) for k, v in config.items()}
        class_name = (config.get(cc.CONNECTOR_CLASS) or "").strip()
        # The one check of the connector type, for create, PUT config and validate alike (as
        # Kafka's AbstractHerder.validateConnectorConfig; the REST layer does not repeat it).
        if plugin is not None and class_name and not _short(class_name).endswith(_short(plugin)):
            raise BadRequestError(
                f"Included connector type {class_name} does not match request type {plugin}"
            )
        if not class_name and plugin:
            # The seeds' session validates ``{}`` against /connector-plugins/<plugin>/: the
            # plugin in the path is the connector type (Kafka 0.10 did so; Kafka 2+ answers 400).
            class_name = plugin
            config = {cc.CONNECTOR_CLASS: plugin, **config}
        if not class_name:
            raise BadRequestError(f"Connector config {java_map(config)} contains no connector type")
        connector = self.plugins.new_connector(class_name)
        framework = cc.framework_config_def(connector)
        definitions = [(framework, framework.validate(config))]
        own = connector.config()
        definitions.append((own, connector.validate(config).config_values))
        extra: dict[str, list[str]] = {}
        if isinstance(connector, SinkConnector):
            extra.update(cc.sink_topic_errors(config))
        from seaway.config import ConfigDef
        from seaway.connect.transforms.chain import enrich, validate_transform_config_values

        aliases = enrich(config, ConfigDef())  # transforms.<alias>.* keys, groups per alias
        definitions.append(
            (aliases, list(validate_transform_config_values(config, ConfigDef()).values()))
        )
        if isinstance(connector, SourceConnector):
            for key, messages in self._exactly_once_errors(connector, config).items():
                extra.setdefault(key, []).extend(messages)
        for key, messages in self._override_errors(config).items():
            extra.setdefault(key, []).extend(messages)
        for key, messages in self._host_errors(connector).items():
            extra.setdefault(key, []).extend(messages)
        return cc.config_infos(class_name, definitions, extra, config)

    def _host_errors(self, connector: Connector) -> dict[str, list[str]]:
        """A connector bound to the worker's host cannot run where Spark puts its tasks on
        other hosts (Kafka's docs: the FileStream connectors are for standalone use)."""
        master = self.config.get(SPARK_MASTER)
        if connector.host_bound is None or is_local_master(master):
            return {}
        return {cc.CONNECTOR_CLASS: [
            f"{type(connector).__name__} cannot run on this worker: {connector.host_bound}, "
            f"and with spark.master={master} its tasks run on Spark executors on any host. "
            "Run it on a worker whose spark.master is local (e.g. local[*])."]}  # fmt: skip

    def _exactly_once_errors(
        self, connector: SourceConnector, config: Mapping[str, str]
    ) -> dict[str, list[str]]:
        if (config.get("exactly.once.support") or "").strip().lower() != "required":
            return {}
        if not self.config.exactly_once_source:
            return {"exactly.once.support": [
                "This worker does not have exactly-once source support enabled."]}  # fmt: skip
        support = connector.exactly_once_support(config)
        if support is not ExactlyOnceSupport.SUPPORTED:
            return {"exactly.once.support": [
                "The connector does not implement the API required for preflight validation "
                "of exactly-once source support. Please consult the documentation for the "
                "connector to determine whether it supports exactly-once semantics, and then "
                "consider reconfiguring the connector to use the value 'requested' for this "
                "property (which will disable this preflight check and allow the connector to "
                "be created)." if support is None else
                "The connector does not support exactly-once semantics with the provided "
                "configuration."]}  # fmt: skip
        return {}

    def _override_errors(self, config: Mapping[str, str]) -> dict[str, list[str]]:
        policy = str(self.config.get("connector.client.config.override.policy"))
        allowed = {"None": set(), "Principal": {"sasl.jaas.config", "sasl.mechanism",
                                                "security.protocol"}}.get(policy)  # fmt: skip
        if allowed is None:
            return {}
        errors: dict[str, list[str]] = {}
        for key in config:
            for prefix in ("producer.override.", "consumer.override.", "admin.override."):
                if key.startswith(prefix) and key[len(prefix) :] not in allowed:
                    errors[key] = [
                        f"The '{policy}' policy does not allow '{key[len(prefix) :]}' to be "
                        "overridden in the connector configuration."
                    ]
        return errors

    # --- offsets (ConnectorOffsetsApi supplies the REST semantics) --------------------------

    def _offsets_context(self, name: str) -> tuple[dict[str, str], Connector, bool]:
        """(config, a connector instance, whether it is STOPPED)."""
        snapshot = self.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        stopped = snapshot.target_state(name) is TargetState.STOPPED
        with self._lock:
            run = self._running.get(name)
            stopped = stopped and (run is None or run.query is None)
        return dict(config), self.plugins.new_connector(config[cc.CONNECTOR_CLASS]), stopped

    def _sink_client_config(self, config: Mapping[str, str]) -> tuple[str, dict[str, str]]:
        """(group, admin-usable client settings) of a sink connector: ``connect-<name>``
        unless ``consumer.override.group.id`` says otherwise."""
        consumer = self.worker.client_config(config, "consumer")
        group = consumer.pop("group.id", None) or f"connect-{config[cc.NAME]}"
        return group, {k: v for k, v in consumer.items() if k not in _CONSUMER_ONLY}

    def _source_offsets(self, name: str) -> dict[str, Any]:
        return self.offsets.connector_offsets(name)

    def _write_source_offsets(self, name: str, offsets: Mapping[str, Any]) -> None:
        self.offsets.set(name, dict(offsets))
        self.offsets.flush()


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].removesuffix("Connector")


_FENCED: Final = "TransactionFenced"  # seaway.spark.kafka.transactional's error, by name

_CONSUMER_ONLY: Final = frozenset(
    {"auto.offset.reset", "enable.auto.commit", "isolation.level", "max.poll.records"}
)
_COMMIT: Final = "unknown"

__all__ = ["WorkerHerder", "java_map"]
