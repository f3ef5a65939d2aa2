"""Merge consecutive small uncompressed batches into one, renumbering their records.

A source written with ``linger.ms=0`` stores a few records per batch; copied whole, each
would be one Produce request to the target, and per-request costs (a round trip, the
broker's handling) would dwarf the records. Uncompressed batches can be joined without
decoding a record's key, value or headers: each record only carries its offset and
timestamp as deltas from its batch's base, so joining rewrites those two varints and
copies the rest byte for byte. Compressed batches are copied whole (joining them means
decompressing and compressing again, which is what the mirror avoids).

The result is a CreateTime batch whose offsets run 0..n-1 (the broker assigns offsets on
produce; the records of several source batches become contiguous) with the first record's
timestamp as base. Producer fields and CRC are left for
:func:`~seaway.protocol.records.restamp_producer`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from seaway.protocol.records import (
    ATTR_COMPRESSION_MASK,
    ATTR_CONTROL,
    ATTR_TIMESTAMP_TYPE,
    BATCH_OVERHEAD,
    BatchHeader,
    InvalidBatch,
)
from seaway.protocol.varint import VarintError, encode_varint, read_varint

__all__ = ["accelerated", "can_merge", "merge_batches"]

_Part = tuple[bytes | bytearray | memoryview, int, int]
"""``(records section, record count, timestamp shift)`` of one batch."""


def accelerated() -> bool:
    """Whether the C record loop is built (``seaway.protocol._merge``)."""
    return _merge_records_c is not None


def can_merge(header: BatchHeader) -> bool:
    """Whether a batch's records can be joined with others' without decoding them."""
    return not header.attributes & (ATTR_COMPRESSION_MASK | ATTR_TIMESTAMP_TYPE | ATTR_CONTROL)


def _merge_records_py(parts: Sequence[_Part]) -> tuple[bytes, int, int]:
    """The reference record loop (``_merge.merge_records`` is the same in C): the records
    of each ``(section, count, timestamp shift)`` with shifted timestamp deltas and offset
    deltas 0..n-1; ``(records, count, largest shifted timestamp delta)``."""
    out = bytearray()
    index = 0
    max_delta = -(1 << 63)
    for data, count, shift in parts:
        body = bytes(data)
        pos = 0
        try:
            for _ in range(count):
                length, start = read_varint(body, pos)
                end = start + length
                if length < 1 or end > len(body):
                    raise ValueError("malformed records")
                ts_delta, after_ts = read_varint(body, start + 1)
                _, after_offset = read_varint(body, after_ts)
                shifted = ts_delta + shift
                record = (
                    body[start : start + 1]
                    + encode_varint(shifted)
                    + encode_varint(index)
                    + body[after_offset:end]
                )
                out += encode_varint(len(record))
                out += record
                max_delta = max(max_delta, shifted)
                index += 1
                pos = end
        except (VarintError, IndexError):
            raise ValueError("malformed records") from None
    return bytes(out), index, max_delta


_merge_records_c: Callable[[Sequence[_Part]], tuple[bytes, int, int]] | None
try:  # the C loop, built by `pip install` where a compiler is (Makefile: always)
    from seaway.protocol._merge import merge_records as _merge_records_c
except ImportError:  # pragma: no cover - the pure-Python loop gives the same bytes
    _merge_records_c = None


def merge_batches(
    batches: Sequence[tuple[BatchHeader, bytes | bytearray | memoryview]],
    *,
    accelerated: bool = True,
) -> bytes:
    """One batch holding the records of *batches* (each ``can_merge``), in order.

    With *accelerated* (and the C module built) the record loop runs in C, else in
    Python; both give the same bytes."""
    if not batches:
        raise ValueError("nothing to merge")
    base_ts = batches[0][0].base_timestamp
    parts = [
        (memoryview(data)[BATCH_OVERHEAD : header.size], header.records_count,
         header.base_timestamp - base_ts)
        for header, data in batches
    ]  # fmt: skip
    loop = _merge_records_c if accelerated and _merge_records_c is not None else _merge_records_py
    try:
        records, count, max_delta = loop(parts)
    except ValueError as error:
        raise InvalidBatch(f"cannot join batches: {error}") from None
    max_ts = max(base_ts + max_delta, *(header.max_timestamp for header, _ in batches))
    tail = struct.pack(">hiqqqhii", 0, count - 1, base_ts, max_ts, -1, -1, -1, count) + records
    return struct.pack(">qiibI", 0, len(tail) + 9, -1, 2, 0) + tail
