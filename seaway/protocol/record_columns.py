"""Decode the records of v2 batches into column buffers, without an object per record.

A reader that hands records to Arrow (the Spark Kafka source, Connect's sink tasks) needs
each field as one column: offsets, timestamps, keys, values, headers. This module walks
the records of decompressed batch sections once and writes those columns in Arrow's
layout (little-endian int64/int32 values, int32 offsets, validity bitmaps with bit *i* set
when row *i* is not null), so wrapping them in Arrow arrays copies nothing.

The loop runs in C (``seaway.protocol._columns``, built with Seaway where a compiler is);
:func:`_decode_columns_py` is the reference it must match byte for byte and the fallback
where the C module is missing.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Sequence
from typing import NamedTuple

from seaway.protocol.compression import decompress
from seaway.protocol.records import ATTR_TIMESTAMP_TYPE, BATCH_OVERHEAD, BatchHeader
from seaway.protocol.varint import VarintError, read_varint

__all__ = ["BinaryColumn", "Columns", "HeaderColumns", "Section", "accelerated", "decode_columns",
           "section_of"]  # fmt: skip

if sys.byteorder != "little":  # pragma: no cover - Arrow buffers are little-endian
    raise ImportError("seaway.protocol.record_columns needs a little-endian machine")

Section = tuple[bytes | bytearray | memoryview, int, int, int, int, int]
"""``(records section (decompressed), record count, base offset, base timestamp,
timestamp type (0 create, 1 log append), max timestamp)`` of one batch."""

_RawBinary = tuple[bytes, int, bytes, bytes]
_RawHeaders = tuple[bytes, int, bytes, _RawBinary, _RawBinary]
_RawColumns = tuple[int, bytes, bytes, bytes, _RawBinary, _RawBinary, _RawHeaders | None]
"""What the record loop returns: the fields of :class:`Columns` as plain tuples."""


class BinaryColumn(NamedTuple):
    """A variable-size binary column: validity bitmap, null count, int32 offsets, data."""

    validity: bytes
    nulls: int
    offsets: bytes
    data: bytes


class HeaderColumns(NamedTuple):
    """Headers as a list column: list validity (null when a record has none), null count,
    int32 list offsets, and the header keys and values (one row per header)."""

    validity: bytes
    nulls: int
    offsets: bytes
    keys: BinaryColumn
    values: BinaryColumn


class Columns(NamedTuple):
    """The kept records' fields: int64 offsets, int64 timestamps in microseconds, int32
    timestamp types (0 CreateTime, 1 LogAppendTime), keys, values, headers (if asked)."""

    rows: int
    offsets: bytes
    timestamps: bytes
    timestamp_types: bytes
    keys: BinaryColumn
    values: BinaryColumn
    headers: HeaderColumns | None


def accelerated() -> bool:
    """Whether the C record loop is built (``seaway.protocol._columns``)."""
    return _decode_columns_c is not None


def section_of(header: BatchHeader, batch: bytes | bytearray | memoryview) -> Section:
    """The :data:`Section` of one whole batch, its records decompressed if they are
    compressed (an uncompressed batch's records are not copied)."""
    records = memoryview(batch)[BATCH_OVERHEAD : header.size]
    if header.compression:
        records = memoryview(decompress(header.compression, bytes(records)))
    append_time = 1 if header.attributes & ATTR_TIMESTAMP_TYPE else 0
    return (
        records,
        header.records_count,
        header.base_offset,
        header.base_timestamp,
        append_time,
        header.max_timestamp,
    )


class _Binary:
    """The reference builder of one :class:`BinaryColumn`."""

    def __init__(self) -> None:
        self.valid: list[bool] = []
        self.offsets = array("i", [0])
        self.data = bytearray()

    def put(self, field: bytes | None) -> None:
        self.valid.append(field is not None)
        if field:
            self.data += field
        self.offsets.append(len(self.data))

    def column(self) -> BinaryColumn:
        return BinaryColumn(
            _bitmap(self.valid), self.valid.count(False), self.offsets.tobytes(), bytes(self.data)
        )


def _bitmap(valid: list[bool]) -> bytes:
    out = bytearray((len(valid) + 7) // 8)
    for i, bit in enumerate(valid):
        if bit:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _field(data: bytes, pos: int, end: int) -> tuple[bytes | None, int]:
    length, pos = read_varint(data, pos)
    if length < 0:
        return None, pos
    if length > end - pos:
        raise ValueError("field runs past its record")
    return data[pos : pos + length], pos + length


def _decode_columns_py(
    parts: Sequence[Section], start: int, end: int, want_headers: bool
) -> _RawColumns:
    """The reference record loop: what ``_columns.decode_columns`` returns, in Python."""
    offsets, timestamps, types = array("q"), array("q"), array("i")
    keys, values = _Binary(), _Binary()
    header_valid: list[bool] = []
    list_offsets = array("i", [0])
    header_keys, header_values = _Binary(), _Binary()
    for section, count, base_offset, base_ts, ts_type, max_ts in parts:
        data = bytes(section)
        pos = 0
        offset = base_offset
        if not 0 <= count <= len(data):  # every record takes at least one byte
            raise ValueError(f"malformed record at offset {offset}")
        try:
            for _ in range(count):
                length, pos = read_varint(data, pos)
                if length < 1 or length > len(data) - pos:
                    raise ValueError("bad record length")
                record_end = pos + length
                ts_delta, at = read_varint(data, pos + 1)
                offset_delta, at = read_varint(data, at)
                offset = base_offset + offset_delta
                key, at = _field(data, at, record_end)
                value, at = _field(data, at, record_end)
                header_count, at = read_varint(data, at)
                if header_count < 0:
                    raise ValueError("negative header count")
                keep = start <= offset < end
                if keep:
                    offsets.append(offset)
                    timestamps.append((max_ts if ts_type else base_ts + ts_delta) * 1000)
                    types.append(ts_type)
                    keys.put(key)
                    values.put(value)
                for _ in range(header_count):
                    name, at = _field(data, at, record_end)
                    if name is None:
                        raise ValueError("negative header key size")
                    header_value, at = _field(data, at, record_end)
                    if keep and want_headers:
                        header_keys.put(name)
                        header_values.put(header_value)
                if at != record_end:
                    raise ValueError("record length does not match its fields")
                if keep and want_headers:
                    header_valid.append(header_count > 0)
                    list_offsets.append(len(header_keys.valid))
                pos = record_end
        except (ValueError, VarintError, IndexError):
            raise ValueError(f"malformed record at offset {offset}") from None
    headers = None
    if want_headers:
        headers = (
            _bitmap(header_valid),
            header_valid.count(False),
            list_offsets.tobytes(),
            header_keys.column(),
            header_values.column(),
        )
    return (
        len(offsets),
        offsets.tobytes(),
        timestamps.tobytes(),
        types.tobytes(),
        keys.column(),
        values.column(),
        headers,
    )


_decode_columns_c: Callable[[Sequence[Section], int, int, bool], _RawColumns] | None
try:  # the C loop, built by `pip install` where a compiler is (Makefile: always)
    from seaway.protocol._columns import decode_columns as _decode_columns_c
except ImportError:  # pragma: no cover - the pure-Python loop gives the same bytes
    _decode_columns_c = None


def decode_columns(
    parts: Sequence[Section], start: int, end: int, *, headers: bool, accelerated: bool = True
) -> Columns:
    """The columns of the records in *parts* whose offsets lie in ``[start, end)``.

    With *accelerated* (and the C module built) the loop runs in C, else in Python; both
    give the same bytes. A malformed record raises ValueError naming its offset."""
    loop = (
        _decode_columns_c if accelerated and _decode_columns_c is not None else _decode_columns_py
    )
    raw = loop(parts, start, end, headers)
    rows, offsets, timestamps, types, keys, values, header_part = raw
    header_columns = None
    if header_part is not None:
        validity, nulls, list_offsets, header_keys, header_values = header_part
        header_columns = HeaderColumns(
            validity, nulls, list_offsets, BinaryColumn(*header_keys), BinaryColumn(*header_values)
        )
    return Columns(
        rows, offsets, timestamps, types, BinaryColumn(*keys), BinaryColumn(*values), header_columns
    )
