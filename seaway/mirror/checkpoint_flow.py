"""One MirrorCheckpoint flow A -> B: consumer-group offsets on A, translated for B.

What MirrorCheckpointTask does, on the driver (a few admin calls per interval; no Spark):
read the offset syncs the source flow wrote (an :class:`OffsetSyncStore`, tailed), list the
groups on A that pass the group filter and their committed offsets on replicated topics,
translate each with the store (never ahead of the consumer's real position) and write a
:class:`~seaway.mirror.formats.Checkpoint` to ``A.checkpoints.internal`` on B when it is
more recent than the last one (monotonic unless the group rewound on A). With
``sync.group.offsets.enabled`` the translated offsets are also committed to B for groups
that are not active there, never rewinding a group's existing offsets.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, cast

from seaway.connect.api.structs import TopicPartition
from seaway.kafka import clients
from seaway.kafka.admin import alter_offsets, committed_offsets, ensure_topic, is_group_inactive
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.filters import GroupFilter, TopicFilter
from seaway.mirror.formats import Checkpoint, OffsetSync
from seaway.mirror.metrics import MirrorMetrics, now_ms
from seaway.mirror.offset_syncs import OffsetSyncStore
from seaway.mirror.policy import ReplicationPolicy

log = logging.getLogger(__name__)


@dataclass
class CheckpointSettings:
    """The settings of one checkpoint flow (MirrorCheckpointConfig's, parsed)."""

    source_alias: str
    target_alias: str
    source_client: dict[str, str]
    target_client: dict[str, str]
    policy: ReplicationPolicy
    topic_filter: TopicFilter
    group_filter: GroupFilter
    offset_syncs_topic: str
    offset_syncs_client: dict[str, str]
    checkpoints_replication_factor: int = 3
    sync_group_offsets: bool = False
    metrics: MirrorMetrics | None = None  # where checkpoint latencies go (None: nowhere)

    @property
    def checkpoints_topic(self) -> str:
        return self.policy.checkpoints_topic(self.source_alias)


class MirrorCheckpointFlow:
    """Emits checkpoints (and optionally syncs group offsets) for one flow."""

    def __init__(self, settings: CheckpointSettings) -> None:
        self.settings = settings
        self.store = OffsetSyncStore()
        self.last: dict[tuple[str, str, int], Checkpoint] = {}
        self.emitted_ms: int | None = None  # when emit() last completed (the console's age)
        self._syncs: Any = None
        self._producer: Any = None

    def start(self) -> None:
        """Create the checkpoints topic, load the last checkpoints, start reading syncs."""
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        s = self.settings
        ensure_topic(
            s.target_client, s.checkpoints_topic, 1, s.checkpoints_replication_factor,
            {"cleanup.policy": "compact"},
        )  # fmt: skip
        for checkpoint in self._read_all(s.target_client, s.checkpoints_topic):
            if isinstance(checkpoint, Checkpoint):
                key = (checkpoint.consumer_group_id, checkpoint.topic, checkpoint.partition)
                self.last[key] = checkpoint
        self._syncs = clients.consumer(
            s.offset_syncs_client, {"group.id": "seaway-mirror-syncs", "enable.auto.commit": False}
        )
        self._syncs.assign([KafkaTopicPartition(s.offset_syncs_topic, 0, 0)])
        # The checkpoints loaded, so the syncs read now all count (Kafka's
        # start(!checkpointsLoaded)); later syncs are applied as they arrive.
        self.store.start(False, initial_syncs=self._new_syncs())
        self._producer = clients.producer(s.target_client, {"acks": "all"})

    def _read_all(self, client: dict[str, str], topic: str) -> list[Any]:
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        consumer = clients.consumer(
            client, {"group.id": "seaway-mirror-checkpoints", "enable.auto.commit": False}
        )
        try:
            partition = KafkaTopicPartition(topic, 0)
            high = consumer.get_watermark_offsets(partition, REQUEST_TIMEOUT_S)[1]
            consumer.assign([KafkaTopicPartition(topic, 0, 0)])
            out: list[Any] = []
            position = 0
            while position < high:
                for message in consumer.consume(500, 1.0):
                    if message.error() is not None:
                        continue
                    position = cast(int, message.offset()) + 1
                    try:
                        out.append(Checkpoint.from_record(message.key(), message.value()))
                    except Exception:
                        log.info("Skipping an unreadable record in %s", topic)
            return out
        finally:
            consumer.close()

    def _new_syncs(self) -> list[OffsetSync]:
        """The offset syncs written since the last call, up to the topic's current end."""
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        s = self.settings
        partition = KafkaTopicPartition(s.offset_syncs_topic, 0)
        end = self._syncs.get_watermark_offsets(partition, REQUEST_TIMEOUT_S)[1]
        syncs: list[OffsetSync] = []
        position = max(0, self._syncs.position([partition])[0].offset)  # -1001: from 0
        while position < end:
            for message in self._syncs.consume(1000, 1.0):
                if message.error() is not None:
                    continue
                position = cast(int, message.offset()) + 1
                try:
                    syncs.append(OffsetSync.from_record(message.key(), message.value()))
                except Exception:
                    log.info("Skipping an unreadable offset sync")
        return syncs

    def _read_syncs(self) -> None:
        """Apply every offset sync written since the last read."""
        for sync in self._new_syncs():
            self.store.update(sync)

    def rename(self, topic: str) -> str:
        """The topic's name on the target (MM2's ``renameTopicPartition``)."""
        s = self.settings
        if s.policy.topic_source(topic) == s.target_alias:
            return s.policy.original_topic(topic)
        return s.policy.format_remote_topic(s.source_alias, topic)

    @staticmethod
    def more_recent(last: Checkpoint | None, new: Checkpoint) -> bool:
        if last is None or new.upstream_offset < last.upstream_offset:
            return True  # first one, or the group rewound upstream
        return new.downstream_offset > last.downstream_offset

    def groups(self) -> list[str]:
        admin = clients.admin(self.settings.source_client)
        listing = admin.list_consumer_groups().result(REQUEST_TIMEOUT_S)
        return sorted(
            g.group_id
            for g in listing.valid
            if self.settings.group_filter.should_replicate_group(g.group_id)
        )

    def emit(self) -> list[Checkpoint]:
        """Translate every group's offsets now; write and return the new checkpoints."""
        from confluent_kafka import ConsumerGroupTopicPartitions

        self._read_syncs()
        s = self.settings
        admin = clients.admin(s.source_client)
        emitted: list[Checkpoint] = []
        started = now_ms()  # MM2: checkpoint-latency-ms = ack time - time the record was made
        for group in self.groups():
            request = [ConsumerGroupTopicPartitions(group)]
            result = admin.list_consumer_group_offsets(request)[group].result(REQUEST_TIMEOUT_S)
            for tp in result.topic_partitions or []:
                if tp.offset < 0 or not s.topic_filter.should_replicate_topic(tp.topic):
                    continue
                downstream = self.store.translate_downstream(
                    group, TopicPartition(tp.topic, tp.partition), tp.offset
                )
                if downstream is None or downstream < 0:
                    continue
                checkpoint = Checkpoint(
                    group, self.rename(tp.topic), tp.partition, tp.offset, downstream,
                    tp.metadata or "",
                )  # fmt: skip
                key = (group, checkpoint.topic, checkpoint.partition)
                if self.more_recent(self.last.get(key), checkpoint):
                    self._producer.produce(
                        s.checkpoints_topic,
                        key=checkpoint.record_key(),
                        value=checkpoint.record_value(),
                        partition=0,
                    )
                    self.last[key] = checkpoint
                    emitted.append(checkpoint)
        if self._producer.flush(REQUEST_TIMEOUT_S):
            raise RuntimeError(f"Could not write checkpoints to {s.checkpoints_topic}")
        latency = now_ms() - started
        self.emitted_ms = now_ms()
        if s.metrics is not None:
            for c in emitted:
                s.metrics.record_checkpoint(
                    s.source_alias, s.target_alias, c.consumer_group_id, c.topic, c.partition,
                    latency,
                )  # fmt: skip
        if s.sync_group_offsets:
            self.sync_group_offsets()
        return emitted

    def sync_group_offsets(self) -> None:
        """Commit the last checkpoints to B for groups not active there, never rewinding."""
        admin = clients.admin(self.settings.target_client)
        by_group: dict[str, dict[tuple[str, int], int]] = {}
        for (group, topic, partition), checkpoint in self.last.items():
            by_group.setdefault(group, {})[(topic, partition)] = checkpoint.downstream_offset
        for group, offsets in sorted(by_group.items()):
            if not is_group_inactive(admin, group):
                continue  # active on the target: leave it alone
            current = committed_offsets(admin, group)
            wanted = {k: o for k, o in offsets.items() if current.get(k, -1) < o}
            if wanted:
                alter_offsets(admin, group, wanted)

    def stop(self) -> None:
        if self._syncs is not None:
            self._syncs.close()
            self._syncs = None


__all__ = ["CheckpointSettings", "MirrorCheckpointFlow"]
