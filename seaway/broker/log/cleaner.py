"""Compaction of one log's segments, run in a worker thread (Kafka's ``Cleaner``).

Pass 1 maps each key of the dirty section (from the first dirty offset to the end of the
cleanable segments) to the offset of its latest record. Pass 2 rewrites the cleanable
segments, in groups of at most ``segment.bytes``, each into one ``<base>.log.cleaned``
segment, keeping a record unless

* a later record has the same key (the map says so), or its key is null;
* it is a tombstone (null value) whose range was first cleaned ``delete.retention.ms`` ago;
* it belongs to an aborted transaction.

Offsets never change: a batch keeps its base offset, last offset delta and sequences
(:mod:`batch_filter`), and a producer's last batch stays, emptied, so its sequence survives.
A transaction marker stays while any batch of its transaction does, and until the horizon
has passed. The worker reads the segments through descriptors of its own and writes only
``.cleaned`` files: the live log is not touched until the swap (:mod:`swap`). A
:class:`Throttler` (``log.cleaner.io.max.bytes.per.second``) bounds what it reads and writes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from seaway.broker.log import swap
from seaway.broker.log.batch_filter import empty_batch, filter_batch, with_records
from seaway.broker.log.key_scan import map_keys, retain
from seaway.broker.log.offset_map import OffsetMap
from seaway.broker.log.segment import Segment
from seaway.broker.log.throttler import Throttler
from seaway.broker.log.txn_index import AbortedTxn
from seaway.errors import SeawayError
from seaway.protocol.record_codec import (
    CONTROL_ABORT,
    Record,
    control_type,
    decode_records,
    records_section,
)
from seaway.protocol.records import BatchHeader, InvalidBatch, check_crc, iter_batches, parse_header

log = logging.getLogger(__name__)

__all__ = [
    "CleanPlan",
    "CleanResult",
    "CleanedGroup",
    "CleanerAborted",
    "SourceSegment",
    "clean",
    "group_by_size",
]

_MAX_RELATIVE_OFFSET = 0x7FFFFFFF


class CleanerAborted(SeawayError):
    """The broker is stopping: the cleaning was abandoned (its files deleted)."""


@dataclass(frozen=True, slots=True)
class SourceSegment:
    """A segment to clean, as the worker sees it: a descriptor of its own and its extent."""

    base: int
    next_base: int  # the base offset of the segment after it: where its offsets end
    fd: int
    size: int
    largest_timestamp: int


@dataclass(frozen=True)
class CleanPlan:
    """Everything a worker needs to clean one log, taken on the event loop."""

    name: str
    directory: Path
    sources: tuple[SourceSegment, ...]  # consecutive, from the log's first segment
    first_dirty: int
    aborted: tuple[AbortedTxn, ...]
    producer_last: Mapping[int, int]  # producer id -> last offset of its last batch
    clean_ranges: tuple[tuple[int, int], ...]  # the checkpoint's (end, first cleaned at)
    now_ms: int
    delete_retention_ms: int
    segment_bytes: int
    index_interval_bytes: int

    @property
    def end(self) -> int:
        return self.sources[-1].next_base

    def close(self) -> None:
        for source in self.sources:
            os.close(source.fd)


@dataclass(frozen=True, slots=True)
class CleanedGroup:
    """A ``<base>.*.cleaned`` segment replacing the segments with bases in ``[base, end)``."""

    base: int
    end: int
    sources: tuple[int, ...]


@dataclass
class CleanResult:
    groups: list[CleanedGroup]
    end: int  # offsets below are clean now: the next first dirty offset
    removed_abort_markers: set[tuple[int, int]] = field(default_factory=set)
    bytes_read: int = 0
    bytes_written: int = 0
    records_read: int = 0
    records_written: int = 0
    seconds: float = 0.0


def group_by_size(sources: Sequence[SourceSegment], max_bytes: int) -> list[list[SourceSegment]]:
    """Consecutive segments in groups of at most ``max_bytes`` (one segment at least), whose
    offsets fit a segment's 32-bit relative offsets (Kafka's ``groupSegmentsBySize``)."""
    groups: list[list[SourceSegment]] = []
    current: list[SourceSegment] = []
    size = 0
    for source in sources:
        if current and (
            size + source.size > max_bytes
            or source.next_base - 1 - current[0].base > _MAX_RELATIVE_OFFSET
        ):
            groups.append(current)
            current, size = [], 0
        current.append(source)
        size += source.size
    if current:
        groups.append(current)
    return groups


def read_batches(
    fd: int, size: int, chunk: int, throttler: Throttler | None = None
) -> Iterator[tuple[BatchHeader, memoryview]]:
    """Each batch of a segment file, CRC-checked, read ``chunk`` bytes at a time (each read
    counted by ``throttler``)."""
    position = 0
    while position < size:
        data = os.pread(fd, min(chunk, size - position), position)
        if throttler is not None:
            throttler.maybe_throttle(len(data))
        used = 0
        for at, header in iter_batches(data, check_crc=False):
            check_crc(data, at, header)
            yield header, memoryview(data)[at : at + header.size]
            used = at + header.size
        if not used:  # a batch larger than the chunk
            header = parse_header(data, 0, require_body=False)
            data = os.pread(fd, header.size, position)
            if throttler is not None:
                throttler.maybe_throttle(len(data))
            if len(data) != header.size:
                raise InvalidBatch(f"batch at position {position} is truncated")
            check_crc(data, 0, header)
            yield header, memoryview(data)
            used = header.size
        position += used


class _Aborted:
    """Which transactional batches belong to an aborted transaction."""

    def __init__(self, aborted: Sequence[AbortedTxn]) -> None:
        self._by_producer: dict[int, list[tuple[int, int]]] = {}
        for txn in aborted:
            self._by_producer.setdefault(txn.producer_id, []).append(
                (txn.first_offset, txn.last_offset)
            )
        for ranges in self._by_producer.values():
            ranges.sort()

    def contains(self, producer_id: int, offset: int) -> bool:
        ranges = self._by_producer.get(producer_id)
        if not ranges:
            return False
        i = bisect_right(ranges, (offset, 1 << 63)) - 1
        return i >= 0 and ranges[i][0] <= offset <= ranges[i][1]


class _Cleaner:
    """One cleaning of one log (both passes)."""

    def __init__(
        self,
        plan: CleanPlan,
        chunk: int,
        abort: threading.Event | None,
        throttler: Throttler | None,
    ) -> None:
        self.plan = plan
        self.chunk = chunk
        self.abort = abort
        self.throttler = throttler
        self.aborted = _Aborted(plan.aborted)
        self.range_ends = [end for end, _ in plan.clean_ranges]
        self.result = CleanResult([], plan.first_dirty)
        # producer id -> whether a batch of its current transaction is kept
        self.txn_kept: dict[int, bool] = {}

    def _check_abort(self) -> None:
        if self.abort is not None and self.abort.is_set():
            raise CleanerAborted(self.plan.name)

    def _is_aborted(self, header: BatchHeader) -> bool:
        return header.is_transactional and self.aborted.contains(
            header.producer_id, header.base_offset
        )

    # -- pass 1 ------------------------------------------------------------------------

    def build_offset_map(self, offset_map: OffsetMap) -> int:
        """Map the dirty section's keys; return the offset where the map stopped (full)."""
        first_dirty = self.plan.first_dirty
        for source in self.plan.sources:
            if source.next_base <= first_dirty:
                continue
            for header, data in read_batches(source.fd, source.size, self.chunk, self.throttler):
                if header.last_offset < first_dirty:
                    continue
                self._check_abort()
                if header.is_control or self._is_aborted(header):
                    continue
                if offset_map.size + header.records_count > offset_map.capacity:
                    return max(header.base_offset, first_dirty)
                records = records_section(header, data)
                map_keys(offset_map, records, header.records_count, header.base_offset)
        return self.plan.end

    # -- pass 2 ------------------------------------------------------------------------

    def _horizon_passed(self, offset: int) -> bool:
        """Whether a tombstone or marker at ``offset`` may go (clean for long enough)."""
        plan = self.plan
        if offset >= plan.first_dirty:
            return False
        i = bisect_right(self.range_ends, offset)
        if i == len(self.range_ends):
            return False
        return plan.clean_ranges[i][1] + plan.delete_retention_ms <= plan.now_ms

    def _tombstone_horizon(self, first: int, last: int) -> int | None:
        """An offset ``h`` such that a tombstone at an offset ``o`` in ``[first, last]`` may
        go exactly when ``o < h``; None if no offset splits them so."""
        cuts = set(self.range_ends[bisect_right(self.range_ends, first) :
                                   bisect_right(self.range_ends, last)])  # fmt: skip
        if first < self.plan.first_dirty <= last:
            cuts.add(self.plan.first_dirty)
        starts = [first, *sorted(cuts)]  # where _horizon_passed may change
        passed = [self._horizon_passed(start) for start in starts]
        n = passed.index(False) if False in passed else len(passed)
        if any(passed[n:]):
            return None
        return starts[n] if n < len(starts) else last + 1

    def _keep_record(self, record: Record, offset_map: OffsetMap) -> bool:
        if record.key is None:
            return False  # a compacted topic has no use for it (Kafka drops it too)
        if offset_map.get(record.key) > record.offset:
            return False
        return record.value is not None or not self._horizon_passed(record.offset)

    def _retain(
        self, header: BatchHeader, data: memoryview, offset_map: OffsetMap, mapped_end: int
    ) -> tuple[bytes, BatchHeader] | None:
        """What of one batch goes to the cleaned segment, and its header (None: nothing)."""
        pid = header.producer_id
        if header.is_control:
            kept = self.txn_kept.pop(pid, False)
            if (
                kept
                or header.base_offset >= mapped_end
                or not self._horizon_passed(header.base_offset)
            ):
                return bytes(data), header
            if header.records_count and control_type(data) == CONTROL_ABORT:
                self.result.removed_abort_markers.add((pid, header.base_offset))
            return None
        out: tuple[bytes, BatchHeader] | None = None
        if header.base_offset >= mapped_end:
            out = bytes(data), header
        elif header.records_count and not self._is_aborted(header):
            out = self._kept_records(header, data, offset_map)
        last_of_producer = header.has_producer_id and (
            self.plan.producer_last.get(pid) == header.last_offset
        )
        if out is None and last_of_producer:
            emptied = empty_batch(data, header)  # the producer's last sequence stays
            out = emptied, parse_header(emptied)
        if out is not None and header.is_transactional:
            self.txn_kept[pid] = True
        return out

    def _kept_records(
        self, header: BatchHeader, data: memoryview, offset_map: OffsetMap
    ) -> tuple[bytes, BatchHeader] | None:
        """The batch with the records compaction keeps, and its header (None: no record)."""
        count = header.records_count
        horizon = self._tombstone_horizon(header.base_offset, header.last_offset)
        if horizon is not None:  # the key scan (:mod:`key_scan`)
            kept, records = retain(
                offset_map, records_section(header, data), count, header.base_offset, horizon
            )
            rewritten = with_records(data, header, records, kept) if 0 < kept < count else b""
        else:  # delete horizons that pass, then not, then do within one batch: record by record
            keep = [self._keep_record(r, offset_map) for r in decode_records(data)[1]]
            kept = sum(keep)
            rewritten = filter_batch(data, header, keep) if 0 < kept < count else b""
        if not kept:
            return None
        if kept == count:
            return bytes(data), header
        return rewritten, parse_header(rewritten)

    def write_group(
        self, group: Sequence[SourceSegment], end: int, offset_map: OffsetMap, mapped_end: int
    ) -> CleanedGroup:
        plan = self.plan
        base = group[0].base
        swap.discard(plan.directory, base)
        writer = Segment(plan.directory, base, plan.index_interval_bytes, suffix=swap.CLEANED)
        try:
            for source in group:
                batches = read_batches(source.fd, source.size, self.chunk, self.throttler)
                for header, data in batches:
                    self._check_abort()
                    self.result.bytes_read += header.size
                    self.result.records_read += header.records_count
                    retained = self._retain(header, data, offset_map, mapped_end)
                    if retained is None:
                        continue
                    out, kept = retained
                    writer.append([out], kept)
                    if self.throttler is not None:
                        self.throttler.maybe_throttle(kept.size)
                    self.result.bytes_written += kept.size
                    self.result.records_written += kept.records_count
            writer.flush()
        finally:
            writer.close()
        newest = max(s.largest_timestamp for s in group) / 1000
        os.utime(writer.path, (newest, newest))  # an emptied segment ages like its sources
        swap.write_end(plan.directory, base, end)
        return CleanedGroup(base, end, tuple(s.base for s in group))


