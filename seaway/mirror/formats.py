"""The records MirrorMaker 2 writes to its internal topics, byte-compatible with Kafka.

MM2 encodes them with Kafka's protocol ``Struct`` types: big-endian integers and
``STRING`` = INT16 length + UTF-8 bytes (never null). Layouts, as in Kafka's
``OffsetSync``, ``Checkpoint`` and ``Heartbeat`` classes:

* ``OffsetSync``: key ``topic STRING, partition INT32``; value ``upstreamOffset INT64,
  offset INT64`` (``offset`` is the downstream offset). No version header.
* ``Checkpoint``: key ``group STRING, topic STRING, partition INT32``; value ``version INT16``
  (= 0), then ``upstreamOffset INT64, offset INT64, metadata STRING``.
* ``Heartbeat``: key ``sourceClusterAlias STRING, targetClusterAlias STRING``; value
  ``version INT16`` (= 0), then ``timestamp INT64``.

Reading follows Kafka's ``Schema.read``: bytes after the last field are ignored, and UTF-8
is decoded leniently (as ``new String(bytes, UTF_8)`` does). Truncated data, negative string
lengths and versions other than 0 raise :class:`SchemaError` naming the record, the field and
the problem. (Kafka only checks the version with a Java ``assert``, so a JVM without ``-ea``
would misread a future version as version 0; refusing it is the safe reading.)

The Connect source partition and offset maps MM2 stores for these records (and for the data
records of ``MirrorSourceConnector``, Kafka's ``MirrorUtils.wrapPartition``/``wrapOffset``)
are here too. Their keys come in Java ``HashMap`` iteration order, the order in which Kafka's
JsonConverter writes them.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api.structs import OffsetAndMetadata, TopicPartition
from seaway.mirror.errors import MirrorError

VERSION: Final = 0
"""The only version of the Checkpoint and Heartbeat value schemas."""

# Field names: Kafka's Struct field names, also the keys of the Connect partition maps.
TOPIC_KEY: Final = "topic"
PARTITION_KEY: Final = "partition"
UPSTREAM_OFFSET_KEY: Final = "upstreamOffset"
DOWNSTREAM_OFFSET_KEY: Final = "offset"
CONSUMER_GROUP_ID_KEY: Final = "group"
METADATA_KEY: Final = "metadata"
VERSION_KEY: Final = "version"
SOURCE_CLUSTER_ALIAS_KEY: Final = "sourceClusterAlias"
TARGET_CLUSTER_ALIAS_KEY: Final = "targetClusterAlias"
TIMESTAMP_KEY: Final = "timestamp"
SOURCE_CLUSTER_KEY: Final = "cluster"
OFFSET_KEY: Final = "offset"

_MAX_STRING_LENGTH: Final = 0x7FFF
_INTS: Final = {
    "INT16": struct.Struct(">h"),
    "INT32": struct.Struct(">i"),
    "INT64": struct.Struct(">q"),
}


RecordBytes = bytes | bytearray | memoryview
"""What record keys and values may be given as."""


class SchemaError(MirrorError, ValueError):
    """Bytes or values that do not fit an MM2 record schema (Kafka's ``SchemaException``)."""


class _Writer:
    """Appends Struct fields of one record part (``"Checkpoint key"``) to a buffer."""

    __slots__ = ("_buffer", "_part")

    def __init__(self, part: str) -> None:
        self._part = part
        self._buffer = bytearray()

    def integer(self, kind: str, field: str, value: Any) -> _Writer:
        codec = _INTS[kind]
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(f"{self._part}: field '{field}' must be an int, not {value!r}")
        try:
            self._buffer += codec.pack(value)
        except struct.error:
            raise SchemaError(
                f"{self._part}: field '{field}' = {value} does not fit in {kind}"
            ) from None
        return self

    def string(self, field: str, value: Any) -> _Writer:
        if value is None:
            raise SchemaError(f"{self._part}: field '{field}' is null; STRING is not nullable")
        if not isinstance(value, str):
            raise SchemaError(f"{self._part}: field '{field}' must be a str, not {value!r}")
        # Java's getBytes(UTF_8) writes '?' for an unpaired surrogate; so does "replace".
        data = value.encode("utf-8", "replace")
        if len(data) > _MAX_STRING_LENGTH:
            raise SchemaError(
                f"{self._part}: field '{field}' is {len(data)} UTF-8 bytes, "
                f"longer than the STRING maximum of {_MAX_STRING_LENGTH}"
            )
        self._buffer += _INTS["INT16"].pack(len(data))
        self._buffer += data
        return self

    def done(self) -> bytes:
        return bytes(self._buffer)


class _Reader:
    """Reads Struct fields of one record part, naming the part and field in every error."""

    __slots__ = ("_data", "_part", "_position")

    def __init__(self, part: str, data: RecordBytes | None) -> None:
        if data is None:
            raise SchemaError(f"{part} is missing (null)")
        if not isinstance(data, RecordBytes):
            raise SchemaError(f"{part} must be bytes, not {type(data).__name__}")
        self._part = part
        self._data = bytes(data)
        self._position = 0

    def _take(self, field: str, what: str, size: int) -> bytes:
        start = self._position
        left = len(self._data) - start
        if size > left:
            raise SchemaError(
                f"{self._part}: field '{field}' needs {size} bytes ({what}) at byte {start}, "
                f"but only {left} remain"
            )
        self._position = start + size
        return self._data[start : self._position]

    def integer(self, kind: str, field: str) -> int:
        codec = _INTS[kind]
        return int(codec.unpack(self._take(field, kind, codec.size))[0])

    def string(self, field: str) -> str:
        length = self.integer("INT16", field)
        if length < 0:
            raise SchemaError(
                f"{self._part}: field '{field}' has string length {length}; STRING is not nullable"
            )
        return self._take(field, f"a string of length {length}", length).decode("utf-8", "replace")

    def version(self) -> int:
        version = self.integer("INT16", VERSION_KEY)
        if version != VERSION:
            raise SchemaError(
                f"{self._part}: unsupported version {version} (only version {VERSION} exists)"
            )
        return version


@functools.lru_cache(maxsize=4096)
def _offset_sync_key(topic: str, partition: int) -> bytes:
    """An offset sync's key (the same for every sync of a partition: built once)."""
    writer = _Writer("OffsetSync key").string(TOPIC_KEY, topic)
    return writer.integer("INT32", PARTITION_KEY, partition).done()


def _zero_offset() -> dict[str, int]:
    return {OFFSET_KEY: 0}


@dataclass(frozen=True, slots=True)
class OffsetSync:
    """An upstream offset and the downstream offset its record was written at.

    Written by ``MirrorSourceTask`` to the offset-syncs topic, read by the checkpoint task's
    :class:`~seaway.mirror.offset_syncs.OffsetSyncStore`.
    """

    topic: str
    partition: int
    upstream_offset: int
    downstream_offset: int

    @property
    def topic_partition(self) -> TopicPartition:
        """The source topic-partition."""
        return TopicPartition(self.topic, self.partition)

    def record_key(self) -> bytes:
        """``topic STRING, partition INT32``."""
        return _offset_sync_key(self.topic, self.partition)

    def record_value(self) -> bytes:
        """``upstreamOffset INT64, offset INT64``, with no version header."""
        writer = _Writer("OffsetSync value")
        writer.integer("INT64", UPSTREAM_OFFSET_KEY, self.upstream_offset)
        return writer.integer("INT64", DOWNSTREAM_OFFSET_KEY, self.downstream_offset).done()

    @classmethod
    def from_record(cls, key: RecordBytes | None, value: RecordBytes | None) -> OffsetSync:
        """Decode a record of the offset-syncs topic; raises :class:`SchemaError`."""
        key_reader = _Reader("OffsetSync key", key)
        topic = key_reader.string(TOPIC_KEY)
        partition = key_reader.integer("INT32", PARTITION_KEY)
        value_reader = _Reader("OffsetSync value", value)
        upstream = value_reader.integer("INT64", UPSTREAM_OFFSET_KEY)
        downstream = value_reader.integer("INT64", DOWNSTREAM_OFFSET_KEY)
        return cls(topic, partition, upstream, downstream)

    def __str__(self) -> str:
        return (
            f"OffsetSync{{topicPartition={self.topic_partition}, "
            f"upstreamOffset={self.upstream_offset}, downstreamOffset={self.downstream_offset}}}"
        )


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A consumer group's committed offset, upstream and translated downstream.

    Written by ``MirrorCheckpointTask`` to ``<source>.checkpoints.internal`` on the target.
    *topic* is the **target-side** topic name (for example ``source.topic1``).
    """

    consumer_group_id: str
    topic: str
    partition: int
    upstream_offset: int
    downstream_offset: int
    metadata: str = ""

    @property
    def topic_partition(self) -> TopicPartition:
        """The target-side topic-partition."""
        return TopicPartition(self.topic, self.partition)

    def offset_and_metadata(self) -> OffsetAndMetadata:
        """The offset to commit for the group on the target: the downstream offset."""
        return OffsetAndMetadata(self.downstream_offset, self.metadata)

    def record_key(self) -> bytes:
        """``group STRING, topic STRING, partition INT32``."""
        writer = _Writer("Checkpoint key").string(CONSUMER_GROUP_ID_KEY, self.consumer_group_id)
        writer.string(TOPIC_KEY, self.topic)
        return writer.integer("INT32", PARTITION_KEY, self.partition).done()

    def record_value(self) -> bytes:
        """``version INT16 = 0``, then ``upstreamOffset INT64, offset INT64, metadata STRING``."""
        writer = _Writer("Checkpoint value").integer("INT16", VERSION_KEY, VERSION)
        writer.integer("INT64", UPSTREAM_OFFSET_KEY, self.upstream_offset)
        writer.integer("INT64", DOWNSTREAM_OFFSET_KEY, self.downstream_offset)
        return writer.string(METADATA_KEY, self.metadata).done()

    @classmethod
    def from_record(cls, key: RecordBytes | None, value: RecordBytes | None) -> Checkpoint:
        """Decode a record of a checkpoints topic; raises :class:`SchemaError`."""
        value_reader = _Reader("Checkpoint value", value)
        value_reader.version()
        upstream = value_reader.integer("INT64", UPSTREAM_OFFSET_KEY)
        downstream = value_reader.integer("INT64", DOWNSTREAM_OFFSET_KEY)
        metadata = value_reader.string(METADATA_KEY)
        key_reader = _Reader("Checkpoint key", key)
        group = key_reader.string(CONSUMER_GROUP_ID_KEY)
        topic = key_reader.string(TOPIC_KEY)
        partition = key_reader.integer("INT32", PARTITION_KEY)
        return cls(group, topic, partition, upstream, downstream, metadata)

    def connect_partition(self) -> dict[str, Any]:
        """The Connect source partition: ``{"partition", "topic", "group"}``."""
        return {
            PARTITION_KEY: self.partition,
            TOPIC_KEY: self.topic,
            CONSUMER_GROUP_ID_KEY: self.consumer_group_id,
        }

    @staticmethod
    def connect_offset() -> dict[str, int]:
        """The Connect source offset of every checkpoint record: ``{"offset": 0}``."""
        return _zero_offset()

    @staticmethod
    def unwrap_group(connect_partition: Mapping[str, Any]) -> str:
        """The group of a checkpoint record's Connect source partition."""
        return str(connect_partition[CONSUMER_GROUP_ID_KEY])

    def __str__(self) -> str:
        return (
            f"Checkpoint{{consumerGroupId={self.consumer_group_id}, "
            f"topicPartition={self.topic_partition}, upstreamOffset={self.upstream_offset}, "
            f"downstreamOffset={self.downstream_offset}, metadata={self.metadata}}}"
        )


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """A liveness record of the flow ``source -> target``; *timestamp* is epoch milliseconds.

    Written by ``MirrorHeartbeatTask`` to ``heartbeats`` on the target; replicated downstream
    like data, where ``MirrorClient`` reads the topology from the remote heartbeats topics.
    """

    source_cluster_alias: str
    target_cluster_alias: str
    timestamp: int

    def record_key(self) -> bytes:
        """``sourceClusterAlias STRING, targetClusterAlias STRING``."""
        writer = _Writer("Heartbeat key")
        writer.string(SOURCE_CLUSTER_ALIAS_KEY, self.source_cluster_alias)
        return writer.string(TARGET_CLUSTER_ALIAS_KEY, self.target_cluster_alias).done()

    def record_value(self) -> bytes:
        """``version INT16 = 0``, then ``timestamp INT64``."""
        writer = _Writer("Heartbeat value").integer("INT16", VERSION_KEY, VERSION)
        return writer.integer("INT64", TIMESTAMP_KEY, self.timestamp).done()

    @classmethod
    def from_record(cls, key: RecordBytes | None, value: RecordBytes | None) -> Heartbeat:
        """Decode a record of a heartbeats topic; raises :class:`SchemaError`."""
        value_reader = _Reader("Heartbeat value", value)
        value_reader.version()
        timestamp = value_reader.integer("INT64", TIMESTAMP_KEY)
        key_reader = _Reader("Heartbeat key", key)
        source = key_reader.string(SOURCE_CLUSTER_ALIAS_KEY)
        target = key_reader.string(TARGET_CLUSTER_ALIAS_KEY)
        return cls(source, target, timestamp)

    def connect_partition(self) -> dict[str, Any]:
        """The Connect source partition: ``{"sourceClusterAlias", "targetClusterAlias"}``."""
        return {
            SOURCE_CLUSTER_ALIAS_KEY: self.source_cluster_alias,
            TARGET_CLUSTER_ALIAS_KEY: self.target_cluster_alias,
        }

    @staticmethod
    def connect_offset() -> dict[str, int]:
        """The Connect source offset of every heartbeat record: ``{"offset": 0}``."""
        return _zero_offset()

    def __str__(self) -> str:
        return (
            f"Heartbeat{{sourceClusterAlias={self.source_cluster_alias}, "
            f"targetClusterAlias={self.target_cluster_alias}, timestamp={self.timestamp}}}"
        )


def wrap_partition(topic_partition: TopicPartition, source_cluster_alias: str) -> dict[str, Any]:
    """A replicated record's Connect source partition: ``{"cluster", "partition", "topic"}``."""
    return {
        SOURCE_CLUSTER_KEY: source_cluster_alias,
        PARTITION_KEY: topic_partition.partition,
        TOPIC_KEY: topic_partition.topic,
    }


def wrap_offset(offset: int) -> dict[str, int]:
    """A Connect source offset ``{"offset": offset}`` (the last consumed upstream offset)."""
    return {OFFSET_KEY: offset}


def unwrap_partition(wrapped: Mapping[str, Any]) -> TopicPartition:
    """The source topic-partition of a :func:`wrap_partition` map."""
    return TopicPartition(wrapped[TOPIC_KEY], int(wrapped[PARTITION_KEY]))


def unwrap_offset(wrapped: Mapping[str, Any] | None) -> int:
    """The offset of a :func:`wrap_offset` map; -1 (none stored) if the map or offset is missing."""
    if wrapped is None or wrapped.get(OFFSET_KEY) is None:
        return -1
    return int(wrapped[OFFSET_KEY])


__all__ = [
    "VERSION",
    "Checkpoint",
    "Heartbeat",
    "OffsetSync",
    "SchemaError",
    "unwrap_offset",
    "unwrap_partition",
    "wrap_offset",
    "wrap_partition",
]
