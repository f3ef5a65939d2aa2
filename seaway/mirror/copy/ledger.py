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

The same group carries the driver's request that this run's tasks stop following now (a
flow being stopped or restarted should not wait out a follow period): an offset of the
flow's MM2 offsets topic, partition 0 (never a copied partition), with ``stop <run id>``
as metadata. A following task reads it about once a second, on any cluster its tasks run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from seaway.kafka import pool
from seaway.mirror.copy.spec import MirrorCopySpec

__all__ = ["copied_up_to", "record_progress", "request_stop", "stop_requested"]

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


def request_stop(spec: MirrorCopySpec) -> None:
    """Ask this run's following tasks to end their follow period now (see the module)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    mark = TopicPartition(spec.offsets_topic, 0, 0, metadata=_stop_mark(spec))
    try:
        admin = pool.admin(spec.target_producer)
        result = admin.alter_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(spec.marker_group, [mark])]
        )[spec.marker_group]
        failed = [tp.error for tp in result.result(pool.TIMEOUT_S).topic_partitions if tp.error]
    except KafkaException as error:
        failed = [error]
    if failed:  # the flow stops anyway, once its tasks' follow period is over
        log.warning("Could not ask %s's following tasks to stop: %s", spec.flow, failed[0])


def stop_requested(spec: MirrorCopySpec) -> bool:
    """Whether the driver asked this run's following tasks to stop (False where unknown)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    mark = TopicPartition(spec.offsets_topic, 0)
    request = ConsumerGroupTopicPartitions(spec.marker_group, [mark])
    try:
        admin = pool.admin(spec.target_producer)
        result = admin.list_consumer_group_offsets([request])[spec.marker_group]
        marks = result.result(pool.TIMEOUT_S).topic_partitions or []
    except KafkaException as error:
        log.debug("Could not read %s's stop request: %s", spec.flow, error)
        return False
    return any(tp.metadata == _stop_mark(spec) for tp in marks)


def _stop_mark(spec: MirrorCopySpec) -> str:
    return f"stop {spec.run_id}"
