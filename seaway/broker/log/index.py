"""Sparse offset and time indexes of one segment, in Kafka's on-disk formats.

``.index`` entries are 8 bytes: ``relativeOffset int32, position int32`` mapping the last
offset of a batch to the byte position where that batch starts. ``.timeindex`` entries are
12 bytes: ``timestamp int64, relativeOffset int32``, monotonic in timestamp. Both are
big-endian. Entries live in compact :mod:`array` buffers (a few bytes per 4 KiB of log)
and are appended to the file as they are added; an index is always rebuildable from its
segment, so it carries no checksum and is simply rebuilt when it looks wrong.
"""

from __future__ import annotations

import errno
import os
import struct
import sys
from array import array
from bisect import bisect_right
from pathlib import Path

__all__ = ["OffsetIndex", "TimeIndex"]

_BIG_ENDIAN = sys.byteorder == "big"


def _load(path: Path, typecode: str) -> array[int]:
    values = array(typecode)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return values
    values.frombytes(data[: len(data) - len(data) % values.itemsize])
    if not _BIG_ENDIAN:
        values.byteswap()
    return values


def _write_entry(fd: int, entry: bytes, count: int) -> None:
    """Append one entry to an index file of ``count`` entries, all or nothing: a short or
    failed write (disk full) is cut back off so the file stays aligned, then raised."""
    try:
        written = os.write(fd, entry)
    except OSError:
        os.ftruncate(fd, count * len(entry))
        raise
    if written != len(entry):
        os.ftruncate(fd, count * len(entry))
        raise OSError(errno.ENOSPC, f"short index write: {written} of {len(entry)} bytes")


class OffsetIndex:
    """Maps offsets to byte positions in a segment, one entry per ``index.interval.bytes``."""

    ENTRY = struct.Struct(">ii")

    def __init__(self, path: Path, base_offset: int) -> None:
        self.path = path
        self.base_offset = base_offset
        raw = _load(path, "i")
        self._offsets = array("i", raw[0::2])
        self._positions = array("i", raw[1::2])
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)

    def __len__(self) -> int:
        return len(self._offsets)

    def append(self, offset: int, position: int) -> None:
        relative = offset - self.base_offset
        if self._offsets and relative <= self._offsets[-1]:
            return
        _write_entry(self._fd, self.ENTRY.pack(relative, position), len(self._offsets))
        self._offsets.append(relative)
        self._positions.append(position)

    def lookup(self, offset: int) -> int:
        """Byte position of the last indexed batch whose last offset is <= ``offset`` (or 0)."""
        i = bisect_right(self._offsets, offset - self.base_offset)
        return self._positions[i - 1] if i else 0

    def last_entry(self) -> tuple[int, int] | None:
        if not self._offsets:
            return None
        return self.base_offset + self._offsets[-1], self._positions[-1]

    def is_sane(self, segment_size: int) -> bool:
        """The last entry points inside the segment (Kafka's sanity check); else rebuild."""
        return not self._positions or self._positions[-1] < segment_size

    def truncate_to_position(self, position: int) -> None:
        """Drop entries pointing at or beyond ``position`` (after a tail truncation)."""
        keep = bisect_right(self._positions, position - 1)
        del self._offsets[keep:]
        del self._positions[keep:]
        os.ftruncate(self._fd, keep * self.ENTRY.size)

    def reset(self) -> None:
        del self._offsets[:]
        del self._positions[:]
        os.ftruncate(self._fd, 0)

    def flush(self) -> None:
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


class TimeIndex:
    """Maps timestamps to offsets: the largest timestamp seen before each entry's offset."""

    ENTRY = struct.Struct(">qi")

    def __init__(self, path: Path, base_offset: int) -> None:
        self.path = path
        self.base_offset = base_offset
        self._timestamps = array("q")
        self._offsets = array("i")
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        for ts, rel in self.ENTRY.iter_unpack(data[: len(data) - len(data) % self.ENTRY.size]):
            self._timestamps.append(ts)
            self._offsets.append(rel)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)

    def __len__(self) -> int:
        return len(self._timestamps)

    def maybe_append(self, timestamp: int, offset: int) -> None:
        """Add an entry if ``timestamp`` is larger than the last one (the index stays monotonic)."""
        if self._timestamps and timestamp <= self._timestamps[-1]:
            return
        relative = offset - self.base_offset
        _write_entry(self._fd, self.ENTRY.pack(timestamp, relative), len(self._timestamps))
        self._timestamps.append(timestamp)
        self._offsets.append(relative)

    def lookup(self, timestamp: int) -> int:
        """The offset of the last entry whose timestamp is < ``timestamp`` (or the base offset).

        Every record at or after ``timestamp`` lies after that offset's batch.
        """
        i = bisect_right(self._timestamps, timestamp - 1)
        return self.base_offset + self._offsets[i - 1] if i else self.base_offset

    def last_entry(self) -> tuple[int, int] | None:
        if not self._timestamps:
            return None
        return self._timestamps[-1], self.base_offset + self._offsets[-1]

    def is_sane(self, max_offset: int) -> bool:
        if not self._timestamps:
            return True
        return self.base_offset + self._offsets[-1] <= max_offset

    def reset(self) -> None:
        del self._timestamps[:]
        del self._offsets[:]
        os.ftruncate(self._fd, 0)

    def flush(self) -> None:
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)
