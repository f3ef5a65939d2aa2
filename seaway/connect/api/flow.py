"""Connectors that run their own data flow instead of tasks (Seaway's extension of the API).

A normal connector's tasks run inside one Spark query the worker builds. A
:class:`FlowConnector` brings its own engine: after the worker has stored its task configs
(still produced by :meth:`~seaway.connect.api.Connector.task_configs`, so the REST API shows
them), it calls :meth:`FlowConnector.start_flow` once for **all** of them and watches the
returned :class:`FlowHandle` the way it watches a query: ``failure()`` fails every task
with that trace, ``stop()`` is called on pause, delete, reconfiguration and shutdown.
MirrorMaker 2's connectors (``seaway.connectors.mirror``) are built this way.

The handle owns whatever it runs (a Spark query, a thread emitting every few seconds); work
must not run in the caller's thread after ``start_flow`` returns. Offsets are the flow's
business: the worker neither flushes nor reads Connect offsets for a flow connector.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from seaway.connect.api.connector import Connector, Task


@dataclass(frozen=True)
class FlowContext:
    """What the worker gives a flow: its SparkSession and worker-level settings."""

    connector_name: str
    spark: Any  # the worker's SparkSession, active on the calling thread
    trigger_interval_ms: int = 500  # the worker's spark.trigger.interval.ms
    exactly_once_source: bool = False  # exactly.once.source.support=enabled (distributed)
    worker_settings: Mapping[str, str] = field(default_factory=dict)  # worker properties


class FlowHandle(ABC):
    """A running flow, as the worker sees it."""

    @property
    @abstractmethod
    def active(self) -> bool:
        """True until the flow stopped or failed."""

    @abstractmethod
    def failure(self) -> str | None:
        """The error (a trace) that stopped the flow, else None."""

    @abstractmethod
    def stop(self) -> None:
        """Stop the flow and wait for it; idempotent."""


class FlowConnector(Connector):
    """A connector whose work runs as one flow (see the module docs).

    Subclass it together with :class:`~seaway.connect.api.SourceConnector` (or
    ``SinkConnector``) so that the REST API reports its type.
    """

    @abstractmethod
    def start_flow(self, context: FlowContext, task_configs: list[dict[str, str]]) -> FlowHandle:
        """Start the work of every task in *task_configs*; called after :meth:`start`."""


class FlowTask(Task):
    """Names a flow connector's tasks in its task configs; never started by the worker."""

    def start(self, props: dict[str, str]) -> None:
        raise NotImplementedError(
            f"{type(self).__qualname__} is run by its connector's flow "
            "(FlowConnector.start_flow), not as a task"
        )

    def stop(self) -> None:
        """Nothing to stop."""


__all__ = ["FlowConnector", "FlowContext", "FlowHandle", "FlowTask"]
