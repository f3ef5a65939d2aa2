"""Encode rows held as Arrow columns straight into the records section of a v2 batch.

The inverse of :mod:`seaway.protocol.record_columns`: a writer that holds its rows as Arrow
columns (the Spark Kafka sink, Connect's source tasks) hands their buffers here and gets
the records of one batch, cut to a size limit, without a Python object per record;
:func:`seaway.protocol.record_codec.batch_from_section` puts the batch header around them.
The bytes are those :func:`~seaway.protocol.record_codec.build_batch` writes for the same
records.

The loop runs in C (``seaway.protocol._column_records``, built with Seaway where a compiler
is); :func:`_encode_records_py` is the reference it must match byte for byte and the fallback
where the C module is missing. pyarrow is imported only by the adapters that read an array's
buffers (:func:`binary_buffers` and friends), so the broker never loads it through here.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from seaway.protocol.records import BATCH_OVERHEAD
from seaway.protocol.varint import encode_varint

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ColumnBuffers", "EncodedRecords", "HeaderBuffers", "TimestampBuffers", "accelerated",
           "binary_buffers", "binary_values", "encode_records", "header_buffers",
           "millis_buffers"]  # fmt: skip

if sys.byteorder != "little":  # pragma: no cover - Arrow buffers are little-endian
    raise ImportError("seaway.protocol.column_records needs a little-endian machine")


class ColumnBuffers(NamedTuple):
    """One Arrow array's buffers as pyarrow gives them (``array.buffers()``, ``array.offset``),
    for a binary column: validity (None: no nulls), int32 offsets, data (None when empty)."""

    validity: Any  # a pyarrow Buffer, bytes-like, or None
    offsets: Any
    data: Any
    offset: int  # the array's slice offset (rows)
    length: int  # rows


class TimestampBuffers(NamedTuple):
    """An int64 column of milliseconds since the epoch (little-endian): validity (None: no
    nulls), values, the array's slice offset and its rows."""

    validity: Any
    values: Any
    offset: int
    length: int


class HeaderBuffers(NamedTuple):
    """list<struct<key: string|binary, value: binary>>: list validity, int32 list offsets,
    list slice offset, and the key and value columns of the flattened struct children."""

    validity: Any
    offsets: Any
    offset: int
    length: int
    keys: ColumnBuffers
    values: ColumnBuffers


class EncodedRecords(NamedTuple):
    """The records of one batch, and where the next batch starts."""

    section: bytes  # the records section, uncompressed
    records: int
    base_timestamp: int
    max_timestamp: int
    next: int  # the position in `rows` to continue from (== len(rows): done)


_Raw = tuple[bytes, int, int, int, int]
"""What the record loops return: the fields of :class:`EncodedRecords` as a plain tuple."""


# --- adapters: an Arrow array's buffers ---------------------------------------------------


def binary_buffers(array: pa.Array) -> ColumnBuffers:
    """The buffers of a binary or string array (large ones are cast to binary first)."""
    import pyarrow as pa

    kind = array.type
    if pa.types.is_large_binary(kind) or pa.types.is_large_string(kind):
        array = array.cast(pa.binary())
    elif not (pa.types.is_binary(kind) or pa.types.is_string(kind)):
        raise TypeError(f"a binary or string column is needed, not {kind}")
    validity, offsets, data = array.buffers()
    return ColumnBuffers(
        validity if array.null_count else None, offsets, data, array.offset, len(array)
    )


def millis_buffers(array: pa.Array) -> TimestampBuffers:
    """The buffers of an int64 array of milliseconds (or a ``timestamp('ms')`` array)."""
    import pyarrow as pa

    kind = array.type
    if not (pa.types.is_int64(kind) or (pa.types.is_timestamp(kind) and kind.unit == "ms")):
        raise TypeError(f"an int64 column of milliseconds is needed, not {kind}")
    validity, values = array.buffers()
    return TimestampBuffers(
        validity if array.null_count else None, values, array.offset, len(array)
    )


def header_buffers(array: pa.Array) -> HeaderBuffers:
    """The buffers of a ``list<struct<key, value>>`` array of headers (Spark's column)."""
    import pyarrow as pa

    kind = array.type
    if pa.types.is_large_list(kind):
        array = array.cast(pa.list_(kind.value_field))
    elif not pa.types.is_list(kind):
        raise TypeError(f"a list<struct<key, value>> column is needed, not {kind}")
    entry = array.type.value_type
    is_struct = pa.types.is_struct(entry)
    fields = [entry.get_field_index(name) if is_struct else -1 for name in ("key", "value")]
    if min(fields) < 0:
        raise TypeError(f"a list<struct<key, value>> column is needed, not {kind}")
    validity, offsets = array.buffers()[:2]
    # The list offsets index the whole child (.values ignores the list's slice offset);
    # flatten() slices the struct's children to it and merges the struct's nulls into them.
    children = array.values.flatten()
    return HeaderBuffers(
        validity if array.null_count else None,
        offsets,
        array.offset,
        len(array),
        binary_buffers(children[fields[0]]),
        binary_buffers(children[fields[1]]),
    )


