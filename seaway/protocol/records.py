"""RecordBatch (magic v2) headers: parse, validate and rewrite in place.

The broker never decodes the records inside a batch it only stores: it reads the 61-byte
header with :mod:`struct`, checks the CRC-32C over the bytes the CRC covers, and assigns
offsets by overwriting ``baseOffset``, which lies outside the CRC. Layout from Kafka's
``DefaultRecordBatch``::

    0  baseOffset int64          (outside CRC; the broker writes it)
    8  batchLength int32         (bytes after this field)
    12 partitionLeaderEpoch int32 (outside CRC)
    16 magic int8 (= 2)
    17 crc uint32 over [21, end)
    21 attributes int16, lastOffsetDelta int32, baseTimestamp int64, maxTimestamp int64,
       producerId int64, producerEpoch int16, baseSequence int32, recordsCount int32
    61 records
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import NamedTuple

from crc32c import crc32c

from seaway.errors import SeawayError
from seaway.protocol.varint import encode_varint

__all__ = [
    "BATCH_OVERHEAD",
    "BatchHeader",
    "InvalidBatch",
    "control_batch",
    "iter_batches",
    "parse_header",
    "restamp_producer",
    "set_base_offset",
    "validate_batch",
]

_HEADER = struct.Struct(">qiibIhiqqqhii")
BATCH_OVERHEAD = _HEADER.size  # 61
_LENGTH_PREFIX = 12  # baseOffset + batchLength: what precedes batchLength's count
_CRC_START = 21
_MIN_RECORD_OVERHEAD = 14  # Kafka's LegacyRecord.RECORD_OVERHEAD_V0, against batchLength

ATTR_COMPRESSION_MASK = 0x07
ATTR_TIMESTAMP_TYPE = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20

NO_PRODUCER_ID = -1


class InvalidBatch(SeawayError, ValueError):
    """A batch whose framing, magic or CRC is wrong."""

    def __init__(self, message: str, *, corrupt: bool = False) -> None:
        super().__init__(message)
        self.corrupt = corrupt  # CRC mismatch (CORRUPT_MESSAGE) vs bad framing (INVALID_RECORD)


class BatchHeader(NamedTuple):
    """The fixed fields of one RecordBatch, and where it sits in its buffer."""

    base_offset: int
    batch_length: int
    leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @property
    def size(self) -> int:
        """Bytes the whole batch takes, header included."""
        return self.batch_length + _LENGTH_PREFIX

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def last_sequence(self) -> int:
        if self.base_sequence < 0:
            return -1
        return (self.base_sequence + self.last_offset_delta) & 0x7FFFFFFF

    @property
    def compression(self) -> int:
        return self.attributes & ATTR_COMPRESSION_MASK

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & ATTR_TRANSACTIONAL)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & ATTR_CONTROL)

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id >= 0


def parse_header(
    buf: bytes | bytearray | memoryview, pos: int = 0, *, require_body: bool = True
) -> BatchHeader:
    """Read the header of the batch at ``pos``; raise :class:`InvalidBatch` if it is wrong.

    With ``require_body`` the whole batch must lie inside ``buf``; without it only the
    61-byte header must (for reading headers alone off disk).
    """
    if len(buf) - pos < BATCH_OVERHEAD:
        raise InvalidBatch(f"batch header truncated at byte {pos}")
    header = BatchHeader._make(_HEADER.unpack_from(buf, pos))
    if not 0 <= header.magic <= 2:  # Kafka: "Invalid magic found in record"
        raise InvalidBatch(f"invalid record batch magic {header.magic}", corrupt=True)
    if header.magic != 2:
        raise InvalidBatch(f"unsupported record batch magic {header.magic} (only v2 is)")
    if header.batch_length < _MIN_RECORD_OVERHEAD:
        raise InvalidBatch(
            f"record size {header.batch_length} is less than the minimum "
            f"record overhead ({_MIN_RECORD_OVERHEAD})",
            corrupt=True,
        )
    if header.batch_length < BATCH_OVERHEAD - _LENGTH_PREFIX:
        raise InvalidBatch(f"batch length {header.batch_length} is shorter than a v2 header")
    if require_body and pos + header.size > len(buf):
        raise InvalidBatch(f"batch of {header.size} bytes at byte {pos} is truncated")
    return header


def validate_batch(buf: bytes | bytearray | memoryview, pos: int = 0) -> BatchHeader:
    """Parse and fully check the batch at ``pos`` as a producer must send it: framing,
    contiguous offsets (a count matching the last offset delta) and CRC-32C."""
    header = parse_header(buf, pos)
    if header.last_offset_delta < 0 or header.records_count != header.last_offset_delta + 1:
        raise InvalidBatch(
            f"records count {header.records_count} does not match last offset delta "
            f"{header.last_offset_delta}"
        )
    check_crc(buf, pos, header)
    return header


def check_crc(buf: bytes | bytearray | memoryview, pos: int, header: BatchHeader) -> None:
    """Raise :class:`InvalidBatch` (corrupt) if the batch at ``pos`` fails its CRC-32C.

    A stored batch may have offset gaps (compaction removed records): readers check only
    this and the framing."""
    actual = crc32c(memoryview(buf)[pos + _CRC_START : pos + header.size])
    if actual != header.crc:
        raise InvalidBatch(
            f"batch CRC mismatch: stored {header.crc:#010x}, computed {actual:#010x}",
            corrupt=True,
        )


def iter_batches(
    buf: bytes | bytearray | memoryview, *, check_crc: bool = True
) -> Iterator[tuple[int, BatchHeader]]:
    """Yield ``(position, header)`` for each whole batch in ``buf``.

    Stops silently at a trailing partial batch (as consumers do); raises
    :class:`InvalidBatch` at the first batch that is whole but invalid.
    """
    pos = 0
    end = len(buf)
    check = validate_batch if check_crc else parse_header
    while end - pos >= _LENGTH_PREFIX:
        (length,) = struct.unpack_from(">i", buf, pos + 8)
        if pos + _LENGTH_PREFIX + length > end:
            return
        header = check(buf, pos)
        yield pos, header
        pos += header.size


def set_base_offset(buf: bytearray | memoryview, pos: int, base_offset: int) -> None:
    """Assign offsets to a batch by rewriting its ``baseOffset`` (outside the CRC)."""
    struct.pack_into(">q", buf, pos, base_offset)


def control_batch(
    *,
    base_offset: int,
    producer_id: int,
    producer_epoch: int,
    commit: bool,
    coordinator_epoch: int,
    timestamp: int,
) -> bytes:
    """A transaction marker: a control batch holding one COMMIT or ABORT record.

    Key ``(version int16 = 0, type int16)``, value ``(version int16 = 0, coordinator_epoch
    int32)``, as Kafka's ``EndTransactionMarker`` writes them.
    """
    key = struct.pack(">hh", 0, 1 if commit else 0)
    value = struct.pack(">hi", 0, coordinator_epoch)
    body = (
        b"\x00"  # record attributes
        + encode_varint(0)  # timestamp delta
        + encode_varint(0)  # offset delta
        + encode_varint(len(key))
        + key
        + encode_varint(len(value))
        + value
        + encode_varint(0)  # header count
    )
    record = encode_varint(len(body)) + body
    tail = (
        struct.pack(
            ">hiqqqhii",
            ATTR_CONTROL | ATTR_TRANSACTIONAL,
            0,
            timestamp,
            timestamp,
            producer_id,
            producer_epoch,
            -1,
            1,
        )
        + record
    )
    crc = crc32c(tail)
    head = struct.pack(">qiibI", base_offset, len(tail) + 9, 0, 2, crc)
    return head + tail


def set_log_append_time(buf: bytearray, pos: int, timestamp: int) -> None:
    """Stamp a batch with LogAppendTime: attribute bit 3, maxTimestamp, and a new CRC."""
    header = parse_header(buf, pos)
    struct.pack_into(">h", buf, pos + 21, header.attributes | ATTR_TIMESTAMP_TYPE)
    struct.pack_into(">q", buf, pos + 35, timestamp)
    end = pos + header.size
    struct.pack_into(">I", buf, pos + 17, crc32c(memoryview(buf)[pos + _CRC_START : end]))


def restamp_producer(
    buf: bytearray,
    pos: int,
    *,
    producer_id: int,
    producer_epoch: int,
    base_sequence: int,
    transactional: bool,
) -> BatchHeader:
    """Make the batch at *pos* one this producer sends: ``baseOffset`` 0, no leader epoch,
    its producer id, epoch and base sequence, the transactional bit as asked, a new CRC.

    The records (and their compression) are not touched. Returns the header as it was.
    """
    header = parse_header(buf, pos)
    attributes = header.attributes & ~ATTR_TRANSACTIONAL
    if transactional:
        attributes |= ATTR_TRANSACTIONAL
    struct.pack_into(">q", buf, pos, 0)
    struct.pack_into(">i", buf, pos + 12, -1)  # partitionLeaderEpoch: the broker's to set
    struct.pack_into(">h", buf, pos + 21, attributes)
    struct.pack_into(">qhi", buf, pos + 43, producer_id, producer_epoch, base_sequence)
    end = pos + header.size
    struct.pack_into(">I", buf, pos + 17, crc32c(memoryview(buf)[pos + _CRC_START : end]))
    return header
