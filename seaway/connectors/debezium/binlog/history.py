"""The schema history: every DDL the connector saw, with its binlog position and the tables it
changed, so that a restarted connector knows each table's columns at its offset.

Each record is Debezium's ``HistoryRecord`` as plain JSON (no Connect converter):
``{"source", "position", "ts_ms", "databaseName", "schemaName", "ddl", "tableChanges"}``,
written synchronously to one of two stores (``schema.history.internal``):

* :class:`KafkaSchemaHistory` (the default): a topic of one partition,
  ``cleanup.policy=delete`` and infinite retention, each record with no key;
* :class:`FileSchemaHistory`: a file, one record a line, each line fsynced before the write
  returns.

Recovery is the same for both: the records of this connector whose position is at or before
the offset, replayed in order (:meth:`SchemaHistory.recover`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from seaway.connect.api import ConnectError
from seaway.connectors.debezium.binlog.config import FILE_HISTORY, Settings
from seaway.connectors.debezium.binlog.position import Position
from seaway.connectors.debezium.binlog.tables import Table, TableId, quoted_id, table_from_json
from seaway.kafka import clients, pool
from seaway.kafka.admin import ensure_topic
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

__all__ = [
    "FileSchemaHistory",
    "HistoryRecord",
    "KafkaSchemaHistory",
    "SchemaHistory",
    "TableChange",
    "schema_history",
]

log = logging.getLogger(__name__)

TOPIC_CONFIG: Final = {"cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1"}
MISSING: Final = (
    "The db history topic is missing. You may attempt to recover it by reconfiguring the "
    "connector to recovery."
)


@dataclass(frozen=True)
class TableChange:
    """One ``tableChanges`` element: CREATE, ALTER or DROP of a table."""

    type: str
    table: Table

    def json(self) -> dict[str, Any]:
        return {"type": self.type, "id": quoted_id(self.table.id), "table": self.table.json()}


@dataclass(frozen=True)
class HistoryRecord:
    """A DDL at a position with the tables it left."""

    source: Mapping[str, Any]
    position: Mapping[str, Any]
    ts_ms: int
    database: str
    ddl: str
    changes: tuple[TableChange, ...] = ()

    def json(self) -> dict[str, Any]:
        """The record's value as Debezium writes it (``HistoryRecord``)."""
        return {
            "source": dict(self.source),
            "position": dict(self.position),
            "ts_ms": self.ts_ms,
            "databaseName": self.database,
            "ddl": self.ddl,
            "tableChanges": [c.json() for c in self.changes],
        }

    def text(self) -> str:
        """:meth:`json` as compact JSON text, as both stores hold it."""
        return json.dumps(self.json(), separators=(",", ":"), ensure_ascii=False)


def apply(tables: dict[TableId, Table], changes: Any) -> None:
    """Apply a record's ``tableChanges`` (JSON) to *tables*."""
    for change in changes or ():
        db, name = (part.strip('"') for part in change["id"].split('"."'))
        table_id = (db, name)
        if change["type"] == "DROP":
            tables.pop(table_id, None)
        else:
            tables[table_id] = table_from_json(table_id, change["table"])


class SchemaHistory(ABC):
    """One connector's schema history, in whichever store holds it."""

    def __init__(self, source: Mapping[str, Any]) -> None:
        self.source = dict(source)

    @abstractmethod
    def initialize_storage(self) -> None:
        """Create the store if missing (before the snapshot writes to it)."""

    @abstractmethod
    def write(self, record: HistoryRecord) -> None:
        """Store *record* durably before returning."""

    @abstractmethod
    def records(self) -> Iterator[dict[str, Any]]:
        """Every stored record (of any connector), oldest first."""

    def recover(self, offset: Mapping[str, Any]) -> dict[TableId, Table]:
        """The tables as of *offset*: this connector's records at or before it, applied in
        order. Raises Debezium's error when the store has none."""
        at = Position.from_offset(offset)
        tables: dict[TableId, Table] = {}
        seen = False
        for record in self.records():
            if record.get("source") != self.source:
                continue
            seen = True
            if at.at_or_after(Position.from_offset(record.get("position") or {})):
                apply(tables, record.get("tableChanges"))
        if not seen:
            raise ConnectError(MISSING)
        return tables


