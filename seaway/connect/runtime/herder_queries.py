"""A connector's tasks as one Spark query: task configs generated, the query started,
watched (task failures, source offset flushes, used topics) and stopped."""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Mapping
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


class HerderQueries(HerderState):
    """Starts, watches and stops the Spark queries of the connectors a herder runs."""

    def _generate_task_configs(self, name: str, run: RunningConnector, snapshot: Any) -> bool:
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

    def _start_query(
        self, name: str, run: RunningConnector, task_configs: list[dict[str, str]]
    ) -> None:
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

    def _start_tasks(
        self, name: str, run: RunningConnector, task_configs: list[dict[str, str]]
    ) -> None:
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

    def _start_flow(
        self, name: str, run: RunningConnector, task_configs: list[dict[str, str]]
    ) -> None:
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
        trace = TaskFailure.trace_of(failure)
        for index in failed:
            run.failed[index] = failure
            # Safe: a worker that lost the connector meanwhile (a zombie whose transactions
            # were fenced) must not overwrite its new owner's status.
            task_id = ConnectorTaskId(name, index)
            self._put_safe(
                TaskStatus(task_id, State.FAILED, self.worker_id, generation, trace=trace)
            )
        log.error("Connector %s: task(s) %s failed:\n%s", name, failed, failure)
        if len(run.failed) < len(tasks):
            self.mark(name)  # the other tasks go on in a new run
        else:
            run.stopped_on_error = True

    def _flush_offsets(self, name: str, run: RunningConnector) -> None:
        """Commit the source offsets of completed batches (at-least-once mode)."""
        run.last_flush = time.monotonic()
        query = run.query
        if query is None or query.kind != "source" or self.config.exactly_once_source:
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

    def _stop_query(self, name: str, run: RunningConnector) -> None:
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

    def connector_failed(self, name: str, error: BaseException) -> None:
        trace = "".join(traceback.format_exception(error))
        with self._lock:
            run = self._running.get(name)
            if run is not None:
                self._stop_query(name, run)
                run.stopped_on_error = True
        self._put(ConnectorStatus(name, State.FAILED, self.worker_id, trace=trace))

    def _sink_client_config(self, config: Mapping[str, str]) -> tuple[str, dict[str, str]]:
        """(group, client settings) of a sink connector: ``connect-<name>``
        unless ``consumer.override.group.id`` says otherwise."""
        consumer = self.worker.client_config(config, "consumer")
        group = consumer.pop("group.id", None) or f"connect-{config[cc.NAME]}"
        return group, consumer


__all__ = ["TASK_CLASS", "HerderQueries"]
