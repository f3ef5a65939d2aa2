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
from collections.abc import Sequence

from seaway.protocol.records import (
    ATTR_COMPRESSION_MASK,
    ATTR_CONTROL,
    ATTR_TIMESTAMP_TYPE,
    BATCH_OVERHEAD,
    BatchHeader,
    InvalidBatch,
)
from seaway.protocol.varint import VarintError, encode_varint, read_varint

__all__ = ["can_merge", "merge_batches"]


def can_merge(header: BatchHeader) -> bool:
    """Whether a batch's records can be joined with others' without decoding them."""
    return not header.attributes & (ATTR_COMPRESSION_MASK | ATTR_TIMESTAMP_TYPE | ATTR_CONTROL)


def merge_batches(batches: Sequence[tuple[BatchHeader, bytes | bytearray | memoryview]]) -> bytes:
    """One batch holding the records of *batches* (each ``can_merge``), in order."""
    if not batches:
        raise ValueError("nothing to merge")
    base_ts = batches[0][0].base_timestamp
    out = bytearray()
    index = 0
    max_ts = -1
    for header, data in batches:
        shift = header.base_timestamp - base_ts
        body = bytes(data[BATCH_OVERHEAD : header.size])
        pos = 0
        try:
            for _ in range(header.records_count):
                length, start = read_varint(body, pos)
                end = start + length
                ts_delta, after_ts = read_varint(body, start + 1)
                _, after_offset = read_varint(body, after_ts)
                rest = body[after_offset:end]
                head = body[start : start + 1] + encode_varint(ts_delta + shift)
                record = head + encode_varint(index) + rest
                out += encode_varint(len(record))
                out += record
                max_ts = max(max_ts, base_ts + ts_delta + shift)
                index += 1
                pos = end
        except (VarintError, IndexError) as error:
            raise InvalidBatch(f"malformed records: {error}") from None
        max_ts = max(max_ts, header.max_timestamp)
    tail = struct.pack(">hiqqqhii", 0, index - 1, base_ts, max_ts, -1, -1, -1, index) + out
    return struct.pack(">qiibI", 0, len(tail) + 9, -1, 2, 0) + tail
