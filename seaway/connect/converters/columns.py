"""Whole-column conversions for the batch contract, on Arrow compute kernels.

Each function gives exactly what the per-record converter gives for every value, or None
when a column holds something only the per-record path handles the same way (nulls,
characters JSON escapes, invalid UTF-8); the runtime then converts record by record.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "binary",
    "framed",
    "is_bytes",
    "is_text",
    "json_literals",
    "strip_frame",
    "strip_json_literals",
    "utf8",
]

_NEEDS_ESCAPE = r'[\x00-\x1f"\\]'  # what Jackson escapes in a string (json_text._NEEDS_ESCAPE)


def is_text(column: pa.Array) -> bool:
    return bool(pa.types.is_string(column.type) or pa.types.is_large_string(column.type))


def is_bytes(column: pa.Array) -> bool:
    return bool(pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type))


def binary(column: pa.Array) -> pa.Array | None:
    """*column* as ``binary`` (a zero-copy cast of text: Arrow strings are UTF-8)."""
    if is_text(column) or is_bytes(column):
        return column.cast(pa.binary())
    return None


def utf8(column: pa.Array) -> pa.Array | None:
    """A ``binary`` column decoded as UTF-8 text; None if some value is not valid UTF-8
    (Java's decoder would replace those bytes: the per-record path does)."""
    if is_text(column):
        return column
    if not is_bytes(column):
        return None
    try:
        return column.cast(pa.string())
    except pa.ArrowInvalid:
        return None


def json_literals(column: pa.Array, prefix: bytes, suffix: bytes) -> pa.Array | None:
    """``prefix + '"' + text + '"' + suffix`` for every text of *column*: JSON string
    literals inside a fixed frame. None with nulls or text that needs escapes."""
    if not is_text(column) or column.null_count:
        return None
    if len(column) and pc.any(pc.match_substring_regex(column, _NEEDS_ESCAPE)).as_py():
        return None
    head, tail = pa.scalar(prefix + b'"', pa.binary()), pa.scalar(b'"' + suffix, pa.binary())
    return pc.binary_join_element_wise(head, column.cast(pa.binary()), tail, b"")


def framed(column: pa.Array, head: bytes, tail: bytes) -> bool:
    """Whether every value of a ``binary`` *column* without nulls is ``head + ... + tail``
    (long enough for both: they may not overlap)."""
    if not is_bytes(column) or column.null_count:
        return False
    return not len(column) or (
        pc.min(pc.binary_length(column)).as_py() >= len(head) + len(tail)
        and pc.all(pc.starts_with(column, head)).as_py()
        and pc.all(pc.ends_with(column, tail)).as_py()
    )


def strip_frame(column: pa.Array, head: bytes, tail: bytes) -> pa.Array | None:
    """The middles of ``head + middle + tail`` values (*tail* not empty); None if a value is
    not framed so."""
    if not framed(column, head, tail):
        return None
    return pc.binary_slice(column, len(head), -len(tail)) if len(column) else column


def strip_json_literals(column: pa.Array, prefix: bytes, suffix: bytes) -> pa.Array | None:
    """The texts of ``prefix + '"' + text + '"' + suffix`` values with plain JSON string
    literals (no escapes, quotes or control characters); None if any value is not one."""
    texts = strip_frame(column, prefix + b'"', b'"' + suffix)
    if texts is None or (
        len(texts) and pc.any(pc.match_substring_regex(texts, _NEEDS_ESCAPE)).as_py()
    ):
        return None
    return utf8(texts)
