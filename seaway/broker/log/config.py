"""Topic-level log configs: names, broker-level default keys, types, and the parsed form.

Each topic config has a broker-wide default under its own key (``retention.ms`` falls back
to ``log.retention.ms``), as in Kafka's ``LogConfig``/``ServerLogConfigs``. The table here
is the single place these are defined: validation, DescribeConfigs and docs read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from seaway.config import (
    ConfigDef,
    Importance,
    Range,
    Type,
    ValidList,
    ValidString,
)

__all__ = ["TOPIC_CONFIG_DEF", "TOPIC_CONFIG_SYNONYMS", "LogConfig"]

LONG_MAX = 9223372036854775807

# topic config name -> broker config key holding its cluster-wide default
TOPIC_CONFIG_SYNONYMS: dict[str, str] = {
    "cleanup.policy": "log.cleanup.policy",
    "compression.type": "compression.type",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "flush.messages": "log.flush.interval.messages",
    "flush.ms": "log.flush.interval.ms",
    "index.interval.bytes": "log.index.interval.bytes",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "max.message.bytes": "message.max.bytes",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.type": "log.message.timestamp.type",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "min.insync.replicas": "min.insync.replicas",
    "preallocate": "log.preallocate",
    "retention.bytes": "log.retention.bytes",
    "retention.ms": "log.retention.ms",
    "segment.bytes": "log.segment.bytes",
    "segment.index.bytes": "log.index.size.max.bytes",
    "segment.jitter.ms": "log.roll.jitter.ms",
    "segment.ms": "log.roll.ms",
    "unclean.leader.election.enable": "unclean.leader.election.enable",
}

TOPIC_CONFIG_DEF = (
    ConfigDef()
    .define(
        "cleanup.policy",
        Type.LIST,
        "delete",
        ValidList.in_("delete", "compact"),
        Importance.MEDIUM,
        "Retention policy: delete old segments (retention.ms, retention.bytes), compact by "
        "key (the log cleaner keeps the latest record of each key), or both.",
    )
    .define(
        "compression.type",
        Type.STRING,
        "producer",
        ValidString.in_("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
        Importance.MEDIUM,
        "Final compression type; only 'producer' (keep the producer's "
        "bytes) is applied, batches are never recompressed.",
    )
    .define(
        "delete.retention.ms",
        Type.LONG,
        86400000,
        Range.at_least(0),
        Importance.MEDIUM,
        "How long delete tombstones are retained on compacted topics.",
    )
    .define(
        "file.delete.delay.ms",
        Type.LONG,
        60000,
        Range.at_least(0),
        Importance.MEDIUM,
        "Time to wait before deleting a file from the filesystem.",
    )
    .define(
        "flush.messages",
        Type.LONG,
        LONG_MAX,
        Range.at_least(1),
        Importance.MEDIUM,
        "fsync the log after this many messages (1: before every acknowledgement).",
    )
    .define(
        "flush.ms",
        Type.LONG,
        LONG_MAX,
        Range.at_least(0),
        Importance.MEDIUM,
        "fsync the log when unflushed data is older than this many milliseconds.",
    )
    .define(
        "index.interval.bytes",
        Type.INT,
        4096,
        Range.at_least(0),
        Importance.MEDIUM,
        "Bytes of log between two offset index entries.",
    )
    .define(
        "max.compaction.lag.ms",
        Type.LONG,
        LONG_MAX,
        Range.at_least(1),
        Importance.MEDIUM,
        "Maximum time a message remains ineligible for compaction.",
    )
    .define(
        "max.message.bytes",
        Type.INT,
        1048588,
        Range.at_least(0),
        Importance.MEDIUM,
        "Largest record batch size allowed.",
    )
    .define(
        "message.timestamp.after.max.ms",
        Type.LONG,
        LONG_MAX,
        Range.at_least(0),
        Importance.MEDIUM,
        "How far in the future a CreateTime timestamp may be.",
    )
    .define(
        "message.timestamp.before.max.ms",
        Type.LONG,
        LONG_MAX,
        Range.at_least(0),
        Importance.MEDIUM,
        "How far in the past a CreateTime timestamp may be.",
    )
    .define(
        "message.timestamp.type",
        Type.STRING,
        "CreateTime",
        ValidString.in_("CreateTime", "LogAppendTime"),
        Importance.MEDIUM,
        "Whether record timestamps are the producer's (CreateTime) or the broker's.",
    )
    .define(
        "min.cleanable.dirty.ratio",
        Type.DOUBLE,
        0.5,
        Range.between(0, 1),
        Importance.MEDIUM,
        "Dirty ratio above which a compacted log is eligible for cleaning.",
    )
    .define(
        "min.compaction.lag.ms",
        Type.LONG,
        0,
        Range.at_least(0),
        Importance.MEDIUM,
        "Minimum time a message remains uncompacted.",
    )
    .define(
        "min.insync.replicas",
        Type.INT,
        1,
        Range.at_least(1),
        Importance.MEDIUM,
        "Minimum in-sync replicas for acks=all (a single node always has one).",
    )
    .define(
        "preallocate",
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Preallocate segment files (accepted, not applied).",
    )
    .define(
        "retention.bytes",
        Type.LONG,
        -1,
        None,
        Importance.MEDIUM,
        "Maximum partition size before old segments are deleted (-1: unlimited).",
    )
    .define(
        "retention.ms",
        Type.LONG,
        604800000,
        Range.at_least(-1),
        Importance.MEDIUM,
        "Maximum age of a segment's newest record before it is deleted (-1: unlimited).",
    )
    .define(
        "segment.bytes",
        Type.INT,
        1073741824,
        Range.at_least(14),
        Importance.MEDIUM,
        "Segment file size at which the log rolls to a new segment.",
    )
    .define(
        "segment.index.bytes",
        Type.INT,
        10485760,
        Range.at_least(8),
        Importance.MEDIUM,
        "Maximum size of an offset index.",
    )
    .define(
        "segment.jitter.ms",
        Type.LONG,
        0,
        Range.at_least(0),
        Importance.MEDIUM,
        "Random jitter subtracted from segment.ms.",
    )
    .define(
        "segment.ms",
        Type.LONG,
        604800000,
        Range.at_least(1),
        Importance.MEDIUM,
        "Time after which the log rolls even if the segment is not full.",
    )
    .define(
        "unclean.leader.election.enable",
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Accepted for compatibility: a single node has no out-of-sync replicas.",
    )
)


def topic_config_defaults(broker_values: Mapping[str, Any]) -> dict[str, Any]:
    """Topic defaults as set by the broker's ``log.*`` keys, falling back to Kafka's."""
    out: dict[str, Any] = {}
    for name, key in TOPIC_CONFIG_DEF.config_keys.items():
        broker_key = TOPIC_CONFIG_SYNONYMS.get(name)
        out[name] = (
            broker_values.get(broker_key, key.default_value) if broker_key else key.default_value
        )
    return out


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The parsed configs a :class:`PartitionLog` reads on its hot path."""

    segment_bytes: int = 1073741824
    segment_ms: int = 604800000
    segment_jitter_ms: int = 0
    retention_ms: int = 604800000
    retention_bytes: int = -1
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    index_interval_bytes: int = 4096
    max_message_bytes: int = 1048588
    log_append_time: bool = False
    compact: bool = False
    delete: bool = True  # retention.ms and retention.bytes apply
    delete_retention_ms: int = 86400000
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    max_compaction_lag_ms: int = LONG_MAX
    timestamp_before_max_ms: int = LONG_MAX
    timestamp_after_max_ms: int = LONG_MAX

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> LogConfig:
        """Build from parsed topic config values (all keys of TOPIC_CONFIG_DEF present)."""
        return cls(
            segment_bytes=values["segment.bytes"],
            segment_ms=values["segment.ms"],
            segment_jitter_ms=values["segment.jitter.ms"],
            retention_ms=values["retention.ms"],
            retention_bytes=values["retention.bytes"],
            flush_messages=values["flush.messages"],
            flush_ms=values["flush.ms"],
            index_interval_bytes=values["index.interval.bytes"],
            max_message_bytes=values["max.message.bytes"],
            log_append_time=values["message.timestamp.type"] == "LogAppendTime",
            compact="compact" in values["cleanup.policy"],
            delete="delete" in values["cleanup.policy"],
            delete_retention_ms=values["delete.retention.ms"],
            min_cleanable_dirty_ratio=values["min.cleanable.dirty.ratio"],
            min_compaction_lag_ms=values["min.compaction.lag.ms"],
            max_compaction_lag_ms=values["max.compaction.lag.ms"],
            timestamp_before_max_ms=values["message.timestamp.before.max.ms"],
            timestamp_after_max_ms=values["message.timestamp.after.max.ms"],
        )

    @property
    def roll_ms(self) -> int:
        """segment.ms, or max.compaction.lag.ms when shorter on a compacted log (KIP-354):
        the active segment is never cleaned, so it must roll for its records to be."""
        if self.compact:
            return min(self.segment_ms, self.max_compaction_lag_ms)
        return self.segment_ms
