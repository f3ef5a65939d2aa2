"""One partition's log: an ordered list of segments, appended to and read by offset.

Batches are written exactly as received, with only ``baseOffset`` rewritten. Reads return
raw byte ranges of the segment file starting at the batch that holds the wanted offset, as
Kafka serves them (the client drops records below the offset it asked for).
"""

from __future__ import annotations

import bisect
import logging
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from seaway.broker.log import swap
from seaway.broker.log.cleaner_checkpoint import CleanerCheckpoint
from seaway.broker.log.config import LogConfig
from seaway.broker.log.producer_state import ProducerStateManager
from seaway.broker.log.segment import Segment
from seaway.broker.log.txn_index import AbortedTxn, AbortedTxnIndex
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import Buffer
from seaway.protocol.record_codec import CONTROL_ABORT, control_type, record_timestamps
from seaway.protocol.records import (
    BatchHeader,
    control_batch,
    iter_batches,
    parse_header,
    set_base_offset,
    set_log_append_time,
)

log = logging.getLogger(__name__)

__all__ = ["AppendCounts", "AppendResult", "PartitionLog"]

_RECOVERY_POINT = "recovery-point"
_LOG_START = "log-start-offset"
_MAX_RELATIVE_OFFSET = 0x7FFFFFFF


@dataclass(frozen=True, slots=True)
class AppendResult:
    base_offset: int
    log_append_time: int  # -1 unless the topic uses LogAppendTime
    duplicate: bool = False
    needs_flush: bool = False


@dataclass(slots=True)
class AppendCounts:
    """Records and bytes of the client batches appended since the log was opened (the
    broker's MessagesIn/BytesIn metrics read them)."""

    records: int = 0
    bytes: int = 0

    def add(self, other: AppendCounts) -> None:
        self.records += other.records
        self.bytes += other.bytes


