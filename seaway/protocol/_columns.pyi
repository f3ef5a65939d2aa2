"""Types of the C record loop of :mod:`seaway.protocol.record_columns` (``_columns.c``)."""

from collections.abc import Sequence

_Binary = tuple[bytes, int, bytes, bytes]
_Headers = tuple[bytes, int, bytes, _Binary, _Binary]

def decode_columns(
    parts: Sequence[tuple[bytes | bytearray | memoryview, int, int, int, int, int]],
    start: int,
    end: int,
    want_headers: bool,
    /,
) -> tuple[int, bytes, bytes, bytes, _Binary, _Binary, _Headers | None]: ...
