"""Kafka Connect's worker metrics in Prometheus' text format, through ``prometheus_client``.

The groups and attribute names are Kafka's (``connect-worker-metrics``,
``connect-worker-rebalance-metrics``, ``connector-metrics``, ``connector-task-metrics``,
``source-task-metrics``, ``sink-task-metrics``, ``task-error-metrics``,
``connect-coordinator-metrics``), exported under the names the Prometheus JMX exporter's
common Kafka Connect rules give them (Strimzi's ``kafka-connect-metrics.yaml``): the group
without ``-metrics``, ``_`` for ``-``, ``connector`` and ``task`` as labels, string
attributes as a gauge of 1 carrying the string as a label. Cumulative ``*-total`` attributes
are counters; the rest are gauges.

State (counts, statuses, the rebalance) is read from the herder at scrape time; what tasks
count on executors arrives with each completed batch (:meth:`ConnectMetrics.record_batch`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from seaway.connect.runtime.queries.task_metrics import TaskMetrics

__all__ = ["CONTENT_TYPE", "ConnectMetrics", "WorkerState"]

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
_PREFIX: Final = "kafka_connect_"
_TASK_STATES: Final = ("running", "paused", "failed", "unassigned", "destroyed", "restarting")


@dataclass
class _TaskTotals:
    """A task's counts summed over its batches."""

    records_in: int = 0
    records_out: int = 0
    batches: int = 0
    batch_ms_total: float = 0.0
    batch_ms_max: float = 0.0
    batch_size_max: int = 0
    partitions: int = 0
    offset_commits: int = 0
    errors: TaskMetrics = field(default_factory=TaskMetrics)

    def add(self, metrics: TaskMetrics) -> None:
        self.records_in += metrics.records_in
        self.records_out += metrics.records_out
        self.batches += 1
        self.batch_ms_total += metrics.batch_ms
        self.batch_ms_max = max(self.batch_ms_max, metrics.batch_ms)
        self.batch_size_max = max(self.batch_size_max, metrics.records_in)
        self.partitions = metrics.partitions
        self.offset_commits += 1
        e = self.errors
        e.record_failures += metrics.record_failures
        e.record_errors += metrics.record_errors
        e.records_skipped += metrics.records_skipped
        e.retries += metrics.retries
        e.errors_logged += metrics.errors_logged
        e.dlq_requests += metrics.dlq_requests
        e.dlq_failures += metrics.dlq_failures
        e.last_error_ms = max(e.last_error_ms, metrics.last_error_ms)


@dataclass(frozen=True)
class WorkerState:
    """What the herder tells the metrics at scrape time."""

    # connector -> (type "source"/"sink", class, version, status) for connectors it runs
    connectors: dict[str, tuple[str, str, str, str]]
    # (connector, task) -> status, for tasks it runs
    tasks: dict[tuple[str, int], str]
    # connect-worker-rebalance-metrics, None for a standalone worker
    rebalance: dict[str, Any] | None = None


