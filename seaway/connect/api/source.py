"""Source connectors and tasks: read from an external system into Kafka.

A :class:`SourceTask` returns batches of :class:`~seaway.connect.api.records.SourceRecord`
from :meth:`SourceTask.poll`; each record carries its source partition and offset, which
the runtime commits after the record is written. On restart the task reads its committed
offsets through ``context.offset_storage_reader()`` and resumes from there.

Tasks that can say up front which records the next batch covers should also subclass
:class:`~seaway.connect.api.replay.ReplayableSourceTask`, which lets the Spark runtime
replay a retried batch exactly.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api.connector import Connector, ConnectorContext, Task
from seaway.connect.api.data import Schema
from seaway.connect.api.offsets import OffsetStorageReader
from seaway.connect.api.records import SourceRecord
from seaway.connect.api.structs import RecordMetadata


class ExactlyOnceSupport(enum.Enum):
    """Whether a source connector can run with exactly-once semantics (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(enum.Enum):
    """Whether a source connector can define its own transaction boundaries (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class TransactionBoundary(enum.Enum):
    """Values of ``transaction.boundary``; ``str()`` is the lower-case config value."""

    POLL = "poll"
    INTERVAL = "interval"
    CONNECTOR = "connector"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def from_property(cls, value: str) -> TransactionBoundary:
        """Parse a config value, ignoring case and surrounding whitespace."""
        if value is None:
            raise ValueError("Value for transaction boundary property may not be null")
        return cls(value.strip().lower())


TRANSACTION_BOUNDARY_CONFIG: Final = "transaction.boundary"


class SourceConnectorContext(ConnectorContext):
    """A :class:`ConnectorContext` that can also read committed source offsets."""

    @abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of the connector's committed offsets."""


class TransactionContext(ABC):
    """Lets a task with ``transaction.boundary=connector`` commit or abort transactions."""

    @abstractmethod
    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit after the current batch, or right after *record*."""

    @abstractmethod
    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort after the current batch, or right after *record*."""


class SourceTaskContext(ABC):
    """What the runtime gives a running source task."""

    @abstractmethod
    def configs(self) -> dict[str, str]:
        """The task's current configuration."""

    @abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of committed offsets, to resume where the task left off."""

    def transaction_context(self) -> TransactionContext | None:
        """Only with exactly-once support and connector-defined boundaries; else None."""
        return None


@dataclass(frozen=True)
class RecordSchemas:
    """The key and value schemas every record of a source connector has (None: no key, or
    no value)."""

    key: Schema | None
    value: Schema | None


class SourceConnector(Connector):
    """A connector whose tasks are :class:`SourceTask` subclasses."""

    context: SourceConnectorContext | None = None

    def record_schemas(self) -> RecordSchemas | None:
        """The schemas of every record the started connector's tasks will give, when it knows
        them before any is read (a file's lines, one table's columns); None (the default)
        when they show only in the records. Where records become typed columns rather than
        a converter's bytes (``format("connect")``), the columns' types come from here."""
        return None

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether exactly-once delivery is possible with *props*; None means unknown."""
        return None

    def can_define_transaction_boundaries(
        self, props: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        """Whether tasks can define transactions with *props*; default UNSUPPORTED."""
        return ConnectorTransactionBoundaries.UNSUPPORTED

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[str, Mapping[str, Any] | None]
    ) -> bool:
        """Check (and apply to the external system) a user's offset change.

        *offsets* maps :func:`~seaway.connect.api.offsets.partition_key` to the new offset
        (None resets it). Raise :class:`~seaway.connect.api.errors.ConnectError` to reject;
        return True if the change was acknowledged, False (the default) if this connector
        does not implement the hook, in which case the runtime still applies it.
        """
        return False


class SourceTask(Task):
    """Reads records from the source system, batch by batch."""

    context: SourceTaskContext | None = None

    def initialize(self, context: SourceTaskContext) -> None:
        """Called by the runtime before :meth:`start`."""
        self.context = context

    @abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """The next records, or None/[] when there are none yet (may block briefly)."""

    def commit(self) -> None:
        """The offsets of the records returned so far have been committed."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """*record* was written to Kafka (*metadata* None when a transform dropped it)."""


__all__ = [
    "TRANSACTION_BOUNDARY_CONFIG",
    "ConnectorTransactionBoundaries",
    "ExactlyOnceSupport",
    "RecordSchemas",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceTask",
    "SourceTaskContext",
    "TransactionBoundary",
    "TransactionContext",
]
