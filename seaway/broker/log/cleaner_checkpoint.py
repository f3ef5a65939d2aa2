"""How far a compacted log is clean, and when each of its clean ranges was first cleaned.

The file ``cleaner-offset-checkpoint`` in the partition directory is text::

    0                    version
    2                    number of ranges
    1200 1700000000000   offsets below 1200 were first cleaned at this time (ms)
    1900 1700000060000   offsets in [1200, 1900) at this one

The last end offset is the first dirty offset: Kafka's cleaner-offset-checkpoint. The times
are the delete horizons of KIP-534, kept per range rather than in the batches: a tombstone
or transaction marker may be removed ``delete.retention.ms`` after its range was first
cleaned, so a consumer reading the dirty part of the log has that long to see it.
"""

from __future__ import annotations

import logging
import os
from bisect import bisect_right
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["CleanerCheckpoint"]

FILE_NAME = "cleaner-offset-checkpoint"
_VERSION = 0
MAX_RANGES = 64


class CleanerCheckpoint:
    """The clean ranges of one partition's log, ascending by end offset."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / FILE_NAME
        self.ranges: list[tuple[int, int]] = []  # (end offset, first cleaned at ms)
        try:
            lines = self.path.read_text().split("\n")
            if int(lines[0]) != _VERSION:
                raise ValueError(f"unknown version {lines[0]}")
            count = int(lines[1])
            for line in lines[2 : 2 + count]:
                end, at = line.split()
                self.ranges.append((int(end), int(at)))
        except FileNotFoundError:
            pass
        except (ValueError, IndexError) as error:
            log.warning("Ignoring unreadable %s: %s", self.path, error)
            self.ranges = []

    @property
    def first_dirty(self) -> int:
        """The offset up to which the log is clean (0 before the first cleaning)."""
        return self.ranges[-1][0] if self.ranges else 0

    def cleaned_at(self, offset: int) -> int | None:
        """When the range holding ``offset`` was first cleaned; None if it is dirty."""
        i = bisect_right([end for end, _ in self.ranges], offset)
        return self.ranges[i][1] if i < len(self.ranges) else None

    def advance(self, end: int, now_ms: int, *, log_start: int, expired_before_ms: int) -> None:
        """Mark ``[first_dirty, end)`` as cleaned now, and write the file.

        Ranges below ``log_start`` are forgotten; ranges whose horizon has passed (cleaned
        before ``expired_before_ms``) are merged, and beyond ``MAX_RANGES`` the oldest are
        merged into the next (a later time: tombstones are kept longer, never shorter).
        """
        if end <= self.first_dirty:
            return
        ranges = [r for r in self.ranges if r[0] > log_start]
        ranges.append((end, now_ms))
        expired = 0
        while expired < len(ranges) and ranges[expired][1] <= expired_before_ms:
            expired += 1
        if expired > 1:
            ranges[: expired - 1] = []
        self.ranges = ranges[-MAX_RANGES:]
        self._write()

    def reset(self) -> None:
        """Forget everything (the checkpoint lies beyond the log): all of it is dirty again."""
        self.ranges = []
        self.path.unlink(missing_ok=True)

    def _write(self) -> None:
        body = "".join(f"{end} {at}\n" for end, at in self.ranges)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w") as f:
            f.write(f"{_VERSION}\n{len(self.ranges)}\n{body}")
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(self.path)