class KafkaSchemaHistory(SchemaHistory):
    """``io.debezium.storage.kafka.history.KafkaSchemaHistory``: the history topic."""

    def __init__(self, servers: str, topic: str, source: Mapping[str, Any]) -> None:
        super().__init__(source)
        self.client = {"bootstrap.servers": servers}
        self.topic = topic

    def initialize_storage(self) -> None:
        """Create the topic as Debezium does (one partition, kept forever) if missing."""
        ensure_topic(self.client, self.topic, 1, -1, TOPIC_CONFIG)

    def write(self, record: HistoryRecord) -> None:
        """Write *record* and wait for the acknowledgement."""
        producer = pool.producer({**self.client, "acks": "all", "enable.idempotence": True})
        errors: list[Any] = []
        payload = record.text().encode()
        producer.produce(self.topic, payload, on_delivery=lambda e, _m: errors.append(e))
        producer.flush(REQUEST_TIMEOUT_S)
        if not errors or errors[0] is not None:
            pool.drop(producer)
            raise ConnectError(f"Writing to the schema history topic {self.topic} failed: "
                               f"{errors[0] if errors else 'timed out'}")  # fmt: skip

    def records(self) -> Iterator[dict[str, Any]]:
        """Every record of the topic, oldest first."""
        from confluent_kafka import OFFSET_BEGINNING, KafkaException, TopicPartition

        consumer = clients.consumer(
            self.client, {"group.id": f"{self.topic}-reader", "enable.auto.commit": False}
        )
        try:
            try:
                low, high = consumer.get_watermark_offsets(
                    TopicPartition(self.topic, 0), timeout=REQUEST_TIMEOUT_S
                )
            except KafkaException:
                return
            if high <= low:
                return
            consumer.assign([TopicPartition(self.topic, 0, OFFSET_BEGINNING)])
            deadline = time.monotonic() + REQUEST_TIMEOUT_S
            while time.monotonic() < deadline:
                message = consumer.poll(1.0)
                if message is None:
                    continue
                if message.error():
                    raise ConnectError(f"Reading the schema history failed: {message.error()}")
                value = message.value()
                if value:
                    yield json.loads(value)
                if (message.offset() or 0) >= high - 1:
                    return
            raise ConnectError(f"Reading the schema history topic {self.topic} timed out")
        finally:
            consumer.close()


class FileSchemaHistory(SchemaHistory):
    """``io.debezium.storage.file.history.FileSchemaHistory``: a file of one record a line."""

    def __init__(self, path: str | os.PathLike[str], source: Mapping[str, Any]) -> None:
        super().__init__(source)
        self.path = Path(path)

    def initialize_storage(self) -> None:
        """Create the file, and its directory, if missing."""
        self._append(b"")

    def write(self, record: HistoryRecord) -> None:
        """Append *record* as a line, flushed and fsynced before returning."""
        self._append(record.text().encode() + b"\n")

    def _append(self, data: bytes) -> None:
        """Append *data* durably; a file made here is made durable in its directory too."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            created = not self.path.exists()
            with self.path.open("ab") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            if created:  # the new file's name, too, must survive a crash
                directory = os.open(self.path.parent, os.O_RDONLY)
                try:
                    os.fsync(directory)
                finally:
                    os.close(directory)
        except OSError as error:
            raise ConnectError(
                f"Writing to the schema history file {self.path} failed: {error}"
            ) from error

    def records(self) -> Iterator[dict[str, Any]]:
        """Every line of the file, oldest first (none when it is missing)."""
        try:
            file = self.path.open(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as error:
            raise ConnectError(
                f"Reading the schema history file {self.path} failed: {error}"
            ) from error
        with file:
            for number, line in enumerate(file, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as error:
                    where = f"line {number} of the schema history file {self.path}"
                    raise ConnectError(f"Unreadable {where}: {error}") from None
                yield record


def schema_history(settings: Settings, source: Mapping[str, Any]) -> SchemaHistory:
    """The store ``schema.history.internal`` names, with its keys from *settings*."""
    if settings.history_class == FILE_HISTORY:
        assert settings.history_file is not None  # the config's rules require it
        return FileSchemaHistory(settings.history_file, source)
    assert settings.history_servers is not None and settings.history_topic is not None
    return KafkaSchemaHistory(settings.history_servers, settings.history_topic, source)
