"""Connect records: what source tasks produce and sink tasks consume.

Records are immutable (their :class:`~seaway.connect.api.header.Headers` excepted, as in
Kafka) and built with keyword arguments. ``new_record`` copies a record with some
attributes replaced, which is what transformations use:

>>> from seaway.connect.api.data import Schema
>>> record = SourceRecord(
...     source_partition={"filename": "in.txt"}, source_offset={"position": 4},
...     topic="lines", value_schema=Schema.STRING_SCHEMA, value="foo",
... )
>>> record.new_record(topic="copy").topic
'copy'

Source partitions and offsets are plain JSON-serialisable dicts, so the runtime can
store them in Connect's offsets topic and in Spark's offset log unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Self

from seaway.connect.api.data import Schema
from seaway.connect.api.header import Header, Headers
from seaway.connect.api.structs import TimestampType

_SAME: Any = object()
"""Marks a ``new_record`` argument that keeps the current value."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ConnectRecord:
    """Attributes shared by source and sink records (Kafka's ``ConnectRecord``)."""

    topic: str
    kafka_partition: int | None = None
    key_schema: Schema | None = None
    key: Any = None
    value_schema: Schema | None = None
    value: Any = None
    timestamp: int | None = None
    headers: Headers = field(default_factory=Headers)

    def __post_init__(self) -> None:
        if not isinstance(self.headers, Headers):
            headers: Any = self.headers
            object.__setattr__(self, "headers", Headers(headers or ()))

    def new_record(
        self,
        topic: str = _SAME,
        kafka_partition: int | None = _SAME,
        key_schema: Schema | None = _SAME,
        key: Any = _SAME,
        value_schema: Schema | None = _SAME,
        value: Any = _SAME,
        timestamp: int | None = _SAME,
        headers: Headers | list[Header] | None = None,
    ) -> Self:
        """A copy with the given attributes replaced; the rest are kept.

        Without *headers* the copy gets a duplicate of this record's headers. Attributes
        specific to the record class (source partition and offset, Kafka offset) are kept.
        """
        changes: dict[str, Any] = {
            name: value
            for name, value in (
                ("topic", topic),
                ("kafka_partition", kafka_partition),
                ("key_schema", key_schema),
                ("key", key),
                ("value_schema", value_schema),
                ("value", value),
                ("timestamp", timestamp),
            )
            if value is not _SAME
        }
        changes["headers"] = self.headers.duplicate() if headers is None else headers
        return dataclasses.replace(self, **changes)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            getattr(self, f.name) == getattr(other, f.name) for f in dataclasses.fields(self)
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.topic, self.kafka_partition, self.timestamp))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SourceRecord(ConnectRecord):
    """A record produced by a source task, with its position in the source system.

    *source_partition* names the part of the source the record came from (a file, a
    table) and *source_offset* the position in it after this record; both are
    JSON-serialisable dicts. A None *kafka_partition* lets the producer choose.
    """

    source_partition: dict[str, Any] | None
    source_offset: dict[str, Any] | None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SinkRecord(ConnectRecord):
    """A record consumed from Kafka and handed to a sink task.

    The ``original_*`` attributes keep where the record was consumed from even after
    transformations change its topic or partition; they default to the current values.
    """

    kafka_offset: int
    timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE
    original_topic: str | None = None
    original_kafka_partition: int | None = None
    original_kafka_offset: int | None = None

    def __post_init__(self) -> None:
        super(SinkRecord, self).__post_init__()
        if self.original_topic is None:
            object.__setattr__(self, "original_topic", self.topic)
        if self.original_kafka_partition is None:
            object.__setattr__(self, "original_kafka_partition", self.kafka_partition)
        if self.original_kafka_offset is None:
            object.__setattr__(self, "original_kafka_offset", self.kafka_offset)


__all__ = ["ConnectRecord", "SinkRecord", "SourceRecord"]