class ConnectMetrics:
    """One worker's metrics; a ``prometheus_client`` collector over the herder's state."""

    def __init__(self, state: Callable[[], WorkerState]) -> None:
        self._state = state
        self._lock = threading.Lock()
        self._tasks: dict[tuple[str, int], tuple[str, _TaskTotals]] = {}
        self.startups = {"connector": [0, 0, 0], "task": [0, 0, 0]}  # attempts, ok, failed
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    # --- what the herder reports ------------------------------------------------------------

    def startup(self, kind: str, succeeded: bool | None) -> None:
        """A connector or task start: attempted (None), then succeeded or failed."""
        counts = self.startups[kind]
        with self._lock:
            if succeeded is None:
                counts[0] += 1
            else:
                counts[1 if succeeded else 2] += 1

    def record_batch(self, connector: str, kind: str, metrics: Iterable[TaskMetrics]) -> None:
        """Add the counts tasks of *connector* (a ``source`` or ``sink``) sent with a batch."""
        with self._lock:
            for m in metrics:
                key = (connector, m.task)
                if key not in self._tasks:
                    self._tasks[key] = (kind, _TaskTotals())
                self._tasks[key][1].add(m)

    def forget(self, connector: str) -> None:
        """Drop the task counts of a connector deleted from the cluster."""
        with self._lock:
            for key in [k for k in self._tasks if k[0] == connector]:
                del self._tasks[key]

    def exposition(self) -> bytes:
        """The Prometheus text of every metric."""
        return generate_latest(self.registry)

    # --- the collector ----------------------------------------------------------------------

    def collect(self) -> Iterator[Metric]:
        state = self._state()
        yield from self._worker(state)
        yield from self._connectors(state)
        if state.rebalance is not None:
            yield from _rebalance(state.rebalance)
        with self._lock:
            tasks = {k: (kind, _copy(t)) for k, (kind, t) in self._tasks.items()}
        yield from _tasks(tasks)

    def _worker(self, state: WorkerState) -> Iterator[Metric]:
        yield _gauge("worker_connector_count", "Connectors run by this worker.",
                     len(state.connectors))  # fmt: skip
        yield _gauge("worker_task_count", "Tasks run by this worker.", len(state.tasks))
        with self._lock:
            startups = {kind: list(counts) for kind, counts in self.startups.items()}
        for kind, (attempts, ok, failed) in startups.items():
            base = f"worker_{kind}_startup"
            yield _counter(f"{base}_attempts", f"{kind} starts attempted.", attempts)
            yield _counter(f"{base}_success", f"{kind} starts that succeeded.", ok)
            yield _counter(f"{base}_failure", f"{kind} starts that failed.", failed)
            done = ok + failed
            yield _gauge(f"{base}_success_percentage", f"Share of {kind} starts that succeeded.",
                         ok / done if done else 0.0)  # fmt: skip
            yield _gauge(f"{base}_failure_percentage", f"Share of {kind} starts that failed.",
                         failed / done if done else 0.0)  # fmt: skip
        per_state = {
            s: GaugeMetricFamily(
                f"{_PREFIX}worker_connector_{s}_task_count",
                f"Tasks of the connector in state {s} on this worker.",
                labels=["connector"],
            )
            for s in _TASK_STATES
        }
        total = GaugeMetricFamily(
            f"{_PREFIX}worker_connector_total_task_count",
            "Tasks of the connector on this worker.",
            labels=["connector"],
        )
        for connector in sorted(state.connectors):
            statuses = [s for (c, _), s in state.tasks.items() if c == connector]
            total.add_metric([connector], len(statuses))
            for s, family in per_state.items():
                family.add_metric([connector], sum(1 for x in statuses if x.lower() == s))
        yield total
        yield from per_state.values()

    def _connectors(self, state: WorkerState) -> Iterator[Metric]:
        labels = ("status", "connector_type", "connector_class", "connector_version")
        families = {
            name: GaugeMetricFamily(
                f"{_PREFIX}connector_{name}",
                f"The connector's {name.replace('_', ' ')}.",
                labels=["connector", name],
            )
            for name in labels
        }
        for connector, (kind, cls, version, status) in sorted(state.connectors.items()):
            values = {"status": status.lower(), "connector_type": kind,
                      "connector_class": cls, "connector_version": version}  # fmt: skip
            for name, family in families.items():
                family.add_metric([connector, values[name]], 1)
        yield from families.values()
        task_status = GaugeMetricFamily(
            f"{_PREFIX}connector_task_status", "The task's status.",
            labels=["connector", "task", "status"],
        )  # fmt: skip
        for (connector, task), status in sorted(state.tasks.items()):
            task_status.add_metric([connector, str(task), status.lower()], 1)
        yield task_status


def _copy(totals: _TaskTotals) -> _TaskTotals:
    errors = TaskMetrics(**vars(totals.errors))
    return _TaskTotals(**{**vars(totals), "errors": errors})


def _gauge(name: str, doc: str, value: float) -> Metric:
    return GaugeMetricFamily(_PREFIX + name, doc, value=value)


def _counter(name: str, doc: str, value: float) -> Metric:
    return CounterMetricFamily(_PREFIX + name, doc, value=value)


