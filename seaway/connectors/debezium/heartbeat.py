"""Debezium's heartbeat (``HeartbeatImpl``): while streaming, every ``heartbeat.interval.ms`` a
record on ``<topic.heartbeat.prefix>.<topic.prefix>`` carrying the stream's current offset, so
the stored offset moves on when only tables that are not captured change (and a restart does
not re-read their log)."""

from __future__ import annotations

import time
from typing import Any, Final

from seaway.connect.api import SourceRecord
from seaway.connect.api.data import SchemaBuilder, Struct
from seaway.connectors.debezium.config import Settings
from seaway.connectors.debezium.offsets import partition

__all__ = ["KEY_SCHEMA", "VALUE_SCHEMA", "Heartbeat"]

KEY_SCHEMA: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.ServerNameKey")
    .version(1)
    .field("serverName", SchemaBuilder.string().build())
    .build()
)
VALUE_SCHEMA: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.Heartbeat")
    .version(1)
    .field("ts_ms", SchemaBuilder.int64().build())
    .build()
)


class Heartbeat:
    """Makes a heartbeat record when one is due."""

    def __init__(self, settings: Settings) -> None:
        self.interval_s = settings.heartbeat_interval_ms / 1000
        self.topic = settings.heartbeat_topic
        self.partition = partition(settings.topic_prefix)
        self.key = Struct(KEY_SCHEMA).put("serverName", settings.topic_prefix)
        self.last = time.monotonic()

    def due(self) -> bool:
        """Whether the interval (if any) has passed since the last heartbeat."""
        return self.interval_s > 0 and time.monotonic() - self.last >= self.interval_s

    def record(self, offset: dict[str, Any]) -> SourceRecord:
        """The heartbeat record carrying *offset*; the interval starts again."""
        self.last = time.monotonic()
        value = Struct(VALUE_SCHEMA).put("ts_ms", time.time_ns() // 1_000_000)
        return SourceRecord(
            source_partition=self.partition, source_offset=offset, topic=self.topic,
            key_schema=KEY_SCHEMA, key=self.key, value_schema=VALUE_SCHEMA, value=value,
        )  # fmt: skip