class PartitionLog:
    """The segmented log of one topic partition, stored in its own directory."""

    def __init__(self, directory: Path, config: LogConfig, *, recover: bool = False) -> None:
        self.directory = directory
        self.config = config
        directory.mkdir(parents=True, exist_ok=True)
        self.producer_state = ProducerStateManager(directory)
        self.segments: list[Segment] = []
        self._bases: list[int] = []
        self._read_hint: tuple[int, Segment, int] | None = None
        self.recovery_point = self._read_int(_RECOVERY_POINT, 0)
        self.aborted = AbortedTxnIndex(directory / "aborted.txnindex")
        self.cleaner_checkpoint = CleanerCheckpoint(directory)
        self.closed = False
        self.appended = AppendCounts()
        self.storage_error: str | None = None  # the last failed write's cause, until one works
        self._last_flush = time.monotonic()
        self._load(recover)
        self.log_start_offset = max(self._read_int(_LOG_START, 0), self.segments[0].base_offset)

    # -- loading ---------------------------------------------------------------------------

    def _read_int(self, name: str, default: int) -> int:
        try:
            return int((self.directory / name).read_text().strip())
        except (OSError, ValueError):
            return default

    def _write_int(self, name: str, value: int) -> None:
        tmp = self.directory / (name + ".tmp")
        tmp.write_text(f"{value}\n")
        tmp.replace(self.directory / name)

    def _load(self, recover: bool) -> None:
        for stray in self.directory.glob("*.tmp"):
            stray.unlink()
        swapped = swap.recover(self.directory)  # a cleaning a crash interrupted
        bases = sorted(int(p.stem) for p in self.directory.glob("*.log") if p.stem.isdigit())
        for base in bases:
            self.segments.append(Segment(self.directory, base, self.config.index_interval_bytes))
        if not self.segments:
            self.segments.append(
                Segment(
                    self.directory, self._read_int(_LOG_START, 0), self.config.index_interval_bytes
                )
            )
        # Segments wholly below the recovery point were flushed: trust their indexes.
        # From the segment holding the recovery point on, an unclean shutdown means recover.
        for i, segment in enumerate(self.segments):
            later = (
                i + 1 < len(self.segments)
                and self.segments[i + 1].base_offset <= self.recovery_point
            )
            rebuild = segment.base_offset in swapped
            truncated = segment.load(recover=rebuild or (recover and not later))
            if truncated:
                for dropped in self.segments[i + 1 :]:
                    log.warning("Deleting segment %s after a truncated one", dropped.path)
                    dropped.delete()
                del self.segments[i + 1 :]
                break
        # An empty trailing segment after a non-empty one keeps its own base offset.
        self._bases = [s.base_offset for s in self.segments]
        self._rebuild_producer_state()

    def _rebuild_producer_state(self) -> None:
        """Newest snapshot, then replay batch headers; re-index aborts a crash left out."""
        start = self.producer_state.load_snapshot(self.log_end_offset)
        for segment, header in self._headers_from(max(start, self.segments[0].base_offset)):
            if header.is_control and header.base_offset > self.aborted.last_offset:
                self._index_abort_marker(segment, header)
            self.producer_state.update(header)

    def _index_abort_marker(self, segment: Segment, header: BatchHeader) -> None:
        found = segment.find(header.base_offset)
        if found is None or header.records_count == 0:  # (the cleaner may empty a marker)
            return
        position, _ = found
        if control_type(segment.read(position, header.size)) != CONTROL_ABORT:
            return
        first = self.producer_state.ongoing_transactions().get(header.producer_id)
        if first is not None:
            self.aborted.append(
                AbortedTxn(header.producer_id, first, header.base_offset, header.base_offset)
            )

    def _headers_from(self, offset: int) -> Iterator[tuple[Segment, BatchHeader]]:
        i = max(bisect.bisect_right(self._bases, offset) - 1, 0)
        for segment in self.segments[i:]:
            found = segment.find(offset)
            if found is None:
                continue
            for _, header in segment.batches(found[0]):
                yield segment, header

    # -- state -----------------------------------------------------------------------------

    @property
    def active(self) -> Segment:
        return self.segments[-1]

    @property
    def log_end_offset(self) -> int:
        return self.active.next_offset

    @property
    def high_watermark(self) -> int:
        """Single node: every appended batch is fully replicated, so HW is the LEO."""
        return self.active.next_offset

    @property
    def last_stable_offset(self) -> int:
        """Below the first offset of any open transaction: what read_committed sees."""
        ongoing = self.producer_state.ongoing_transactions()
        return min(min(ongoing.values(), default=self.high_watermark), self.high_watermark)

    def aborted_transactions(self, start: int, end: int) -> list[AbortedTxn]:
        return self.aborted.overlapping(start, end)

    @property
    def size(self) -> int:
        return sum(s.size for s in self.segments)

    # -- appending -------------------------------------------------------------------------

    def append(self, batch: Buffer, header: BatchHeader, now_ms: int) -> AppendResult:
        """Assign offsets to a validated client batch and write it at the log end.

        The batch is written as received with a new ``baseOffset`` in front of it (one
        vectored write, no copy); only LogAppendTime topics rewrite a copy of the header.
        """
        duplicate = self.producer_state.check(header)
        if duplicate is not None:
            return AppendResult(duplicate, -1, duplicate=True)
        size = len(batch)
        if size > self.config.max_message_bytes:
            raise KafkaError(
                ErrorCode.message_too_large,
                f"batch of {size} bytes exceeds max.message.bytes={self.config.max_message_bytes}",
            )
        self._check_timestamp(header, now_ms)
        with self._storage_guard():
            return self._append(batch, header, now_ms)

    def _append(self, batch: Buffer, header: BatchHeader, now_ms: int) -> AppendResult:
        size = len(batch)
        base = self.log_end_offset
        self._maybe_roll(size, header)
        log_append_time = -1
        chunks: list[Buffer]
        if self.config.log_append_time:
            stamped = bytearray(batch)
            set_base_offset(stamped, 0, base)
            set_log_append_time(stamped, 0, now_ms)
            log_append_time = now_ms
            chunks = [stamped]
            header = header._replace(max_timestamp=now_ms)
        else:
            chunks = [base.to_bytes(8, "big", signed=True), memoryview(batch)[8:]]
        header = header._replace(base_offset=base)
        self.active.append(chunks, header)
        self.producer_state.update(header)
        self.appended.records += header.records_count
        self.appended.bytes += size
        return AppendResult(base, log_append_time, needs_flush=self._needs_flush())

    def write_marker(
        self,
        producer_id: int,
        producer_epoch: int,
        *,
        commit: bool,
        coordinator_epoch: int,
        now_ms: int,
    ) -> int:
        """Append a COMMIT or ABORT marker ending ``producer_id``'s transaction here."""
        first = self.producer_state.ongoing_transactions().get(producer_id)
        offset = self.log_end_offset
        batch = control_batch(
            base_offset=offset,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            commit=commit,
            coordinator_epoch=coordinator_epoch,
            timestamp=now_ms,
        )
        header = parse_header(batch, 0)
        with self._storage_guard():
            self._maybe_roll(len(batch), header)
            self.active.append([batch], header)
        self.producer_state.update(header)
        if not commit and first is not None:
            self.aborted.append(AbortedTxn(producer_id, first, offset, self.last_stable_offset))
        return offset

    @contextmanager
    def _storage_guard(self) -> Iterator[None]:
        """Turn a failed write (disk full, read-only or failing disk) into
        KAFKA_STORAGE_ERROR, logged once until a write succeeds again. The segment undid
        the partial write, so the log end is unchanged and the next append retries it."""
        try:
            yield
        except OSError as e:
            if self.storage_error is None:
                log.error(
                    "Error while appending records to %s in dir %s: %s (writes to it fail "
                    "with KAFKA_STORAGE_ERROR until they succeed again)",
                    self.directory.name,
                    self.directory.parent,
                    e,
                )
            self.storage_error = str(e)
            raise KafkaError(
                ErrorCode.kafka_storage_error,
                f"cannot write to {self.directory.name} in {self.directory.parent}: {e}",
            ) from e
        if self.storage_error is not None:
            log.info("Appends to %s succeed again", self.directory.name)
            self.storage_error = None

    def _check_timestamp(self, header: BatchHeader, now_ms: int) -> None:
        if self.config.log_append_time or header.max_timestamp < 0:
            return
        before, after = self.config.timestamp_before_max_ms, self.config.timestamp_after_max_ms
        if now_ms - header.max_timestamp > before or header.max_timestamp - now_ms > after:
            raise KafkaError(
                ErrorCode.invalid_timestamp,
                f"timestamp {header.max_timestamp} is out of range for "
                "message.timestamp.before.max.ms / message.timestamp.after.max.ms",
            )

    def _maybe_roll(self, size: int, header: BatchHeader) -> None:
        active = self.active
        if active.size == 0:
            return
        config = self.config
        too_big = active.size + size > config.segment_bytes
        too_old = (
            active.first_batch_timestamp >= 0
            and header.max_timestamp - active.first_batch_timestamp
            > config.roll_ms - config.segment_jitter_ms
        )
        overflow = header.next_offset - active.base_offset > _MAX_RELATIVE_OFFSET
        if too_big or too_old or overflow:
            self.roll()

    def roll(self) -> Segment:
        """Close the active segment for appends and start a new one at the log end."""
        old = self.active
        base = old.next_offset
        if old.size == 0:
            return old
        old.flush()
        self.recovery_point = base
        self._write_int(_RECOVERY_POINT, base)
        self.producer_state.take_snapshot(base)
        segment = Segment(self.directory, base, self.config.index_interval_bytes)
        self.segments.append(segment)
        self._bases.append(base)
        log.debug("Rolled %s to a new segment at offset %d", self.directory.name, base)
        return segment

    def _needs_flush(self) -> bool:
        return self.active.unflushed_messages >= self.config.flush_messages

    def flush(self) -> None:
        """fsync the active segment and its indexes, and move the recovery point."""
        end = self.log_end_offset
        self.active.flush()
        self._last_flush = time.monotonic()
        if end != self.recovery_point:
            self.recovery_point = end
            self._write_int(_RECOVERY_POINT, end)

    def flush_due(self) -> bool:
        """Unflushed data older than ``flush.ms``."""
        if self.active.unflushed_messages == 0:
            return False
        return (time.monotonic() - self._last_flush) * 1000 >= self.config.flush_ms

    # -- reading ---------------------------------------------------------------------------

    def check_offset(self, offset: int) -> None:
        if offset < self.log_start_offset or offset > self.log_end_offset:
            raise KafkaError(
                ErrorCode.offset_out_of_range,
                f"offset {offset} is outside [{self.log_start_offset}, {self.log_end_offset}]",
            )

    def read(self, offset: int, max_bytes: int, upper: int | None = None) -> bytes:
        """Raw batches from the one holding ``offset``, at most ``max_bytes`` beyond the first.

        ``upper`` bounds what is visible (the HW, or the LSO for read_committed); the first
        batch is returned whole even when larger than ``max_bytes`` (KIP-74).
        """
        self.check_offset(offset)
        upper = self.high_watermark if upper is None else upper
        if offset >= upper:
            return b""
        located = self._locate(offset)
        if located is None:
            return b""
        segment, position, first = located
        limit = segment.size
        if upper < segment.next_offset:
            end = segment.find(upper)
            limit = end[0] if end is not None else segment.size
        length = min(max(max_bytes, first.size), limit - position)
        if length <= 0:
            return b""
        data = segment.read(position, length)
        self._remember(data, segment, position)
        return data

    def _locate(self, offset: int) -> tuple[Segment, int, BatchHeader] | None:
        hint = self._read_hint
        if hint is not None and hint[0] == offset:
            _, segment, position = hint
            header = segment._header_unchecked(position)
            if header is not None and header.base_offset <= offset <= header.last_offset:
                return segment, position, header
        i = max(bisect.bisect_right(self._bases, offset) - 1, 0)
        for segment in self.segments[i:]:
            found = segment.find(offset)
            if found is not None:
                return segment, found[0], found[1]
        return None

    def _remember(self, data: bytes, segment: Segment, position: int) -> None:
        """Note where the batch after the last whole one read starts: the next fetch's spot."""
        end = None
        for pos, header in iter_batches(data, check_crc=False):
            end = (header.next_offset, pos + header.size)
        if end is not None:
            self._read_hint = (end[0], segment, position + end[1])

    # -- timestamps ------------------------------------------------------------------------

    def offset_for_timestamp(self, timestamp: int, upper: int) -> tuple[int, int] | None:
        """The first ``(offset, timestamp)`` with a record timestamp >= ``timestamp``."""
        for segment in self.segments:
            if segment.max_timestamp < timestamp:
                continue
            start = segment.offset_index.lookup(segment.time_index.lookup(timestamp))
            for position, header in segment.batches(start):
                if header.max_timestamp < timestamp or header.last_offset < self.log_start_offset:
                    continue
                for offset, ts in record_timestamps(segment.read(position, header.size)):
                    if ts >= timestamp and offset >= self.log_start_offset:
                        return (offset, ts) if offset < upper else None
            return None
        return None

    def max_timestamp_offset(self) -> tuple[int, int] | None:
        """``(offset, timestamp)`` of the record with the largest timestamp (KIP-734)."""
        best: Segment | None = None
        for segment in self.segments:
            if segment.max_timestamp >= 0 and (
                best is None or segment.max_timestamp > best.max_timestamp
            ):
                best = segment
        if best is None:
            return None
        found = best.find(best.offset_of_max_timestamp)
        if found is None:
            return None
        position, header = found
        records = record_timestamps(best.read(position, header.size))
        return max(records, key=lambda r: (r[1], -r[0]), default=None)

    # -- retention -------------------------------------------------------------------------

    def delete_records(self, offset: int) -> int:
        """Move the log start offset forward (DeleteRecords); return the new low watermark."""
        if offset == -1:
            offset = self.high_watermark
        if offset < 0 or offset > self.high_watermark:
            raise KafkaError(
                ErrorCode.offset_out_of_range,
                f"cannot delete records before {offset}: "
                f"the high watermark is {self.high_watermark}",
            )
        if offset > self.log_start_offset:
            self.log_start_offset = offset
            self._write_int(_LOG_START, offset)
            self.delete_old_segments(int(time.time() * 1000))
        return self.log_start_offset

    def delete_old_segments(self, now_ms: int) -> int:
        """Apply the log start offset, and with cleanup.policy=delete (alone or with compact)
        retention.ms and retention.bytes; return the number of segments deleted."""
        config = self.config
        deletable = 0
        excess = (
            self.size - config.retention_bytes
            if config.delete and config.retention_bytes >= 0
            else -1
        )
        for i, segment in enumerate(self.segments):
            next_base = self.segments[i + 1].base_offset if i + 1 < len(self.segments) else None
            if segment.size == 0 and next_base is None:
                break  # the empty active segment (a cleaned one may be empty too)
            by_time = (
                config.delete
                and config.retention_ms >= 0
                and now_ms - segment.largest_timestamp() > config.retention_ms
            )
            by_size = excess >= 0 and excess - segment.size >= 0
            by_start = next_base is not None and next_base <= self.log_start_offset
            if not (by_time or by_size or by_start):
                break
            if by_size:
                excess -= segment.size
            deletable += 1
        if not deletable:
            return 0
        if deletable == len(self.segments):
            self.roll()
        doomed = self.segments[:deletable]
        del self.segments[:deletable]
        del self._bases[:deletable]
        self._read_hint = None
        for segment in doomed:
            log.info("Deleting segment %s (retention)", segment.path)
            segment.delete()
        if self.segments[0].base_offset > self.log_start_offset:
            self.log_start_offset = self.segments[0].base_offset
            self._write_int(_LOG_START, self.log_start_offset)
        self.aborted.drop_before(self.log_start_offset)
        return deletable

    # -- compaction ------------------------------------------------------------------------

    def replace_segments(self, old: Sequence[Segment], end: int) -> bool:
        """Swap in the cleaned segment the cleaner wrote for ``old`` (consecutive segments,
        not the active one, ending at offset ``end``) as ``<base>.*.cleaned``; False if
        ``old`` is no longer in the log (retention deleted some of it): nothing is swapped.

        One synchronous step on the event loop, so no read or append sees it half done;
        :mod:`swap` makes it crash safe.
        """
        if self.closed or not old:
            return False
        first = next((i for i, s in enumerate(self.segments) if s is old[0]), None)
        if first is None:
            return False
        last = first + len(old)
        if (
            last >= len(self.segments)
            or self.segments[last].base_offset != end
            or any(a is not b for a, b in zip(self.segments[first:last], old, strict=True))
        ):
            return False
        base = old[0].base_offset
        swap.commit(self.directory, base)
        swap.finish(self.directory, base)
        cleaned = Segment(self.directory, base, self.config.index_interval_bytes)
        cleaned.load(recover=False)
        self.segments[first:last] = [cleaned]
        self._bases[first:last] = [base]
        self._read_hint = None
        for segment in old:
            segment.close()
        return True

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Flush, snapshot and close; on a full or failing disk close anyway (the next
        start recovers from the last recovery point)."""
        self.closed = True
        try:
            self.flush()
            self.producer_state.take_snapshot(self.log_end_offset)
        except OSError as e:
            log.warning(
                "Closing %s without a clean flush (recovered at the next start): %s",
                self.directory.name,
                e,
            )
        for segment in self.segments:
            segment.close()

    def delete(self) -> None:
        self.closed = True
        for segment in self.segments:
            segment.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __repr__(self) -> str:
        return (
            f"PartitionLog({self.directory.name}, [{self.log_start_offset}, {self.log_end_offset}))"
        )
