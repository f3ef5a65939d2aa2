"""Types of the C record loop of :mod:`seaway.protocol.column_records` (``_column_records.c``)."""

from typing import Any

_Binary = tuple[Any, Any, Any, int, int]
_Timestamps = tuple[Any, Any, int, int]
_Headers = tuple[Any, Any, int, int, _Binary, _Binary]

def encode_records(
    values: _Binary,
    keys: _Binary | None,
    timestamps: _Timestamps | None,
    headers: _Headers | None,
    rows: Any,
    start: int,
    max_bytes: int,
    now_ms: int,
    /,
) -> tuple[bytes, int, int, int, int]: ...
