"""One log segment: a ``.log`` file of batches plus its offset and time indexes.

Files are named by the segment's base offset, zero-padded to 20 digits, as Kafka names
them (``00000000000000000000.log``, ``.index``, ``.timeindex``).
"""

from __future__ import annotations

import errno
import logging
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from seaway.broker.log.index import OffsetIndex, TimeIndex
from seaway.protocol.framing import Buffer
from seaway.protocol.records import (
    BATCH_OVERHEAD,
    BatchHeader,
    InvalidBatch,
    check_crc,
    parse_header,
)

log = logging.getLogger(__name__)

__all__ = ["Segment", "segment_name"]

_SCAN_CHUNK = 1 << 20


def segment_name(base_offset: int) -> str:
    return f"{base_offset:020d}"


class Segment:
    """An append-only file of record batches starting at ``base_offset``."""

    def __init__(
        self, directory: Path, base_offset: int, index_interval_bytes: int, suffix: str = ""
    ) -> None:
        """Open (or create) the segment's files; ``suffix`` names a cleaner's temporary copy
        (``<base>.log.cleaned``)."""
        stem = str(directory / segment_name(base_offset))
        self.base_offset = base_offset
        self.path = Path(f"{stem}.log{suffix}")
        self.index_interval_bytes = index_interval_bytes
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self.size = os.fstat(self._fd).st_size
        self.offset_index = OffsetIndex(Path(f"{stem}.index{suffix}"), base_offset)
        self.time_index = TimeIndex(Path(f"{stem}.timeindex{suffix}"), base_offset)
        self.created_at = time.time()
        self._bytes_since_index = 0
        # Largest batch maxTimestamp and the last offset of that batch.
        self.max_timestamp = -1
        self.offset_of_max_timestamp = -1
        self.first_batch_timestamp = -1
        self.next_offset = base_offset
        self.unflushed_messages = 0

    # -- writing -------------------------------------------------------------------------

    def append(self, chunks: Sequence[Buffer], header: BatchHeader) -> int:
        """Append one batch, given as buffers written back to back; return its position."""
        position = self.size
        try:
            written = os.pwritev(self._fd, chunks, position)
            if written != header.size:
                raise OSError(
                    errno.ENOSPC,
                    f"short write to {self.path}: {written} of {header.size} bytes",
                )
            self._track(header, position)
        except OSError:
            self._undo_append(position)
            raise
        self.size += written
        self.unflushed_messages += header.records_count
        return position

    def _undo_append(self, position: int) -> None:
        """After a failed append (disk full, I/O error): cut the partly written batch and
        any index entry for it off, so the log ends where it did and the next append
        overwrites the spot. Shrinking a file needs no space."""
        try:
            os.ftruncate(self._fd, position)
            self.offset_index.truncate_to_position(position)
        except OSError as e:
            log.warning("Could not cut a failed append off %s at %d: %s", self.path, position, e)

    def _track(self, header: BatchHeader, position: int) -> None:
        """Index the batch at ``position``, then note it in memory: an index write that
        fails (disk full) raises before anything in memory changed."""
        max_timestamp, offset_of_max = self.max_timestamp, self.offset_of_max_timestamp
        if header.max_timestamp > max_timestamp:
            max_timestamp, offset_of_max = header.max_timestamp, header.last_offset
        since_index = self._bytes_since_index + header.size
        if since_index > self.index_interval_bytes:
            self.offset_index.append(header.last_offset, position)
            self.time_index.maybe_append(max_timestamp, offset_of_max)
            since_index = 0
        if self.first_batch_timestamp < 0:
            self.first_batch_timestamp = header.max_timestamp
        self.max_timestamp, self.offset_of_max_timestamp = max_timestamp, offset_of_max
        self._bytes_since_index = since_index
        self.next_offset = header.next_offset

    def flush(self) -> None:
        os.fdatasync(self._fd)
        self.offset_index.flush()
        self.time_index.flush()
        self.unflushed_messages = 0

    @property
    def fd(self) -> int:
        return self._fd

    # -- reading -------------------------------------------------------------------------

    def read(self, position: int, length: int) -> bytes:
        return os.pread(self._fd, length, position)

    def find(self, offset: int) -> tuple[int, BatchHeader] | None:
        """Position and header of the first batch whose last offset is >= ``offset``."""
        position = self.offset_index.lookup(offset)
        while True:
            header = self._header_unchecked(position)
            if header is None:
                return None
            if header.last_offset >= offset:
                return position, header
            position += header.size

    def _header_unchecked(self, position: int) -> BatchHeader | None:
        """The header at ``position`` (no CRC check), or None at the end or on garbage."""
        if position + BATCH_OVERHEAD > self.size:
            return None
        try:
            header = parse_header(
                os.pread(self._fd, BATCH_OVERHEAD, position), 0, require_body=False
            )
        except InvalidBatch:
            return None
        return header if position + header.size <= self.size else None

    def batches(self, position: int = 0) -> Iterator[tuple[int, BatchHeader]]:
        """Yield ``(position, header)`` for each batch from ``position`` on."""
        while True:
            header = self._header_unchecked(position)
            if header is None:
                return
            yield position, header
            position += header.size

    def largest_timestamp(self) -> int:
        """The largest batch timestamp in the segment, or its mtime when it has none."""
        if self.max_timestamp >= 0:
            return self.max_timestamp
        return int(self.path.stat().st_mtime * 1000)

    # -- loading and recovery ------------------------------------------------------------

    def load(self, *, recover: bool) -> int:
        """Bring in-memory state up to date with the file; return bytes truncated.

        With ``recover`` every batch is CRC-checked, the indexes are rebuilt and a torn or
        corrupt tail is cut off, as Kafka's ``LogSegment.recover`` does. Without it, the
        indexes are trusted if sane and only the batches after the last index entry are read.
        """
        if not recover and self.offset_index.is_sane(self.size):
            return self._load_fast()
        return self._recover()

    def _load_fast(self) -> int:
        start = 0
        last = self.offset_index.last_entry()
        last_time = self.time_index.last_entry()
        if last_time is not None:
            self.max_timestamp, self.offset_of_max_timestamp = last_time
        if last is not None:
            start = last[1]
        first = self._header_unchecked(0)
        if first is not None:
            self.first_batch_timestamp = first.max_timestamp
        end = start
        for position, header in self.batches(start):
            if header.max_timestamp > self.max_timestamp:
                self.max_timestamp = header.max_timestamp
                self.offset_of_max_timestamp = header.last_offset
            self.next_offset = header.next_offset
            if position > start:
                self._bytes_since_index += header.size
            end = position + header.size
        if end != self.size:  # a torn tail after a clean shutdown marker: trust nothing
            return self._recover()
        return 0

    def _recover(self) -> int:
        self.offset_index.reset()
        self.time_index.reset()
        self.max_timestamp = self.offset_of_max_timestamp = self.first_batch_timestamp = -1
        self._bytes_since_index = 0
        self.next_offset = self.base_offset
        position = 0
        while position < self.size:
            header = self._valid_header(position)
            if header is None:
                break
            self._track(header, position)
            position += header.size
        truncated = self.size - position
        if truncated:
            log.warning(
                "Truncating %d bytes of torn or corrupt data at position %d of %s",
                truncated,
                position,
                self.path,
            )
            os.ftruncate(self._fd, position)
            self.size = position
        return truncated

    def _valid_header(self, position: int) -> BatchHeader | None:
        """The batch at ``position`` if whole and sound. A cleaned batch may hold fewer
        records than its offsets span (or none), so only the framing and CRC are checked."""
        header = self._header_unchecked(position)
        if header is None or not 0 <= header.records_count <= header.last_offset_delta + 1:
            return None  # (a negative last offset delta fails this too)
        data = os.pread(self._fd, header.size, position)
        try:
            check_crc(data, 0, header)
        except InvalidBatch:
            return None
        return header

    def truncate_to(self, position: int) -> None:
        os.ftruncate(self._fd, position)
        self.size = position
        self.offset_index.truncate_to_position(position)

    def close(self) -> None:
        os.close(self._fd)
        self.offset_index.close()
        self.time_index.close()

    def delete(self) -> None:
        self.close()
        for path in (self.path, self.offset_index.path, self.time_index.path):
            path.unlink(missing_ok=True)
