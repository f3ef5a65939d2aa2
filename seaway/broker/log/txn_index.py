"""The aborted-transaction index of a partition, in Kafka's ``.txnindex`` entry format.

Each entry is 34 bytes: ``version int16 = 0, producerId int64, firstOffset int64,
lastOffset int64, lastStableOffset int64``. A read_committed fetch returns the entries
overlapping the fetched range, and clients drop those producers' batches until they see
the ABORT marker. Kafka keeps one file per segment; a single node keeps one per partition
(``aborted.txnindex``) and drops entries wholly below the log start offset.
"""

from __future__ import annotations

import os
import struct
from bisect import bisect_left
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AbortedTxn", "AbortedTxnIndex"]

_ENTRY = struct.Struct(">hqqqq")


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


class AbortedTxnIndex:
    """Append-only list of aborted transactions, ordered by their last offset."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[AbortedTxn] = []
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        usable = len(data) - len(data) % _ENTRY.size
        for _, pid, first, last, lso in _ENTRY.iter_unpack(data[:usable]):
            self.entries.append(AbortedTxn(pid, first, last, lso))
        self._last_offsets = [e.last_offset for e in self.entries]
        if usable != len(data):  # a torn entry from a crash
            with open(path, "r+b") as f:
                f.truncate(usable)

    def append(self, entry: AbortedTxn) -> None:
        if self._last_offsets and entry.last_offset <= self._last_offsets[-1]:
            return  # already indexed (rebuilt after a restart)
        self.entries.append(entry)
        self._last_offsets.append(entry.last_offset)
        with open(self.path, "ab") as f:
            f.write(
                _ENTRY.pack(
                    0,
                    entry.producer_id,
                    entry.first_offset,
                    entry.last_offset,
                    entry.last_stable_offset,
                )
            )
            f.flush()
            os.fsync(f.fileno())

    @property
    def last_offset(self) -> int:
        return self._last_offsets[-1] if self._last_offsets else -1

    def overlapping(self, start: int, end: int) -> list[AbortedTxn]:
        """Aborted transactions with data in ``[start, end)``."""
        i = bisect_left(self._last_offsets, start)
        return [e for e in self.entries[i:] if e.first_offset < end]

    def drop_before(self, offset: int) -> None:
        """Forget transactions wholly below ``offset`` (the new log start)."""
        i = bisect_left(self._last_offsets, offset)
        if i:
            del self.entries[:i]
            del self._last_offsets[:i]
            self._rewrite()

    def remove(self, markers: Collection[tuple[int, int]]) -> None:
        """Forget the transactions ended by these ``(producer id, marker offset)`` ABORT
        markers, which the cleaner removes: a consumer told of an aborted transaction skips
        the producer's batches until it reads the marker."""
        kept = [e for e in self.entries if (e.producer_id, e.last_offset) not in markers]
        if len(kept) != len(self.entries):
            self.entries = kept
            self._last_offsets = [e.last_offset for e in kept]
            self._rewrite()

    def _rewrite(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.write(
                b"".join(
                    _ENTRY.pack(
                        0, e.producer_id, e.first_offset, e.last_offset, e.last_stable_offset
                    )
                    for e in self.entries
                )
            )
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(self.path)
