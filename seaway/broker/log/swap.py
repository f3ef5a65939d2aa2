"""Crash-safe replacement of log segments by a cleaned one (Kafka's ``.cleaned``/``.swap``).

A cleaned segment replaces the consecutive segments whose base offsets lie in
``[base, end)`` and takes the first one's name. Its files go through three states:

1. ``<base>.log.cleaned``, ``.index.cleaned``, ``.timeindex.cleaned`` and ``.end.cleaned``
   (which holds ``end``), written and fsynced by the cleaner. A crash here loses only the
   cleaner's work: start-up deletes every ``.cleaned`` file.
2. Each renamed to ``.swap``, the log last. Once ``<base>.log.swap`` exists the swap is
   committed, and start-up finishes it.
3. Finishing: the replaced segments' files are deleted, the ``.swap`` files take their final
   names (the log last), and ``.end.swap`` is deleted.

Finishing again after a crash while finishing gives the same result, so a kill at any
point loses no record and leaves no offset twice in the log.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from seaway.broker.log.segment import segment_name

log = logging.getLogger(__name__)

__all__ = ["CLEANED", "SWAP", "commit", "finish", "recover", "write_end"]

CLEANED = ".cleaned"
SWAP = ".swap"
_SEGMENT_FILES = (".log", ".index", ".timeindex")
_END = ".end"


def _stem(directory: Path, base: int) -> str:
    return str(directory / segment_name(base))


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_end(directory: Path, base: int, end: int) -> None:
    """Record (durably) that the segment cleaned at ``base`` replaces those below ``end``."""
    with open(f"{_stem(directory, base)}{_END}{CLEANED}", "w") as f:
        f.write(f"{end}\n")
        f.flush()
        os.fsync(f.fileno())


def discard(directory: Path, base: int) -> None:
    """Delete the cleaned files of ``base`` (a cleaning that is not swapped in)."""
    stem = _stem(directory, base)
    for part in (_END, *_SEGMENT_FILES):
        Path(f"{stem}{part}{CLEANED}").unlink(missing_ok=True)


def commit(directory: Path, base: int) -> None:
    """Step 2: the cleaned files of ``base`` become swap files; the log's rename commits."""
    stem = _stem(directory, base)
    for part in (_END, ".index", ".timeindex", ".log"):
        Path(f"{stem}{part}{CLEANED}").replace(f"{stem}{part}{SWAP}")
    fsync_dir(directory)


def _read_end(stem: str, base: int) -> int:
    try:
        return int(Path(f"{stem}{_END}{SWAP}").read_text())
    except (OSError, ValueError) as error:
        log.error(
            "No end offset for the swap of %s.log (%s): replacing that segment only", stem, error
        )
        return base + 1


def _segment_bases(directory: Path) -> list[int]:
    return [int(p.stem) for p in directory.glob("*.log") if p.stem.isdigit()]


def finish(directory: Path, base: int, *, keep_indexes: bool = True) -> None:
    """Step 3: delete the replaced segments and give the swap files their final names.

    Without ``keep_indexes`` the swapped indexes are dropped (the caller rebuilds them).
    """
    stem = _stem(directory, base)
    end = _read_end(stem, base)
    for old in _segment_bases(directory):
        if base <= old < end:
            old_stem = _stem(directory, old)
            for part in _SEGMENT_FILES:
                Path(f"{old_stem}{part}").unlink(missing_ok=True)
    for part in (".index", ".timeindex"):
        swapped = Path(f"{stem}{part}{SWAP}")
        if keep_indexes and swapped.exists():
            swapped.replace(f"{stem}{part}")
        else:
            swapped.unlink(missing_ok=True)
            Path(f"{stem}{part}").unlink(missing_ok=True)
    Path(f"{stem}.log{SWAP}").replace(f"{stem}.log")
    Path(f"{stem}{_END}{SWAP}").unlink(missing_ok=True)
    fsync_dir(directory)


def recover(directory: Path) -> set[int]:
    """At start-up: finish committed swaps, delete unfinished cleanings and stray swap files.

    Returns the base offsets of the segments swapped in, whose indexes must be rebuilt.
    """
    for path in directory.glob(f"*{CLEANED}"):
        path.unlink()
    swapped = set()
    for path in sorted(directory.glob(f"*.log{SWAP}")):
        base = int(path.name.split(".", 1)[0])
        log.warning("Finishing the interrupted swap of cleaned segment %s", path)
        finish(directory, base, keep_indexes=False)
        swapped.add(base)
    for path in directory.glob(f"*{SWAP}"):
        path.unlink()  # an index or end file of a swap finished but for this
    return swapped
