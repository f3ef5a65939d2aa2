"""Rewrite a stored batch keeping some of its records, as Kafka's cleaner does.

The kept records are copied byte for byte (each keeps its offset and timestamp deltas), and
the header keeps everything that identifies the batch: base offset, last offset delta,
timestamps, producer id, epoch and base sequence, leader epoch and attributes. Only the
record count, the length and the CRC change, so a batch may now have offset gaps. A batch
that keeps no record becomes an empty header (Kafka's ``writeEmptyHeader``), which keeps a
producer's last sequence in the log.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from crc32c import crc32c

from seaway.protocol.compression import compress
from seaway.protocol.record_codec import records_section
from seaway.protocol.records import ATTR_COMPRESSION_MASK, BATCH_OVERHEAD, BatchHeader
from seaway.protocol.varint import read_varint

__all__ = ["empty_batch", "filter_batch", "with_records"]

_LENGTH_AT = 8
_CRC_AT = 17
_CRC_START = 21
_COUNT_AT = 57


def _record_spans(data: bytes, count: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each record in a batch's (uncompressed) records section."""
    spans = []
    pos = 0
    for _ in range(count):
        length, body = read_varint(data, pos)
        spans.append((pos, body + length))
        pos = body + length
    return spans


def _finish(head: bytearray, records: bytes, count: int) -> bytes:
    out = head + records
    struct.pack_into(">i", out, _LENGTH_AT, len(out) - 12)
    struct.pack_into(">i", out, _COUNT_AT, count)
    struct.pack_into(">I", out, _CRC_AT, crc32c(memoryview(out)[_CRC_START:]))
    return bytes(out)


def filter_batch(batch: bytes | memoryview, header: BatchHeader, keep: Sequence[bool]) -> bytes:
    """The batch with only the records whose ``keep`` flag is set (in record order)."""
    if all(keep):
        return bytes(batch)
    if not any(keep):
        return empty_batch(batch, header)
    data = bytes(records_section(header, batch))
    spans = _record_spans(data, header.records_count)
    kept = b"".join(data[start:end] for (start, end), k in zip(spans, keep, strict=True) if k)
    return with_records(batch, header, kept, sum(keep))


def with_records(
    batch: bytes | memoryview, header: BatchHeader, records: bytes, count: int
) -> bytes:
    """The batch with ``records`` (``count`` of its own records, uncompressed, byte for byte)
    in place of its records, compressed as they were."""
    if not count:
        return empty_batch(batch, header)
    return _finish(bytearray(batch[:BATCH_OVERHEAD]), compress(header.compression, records), count)


def empty_batch(batch: bytes | memoryview, header: BatchHeader) -> bytes:
    """The header alone, uncompressed, with no records (its offsets and sequences kept)."""
    head = bytearray(batch[:BATCH_OVERHEAD])
    struct.pack_into(">h", head, _CRC_START, header.attributes & ~ATTR_COMPRESSION_MASK)
    return _finish(head, b"", 0)
