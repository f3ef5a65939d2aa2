"""What the console shows, as small immutable records: each server adapts its own state to
them (the broker its logs and group coordinator, Connect its herder, the mirror its flows and
clusters) and hands the console callables that return them (:class:`Console`).

The console imports nothing of the broker, Connect or the mirror (``.importlinter``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from seaway.errors import SeawayError

__all__ = [
    "Action",
    "ActionError",
    "ConnectorView",
    "Console",
    "FlowView",
    "GroupLagView",
    "PartitionLag",
    "PartitionView",
    "PlotSpec",
    "TaskView",
    "TopicView",
]

Action = Literal["pause", "resume", "restart", "restart-task"]


class ActionError(SeawayError):
    """An action the server refused: *status* is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class TaskView:
    """One task of a connector: its state (Kafka's RUNNING, FAILED...) and a failure's trace."""

    id: int
    state: str
    worker_id: str = ""
    trace: str | None = None


@dataclass(frozen=True, slots=True)
class ConnectorView:
    """A connector, its state and its tasks."""

    name: str
    state: str
    type: str = ""
    worker_id: str = ""
    trace: str | None = None
    tasks: tuple[TaskView, ...] = ()


@dataclass(frozen=True, slots=True)
class PartitionView:
    """One partition of a topic: its log start and end offsets, its size (None: unknown)."""

    partition: int
    end_offset: int
    start_offset: int | None = None
    size_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class TopicView:
    """A topic of a cluster (*cluster* names it where a server sees several)."""

    name: str
    partitions: tuple[PartitionView, ...]
    internal: bool = False
    cluster: str = ""

    @property
    def end_offsets(self) -> int:
        return sum(p.end_offset for p in self.partitions)

    @property
    def size_bytes(self) -> int | None:
        sizes = [p.size_bytes for p in self.partitions]
        return None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)


@dataclass(frozen=True, slots=True)
class PartitionLag:
    """A group's committed offset on a partition and the partition's end offset."""

    topic: str
    partition: int
    committed: int
    end_offset: int | None

    @property
    def lag(self) -> int | None:
        """End offset - committed offset (as kafka-consumer-groups.sh shows it)."""
        return None if self.end_offset is None else max(0, self.end_offset - self.committed)


@dataclass(frozen=True, slots=True)
class GroupLagView:
    """A consumer group, its state and its lag per partition."""

    group: str
    state: str
    members: int = 0
    partitions: tuple[PartitionLag, ...] = ()
    cluster: str = ""

    @property
    def lag(self) -> int:
        return sum(p.lag or 0 for p in self.partitions)


@dataclass(frozen=True, slots=True)
class FlowView:
    """A replication flow *source* -> *target*: what it copied and how far behind it is."""

    source: str
    target: str
    state: str
    topics: int = 0
    records: int = 0
    lag: float | None = None
    replication_latency_ms: float | None = None
    checkpoint_latency_ms: float | None = None
    checkpoint_age_s: float | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PlotSpec:
    """One plot of the history: the series named in *names* (name -> legend prefix), one
    line per label set (only the label-less totals unless *per_label*), in *unit*."""

    title: str
    names: Mapping[str, str]
    unit: str = ""
    per_label: bool = True


@dataclass(frozen=True)
class Console:
    """What one server's console shows: *title* (or a callable giving it, read at each page),
    and a provider per page it has (None: no such page). *history* returns a
    :meth:`MetricsHistory.snapshot`, drawn as *plots*;
    *act* runs an action on a connector, given the request's ``Authorization`` header if
    any, and says what it did (or raises :class:`ActionError`); *summary* gives
    the overview's headline figures (by default, counted from the connectors and flows)."""

    title: str | Callable[[], str]
    connectors: Callable[[], Sequence[ConnectorView]] | None = None
    act: Callable[[Action, str, int | None, Mapping[str, str]], str] | None = None
    topics: Callable[[], Sequence[TopicView]] | None = None
    groups: Callable[[], Sequence[GroupLagView]] | None = None
    flows: Callable[[], Sequence[FlowView]] | None = None
    history: Callable[[], Mapping[str, Any]] | None = None
    plots: Sequence[PlotSpec] = field(default_factory=tuple)
    summary: Callable[[], Mapping[str, object]] | None = None
    refresh_s: int = 5

    @property
    def heading(self) -> str:
        """The title as it is now."""
        return self.title() if callable(self.title) else self.title
