"""Small Kafka client value types the Connect API refers to."""

from __future__ import annotations

import enum
from typing import NamedTuple


class TopicPartition(NamedTuple):
    """A topic and partition number; ``str()`` gives Kafka's ``topic-0`` form."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class OffsetAndMetadata(NamedTuple):
    """A consumer offset to commit: the offset of the *next* record to read."""

    offset: int
    metadata: str = ""
    leader_epoch: int | None = None


class RecordMetadata(NamedTuple):
    """Where a source record was written (passed to ``SourceTask.commit_record``)."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None


class TimestampType(enum.Enum):
    """What a record's timestamp means (Kafka's ``TimestampType``); ``str()`` is Kafka's."""

    NO_TIMESTAMP_TYPE = (-1, "NoTimestampType")
    CREATE_TIME = (0, "CreateTime")
    LOG_APPEND_TIME = (1, "LogAppendTime")

    @property
    def id(self) -> int:
        """The wire id: -1, 0 or 1."""
        return self.value[0]

    def __str__(self) -> str:
        return self.value[1]


__all__ = ["OffsetAndMetadata", "RecordMetadata", "TimestampType", "TopicPartition"]
