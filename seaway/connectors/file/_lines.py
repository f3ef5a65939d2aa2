"""Splitting a byte stream into lines ended by ``\\n``, ``\\r`` or ``\\r\\n``, chunk by chunk.

UTF-8 never uses the bytes ``0x0A`` and ``0x0D`` inside a multi-byte character, so lines
can be split on bytes before decoding, and every position is a byte position.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO, Final

CHUNK_SIZE: Final = 64 * 1024
"""Bytes read from the file at a time: memory use is this plus the longest line."""

TERMINATOR: Final = re.compile(rb"\r\n?|\n")
"""A line terminator: ``\\r\\n``, ``\\r`` or ``\\n``."""
_CR: Final = 0x0D
_LF: Final = 0x0A


class LineSplitter:
    """Incremental line splitter over consecutive chunks of a byte stream.

    :meth:`feed` yields ``(line, next_position)`` for every line completed by the chunk,
    where *line* is the line's bytes without its terminator (None when *collect* is
    false, to only find positions) and *next_position* the absolute byte position right
    after the terminator. Bytes after the last terminator are kept for the next chunk; a
    ``\\r`` that ends a chunk waits for the next byte, which may make it ``\\r\\n``.
    Consume each :meth:`feed` generator fully before feeding the next chunk.
    """

    __slots__ = ("_collect", "_partial", "_pending_cr", "position")

    def __init__(self, position: int = 0, *, collect: bool = True) -> None:
        self.position = position
        """Absolute position of the next byte to be fed."""
        self._collect = collect
        self._partial = bytearray()
        self._pending_cr = False

    @property
    def pending_bytes(self) -> int:
        """Bytes fed since the last complete line (a partial line), when collecting."""
        return len(self._partial) + self._pending_cr

    def _line(self, chunk: bytes, start: int, end: int) -> bytes | None:
        if not self._collect:
            return None
        if self._partial:
            self._partial += chunk[start:end]
            line = bytes(self._partial)
            self._partial.clear()
            return line
        return chunk[start:end]

    def feed(self, chunk: bytes) -> Iterator[tuple[bytes | None, int]]:
        """The lines that *chunk* completes, with the position after each."""
        base = self.position
        size = len(chunk)
        self.position = base + size
        if not size:
            return
        i = 0
        if self._pending_cr:
            self._pending_cr = False
            if chunk[0] == _LF:
                i = 1
            yield self._line(chunk, 0, 0), base + i
        for match in TERMINATOR.finditer(chunk, i):
            start, end = match.span()
            if end == size and end - start == 1 and chunk[start] == _CR:
                # Maybe the first half of "\r\n": decide when the next byte arrives.
                if self._collect:
                    self._partial += chunk[i:start]
                self._pending_cr = True
                return
            yield self._line(chunk, i, start), base + end
            i = end
        if self._collect and i < size:
            self._partial += chunk[i:]

    def finish_at_boundary(self) -> Iterator[tuple[bytes | None, int]]:
        """Treat a pending trailing ``\\r`` as a terminator (the range is known to end here)."""
        if self._pending_cr:
            self._pending_cr = False
            yield self._line(b"", 0, 0), self.position


def iter_lines(
    stream: BinaryIO,
    position: int,
    end: int | None = None,
    *,
    collect: bool = True,
    chunk_size: int = CHUNK_SIZE,
) -> Iterator[tuple[bytes | None, int]]:
    """Complete lines of *stream* from byte *position*, read in chunks, never all at once.

    Without *end*, reads to the end of the stream and leaves out a trailing partial line
    (and a trailing ``\\r``, which may yet become ``\\r\\n``). With *end*, reads no byte at
    or past it and treats a ``\\r`` right before it as a terminator: *end* is then known to
    be a line boundary. Yields ``(line or None, position after the line)``.
    """
    stream.seek(position)
    splitter = LineSplitter(position, collect=collect)
    while True:
        size = chunk_size if end is None else min(chunk_size, end - splitter.position)
        if size <= 0:
            break
        chunk = stream.read(size)
        if not chunk:
            return
        yield from splitter.feed(chunk)
    yield from splitter.finish_at_boundary()


def end_after_lines(
    stream: BinaryIO, position: int, count: int, *, chunk_size: int = CHUNK_SIZE
) -> int:
    """The position after the *count*-th complete line from *position* (after the last
    complete one if fewer; *position* if none): the last position :func:`iter_lines`
    would yield for them, found by counting ``\\n`` bytes chunk by chunk. From the first
    chunk holding a ``\\r`` on, :func:`iter_lines` itself decides."""
    stream.seek(position)
    end = base = position
    while count > 0:
        chunk = stream.read(chunk_size)
        if not chunk:
            break
        if b"\r" in chunk:  # no \r is pending at *base*: the splitter can start there
            for _, position in iter_lines(stream, base, collect=False, chunk_size=chunk_size):
                end = position
                count -= 1
                if count == 0:
                    break
            return end
        found = chunk.count(b"\n")
        if found < count:
            count -= found
            if found:
                end = base + chunk.rfind(b"\n") + 1
            base += len(chunk)
            continue
        index = -1
        for _ in range(count):
            index = chunk.find(b"\n", index + 1)
        return base + index + 1
    return end


__all__ = ["CHUNK_SIZE", "TERMINATOR", "LineSplitter", "end_after_lines", "iter_lines"]
