"""``__consumer_offsets``: a faithful copy of the committed offsets, in Kafka's formats.

The :class:`MetadataStore` stays the store of committed offsets; every change to it is also
appended here, so tools that read the topic (Burrow, kminion, Kafka's offsets formatter) see
the groups. A group lives in partition ``abs(groupId.hashCode()) % partitions`` (Kafka's
``partitionFor``). Records use Kafka's non-flexible schemas: key ``OffsetCommitKey`` v1
(group, topic, partition), value ``OffsetCommitValue`` v3 (offset, leaderEpoch, metadata,
commitTimestamp); a removed offset is a tombstone (null value). A classic group's state
after each rebalance is a ``GroupMetadataKey`` v2 (group) record with a
``GroupMetadataValue`` v3 value (members with their subscriptions and assignments), written
when the leader's assignment arrives or the group becomes empty; a deleted group's is a
tombstone.
"""

from __future__ import annotations

import logging
import struct
import time
from collections.abc import Iterable

from seaway.broker.coordinator.group import Group
from seaway.broker.metadata import CommittedOffset
from seaway.broker.topics import TopicManager
from seaway.java.hash_map import string_hash
from seaway.protocol.errors import KafkaError
from seaway.protocol.record_codec import Record, build_batch
from seaway.protocol.records import parse_header

log = logging.getLogger(__name__)

__all__ = [
    "OFFSETS_TOPIC",
    "OffsetsTopic",
    "group_metadata_key",
    "group_metadata_value",
    "offset_commit_key",
    "offset_commit_value",
    "partition_for",
]

OFFSETS_TOPIC = "__consumer_offsets"
OFFSET_COMMIT_KEY_VERSION = 1
OFFSET_COMMIT_VALUE_VERSION = 3
GROUP_METADATA_KEY_VERSION = 2
GROUP_METADATA_VALUE_VERSION = 3
_INT_MIN = -(2**31)
_CONFIGS = {"cleanup.policy": "compact"}


def partition_for(group_id: str, partitions: int) -> int:
    """Kafka's ``Utils.abs(groupId.hashCode()) % groupMetadataTopicPartitionCount``."""
    h = string_hash(group_id)
    return (0 if h == _INT_MIN else abs(h)) % partitions


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">h", len(data)) + data


def _nullable_string(text: str | None) -> bytes:
    return struct.pack(">h", -1) if text is None else _string(text)


def _bytes(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


def offset_commit_key(group_id: str, topic: str, partition: int) -> bytes:
    """``OffsetCommitKey`` v1: int16 version, group, topic, int32 partition."""
    return (
        struct.pack(">h", OFFSET_COMMIT_KEY_VERSION)
        + _string(group_id)
        + _string(topic)
        + struct.pack(">i", partition)
    )


def offset_commit_value(committed: CommittedOffset) -> bytes:
    """``OffsetCommitValue`` v3: int16 version, int64 offset, int32 leaderEpoch, metadata,
    int64 commitTimestamp."""
    return (
        struct.pack(">hqi", OFFSET_COMMIT_VALUE_VERSION, committed.offset, committed.leader_epoch)
        + _string(committed.metadata or "")
        + struct.pack(">q", committed.commit_timestamp)
    )


def group_metadata_key(group_id: str) -> bytes:
    """``GroupMetadataKey`` v2: int16 version, group."""
    return struct.pack(">h", GROUP_METADATA_KEY_VERSION) + _string(group_id)


def group_metadata_value(group: Group, now_ms: int) -> bytes:
    """``GroupMetadataValue`` v3: protocolType, generation, protocol, leader,
    currentStateTimestamp, then each member (memberId, groupInstanceId, clientId, clientHost,
    rebalanceTimeout, sessionTimeout, subscription, assignment)."""
    members = b"".join(
        _string(m.member_id)
        + _nullable_string(m.group_instance_id)
        + _string(m.client_id)
        + _string(m.client_host)
        + struct.pack(">ii", m.rebalance_timeout_ms, m.session_timeout_ms)
        + _bytes(m.metadata(group.protocol_name))
        + _bytes(m.assignment)
        for m in group.members.values()
    )
    return (
        struct.pack(">h", GROUP_METADATA_VALUE_VERSION)
        + _string(group.protocol_type)
        + struct.pack(">i", group.generation)
        + _nullable_string(group.protocol_name)
        + _nullable_string(group.leader_id)
        + struct.pack(">qi", now_ms, len(group.members))
        + members
    )


class OffsetsTopic:
    """Creates ``__consumer_offsets`` when first needed (as Kafka does: at the first group
    write, or when a client's Metadata asks for it; a broker no group uses pays nothing) and
    appends the group coordinator's changes to it."""

    def __init__(self, topics: TopicManager, partitions: int) -> None:
        self.topics = topics
        self.configured_partitions = partitions
        self._partitions: int | None = None

    def ensure(self) -> int:
        """The topic's partition count, the topic created (compacted, with
        ``offsets.topic.num.partitions``) if missing."""
        if self._partitions is None:
            topic = self.topics.get(OFFSETS_TOPIC)
            if topic is None:
                topic = self.topics.create(
                    OFFSETS_TOPIC, self.configured_partitions, dict(_CONFIGS)
                )
            elif topic.record.configs.get("cleanup.policy") != "compact":
                # auto-created as an ordinary topic by an older Seaway: keep it, compacted now
                self.topics.set_configs(OFFSETS_TOPIC, {**topic.record.configs, **_CONFIGS})
            assert topic is not None
            self._partitions = len(topic.partitions)  # an existing topic keeps its partitions
        return self._partitions

    def write_offsets(
        self, group_id: str, offsets: Iterable[tuple[str, int, CommittedOffset | None]]
    ) -> None:
        """Append one record per offset (``None``: a tombstone, the offset was removed)."""
        records = [
            (
                offset_commit_key(group_id, topic, partition),
                None if committed is None else offset_commit_value(committed),
            )
            for topic, partition, committed in offsets
        ]
        self._append(group_id, records)

    def write_group(self, group: Group) -> None:
        """Append a classic group's state (after a rebalance)."""
        value = group_metadata_value(group, int(time.time() * 1000))
        self._append(group.group_id, [(group_metadata_key(group.group_id), value)])

    def delete_group(self, group_id: str, offsets: Iterable[tuple[str, int]]) -> None:
        """Tombstones for a deleted classic group's offsets and its group record."""
        records: list[tuple[bytes, bytes | None]] = [
            (offset_commit_key(group_id, topic, partition), None) for topic, partition in offsets
        ]
        records.append((group_metadata_key(group_id), None))
        self._append(group_id, records)

    def _append(self, group_id: str, records: list[tuple[bytes, bytes | None]]) -> None:
        """One batch through the partition log's normal append; a failure is logged only
        (the metadata store already holds the change)."""
        if not records:
            return
        now = int(time.time() * 1000)
        batch = build_batch([Record(0, now, key, value) for key, value in records])
        try:
            partition = partition_for(group_id, self.ensure())
            plog = self.topics.partition(OFFSETS_TOPIC, partition)
            plog.append(batch, parse_header(batch), now)
        except (KafkaError, OSError) as e:
            log.warning("Cannot append group %s's offsets to %s: %s", group_id, OFFSETS_TOPIC, e)
            return
        self.topics.notify(OFFSETS_TOPIC, partition)