# --- the reference record loop ------------------------------------------------------------

_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")
_INT32_MAX = 0x7FFFFFFF


def _view(obj: Any, name: str, what: str) -> memoryview | None:
    if obj is None:
        return None
    try:
        return memoryview(obj).cast("B")
    except (TypeError, ValueError):
        raise ValueError(f"{name}: {what} is not a contiguous buffer") from None


def _check(view: memoryview | None, need: int, name: str, what: str) -> None:
    if view is None:
        if need:
            raise ValueError(f"{name}: {what} buffer missing")
    elif len(view) < need:
        raise ValueError(f"{name}: {what} buffer too short")


def _fixed(
    name: str, buffers: tuple[Any, Any], offset: int, length: int, width: int, what: str
) -> tuple[memoryview | None, memoryview | None]:
    """Views of a validity bitmap and a buffer of *width*-byte values, checked to hold the
    rows ``[offset, offset + length)``: one value a row, or one more for *what* ``offsets``."""
    if offset < 0 or length < 0:
        raise ValueError(f"{name}: negative offset or length")
    valid, data = _view(buffers[0], name, "validity"), _view(buffers[1], name, what)
    end = offset + length
    if valid is not None:  # None: no nulls
        _check(valid, (end + 7) // 8 if length else 0, name, "validity")
    _check(data, width * (end + (what == "offsets")) if length else 0, name, what)
    return valid, data


class _Binary:
    """A checked view of one :class:`ColumnBuffers`."""

    def __init__(self, name: str, column: ColumnBuffers) -> None:
        validity, offsets, data, offset, length = column
        self.name, self.offset, self.length = name, offset, length
        self.validity, self.offsets = _fixed(
            name, (validity, offsets), offset, length, 4, "offsets"
        )
        self.data = _view(data, name, "data") or memoryview(b"")

    def get(self, row: int) -> bytes | None:
        i = self.offset + row
        if self.validity is not None and not self.validity[i >> 3] >> (i & 7) & 1:
            return None
        assert self.offsets is not None  # checked: length > 0
        start = _I32.unpack_from(self.offsets, 4 * i)[0]
        end = _I32.unpack_from(self.offsets, 4 * i + 4)[0]
        if not 0 <= start <= end <= len(self.data):
            raise ValueError(f"{self.name}: offsets of row {row} lie outside its data")
        return bytes(self.data[start:end])


def binary_values(column: ColumnBuffers, name: str = "column") -> list[bytes | None]:
    """Every row of *column* (None for a null), its buffers checked as the loops check them."""
    view = _Binary(name, column)
    return [view.get(row) for row in range(column.length)]


def _same_rows(name: str, length: int, rows: int) -> None:
    if length != rows:
        raise ValueError(f"{name}: {length} rows, values have {rows}")


class _Table:
    """The checked columns of one :func:`encode_records` call."""

    def __init__(
        self,
        values: ColumnBuffers,
        keys: ColumnBuffers | None,
        timestamps: TimestampBuffers | None,
        headers: HeaderBuffers | None,
        rows: Any,
    ) -> None:
        self.values = _Binary("values", values)
        n = values.length
        self.keys = None if keys is None else _Binary("keys", keys)
        self.stamps: tuple[memoryview | None, memoryview | None, int] | None = None
        if timestamps is not None:
            validity, data, offset, length = timestamps
            view = _fixed("timestamps", (validity, data), offset, length, 8, "values")
            self.stamps = (*view, offset)
        self.lists: tuple[memoryview | None, memoryview | None, int] | None = None
        if headers is not None:
            validity, offsets, offset, length, header_keys, header_values = headers
            view = _fixed("headers", (validity, offsets), offset, length, 4, "offsets")
            self.lists = (*view, offset)
            self.header_keys = _Binary("header keys", header_keys)
            self.header_values = _Binary("header values", header_values)
            if header_keys.length != header_values.length:
                raise ValueError(
                    f"header keys: {header_keys.length} rows, header values have "
                    f"{header_values.length}"
                )
        for name, column in (("keys", keys), ("timestamps", timestamps), ("headers", headers)):
            if column is not None:
                _same_rows(name, column.length, n)
        self.rows = _view(rows, "rows", "rows")
        if self.rows is not None and len(self.rows) % 4:
            raise ValueError("rows: buffer length is not a multiple of 4")
        self.positions = n if self.rows is None else len(self.rows) // 4

    def row(self, position: int) -> int:
        if self.rows is None:
            return position
        row: int = _I32.unpack_from(self.rows, 4 * position)[0]
        if not 0 <= row < self.values.length:
            raise ValueError(f"rows: index {row} at position {position} out of range")
        return row

    def timestamp(self, row: int, now_ms: int) -> int:
        if self.stamps is None:
            return now_ms
        validity, data, offset = self.stamps
        i = offset + row
        if validity is not None and not validity[i >> 3] >> (i & 7) & 1:
            return now_ms
        assert data is not None  # checked: length > 0
        return int(_I64.unpack_from(data, 8 * i)[0])

    def headers(self, row: int) -> list[tuple[bytes, bytes | None]]:
        if self.lists is None:
            return []
        validity, offsets, offset = self.lists
        i = offset + row
        if validity is not None and not validity[i >> 3] >> (i & 7) & 1:
            return []
        assert offsets is not None  # checked: length > 0
        low, high = _I32.unpack_from(offsets, 4 * i)[0], _I32.unpack_from(offsets, 4 * i + 4)[0]
        if not 0 <= low <= high <= self.header_keys.length:
            raise ValueError(f"headers: offsets of row {row} lie outside the header columns")
        out = []
        for j in range(low, high):
            name = self.header_keys.get(j)
            if name is None:
                raise ValueError(f"headers: a header key of row {row} is null")
            out.append((name, self.header_values.get(j)))
        return out


def _field(data: bytes | None) -> bytes:
    return encode_varint(-1) if data is None else encode_varint(len(data)) + data


def _record(table: _Table, position: int, index: int, base: int, now_ms: int) -> tuple[int, bytes]:
    """The timestamp and the bytes of the record at *position*, *index* in its batch."""
    row = table.row(position)
    ts = table.timestamp(row, now_ms)
    delta = ts - base if index else 0
    if not -(1 << 63) <= delta < 1 << 63:
        raise ValueError(f"timestamps: row {row} lies too far from the batch's first")
    key = None if table.keys is None else table.keys.get(row)
    value = table.values.get(row)
    pairs = table.headers(row)
    body = b"".join(
        [
            b"\x00",  # record attributes (unused)
            encode_varint(delta),
            encode_varint(index),
            _field(key),
            _field(value),
            encode_varint(len(pairs)),
            *(_field(name) + _field(header_value) for name, header_value in pairs),
        ]
    )
    if len(body) > _INT32_MAX:
        raise ValueError(f"record of row {row} exceeds 2 GiB")
    return ts, encode_varint(len(body)) + body


def _encode_records_py(
    values: ColumnBuffers,
    keys: ColumnBuffers | None,
    timestamps: TimestampBuffers | None,
    headers: HeaderBuffers | None,
    rows: Any,
    start: int,
    max_bytes: int,
    now_ms: int,
) -> _Raw:
    """The reference record loop: what ``_column_records.encode_records`` returns."""
    table = _Table(values, keys, timestamps, headers, rows)
    if not 0 <= start <= table.positions:
        raise ValueError(f"start {start} out of range")
    out = bytearray()
    count, base, max_ts = 0, -1, -1
    for position in range(start, table.positions):
        try:
            ts, record = _record(table, position, count, base, now_ms)
        except ValueError:
            if count:  # the batch ends before the bad row: the next call raises for it
                break
            raise
        if count and BATCH_OVERHEAD + len(out) + len(record) > max_bytes:
            break
        if not count:
            base = max_ts = ts
        out += record
        count += 1
        max_ts = max(max_ts, ts)
    return bytes(out), count, base, max_ts, start + count


_Loop = Callable[
    [
        ColumnBuffers,
        ColumnBuffers | None,
        TimestampBuffers | None,
        HeaderBuffers | None,
        Any,
        int,
        int,
        int,
    ],
    _Raw,
]

_encode_records_c: _Loop | None
try:  # the C loop, built by `pip install` where a compiler is (Makefile: always)
    from seaway.protocol._column_records import encode_records as _encode_records_c
except ImportError:  # pragma: no cover - the pure-Python loop gives the same bytes
    _encode_records_c = None


def accelerated() -> bool:
    """Whether the C record loop is built (``seaway.protocol._column_records``)."""
    return _encode_records_c is not None


def encode_records(
    values: ColumnBuffers,
    keys: ColumnBuffers | None,
    timestamps: TimestampBuffers | None,
    headers: HeaderBuffers | None,
    rows: bytes | memoryview | None,
    start: int,
    max_bytes: int,
    now_ms: int,
    *,
    accelerated: bool = True,
) -> EncodedRecords:
    """The records section of the rows at positions ``start, start + 1, ...`` of *rows*
    (int32 row indices; None: every row in order), as many as fit a batch of *max_bytes*
    (:data:`BATCH_OVERHEAD` + section), and always at least one.

    A row without a timestamp (no column, or null) gets *now_ms*; a null header list means
    no headers. *start* equal to the number of positions gives an empty section. Bad
    buffers raise ValueError; so does a bad row (an index out of range, offsets outside the
    data, a null header key) at *start*, while one further on ends the batch before it (the
    call from there raises). With
    *accelerated* (and the C module built) the loop runs in C, else in Python; both give
    the same bytes."""
    loop = (
        _encode_records_c if accelerated and _encode_records_c is not None else _encode_records_py
    )
    return EncodedRecords(*loop(values, keys, timestamps, headers, rows, start, max_bytes, now_ms))
