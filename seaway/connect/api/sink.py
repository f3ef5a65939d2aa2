"""Sink connectors and tasks: write records consumed from Kafka to an external system.

The runtime consumes the connector's topics (group ``connect-<name>``), converts and
transforms each record and hands batches to :meth:`SinkTask.put`. Before committing
consumer offsets it calls :meth:`SinkTask.pre_commit`; a task that writes asynchronously
returns only the offsets it has made durable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping
from concurrent.futures import Future
from typing import Final

from seaway.connect.api.connector import Connector, ConnectorContext, Task
from seaway.connect.api.records import SinkRecord
from seaway.connect.api.structs import OffsetAndMetadata, TopicPartition

TOPICS_CONFIG: Final = "topics"
TOPICS_REGEX_CONFIG: Final = "topics.regex"


class ErrantRecordReporter(ABC):
    """Sends a record that failed in ``put`` to the dead letter queue (KIP-610)."""

    @abstractmethod
    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        """Report *record*; the future completes once the report is durable."""


class SinkConnectorContext(ConnectorContext):
    """The :class:`ConnectorContext` of a sink connector."""


class SinkTaskContext(ABC):
    """What the runtime gives a running sink task."""

    @abstractmethod
    def configs(self) -> dict[str, str]:
        """The task's current configuration."""

    @abstractmethod
    def offset(
        self, offsets: Mapping[TopicPartition, int] | TopicPartition, offset: int | None = None
    ) -> None:
        """Rewind or skip: consume from these offsets next (a mapping, or one partition)."""

    @abstractmethod
    def timeout(self, timeout_ms: int) -> None:
        """After a :class:`~seaway.connect.api.errors.RetriableError`, retry ``put`` after this."""

    @abstractmethod
    def assignment(self) -> set[TopicPartition]:
        """The partitions currently assigned to the task."""

    @abstractmethod
    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching from *partitions* until :meth:`resume`."""

    @abstractmethod
    def resume(self, *partitions: TopicPartition) -> None:
        """Resume fetching from *partitions*."""

    @abstractmethod
    def request_commit(self) -> None:
        """Ask for an offset commit as soon as possible."""

    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """The dead letter queue reporter, or None when none is configured."""
        return None


class SinkConnector(Connector):
    """A connector whose tasks are :class:`SinkTask` subclasses."""

    TOPICS_CONFIG: Final = TOPICS_CONFIG

    context: SinkConnectorContext | None = None

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Check a user's consumer offset change (None resets a partition).

        Raise :class:`~seaway.connect.api.errors.ConnectError` to reject; return True when
        acknowledged, False (the default) when the connector does not implement the hook.
        """
        return False


class SinkTask(Task):
    """Writes batches of records to the external system."""

    TOPICS_CONFIG: Final = TOPICS_CONFIG
    TOPICS_REGEX_CONFIG: Final = TOPICS_REGEX_CONFIG

    context: SinkTaskContext | None = None

    def initialize(self, context: SinkTaskContext) -> None:
        """Called by the runtime before :meth:`start`."""
        self.context = context

    @abstractmethod
    def put(self, records: Collection[SinkRecord]) -> None:
        """Write (or buffer) *records*; raise RetriableError to have them retried."""

    def flush(self, current_offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> None:
        """Make everything passed to :meth:`put` so far durable."""

    def pre_commit(
        self, current_offsets: Mapping[TopicPartition, OffsetAndMetadata]
    ) -> Mapping[TopicPartition, OffsetAndMetadata]:
        """The offsets safe to commit; by default :meth:`flush`, then all of them."""
        self.flush(current_offsets)
        return current_offsets

    def open(self, partitions: Collection[TopicPartition]) -> None:
        """*partitions* were assigned to this task (after a rebalance)."""

    def close(self, partitions: Collection[TopicPartition]) -> None:
        """*partitions* are being taken away: write out what was buffered for them."""


__all__ = [
    "TOPICS_CONFIG",
    "TOPICS_REGEX_CONFIG",
    "ErrantRecordReporter",
    "SinkConnector",
    "SinkConnectorContext",
    "SinkTask",
    "SinkTaskContext",
]
