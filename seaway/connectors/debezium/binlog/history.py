"""The schema history topic (Debezium's ``KafkaSchemaHistory``): every DDL the connector saw,
with its binlog position and the tables it changed, so that a restarted connector knows each
table's columns at its offset.

The topic has one partition, ``cleanup.policy=delete`` and infinite retention; each record
has no key and a plain JSON value (no Connect converter) written synchronously:
``{"source", "position", "ts_ms", "databaseName", "schemaName", "ddl", "tableChanges"}``.
Recovery replays, in order, the records of this connector whose position is at or before the
offset (:meth:`SchemaHistory.recover`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api import ConnectError
from seaway.connectors.debezium.binlog.position import Position
from seaway.connectors.debezium.binlog.tables import Table, TableId, quoted_id, table_from_json
from seaway.kafka import clients, pool
from seaway.kafka.admin import ensure_topic
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

__all__ = ["HistoryRecord", "SchemaHistory", "TableChange"]

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


def apply(tables: dict[TableId, Table], changes: Any) -> None:
    """Apply a record's ``tableChanges`` (JSON) to *tables*."""
    for change in changes or ():
        db, name = (part.strip('"') for part in change["id"].split('"."'))
        table_id = (db, name)
        if change["type"] == "DROP":
            tables.pop(table_id, None)
        else:
            tables[table_id] = table_from_json(table_id, change["table"])


class SchemaHistory:
    """The history topic of one connector."""

    def __init__(self, servers: str, topic: str, source: Mapping[str, Any]) -> None:
        self.client = {"bootstrap.servers": servers}
        self.topic = topic
        self.source = dict(source)

    def ensure_topic(self) -> None:
        """Create the topic as Debezium does (one partition, kept forever) if missing."""
        ensure_topic(self.client, self.topic, 1, -1, TOPIC_CONFIG)

    def write(self, record: HistoryRecord) -> None:
        """Write *record* and wait for the acknowledgement."""
        producer = pool.producer({**self.client, "acks": "all", "enable.idempotence": True})
        errors: list[Any] = []
        payload = json.dumps(record.json(), separators=(",", ":"), ensure_ascii=False)
        producer.produce(self.topic, payload.encode(), on_delivery=lambda e, _m: errors.append(e))
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

    def recover(self, offset: Mapping[str, Any]) -> dict[TableId, Table]:
        """The tables as of *offset*: this connector's records at or before it, applied in
        order. Raises Debezium's error when the topic has none."""
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
