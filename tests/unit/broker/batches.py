"""Build RecordBatch v2 bytes for storage tests (what a producer would send)."""

from __future__ import annotations

import gzip
import struct

from crc32c import crc32c


def varint(value: int) -> bytes:
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _bytes(value: bytes | None) -> bytes:
    return varint(-1) if value is None else varint(len(value)) + value


def make_batch(
    values: list[bytes | None],
    *,
    timestamps: list[int] | None = None,
    keys: list[bytes | None] | None = None,
    base_offset: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    gzip_records: bool = False,
) -> bytearray:
    timestamps = timestamps or [1_000 + i for i in range(len(values))]
    keys = keys or [None] * len(values)
    base_ts = timestamps[0]
    records = b""
    for i, (key, value, ts) in enumerate(zip(keys, values, timestamps, strict=True)):
        body = b"\x00" + varint(ts - base_ts) + varint(i) + _bytes(key) + _bytes(value) + varint(0)
        records += varint(len(body)) + body
    if gzip_records:
        records = gzip.compress(records)
    attributes = 1 if gzip_records else 0
    tail = (
        struct.pack(
            ">hiqqqhii",
            attributes,
            len(values) - 1,
            base_ts,
            max(timestamps),
            producer_id,
            producer_epoch,
            base_sequence,
            len(values),
        )
        + records
    )
    head = struct.pack(">qiibI", base_offset, len(tail) + 9, 0, 2, crc32c(tail))
    return bytearray(head + tail)
