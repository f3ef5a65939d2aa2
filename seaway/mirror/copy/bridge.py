"""Bridges: copying goes on while Spark hands over from one micro-batch to the next.

A following task (``seaway.flow.follow.ms``) copies its partitions as records arrive until
its period ends. Spark then ends the micro-batch, writes its commit, plans the next one and
launches its tasks: 0.2-1 s in which nobody would copy, and the records that arrive meanwhile
make a flow's tail latency. So at its period's end a task hands its partitions to a bridge,
a thread of its Python worker that goes on following them on connections of its own, until
the next micro-batch's task for them takes over, the driver stops the run, or
``spec.bridge_ms`` have passed (which bounds how long a bridge nobody took over from, e.g. of
a failed query, can copy beside a restarted one).

Taking over (:func:`take_over`, first thing in a following task): the task ends the bridges
of its flow in its own process at once, then reads its partitions' progress
(:mod:`~seaway.mirror.copy.ledger`). A partition still ``bridging`` is held by a bridge in
another process (any executor of the cluster): the task posts the takeover mark, which
every bridge of the run reads as it goes, and waits until the partitions are released (at
most ``bridge_ms`` and a second from the first look: by then their bridge has ended on its
own). Its ranges then start where the bridges got to. A partition is copied by one task or
one bridge at a time, in order, and nothing a bridge copied is copied again unless it could
not release its partitions (at least once, as any failed store).

A bridge's figures (records, MM2's metrics) reach the driver in the summary rows of the next
task of its flow that runs in the same process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final, TypeVar

from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy import ledger
from seaway.mirror.copy.spec import MirrorCopySpec, RangeSummary

__all__ = ["Body", "Claim", "claim", "start", "take_over"]

log = logging.getLogger(__name__)

Body = Callable[[Callable[[], bool]], list[RangeSummary]]
"""What a bridge runs: copy until the predicate says stop, then store and release; the
summaries of what it copied."""

T = TypeVar("T")

_WAIT_POLL_S: Final = 0.005  # how often a task taking over reads its partitions' progress
_RELEASE_GRACE_S: Final = 1.0  # beyond bridge_ms: a bridge that is gone released nothing

_LOCK = threading.Lock()
_RUNNING: dict[str, _Bridge] = {}  # flow -> its bridge in this process (one at most)
_RELEASED: dict[str, list[RangeSummary]] = {}  # flow -> summaries not yet reported


@dataclass(frozen=True)
class Claim:
    """Partitions a bridge holds for *spec*'s run: marked ``bridging`` when the takeover
    mark read *mark*; the bridge must end by *deadline* (``time.monotonic()``)."""

    spec: MirrorCopySpec
    mark: ledger.Mark
    deadline: float

    def over(self) -> bool:
        """Out of time, taken over (the mark changed) or the run asked to stop."""
        return time.monotonic() >= self.deadline or ledger.handed_over(self.spec, self.mark)


def claim(spec: MirrorCopySpec, positions: dict[tuple[str, int], int]) -> Claim | None:
    """Mark *positions* ``{(topic, partition): next offset}`` bridged for *spec*'s run, for
    ``spec.bridge_ms`` from now; None where the ledger cannot say so (nobody would wait)."""
    mark = ledger.takeover_mark(spec)
    if isinstance(mark, Exception) or not ledger.mark_bridging(spec, positions):
        return None
    return Claim(spec, mark, time.monotonic() + spec.bridge_ms / 1000)


class _Bridge(threading.Thread):
    """One hand-over's bridge: *body* runs until :meth:`stopped`."""

    def __init__(self, claimed: Claim, body: Body) -> None:
        super().__init__(name=f"seaway-mirror-bridge {claimed.spec.flow}", daemon=True)
        self.spec = claimed.spec
        self.claimed = claimed
        self.body = body
        self.ended = threading.Event()

    def stopped(self) -> bool:
        """Whether to end: asked in this process, or its claim is over."""
        return self.ended.is_set() or self.claimed.over()

    def run(self) -> None:
        flow = self.spec.flow
        try:
            summaries = self.body(self.stopped)
        except Exception as error:  # the next task copies from the progress last recorded
            log.warning("%s: a bridge failed: %s", flow, error)
            summaries = []
        with _LOCK:
            _RELEASED.setdefault(flow, []).extend(summaries)
            if _RUNNING.get(flow) is self:
                del _RUNNING[flow]


def start(spec: MirrorCopySpec, positions: dict[tuple[str, int], int], body: Body) -> bool:
    """Hand *positions* ``{(topic, partition): next offset}`` to a bridge running *body*;
    whether one started (not where the ledger cannot say so: nobody would wait for it)."""
    claimed = claim(spec, positions)
    if claimed is None:
        return False
    bridge = _Bridge(claimed, body)
    with _LOCK:
        _RUNNING[spec.flow] = bridge
    bridge.start()
    return True


def take_over(
    spec: MirrorCopySpec, ranges: Sequence[tuple[T, OffsetRange]]
) -> tuple[list[tuple[T, OffsetRange]], list[RangeSummary]]:
    """*ranges* starting where the flow's bridges got to, once none holds their
    partitions; and the summaries of what this process's bridges copied."""
    with _LOCK:
        here = _RUNNING.pop(spec.flow, None)
    if here is not None:
        here.ended.set()
        here.join()
    with _LOCK:
        summaries = _RELEASED.pop(spec.flow, [])
    partitions = [(r.topic, r.partition) for _, r in ranges]
    progress = _released(spec, partitions)
    moved = []
    for item, r in ranges:
        after = progress.get((r.topic, r.partition), r.start)
        if after > r.start:
            r = replace(r, start=after, end=max(after, r.end))
        moved.append((item, r))
    return moved, summaries


def _released(
    spec: MirrorCopySpec, partitions: list[tuple[str, int]]
) -> dict[tuple[str, int], int]:
    """This run's progress of *partitions* once no bridge holds any (the takeover mark
    posted if one does); what is known where the ledger cannot be read."""
    waited_until = time.monotonic() + spec.bridge_ms / 1000 + _RELEASE_GRACE_S
    posted = False
    while True:
        found = ledger.progress(spec, partitions)
        if isinstance(found, Exception):
            log.warning("%s: could not read the bridges' progress: %s", spec.flow, found)
            return {}
        held = [tp for tp, (_, bridging) in found.items() if bridging]
        if not held or time.monotonic() >= waited_until:
            if held:
                log.warning("%s: %s not released by their bridge in time", spec.flow, held)
            return {tp: offset for tp, (offset, _) in found.items()}
        if not posted:
            posted = ledger.post_takeover(spec)
        time.sleep(_WAIT_POLL_S)
