"""The records inside a v2 batch: decode them all, or build a batch from records.

The copy paths never come here: a batch goes from source to target whole. A batch comes
here only when what it holds must change: cut at the edge of an offset range, renumbered
without the gaps compaction left (Kafka accepts only contiguous offset deltas on produce),
restamped (a LogAppendTime batch carries its append time to the target as MM2 does), or
split to fit the target's ``max.message.bytes``. Layout from Kafka's ``DefaultRecord``::

    length varint, attributes int8, timestampDelta varlong, offsetDelta varint,
    keyLength varint, key, valueLength varint, value, headerCount varint,
    [headerKeyLength varint, headerKey, headerValueLength varint, headerValue]...
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import NamedTuple

from crc32c import crc32c

from seaway.protocol.compression import compress, decompress
from seaway.protocol.records import (
    ATTR_COMPRESSION_MASK,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    BATCH_OVERHEAD,
    BatchHeader,
    InvalidBatch,
    parse_header,
)
from seaway.protocol.varint import VarintError, encode_varint, read_varint

__all__ = [
    "CONTROL_ABORT",
    "CONTROL_COMMIT",
    "Record",
    "batch_from_section",
    "build_batch",
    "control_type",
    "decode_records",
    "record_timestamps",
    "records_section",
]

Header = tuple[bytes, bytes | None]


class Record(NamedTuple):
    """One record as a consumer sees it: absolute offset and timestamp, raw bytes."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[Header, ...] = ()


def _bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    length, pos = read_varint(data, pos)
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise InvalidBatch(f"record field of {length} bytes runs past the batch")
    return data[pos:end], end


def records_section(
    header: BatchHeader, batch: bytes | bytearray | memoryview
) -> bytes | memoryview:
    """The records of one whole batch, decompressed if they are compressed (an uncompressed
    batch's records are not copied)."""
    records = memoryview(batch)[BATCH_OVERHEAD : header.size]
    if header.compression:
        return decompress(header.compression, bytes(records))
    return records


def decode_records(batch: bytes | bytearray | memoryview) -> tuple[BatchHeader, list[Record]]:
    """The header of a whole batch and every record in it (decompressed if needed).

    A LogAppendTime batch gives every record the batch's append time, as consumers see it.
    """
    header = parse_header(batch, 0)
    data = bytes(records_section(header, batch))
    append_time = header.attributes & ATTR_TIMESTAMP_TYPE
    records: list[Record] = []
    pos = 0
    try:
        for _ in range(header.records_count):
            length, pos = read_varint(data, pos)
            end = pos + length
            ts_delta, pos = read_varint(data, pos + 1)  # after the attributes byte
            offset_delta, pos = read_varint(data, pos)
            key, pos = _bytes(data, pos)
            value, pos = _bytes(data, pos)
            count, pos = read_varint(data, pos)
            headers = []
            for _ in range(count):
                name, pos = _bytes(data, pos)
                header_value, pos = _bytes(data, pos)
                headers.append((name or b"", header_value))
            if pos != end:
                raise InvalidBatch(f"record at offset delta {offset_delta} has a wrong length")
            timestamp = header.max_timestamp if append_time else header.base_timestamp + ts_delta
            records.append(
                Record(header.base_offset + offset_delta, timestamp, key, value, tuple(headers))
            )
    except (VarintError, IndexError) as error:
        raise InvalidBatch(f"malformed records: {error}") from None
    return header, records


def _field(data: bytes | None) -> bytes:
    if data is None:
        return encode_varint(-1)
    return encode_varint(len(data)) + data


def _encode_record(index: int, ts_delta: int, record: Record) -> bytes:
    body = b"".join(
        [
            b"\x00",  # record attributes (unused)
            encode_varint(ts_delta),
            encode_varint(index),
            _field(record.key),
            _field(record.value),
            encode_varint(len(record.headers)),
            *(_field(name) + _field(value) for name, value in record.headers),
        ]
    )
    return encode_varint(len(body)) + body


def build_batch(
    records: Sequence[Record],
    *,
    compression: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
) -> bytes:
    """A CreateTime batch of *records* with offset deltas 0..n-1 (offsets are the broker's
    to assign), compressed with Kafka codec *compression*."""
    if not records:
        raise ValueError("a record batch needs at least one record")
    base_ts = records[0].timestamp
    payload = b"".join(_encode_record(i, r.timestamp - base_ts, r) for i, r in enumerate(records))
    return batch_from_section(
        payload,
        len(records),
        base_ts,
        max(r.timestamp for r in records),
        compression=compression,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        transactional=transactional,
    )


def batch_from_section(
    section: bytes,
    count: int,
    base_timestamp: int,
    max_timestamp: int,
    *,
    compression: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
) -> bytes:
    """A CreateTime batch around *section*, the uncompressed records of *count* records with
    offset deltas 0..count-1 (``column_records.encode_records`` writes them), compressed with
    Kafka codec *compression*, its CRC-32C over the attributes onward."""
    if count < 1:
        raise ValueError("a record batch needs at least one record")
    attributes = compression & ATTR_COMPRESSION_MASK
    if transactional:
        attributes |= ATTR_TRANSACTIONAL
    tail = struct.pack(
        ">hiqqqhii",
        attributes,
        count - 1,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        count,
    ) + compress(compression, section)
    head = struct.pack(">qiibI", 0, len(tail) + 9, -1, 2, crc32c(tail))
    return head + tail


# --- lookups that need record granularity (the produce and fetch paths never do) --------------


def record_timestamps(batch: bytes | bytearray | memoryview) -> list[tuple[int, int]]:
    """``(offset, timestamp)`` of every record of one whole batch (ListOffsets by time)."""
    return [(r.offset, r.timestamp) for r in decode_records(batch)[1]]


CONTROL_ABORT = 0
CONTROL_COMMIT = 1


def control_type(batch: bytes | bytearray | memoryview) -> int:
    """The type of a control batch's record: 0 ABORT, 1 COMMIT (key ``version, type``)."""
    records = decode_records(batch)[1]
    key = records[0].key if records else None
    if key is None or len(key) < 4:
        raise InvalidBatch("control record without a key")
    return int(struct.unpack_from(">h", key, 2)[0])
