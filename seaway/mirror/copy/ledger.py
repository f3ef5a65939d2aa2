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

While Spark hands over from one micro-batch to the next, a bridge
(:mod:`~seaway.mirror.copy.bridge`) goes on copying a task's partitions: their progress then
says ``<run id> bridging`` (the offset where the bridge began), until the bridge releases
them with plain progress again. A next task that finds a partition bridged asks the
bridges to end with a takeover mark, an offset of the MM2 offsets topic's partition 1
(``takeover <run id> <token>``), and waits for the release.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

from seaway.kafka import pool
from seaway.kafka.admin import alter_offsets, partition_offsets
from seaway.mirror.copy.spec import MirrorCopySpec

__all__ = [
    "copied_up_to",
    "handed_over",
    "mark_bridging",
    "post_takeover",
    "progress",
    "record_progress",
    "release",
    "request_stop",
    "stop_requested",
    "takeover_mark",
]

Mark = tuple[int, str] | None
"""A takeover mark as read: ``(offset, metadata)``, None where there is none yet."""

log = logging.getLogger(__name__)


def record_progress(spec: MirrorCopySpec, copied: Iterable[tuple[str, int, int]]) -> None:
    """Commit the next offset after each ``(topic, partition, last copied offset)``."""
    progress = _remote(spec, {(t, p): last + 1 for t, p, last in copied})
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
    return {source[tp]: offset for tp, (offset, _) in _of_this_run(spec, committed).items()}


def progress(
    spec: MirrorCopySpec, partitions: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], tuple[int, bool]] | Exception:
    """This run's progress of each source partition of *partitions* that has one: the next
    offset to copy and whether a bridge holds the partition; or the error."""
    source = {(spec.remote_topic(t), p): (t, p) for t, p in partitions}
    committed = _committed(spec, source) if source else {}
    if isinstance(committed, Exception):
        return committed
    return {
        source[tp]: (offset, metadata == _bridging(spec))
        for tp, (offset, metadata) in _of_this_run(spec, committed).items()
    }


def mark_bridging(spec: MirrorCopySpec, positions: dict[tuple[str, int], int]) -> bool:
    """Say that a bridge holds *positions* ``{(topic, partition): next offset}``; whether
    it was recorded (a bridge must not start otherwise: nobody would wait for it)."""
    error = _commit(spec, _remote(spec, positions), _bridging(spec))
    if error is not None:
        log.warning("%s: no bridge over this hand-over: %s", spec.flow, error)
    return error is None


def release(spec: MirrorCopySpec, positions: dict[tuple[str, int], int]) -> None:
    """A bridge hands *positions* ``{(topic, partition): next offset}`` back (plain
    progress); where that fails, the next task waits for the bridge's time to pass."""
    error = _commit(spec, _remote(spec, positions), spec.run_id)
    if error is not None:
        log.warning("%s: a bridge could not release its partitions: %s", spec.flow, error)


def takeover_mark(spec: MirrorCopySpec) -> Mark | Exception:
    """The takeover mark as it is now (a bridge ends when it changes); or the error."""
    committed = _committed(spec, [_takeover(spec)])
    if isinstance(committed, Exception):
        return committed
    return committed.get(_takeover(spec))


def post_takeover(spec: MirrorCopySpec) -> bool:
    """Ask this run's bridges to end and release their partitions; whether it was posted."""
    mark = f"takeover {spec.run_id} {uuid.uuid4().hex}"
    error = _commit(spec, {_takeover(spec): 0}, mark)
    if error is not None:
        log.warning("%s: could not ask the bridges to end: %s", spec.flow, error)
    return error is None


def handed_over(spec: MirrorCopySpec, mark: Mark) -> bool:
    """Whether a bridge that saw *mark* when it began must end: the takeover mark changed,
    or the driver asked this run to stop (one OffsetFetch; False where unknown)."""
    committed = _committed(spec, [(spec.offsets_topic, 0), _takeover(spec)])
    if isinstance(committed, Exception):
        return False
    taken = committed.get(_takeover(spec)) != mark
    stop = committed.get((spec.offsets_topic, 0))
    return taken or (stop is not None and stop[1] == _stop_mark(spec))


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


def _remote(
    spec: MirrorCopySpec, positions: dict[tuple[str, int], int]
) -> dict[tuple[str, int], int]:
    """*positions* of source partitions, keyed by their remote partitions (the group's)."""
    return {(spec.remote_topic(t), p): offset for (t, p), offset in positions.items()}


def _takeover(spec: MirrorCopySpec) -> tuple[str, int]:
    """Where the takeover mark is kept: beside the stop mark, never a copied partition."""
    return (spec.offsets_topic, 1)


def _bridging(spec: MirrorCopySpec) -> str:
    return f"{spec.run_id} bridging"


def _of_this_run(
    spec: MirrorCopySpec, committed: dict[tuple[str, int], tuple[int, str]]
) -> dict[tuple[str, int], tuple[int, str]]:
    """The progress of *committed* this run recorded, plain or bridging."""
    ours = (spec.run_id, _bridging(spec))
    return {tp: got for tp, got in committed.items() if got[1] in ours}


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
