"""The file copy benchmark's input: ``LINE_BYTES``-byte text lines written to a file, and
copies compared with it (whole, or as they grow)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import BinaryIO

#: Bytes per input line, the newline included (so 10,000 lines per MB).
LINE_BYTES = 100

#: Text the lines are cut from (each line starts with its number, then a slice of this).
_TEXT = (
    "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua. ut enim ad minim veniam, quis nostrud "
) * 2

#: Bytes read from the growing copy per read (it is compared with the input as it grows).
COMPARE_CHUNK = 8 * 1024 * 1024


def line_text(index: int) -> str:
    """Line ``index`` of the input: its number, text, a newline; ``LINE_BYTES`` bytes."""
    start = index % 97
    return f"{index:09d} {_TEXT[start : start + LINE_BYTES - 11]}\n"


def write_input(path: Path, lines: int, chunk: int = 100_000) -> int:
    """Write ``lines`` lines to ``path``; return its size in bytes."""
    with open(path, "wb") as out:
        for first in range(0, lines, chunk):
            text = "".join(line_text(i) for i in range(first, min(lines, first + chunk)))
            out.write(text.encode("ascii"))
    return path.stat().st_size


def files_equal(a: Path, b: Path, chunk: int = COMPARE_CHUNK) -> bool:
    """Whether two files hold the same bytes."""
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as left, open(b, "rb") as right:
        while True:
            x, y = left.read(chunk), right.read(chunk)
            if x != y:
                return False
            if not x:
                return True


def check_free_space(directory: Path, needed: int) -> None:
    """Fail early unless ``directory`` has ``needed`` bytes free, plus 10 %."""
    free = shutil.disk_usage(directory).free
    if free < needed * 1.1:
        raise RuntimeError(
            f"need ~{needed * 1.1 / 1e9:.1f} GB free in {directory}, have {free / 1e9:.1f} GB"
        )


class GrowingCopy:
    """Follows a file another process appends to: counts its lines and compares it with
    the input as it grows, so "identical" is known the moment the sizes match."""

    def __init__(self, path: Path, original: Path) -> None:
        self.path = path
        self.original = original
        self.size = 0
        self.lines = 0
        self._copy: BinaryIO | None = None
        self._input: BinaryIO | None = None

    def poll(self) -> int:
        """Read what was appended since the last call; return the bytes seen so far.

        Raises ``ValueError`` when the copy differs from the input or outgrows it.
        """
        if self._copy is None:
            if not self.path.exists():
                return 0
            self._copy = open(self.path, "rb")  # noqa: SIM115 - closed in close()
            self._input = open(self.original, "rb")  # noqa: SIM115 - closed in close()
        assert self._input is not None
        while True:
            data = self._copy.read(COMPARE_CHUNK)
            if not data:
                return self.size
            expected = self._input.read(len(data))
            if data != expected:
                raise ValueError(self._mismatch(data, expected))
            self.size += len(data)
            self.lines += data.count(b"\n")

    def _mismatch(self, data: bytes, expected: bytes) -> str:
        if len(expected) < len(data):
            return (
                f"the copy {self.path} outgrew the input: more than "
                f"{self.size + len(expected):,} bytes (extra or duplicated lines?)"
            )
        at = next(i for i, (x, y) in enumerate(zip(data, expected, strict=False)) if x != y)
        line = self.lines + data[:at].count(b"\n") + 1
        where = f"byte {self.size + at:,} (line {line:,})"
        return f"the copy {self.path} differs from the input at {where}"

    def close(self) -> None:
        """Close both files."""
        for handle in (self._copy, self._input):
            if handle is not None:
                handle.close()
