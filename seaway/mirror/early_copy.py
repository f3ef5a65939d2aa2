"""A flow's first records, copied while Spark starts.

The mirror driver's JVM and SparkSession take seconds to start (~3 s on 2 cores, more on a
cluster), and MirrorMaker 2 copies as soon as its tasks' consumers are assigned. So while
Spark starts, each at-least-once flow copies in the driver: its topics created, from MM2's
stored offsets (the earliest where none), what arrives followed and produced as a bridge
does (:func:`seaway.mirror.copy.loop.copy_until`), MM2's offsets stored when it ends.

When the flow's query starts, a following flow's early copy becomes a bridge of the
query's run (:meth:`EarlyCopy.hand_over`, :mod:`seaway.mirror.copy.bridge`): its partitions
marked ``bridging`` in the flow's progress from where it began, it copies on until the
first micro-batch's tasks take over (or ``bridge_ms`` after the query started), then stores
its offsets and releases them, and the tasks start where it got to. Otherwise (following
off, or the hand-over not possible) it ends before the query starts from the offsets it
stored. Either way one copier at a time, nothing skipped; a kill -9 meanwhile resumes from
the stored offsets as always. Exactly-once flows do not copy early.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Final, Protocol

from seaway.mirror.copy import ledger
from seaway.mirror.copy.bridge import Claim, claim
from seaway.mirror.copy.loop import copy_until
from seaway.mirror.copy.spec import MirrorCopySpec, RangeSummary
from seaway.spark.kafka.client import KafkaOffsetReader
from seaway.spark.kafka.options import parse_source_options

__all__ = ["EarlyCopy", "Flow"]


class Flow(Protocol):
    """What an early copy needs of its flow (:class:`~seaway.mirror.source_flow.
    MirrorSourceFlow`)."""

    @property
    def name(self) -> str: ...
    def create_internal_topics(self) -> None: ...
    def source_topics(self) -> dict[str, int]: ...
    def create_remote_topics(self, topics: Mapping[str, int]) -> None: ...
    def source_options(self, topics: Mapping[str, int]) -> dict[str, str]: ...
    def resume_offsets(self, topics: Mapping[str, int]) -> dict[tuple[str, int], int]: ...
    def copy_spec(
        self, topics: Mapping[str, int], run_id: str, tasks: int = 0
    ) -> MirrorCopySpec: ...


log = logging.getLogger(__name__)

EARLY_COPY_MAX_S: Final = 300.0  # a Spark that takes longer to start: copying waits for it
_HAND_OVER_WAIT_S: Final = 5.0  # for the copy to mark its partitions bridging


class EarlyCopy:
    """Copies *flow*'s topics in a thread from :meth:`start` until :meth:`end` (or, handed
    over, until the query's tasks take over); *copied* gets what it copied."""

    def __init__(self, flow: Flow, copied: Callable[[list[RangeSummary]], None]) -> None:
        self.flow = flow
        self.copied = copied
        self._ended = threading.Event()
        self._asked: MirrorCopySpec | None = None  # hand_over's spec, for the copy thread
        self._handed = threading.Event()  # the copy thread answered hand_over
        self._bridge: Claim | None = None  # what it holds for the query's run, once marked
        self._positions: dict[tuple[str, int], int] = {}  # where the copy began
        self._thread = threading.Thread(
            target=self._run, name=f"seaway-mirror-early {flow.name}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def end(self) -> None:
        """End the copy once what it sent is acknowledged and its offsets stored."""
        self._ended.set()
        self._thread.join()

    def hand_over(self, spec: MirrorCopySpec) -> bool:
        """Have the copy go on as a bridge of *spec*'s run, whose first tasks take over;
        whether it does (if not, it has ended: start from the offsets it stored)."""
        if self._thread.is_alive():
            self._asked = spec
            self._handed.wait(_HAND_OVER_WAIT_S)
        if self._bridge is None:
            self.end()
            return False
        return True

    def _run(self) -> None:
        summaries: list[RangeSummary] = []
        try:
            summaries = self._copy()
        except Exception as error:  # the query copies from the offsets stored
            log.warning("Flow %s: the early copy failed: %s", self.flow.name, error)
        finally:
            self._handed.set()
        if self._bridge is not None and summaries:
            positions = {(s.topic, s.partition): s.end for s in summaries}
            ledger.release(self._bridge.spec, positions)
        self.copied(summaries)

    def _copy(self) -> list[RangeSummary]:
        flow = self.flow
        flow.create_internal_topics()
        topics = flow.source_topics()
        if not topics or self._ended.is_set():
            return []
        flow.create_remote_topics(topics)
        options = parse_source_options(flow.source_options(topics), streaming=True)
        positions = flow.resume_offsets(topics)
        missing = {(t, p) for t, n in topics.items() for p in range(n)} - positions.keys()
        if missing:
            reader = KafkaOffsetReader(options)
            try:
                positions.update(reader.earliest(missing))
            finally:
                reader.close()
        if self._ended.is_set():
            return []
        self._positions = positions
        log.info("Flow %s copying %s while Spark starts", flow.name, sorted(topics))
        spec = flow.copy_spec(topics, uuid.uuid4().hex)
        return copy_until(spec, options, positions, self._stopped, EARLY_COPY_MAX_S)

    def _stopped(self) -> bool:
        """Asked before each poll: whether to end (in the copy's thread)."""
        if self._ended.is_set():
            return True
        if self._bridge is not None:  # handed over: a bridge of the query's run
            return self._bridge.over()
        if self._asked is None:
            return False
        self._bridge = claim(self._asked, self._positions)
        self._handed.set()
        return self._bridge is None