def clean(
    plan: CleanPlan,
    *,
    memory: int,
    load_factor: float = 0.9,
    chunk: int = 1 << 18,
    abort: threading.Event | None = None,
    throttler: Throttler | None = None,
) -> CleanResult:
    """Clean the log ``plan`` describes into ``.cleaned`` segments (nothing is swapped).

    ``memory`` bounds the key map; when the dirty section has more keys than it holds, the
    part that fits is cleaned and the result's ``end`` says how far. ``throttler`` (None:
    unbounded) counts the bytes read and written.
    """
    started = time.monotonic()
    cleaner = _Cleaner(plan, chunk, abort, throttler)
    offset_map = OffsetMap.for_budget(memory, plan.end - plan.first_dirty, load_factor)
    mapped_end = cleaner.build_offset_map(offset_map)
    if mapped_end <= plan.first_dirty:
        raise ValueError(
            f"the cleaner's key map ({offset_map.capacity} keys) cannot hold one batch at "
            f"offset {plan.first_dirty}: raise log.cleaner.dedupe.buffer.size"
        )
    result = cleaner.result
    result.end = mapped_end
    to_clean = [s for s in plan.sources if s.base < mapped_end]
    groups = group_by_size(to_clean, plan.segment_bytes)
    try:
        for i, group in enumerate(groups):
            end = groups[i + 1][0].base if i + 1 < len(groups) else group[-1].next_base
            result.groups.append(cleaner.write_group(group, end, offset_map, mapped_end))
    except BaseException:
        for group in groups:
            swap.discard(plan.directory, group[0].base)
        raise
    result.seconds = time.monotonic() - started
    return result
