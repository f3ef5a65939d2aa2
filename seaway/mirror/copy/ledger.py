"""How far a following flow's tasks copied: the flow's progress group on the target.

In follow mode (``seaway.flow.follow.ms``) a task keeps copying its partitions past the end
Spark planned for them, so the next micro-batch must start where the task got to, not where
Spark's plan ended. The task commits, for each remote partition, the next upstream offset to
copy as an offset of the flow's marker group (``__seaway-mirror-A-B``, whose transactional
commits say the same for exactly-once ranges), with the flow run's id as the commit's
metadata; the planner reads them back (one OffsetFetch) and starts each range after them.
A commit of another run (an earlier start of the flow, which resumed from MM2's stored
offsets instead) is not used. The ledger only ever saves copying records again: a restart
resumes from MM2's stored offsets, which the task stored before it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from seaway.kafka import pool
from seaway.mirror.copy.spec import MirrorCopySpec

__all__ = ["copied_up_to", "record_progress"]

log = logging.getLogger(__name__)


def record_progress(spec: MirrorCopySpec, copied: Iterable[tuple[str, int, int]]) -> None:
    """Commit the next offset after each ``(topic, partition, last copied offset)``."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    partitions = [
        TopicPartition(spec.remote_topic(topic), partition, last + 1, metadata=spec.run_id)
        for topic, partition, last in copied
    ]
    if not partitions:
        return
    request = ConsumerGroupTopicPartitions(spec.marker_group, partitions)
    try:
        admin = pool.admin(spec.target_producer)
        result = admin.alter_consumer_group_offsets([request])[spec.marker_group]
        failed = [tp.error for tp in result.result(pool.TIMEOUT_S).topic_partitions if tp.error]
    except KafkaException as error:
        failed = [error]
    if failed:  # the next batch copies those records again (at least once)
        log.warning("Could not record %s's progress: %s", spec.flow, failed[0])


def copied_up_to(
    spec: MirrorCopySpec, partitions: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], int]:
    """The next offset to copy of each source partition of *partitions* that this run's
    tasks recorded (partitions without one left out; nothing where it cannot be read)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    source = {(spec.remote_topic(t), p): (t, p) for t, p in partitions}
    if not source:
        return {}
    request = ConsumerGroupTopicPartitions(
        spec.marker_group, [TopicPartition(t, p) for t, p in source]
    )
    try:
        admin = pool.admin(spec.target_producer)
        result = admin.list_consumer_group_offsets([request])[spec.marker_group]
        offsets = result.result(pool.TIMEOUT_S).topic_partitions or []
    except KafkaException as error:  # plan as Spark did: some records copied again
        log.warning("Could not read %s's progress: %s", spec.flow, error)
        return {}
    return {
        source[(tp.topic, tp.partition)]: tp.offset
        for tp in offsets
        if tp.offset >= 0 and tp.metadata == spec.run_id and (tp.topic, tp.partition) in source
    }
