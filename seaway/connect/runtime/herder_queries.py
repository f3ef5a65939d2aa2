"""A connector's tasks as one Spark query: task configs generated, the query started,
watched (task failures, source offset flushes, used topics) and stopped.

:class:`ConnectorQueries` works on a :class:`~seaway.connect.runtime.herder_state.HerderState`;
what a worker in a group decides (whether it may run a connector, how task configs reach the
config store, zombie fencing before exactly-once tasks, the generation task statuses carry)
comes in as callbacks.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from typing import Any, Final

from seaway.config.providers import reverse_transform
from seaway.connect.api import SinkConnector, SourceConnector
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.flow import FlowConnector
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder_state import HerderState, RunningConnector
from seaway.connect.runtime.queries.conversion import (
    HEADER,
    KEY,
    VALUE,
    ConversionSpec,
    TaskFailure,
    converter_spec,
)
from seaway.connect.runtime.queries.sink import SinkQuerySpec
from seaway.connect.runtime.queries.source import SourceQuerySpec, class_path, source_offsets
from seaway.connect.runtime.storage import (
    ConnectorStatus,
    ConnectorTaskId,
    State,
    TaskStatus,
    TopicStatus,
)
from seaway.connect.runtime.worker import ConnectorQuery, FlowQuery

log = logging.getLogger(__name__)

TASK_CLASS: Final = "task.class"
_FENCED: Final = "TransactionFenced"  # seaway.spark.kafka.transactional's error, by name


class ConnectorQueries:
    """Starts, watches and stops the Spark queries of the connectors a herder runs."""

    def __init__(
        self,
        state: HerderState,
        *,
        may_run: Callable[[str], bool],
        publish_task_configs: Callable[[str, list[dict[str, str]]], None],
        before_exactly_once_start: Callable[[str], bool],
        status_generation: Callable[[RunningConnector], int],
    ) -> None:
        """*may_run*: whether this worker may run a connector right now;
        *publish_task_configs*: store the task configs a connector generated;
        *before_exactly_once_start*: fence zombies before exactly-once source tasks start
        (False: start them later); *status_generation*: the generation of a task's status."""
        self._state = state
        self._may_run = may_run
        self._publish_task_configs = publish_task_configs
        self._before_exactly_once_start = before_exactly_once_start
        self._status_generation = status_generation

    def generate_task_configs(self, name: str, run: RunningConnector, snapshot: Any) -> bool:
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
            self.stop_query(name, run)
        self._publish_task_configs(name, configs)
        return True

    def start_query(
        self, name: str, run: RunningConnector, task_configs: list[dict[str, str]]
    ) -> None:
        """Run the connector's tasks (all but the failed ones) as one Spark query."""
        starting = len(task_configs) - len(run.failed)
        for _ in range(starting):
            self._state.metrics.startup("task", None)
        try:
            self._start_tasks(name, run, task_configs)
        except BaseException:
            for _ in range(starting):
                self._state.metrics.startup("task", False)
            raise
        if run.query is not None:
            for _ in range(starting):
                self._state.metrics.startup("task", True)

    def _start_tasks(
        self, name: str, run: RunningConnector, task_configs: list[dict[str, str]]
    ) -> None:
        state = self._state
        # The tasks get ${provider:...} references resolved; the stores keep them as written.
        task_configs = [state.transformer.transform(t) for t in task_configs]
        if isinstance(run.connector, FlowConnector):
            self._start_flow(name, run, task_configs)
            return
        enabled = [i for i in range(len(task_configs)) if i not in run.failed]
        if not enabled:
            return
        config = state.transformer.transform(run.config)
        conversion = ConversionSpec(
            connector=name,
            key=converter_spec(KEY, config, state.config.originals),
            value=converter_spec(VALUE, config, state.config.originals),
            header=converter_spec(HEADER, config, state.config.originals),
            connector_config=config,
            plugin_path=state.plugins.plugin_path,
        )
        task_class = task_configs[0][TASK_CLASS]
        run.generation += 1
        if isinstance(run.connector, SourceConnector):
            transactional = state.config.exactly_once_source
            if transactional and not self._before_exactly_once_start(name):
                return
            corrupt: list[str] = getattr(state.offsets, "corrupt_offsets", lambda _: [])(name)
            if corrupt:
                raise ConnectError(
                    f"Cannot start connector {name}: {'; '.join(corrupt)}. Set its offsets "
                    f"with PATCH /connectors/{name}/offsets (or reset them with DELETE) while "
                    "it is STOPPED."
                )
            sequences = (
                state.worker.committed_sequences(name, enabled, config, state.offsets_topic)
                if transactional and state.offsets_topic
                else {}
            )
            start = state.offsets.connector_offsets(name)  # after the sequences, never before
            run.flushed = dict(start)
            spec = SourceQuerySpec(
                connector=name,
                task_class=task_class,
                task_configs=task_configs,
                enabled_tasks=enabled,
                start_offsets=start,
                conversion=conversion,
                offsets_topic=state.offsets_topic if transactional else None,
                plans_per_batch=int(state.config.get("spark.source.plans.per.batch")),
                start_sequences=sequences,
            )
            run.query = state.worker.run_source(spec, config, transactional)
        else:
            group, client = state.sink_client_config(config)
            sink_spec = SinkQuerySpec(
                connector=name,
                task_class=task_class,
                task_configs=task_configs,
                enabled_tasks=enabled,
                group_id=group,
                client_config=client,
                conversion=conversion,
            )
            run.query = state.worker.run_sink(sink_spec, config)
        for index in range(len(task_configs)):
            task = ConnectorTaskId(name, index)
            if index in run.failed:
                trace = run.failed[index]
                state.put_status(TaskStatus(task, State.FAILED, state.worker_id, trace=trace))
            else:
                generation = self._status_generation(run)
                state.put_status(TaskStatus(task, State.RUNNING, state.worker_id, generation))
        log.info("Connector %s running tasks %s as Spark query %s", name, enabled, run.query)

    def _start_flow(
        self, name: str, run: RunningConnector, task_configs: list[dict[str, str]]
    ) -> None:
        """Run a flow connector's own flow: all its tasks at once, so they restart together."""
        state = self._state
        assert isinstance(run.connector, FlowConnector)
        run.failed.clear()
        run.generation += 1
        run.query = state.worker.run_flow(name, run.connector, task_configs)
        for index in range(len(task_configs)):
            task = ConnectorTaskId(name, index)
            generation = self._status_generation(run)
            state.put_status(TaskStatus(task, State.RUNNING, state.worker_id, generation))
        log.info("Connector %s running its %d task(s) as one flow", name, len(task_configs))

    def watch(self, name: str) -> None:
        """Check a running connector's query: failures, offset flushes, topics."""
        state = self._state
        run = state.running[name]
        query = run.query
        if query is None:
            return
        if state.topic_tracking[0]:
            self._track_topics(name, query)
        state.metrics.record_batch(name, query.kind, query.task_metrics())
        failure = query.failure()
        if failure is None and query.active:
            interval = float(state.config.get("offset.flush.interval.ms")) / 1000
            if time.monotonic() - run.last_flush >= interval:
                self.flush_offsets(name, run)
            return
        self.flush_offsets(name, run)
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
                state.mark(name)
            else:
                log.warning("Connector %s runs elsewhere: this run was fenced", name)
            return
        task = TaskFailure.task_of(failure)
        snapshot = state.configs.snapshot()
        tasks = [t.task for t in snapshot.tasks(name)]
        failed = [task] if task is not None and task in tasks else tasks
        generation = self._status_generation(run)
        trace = TaskFailure.trace_of(failure)
        for index in failed:
            run.failed[index] = failure
            # Safe: a worker that lost the connector meanwhile (a zombie whose transactions
            # were fenced) must not overwrite its new owner's status.
            task_id = ConnectorTaskId(name, index)
            state.put_status_safe(
                TaskStatus(task_id, State.FAILED, state.worker_id, generation, trace=trace)
            )
        log.error("Connector %s: task(s) %s failed:\n%s", name, failed, failure)
        if len(run.failed) < len(tasks):
            state.mark(name)  # the other tasks go on in a new run
        else:
            run.stopped_on_error = True

    def flush_offsets(self, name: str, run: RunningConnector) -> None:
        """Commit the source offsets of completed batches (at-least-once mode)."""
        run.last_flush = time.monotonic()
        query = run.query
        if query is None or query.kind != "source" or self._state.config.exactly_once_source:
            return
        end = query.end_offset()
        if not end:
            return
        changed = {
            key: offset
            for key, offset in source_offsets(end).items()
            if offset is not None and run.flushed.get(key) != offset
        }
        if changed:
            self._state.offsets.set(name, changed)
            timeout_s = float(self._state.config.get("offset.flush.timeout.ms")) / 1000
            self._state.offsets.flush(timeout_s + 25)
            run.flushed.update(changed)

    def _track_topics(self, name: str, query: ConnectorQuery | FlowQuery) -> None:
        known = {s.topic for s in self._state.statuses.get_all_topics(name)}
        now = int(time.time() * 1000)
        for topic in sorted(query.observed_topics() - known):
            if topic == self._state.offsets_topic:
                continue
            self._state.statuses.put_topic(TopicStatus(topic, name, 0, now))

    def stop_query(self, name: str, run: RunningConnector) -> None:
        """Flush the connector's source offsets and stop its query."""
        if run.query is not None:
            self.flush_offsets(name, run)
            try:
                run.query.stop()
            except Exception:
                log.warning("Stopping the query of %s failed", name, exc_info=True)
            run.query = None

    def stop_connector(self, name: str, final: State | None) -> None:
        """Stop a running connector and its query; write *final* as its status (DESTROYED:
        its statuses are destroyed; None: no status written)."""
        run = self._state.running.pop(name, None)
        if run is None:
            return
        self.stop_query(name, run)
        if run.connector is not None:
            try:
                run.connector.stop()
            except Exception:
                log.warning("Stopping connector %s failed", name, exc_info=True)
        if final is State.DESTROYED:
            self._state.destroy_statuses(name, ())
        elif final is not None:
            self._state.put_status(ConnectorStatus(name, final, self._state.worker_id))

    def release(self, name: str) -> None:
        """Stop a connector this worker no longer owns; its statuses say UNASSIGNED unless
        its new owner already wrote newer ones."""
        run = self._state.running.get(name)
        generation = 0 if run is None else self._status_generation(run)
        self.stop_connector(name, None)
        worker_id = self._state.worker_id
        for task in self._state.configs.snapshot().tasks(name):
            self._state.put_status_safe(TaskStatus(task, State.UNASSIGNED, worker_id, generation))
        self._state.put_status_safe(ConnectorStatus(name, State.UNASSIGNED, worker_id, generation))
        log.info("Connector %s is no longer assigned to this worker", name)

    def connector_failed(self, name: str, error: BaseException) -> None:
        """The connector failed: stop its query and write FAILED with *error*'s trace."""
        trace = "".join(traceback.format_exception(error))
        with self._state.lock:
            run = self._state.running.get(name)
            if run is not None:
                self.stop_query(name, run)
                run.stopped_on_error = True
        status = ConnectorStatus(name, State.FAILED, self._state.worker_id, trace=trace)
        self._state.put_status(status)


__all__ = ["TASK_CLASS", "ConnectorQueries"]
