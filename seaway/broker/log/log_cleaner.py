"""The log cleaner: compacts ``cleanup.policy=compact`` logs in the background.

As Kafka's ``LogCleaner``, each of ``log.cleaner.threads`` cleaners repeatedly takes the
filthiest log (largest dirty ratio: bytes after the cleaner checkpoint over bytes of the
cleanable segments) among those above ``min.cleanable.dirty.ratio``, past
``max.compaction.lag.ms``, or with a clean range whose delete horizon (``delete.retention.ms``
after it was first cleaned) has passed since their last cleaning, so that its tombstones go
even if the log is little dirty; it sleeps ``log.cleaner.backoff.ms`` when there is none.

The cleanable segments end before the active segment, the last stable offset (no open
transaction is touched) and the first segment newer than ``min.compaction.lag.ms``. The
work (:func:`seaway.broker.log.cleaner.clean`) runs in a worker thread; the swap of each
cleaned segment (:meth:`PartitionLog.replace_segments`) runs on the event loop, one
synchronous step per segment, then the checkpoint moves. The threads share one
:class:`Throttler`: together they read and write at most
``log.cleaner.io.max.bytes.per.second`` on average.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from seaway.broker.log import swap
from seaway.broker.log.cleaner import (
    CleanedGroup,
    CleanerAborted,
    CleanPlan,
    CleanResult,
    SourceSegment,
    clean,
)
from seaway.broker.log.config import LONG_MAX
from seaway.broker.log.partition import PartitionLog
from seaway.broker.log.segment import Segment
from seaway.broker.log.throttler import Throttler

log = logging.getLogger(__name__)

__all__ = ["Cleanable", "CleanerConfig", "LogCleaner", "clean_now", "cleanable"]

_MB = 1024 * 1024
_THROTTLE_CHECK_S = 0.3  # Kafka's cleaner checks its rate every 300 ms


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class CleanerConfig:
    """The broker's ``log.cleaner.*`` settings."""

    enable: bool = True
    threads: int = 1
    dedupe_buffer_size: int = 134217728
    io_buffer_size: int = 524288
    load_factor: float = 0.9
    backoff_ms: int = 15000
    io_max_bytes_per_second: float = sys.float_info.max

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> CleanerConfig:
        return cls(
            enable=values["log.cleaner.enable"],
            threads=values["log.cleaner.threads"],
            dedupe_buffer_size=values["log.cleaner.dedupe.buffer.size"],
            io_buffer_size=values["log.cleaner.io.buffer.size"],
            load_factor=values["log.cleaner.io.buffer.load.factor"],
            backoff_ms=values["log.cleaner.backoff.ms"],
            io_max_bytes_per_second=values["log.cleaner.io.max.bytes.per.second"],
        )

    def throttler(self, stop: threading.Event | None = None) -> Throttler | None:
        """The cleaners' shared throttler (None when unbounded, Kafka's default)."""
        if self.io_max_bytes_per_second >= sys.float_info.max:
            return None
        return Throttler(self.io_max_bytes_per_second, _THROTTLE_CHECK_S, stop)

    @property
    def map_memory(self) -> int:
        """Each thread's share of the dedupe buffer."""
        return self.dedupe_buffer_size // max(self.threads, 1)

    @property
    def read_chunk(self) -> int:
        """Each thread's read buffer (Kafka halves its share for reading and writing)."""
        return max(self.io_buffer_size // max(self.threads, 1) // 2, 64 * 1024)


@dataclass(frozen=True)
class Cleanable:
    """The part of a log the cleaner may rewrite now, and how dirty it is."""

    segments: tuple[Segment, ...]  # from the first segment; their offsets end at ``end``
    first_dirty: int
    end: int
    clean_bytes: int
    dirty_bytes: int
    forced: bool  # max.compaction.lag.ms has passed for its oldest dirty record
    horizon_passed: bool = False  # a clean range's tombstones may go since the last cleaning

    @property
    def ratio(self) -> float:
        total = self.clean_bytes + self.dirty_bytes
        return self.dirty_bytes / total if total else 0.0


def cleanable(plog: PartitionLog, now_ms: int) -> Cleanable | None:
    """What of ``plog`` is cleanable, or None when it is not compacted or nothing is dirty."""
    config = plog.config
    if not config.compact or len(plog.segments) < 2:
        return None
    checkpoint = plog.cleaner_checkpoint
    if checkpoint.first_dirty > plog.log_end_offset:
        log.warning(
            "Resetting the cleaner checkpoint of %s: %d is beyond the log end %d",
            plog.directory.name,
            checkpoint.first_dirty,
            plog.log_end_offset,
        )
        checkpoint.reset()
    first_dirty = max(checkpoint.first_dirty, plog.log_start_offset)
    segments = plog.segments
    uncleanable = min(plog.last_stable_offset, plog.active.base_offset)
    if config.min_compaction_lag_ms > 0:
        for i, segment in enumerate(segments[:-1]):
            if segments[i + 1].base_offset > first_dirty and (
                segment.largest_timestamp() > now_ms - config.min_compaction_lag_ms
            ):
                uncleanable = min(uncleanable, segment.base_offset)
                break
    count = 0
    while count + 1 < len(segments) and segments[count + 1].base_offset <= uncleanable:
        count += 1
    if not count:
        return None
    end = segments[count].base_offset
    if first_dirty >= end:
        return None
    clean_bytes = dirty_bytes = 0
    oldest_dirty = -1
    for i, segment in enumerate(segments[:count]):
        next_base = segments[i + 1].base_offset
        if next_base <= first_dirty:
            clean_bytes += segment.size
            continue
        position = 0
        if segment.base_offset < first_dirty:
            found = segment.find(first_dirty)
            position = found[0] if found is not None else segment.size
        clean_bytes += position
        dirty_bytes += segment.size - position
        if oldest_dirty < 0:
            oldest_dirty = segment.first_batch_timestamp
    forced = (
        config.max_compaction_lag_ms < LONG_MAX
        and 0 <= oldest_dirty < now_ms - config.max_compaction_lag_ms
    )
    return Cleanable(
        tuple(segments[:count]),
        first_dirty,
        end,
        clean_bytes,
        dirty_bytes,
        forced,
        horizon_passed(checkpoint.ranges, config.delete_retention_ms, now_ms),
    )


def horizon_passed(ranges: Sequence[tuple[int, int]], retention_ms: int, now_ms: int) -> bool:
    """Whether the delete horizon of a clean range (``(end, first cleaned at)``) has passed
    since the last cleaning (the newest range's time): its tombstones and markers may go now,
    however little of the log is dirty (else a log that grows slowly keeps them for long)."""
    if not ranges:
        return False
    last = ranges[-1][1]
    return any(last < at + retention_ms <= now_ms for _, at in ranges)


def needs_cleaning(plog: PartitionLog, section: Cleanable) -> bool:
    return section.dirty_bytes > 0 and (
        section.forced
        or section.horizon_passed
        or section.ratio > plog.config.min_cleanable_dirty_ratio
    )


def plan(plog: PartitionLog, section: Cleanable, name: str, now_ms: int) -> CleanPlan:
    """Everything the worker needs, with descriptors of its own for the segments (close the
    plan when done): the loop may close or delete a segment while the worker reads it."""
    bases = [s.base_offset for s in section.segments] + [section.end]
    sources = tuple(
        SourceSegment(
            segment.base_offset,
            bases[i + 1],
            os.dup(segment.fd),
            segment.size,
            segment.largest_timestamp(),
        )
        for i, segment in enumerate(section.segments)
    )
    producers = plog.producer_state.producers
    config = plog.config
    return CleanPlan(
        name=name,
        directory=plog.directory,
        sources=sources,
        first_dirty=section.first_dirty,
        aborted=tuple(plog.aborted.overlapping(0, section.end)),
        producer_last={pid: e.batches[-1][3] for pid, e in producers.items() if e.batches},
        clean_ranges=tuple(plog.cleaner_checkpoint.ranges),
        now_ms=now_ms,
        delete_retention_ms=config.delete_retention_ms,
        segment_bytes=config.segment_bytes,
        index_interval_bytes=config.index_interval_bytes,
    )


def swap_group(plog: PartitionLog, section: Cleanable, group: CleanedGroup) -> bool:
    """Swap one cleaned segment in (or delete its files if its sources are gone)."""
    by_base = {s.base_offset: s for s in section.segments}
    old = [by_base[base] for base in group.sources]
    if plog.replace_segments(old, group.end):
        return True
    if not plog.closed:
        swap.discard(plog.directory, group.base)
    return False


def finish(plog: PartitionLog, plan: CleanPlan, result: CleanResult) -> None:
    """Move the checkpoint and log the cleaning, once its segments are swapped in."""
    if plog.closed:
        return
    plog.cleaner_checkpoint.advance(
        result.end,
        plan.now_ms,
        log_start=plog.log_start_offset,
        expired_before_ms=plan.now_ms - plan.delete_retention_ms,
    )
    read, written = result.bytes_read, result.bytes_written
    log.info(
        "Cleaned log %s (dirty section = [%d, %d)): %d segments into %d, %.1f MB -> %.1f MB "
        "(%.1f%% size reduction), %d -> %d records, in %.2f s",
        plan.name,
        plan.first_dirty,
        result.end,
        sum(len(g.sources) for g in result.groups),
        len(result.groups),
        read / _MB,
        written / _MB,
        100 * (1 - written / read) if read else 0.0,
        result.records_read,
        result.records_written,
        result.seconds,
    )


def clean_now(
    plog: PartitionLog,
    name: str = "",
    *,
    now_ms: int | None = None,
    config: CleanerConfig | None = None,
    force: bool = True,
) -> CleanResult | None:
    """Clean ``plog`` here and now, synchronously (tests and tools); None if nothing is
    cleanable (or, without ``force``, not dirty enough)."""
    now_ms = _now_ms() if now_ms is None else now_ms
    config = config or CleanerConfig()
    section = cleanable(plog, now_ms)
    if section is None or not (force or needs_cleaning(plog, section)):
        return None
    work = plan(plog, section, name or plog.directory.name, now_ms)
    try:
        result = clean(
            work,
            memory=config.map_memory,
            load_factor=config.load_factor,
            chunk=config.read_chunk,
            throttler=config.throttler(),
        )
    finally:
        work.close()
    plog.aborted.remove(result.removed_abort_markers)
    for group in result.groups:
        swap_group(plog, section, group)
    finish(plog, work, result)
    return result


Partitions = Callable[[], Iterable[tuple[str, int, PartitionLog]]]


class LogCleaner:
    """``log.cleaner.threads`` cleaners, as asyncio tasks handing their work to threads."""

    def __init__(self, partitions: Partitions, config: CleanerConfig) -> None:
        self.partitions = partitions
        self.config = config
        self._tasks: list[asyncio.Task[None]] = []
        self._executor: ThreadPoolExecutor | None = None
        self._abort = threading.Event()  # tells the worker threads to stop
        self._throttler = config.throttler(self._abort)
        self._stopping = asyncio.Event()
        self._busy: set[PartitionLog] = set()
        self._failed: set[PartitionLog] = set()  # uncleanable until restart, as in Kafka

    def start(self) -> None:
        if not self.config.enable or self.config.threads < 1:
            log.info("The log cleaner is disabled: compacted topics are not cleaned")
            return
        self._executor = ThreadPoolExecutor(self.config.threads, "log-cleaner")
        for i in range(self.config.threads):
            self._tasks.append(asyncio.create_task(self._run(), name=f"log-cleaner-{i}"))

    async def stop(self) -> None:
        """Abandon cleanings in progress (their files are deleted) and stop."""
        self._stopping.set()
        self._abort.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                worked = await self._clean_filthiest()
            except Exception:
                log.exception("The log cleaner failed")
                worked = False
            if not worked:
                try:
                    await asyncio.wait_for(self._stopping.wait(), self.config.backoff_ms / 1000)
                except TimeoutError:
                    pass

    def _filthiest(self, now_ms: int) -> tuple[str, PartitionLog, Cleanable] | None:
        best: tuple[str, PartitionLog, Cleanable] | None = None
        for topic, index, plog in self.partitions():
            if plog.closed or plog in self._busy or plog in self._failed:
                continue
            section = cleanable(plog, now_ms)
            if section is None or not needs_cleaning(plog, section):
                continue
            if best is None or section.ratio > best[2].ratio:
                best = (f"{topic}-{index}", plog, section)
        return best

    async def _clean_filthiest(self) -> bool:
        now_ms = _now_ms()
        found = self._filthiest(now_ms)
        if found is None:
            return False
        name, plog, section = found
        self._busy.add(plog)
        try:
            await self._clean(name, plog, section, now_ms)
        except CleanerAborted:
            log.info("Abandoned the cleaning of %s: the broker is stopping", name)
        except Exception:
            if plog.closed:  # its topic was deleted under the worker
                log.debug("Abandoned the cleaning of deleted log %s", name, exc_info=True)
            else:
                log.exception("Failed to clean log %s: it is not cleaned again until restart", name)
                self._failed.add(plog)
        finally:
            self._busy.discard(plog)
        return True

    async def _clean(self, name: str, plog: PartitionLog, section: Cleanable, now_ms: int) -> None:
        work = plan(plog, section, name, now_ms)
        config = self.config
        assert self._executor is not None
        try:
            result = await asyncio.get_running_loop().run_in_executor(
                self._executor,
                partial(
                    clean,
                    work,
                    memory=config.map_memory,
                    load_factor=config.load_factor,
                    chunk=config.read_chunk,
                    abort=self._abort,
                    throttler=self._throttler,
                ),
            )
        finally:
            work.close()
        if plog.closed:
            return
        # Markers the cleaned segments drop leave the aborted index first: their
        # transactions' batches were removed by an earlier cleaning.
        plog.aborted.remove(result.removed_abort_markers)
        for i, group in enumerate(result.groups):
            if self._stopping.is_set():
                for rest in result.groups[i:]:
                    swap.discard(plog.directory, rest.base)
                return
            swap_group(plog, section, group)
            await asyncio.sleep(0)  # one segment per step: appends and fetches go on
        finish(plog, work, result)