def _rebalance(r: dict[str, Any]) -> Iterator[Metric]:
    p = "worker_rebalance_"
    protocol = GaugeMetricFamily(f"{_PREFIX}{p}connect_protocol", "The group protocol in use.",
                                 labels=["connect_protocol"])  # fmt: skip
    protocol.add_metric([r["protocol"]], 1)
    yield protocol
    leader = GaugeMetricFamily(f"{_PREFIX}{p}leader_name", "The leader's URL.",
                               labels=["leader_name"])  # fmt: skip
    leader.add_metric([r["leader"] or ""], 1)
    yield leader
    yield _gauge(f"{p}epoch", "The group generation.", r["epoch"])
    yield _counter(f"{p}completed_rebalances", "Rebalances completed.", r["completed"])
    yield _gauge(f"{p}rebalancing", "1 while a rebalance is applied.", r["rebalancing"])
    yield _gauge(f"{p}rebalance_max_time_ms", "Longest rebalance.", r["max_ms"])
    yield _gauge(f"{p}rebalance_avg_time_ms", "Average rebalance.", r["avg_ms"])
    since = r["last_completed"]
    yield _gauge(f"{p}time_since_last_rebalance_ms", "Since the last rebalance completed.",
                 (time.monotonic() - since) * 1000 if since else float("inf"))  # fmt: skip
    yield _gauge("coordinator_assigned_connectors", "Connectors assigned to this worker.",
                 r["assigned_connectors"])  # fmt: skip
    yield _gauge("coordinator_assigned_tasks", "Tasks assigned to this worker.",
                 r["assigned_tasks"])  # fmt: skip


# (family, attribute, help, kind, value of the totals): one exported series per task.
_TASK_SERIES: Final[list[tuple[str, str, str, str, Callable[[_TaskTotals], float]]]] = [
    ("source_task", "source_record_poll", "Records polled from the task.", "counter",
     lambda t: t.records_in),
    ("source_task", "source_record_write", "Records written to Kafka, after transforms.",
     "counter", lambda t: t.records_out),
    ("source_task", "poll_batch_max_time_ms", "Longest batch to poll and write.", "gauge",
     lambda t: t.batch_ms_max),
    ("source_task", "poll_batch_avg_time_ms", "Average batch to poll and write.", "gauge",
     lambda t: t.batch_ms_total / t.batches if t.batches else 0.0),
    ("sink_task", "sink_record_read", "Records read from Kafka.", "counter",
     lambda t: t.records_in),
    ("sink_task", "sink_record_send", "Records passed to put(), after transforms.", "counter",
     lambda t: t.records_out),
    ("sink_task", "put_batch_max_time_ms", "Longest put().", "gauge", lambda t: t.batch_ms_max),
    ("sink_task", "put_batch_avg_time_ms", "Average of the batches' longest put().", "gauge",
     lambda t: t.batch_ms_total / t.batches if t.batches else 0.0),
    ("sink_task", "partition_count", "Topic-partitions the task was given.", "gauge",
     lambda t: t.partitions),
    ("sink_task", "offset_commit_completion", "Offset commits completed.", "counter",
     lambda t: t.offset_commits),
    ("connector_task", "batch_size_max", "Most records in one batch.", "gauge",
     lambda t: t.batch_size_max),
    ("connector_task", "batch_size_avg", "Average records per batch.", "gauge",
     lambda t: t.records_in / t.batches if t.batches else 0.0),
    ("task_error", "total_record_failures", "Failed processing attempts.", "gauge",
     lambda t: t.errors.record_failures),
    ("task_error", "total_record_errors", "Records that ended in an error.", "gauge",
     lambda t: t.errors.record_errors),
    ("task_error", "total_records_skipped", "Records skipped (errors.tolerance=all).", "gauge",
     lambda t: t.errors.records_skipped),
    ("task_error", "total_retries", "Retried operations.", "gauge", lambda t: t.errors.retries),
    ("task_error", "total_errors_logged", "Errors logged.", "gauge",
     lambda t: t.errors.errors_logged),
    ("task_error", "deadletterqueue_produce_requests", "Records sent to the dead letter queue.",
     "gauge", lambda t: t.errors.dlq_requests),
    ("task_error", "deadletterqueue_produce_failures",
     "Records the dead letter queue failed to take.", "gauge", lambda t: t.errors.dlq_failures),
    ("task_error", "last_error_timestamp", "When the last error happened (epoch ms).", "gauge",
     lambda t: t.errors.last_error_ms),
]  # fmt: skip


def _tasks(tasks: dict[tuple[str, int], tuple[str, _TaskTotals]]) -> Iterator[Metric]:
    for family, attribute, doc, kind, value in _TASK_SERIES:
        wanted = family.split("_", 1)[0]
        cls = CounterMetricFamily if kind == "counter" else GaugeMetricFamily
        metric = cls(f"{_PREFIX}{family}_{attribute}", doc, labels=["connector", "task"])
        for (connector, task), (task_kind, totals) in sorted(tasks.items()):
            if wanted in ("source", "sink") and task_kind != wanted:
                continue
            metric.add_metric([connector, str(task)], value(totals))
        yield metric
