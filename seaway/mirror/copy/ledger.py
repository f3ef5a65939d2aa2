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
from seaway.kafka.admin import alter_offsets, partition_offsets
from seaway.mirror.copy.spec import MirrorCopySpec

__all__ = ["copied_up_to", "record_progress", "request_stop", "stop_requested"]

log = logging.getLogger(__name__)


def record_progress(spec: MirrorCopySpec, copied: Iterable[tuple[str, int, int]]) -> None:
    """Commit the next offset after each ``(topic, partition, last copied offset)``."""
    progress = {(spec.remote_topic(t), p): last + 1 for t, p, last in copied}
    error = _commit(spec, progress, spec.run_id) if progress else None
    if error is not None:  # the next batch copies those records again (at least once)
        log.warning("Could not record %s's progress: %s", spec.flow, error)


def copied_up_to(
    spec: MirrorCopySpec, partitions: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], int]:
    """The next offset to copy of each source partition of *partitions* that this run's
    tasks recorded (partitions without one left out; nothing where it cannot be read)."""
    source = {(spec.remote_topic(t), p): (t, p) for t, p in partitions}
    if not source:
        return {}
    committed = _committed(spec, source)
    if isinstance(committed, Exception):  # plan as Spark did: some records copied again
        log.warning("Could not read %s's progress: %s", spec.flow, committed)
        return {}
    run = spec.run_id
    return {source[tp]: offset for tp, (offset, metadata) in committed.items() if metadata == run}


def request_stop(spec: MirrorCopySpec) -> None:
    """Ask this run's following tasks to end their follow period now (see the module)."""
    error = _commit(spec, {(spec.offsets_topic, 0): 0}, _stop_mark(spec))
    if error is not None:  # the flow stops anyway, once its tasks' follow period is over
        log.warning("Could not ask %s's following tasks to stop: %s", spec.flow, error)


def stop_requested(spec: MirrorCopySpec) -> bool:
    """Whether the driver asked this run's following tasks to stop (False where unknown)."""
    committed = _committed(spec, [(spec.offsets_topic, 0)])
    if isinstance(committed, Exception):
        log.debug("Could not read %s's stop request: %s", spec.flow, committed)
        return False
    return any(metadata == _stop_mark(spec) for _, metadata in committed.values())


def _stop_mark(spec: MirrorCopySpec) -> str:
    return f"stop {spec.run_id}"


def _commit(
    spec: MirrorCopySpec, offsets: dict[tuple[str, int], int], metadata: str
) -> Exception | None:
    """Commit *offsets* with *metadata* to the flow's group on the target; the error, if any."""
    from confluent_kafka import KafkaException

    try:
        admin = pool.admin(spec.target_producer)
        alter_offsets(admin, spec.marker_group, offsets, pool.TIMEOUT_S, metadata)
    except KafkaException as error:
        return error
    return None


def _committed(
    spec: MirrorCopySpec, partitions: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], tuple[int, str]] | Exception:
    """The flow group's offset and metadata of each of *partitions* with one, or the error."""
    from confluent_kafka import KafkaException

    try:
        admin = pool.admin(spec.target_producer)
        return partition_offsets(admin, spec.marker_group, partitions, pool.TIMEOUT_S)
    except KafkaException as error:
        return error
