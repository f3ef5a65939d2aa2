"""Key-only scans of a v2 batch's records, for compaction: no value, header or ``Record``.

Produce into a compacted topic needs the records without a key (Kafka refuses them); the
cleaner's passes need each record's offset, key and whether it is a tombstone: pass 1 puts
the keys in the :class:`OffsetMap` (:func:`map_keys`), pass 2 copies the records it keeps
(:func:`retain`). Every varint and length is checked against its record and the section;
the int32 fields (lengths, offset delta, header count) as Kafka reads them, in at most 5
bytes. Bytes after the last record are ignored.

The loops run in C (``seaway.broker.log._keyscan``, built with Seaway where a compiler is);
:func:`scan_records` is the reference they must match and the fallback where the C module
is missing. Both raise ValueError naming the first malformed record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from seaway.broker.log.offset_map import OffsetMap
from seaway.protocol.records import InvalidBatch
from seaway.protocol.varint import VarintError, read_varint

__all__ = ["ScannedRecord", "accelerated", "map_keys", "null_keys", "retain", "scan_records"]

Section = bytes | bytearray | memoryview

_INT32 = 1 << 31

_null_keys_c: Callable[[Section, int], list[int]] | None
_map_keys_c: Callable[..., tuple[int, int | None, bool]] | None
_retain_c: Callable[..., tuple[int, bytes]] | None
try:  # the C loops, built by `pip install` where a compiler is (Makefile: always)
    from seaway.broker.log._keyscan import map_keys as _map_keys_c
    from seaway.broker.log._keyscan import null_keys as _null_keys_c
    from seaway.broker.log._keyscan import retain as _retain_c
except ImportError:  # pragma: no cover - the Python loops give the same results
    _null_keys_c = _map_keys_c = _retain_c = None


class ScannedRecord(NamedTuple):
    """What compaction reads of a record: offset, key, null value, and its byte span."""

    offset: int
    key: bytes | None
    tombstone: bool
    start: int
    end: int


def accelerated() -> bool:
    """Whether the C loops are built (``seaway.broker.log._keyscan``)."""
    return _null_keys_c is not None


def _int32(data: bytes, pos: int, end: int) -> tuple[int, int]:
    value, after = read_varint(data, pos)
    if after > end or after - pos > 5 or not -_INT32 <= value < _INT32:
        raise ValueError("bad int32 varint")
    return value, after


def _field(data: bytes, pos: int, end: int) -> tuple[bytes | None, int]:
    length, pos = _int32(data, pos, end)
    if length < 0:
        return None, pos
    if length > end - pos:
        raise ValueError("field runs past its record")
    return data[pos : pos + length], pos + length


def scan_records(records: Section, count: int, base_offset: int = 0) -> list[ScannedRecord]:
    """The reference parser: each of the first ``count`` records of a records section."""
    data = bytes(records)
    if not 0 <= count <= len(data):  # a record takes one byte at least
        raise ValueError(f"malformed records: {count} records cannot fit in {len(data)} bytes")
    out: list[ScannedRecord] = []
    pos = 0
    try:
        for _ in range(count):
            start = pos
            length, pos = _int32(data, pos, len(data))
            if length < 1 or length > len(data) - pos:
                raise ValueError("bad record length")
            end = pos + length
            _, at = read_varint(data, pos + 1)  # the timestamp delta, after the attributes
            if at > end:
                raise ValueError("timestamp delta runs past its record")
            offset_delta, at = _int32(data, at, end)
            offset = base_offset + offset_delta
            if not -(1 << 63) <= offset < 1 << 63:
                raise ValueError("offset out of range")
            key, at = _field(data, at, end)
            value, at = _field(data, at, end)
            header_count, at = _int32(data, at, end)
            if not 0 <= header_count <= (end - at) // 2:  # a header takes two bytes at least
                raise ValueError("bad header count")
            for _ in range(header_count):
                name, at = _field(data, at, end)
                if name is None:
                    raise ValueError("negative header key size")
                _, at = _field(data, at, end)
            if at != end:
                raise ValueError("record length does not match its fields")
            out.append(ScannedRecord(offset, key, value is None, start, end))
            pos = end
    except (ValueError, VarintError, IndexError):
        raise ValueError(f"malformed records: record {len(out)} of {count}") from None
    return out


def null_keys(records: Section, count: int, *, accelerated: bool = True) -> list[int]:
    """The indexes of the records whose key is null (InvalidBatch if one is malformed)."""
    try:
        if accelerated and _null_keys_c is not None:
            return _null_keys_c(records, count)
        return [i for i, r in enumerate(scan_records(records, count)) if r.key is None]
    except ValueError as error:
        raise InvalidBatch(str(error)) from None


def map_keys(
    offset_map: OffsetMap,
    records: Section,
    count: int,
    base_offset: int,
    *,
    accelerated: bool = True,
) -> None:
    """Put each keyed record of a batch's records section in ``offset_map``.

    InvalidBatch if a record is malformed (then nothing is put); OverflowError as
    :meth:`OffsetMap.put`, with the records before put."""
    try:
        if not accelerated or _map_keys_c is None:
            for record in scan_records(records, count, base_offset):
                if record.key is not None:
                    offset_map.put(record.key, record.offset)
            return
        hashes, offsets = offset_map.buffers
        room = offset_map.slots - 1 - offset_map.size
        added, latest, complete = _map_keys_c(records, count, base_offset, hashes, offsets, room)
    except ValueError as error:
        raise InvalidBatch(str(error)) from None
    offset_map.size += added
    if latest is not None:
        offset_map.latest_offset = latest
    if not complete:
        raise OverflowError("the offset map is full")


def retain(
    offset_map: OffsetMap,
    records: Section,
    count: int,
    base_offset: int,
    horizon: int,
    *,
    accelerated: bool = True,
) -> tuple[int, bytes]:
    """The records of a batch's records section that compaction keeps, ``(how many, their
    bytes)``: those with a key whose latest offset in ``offset_map`` is not after theirs,
    but no tombstone (null value) below ``horizon``. InvalidBatch if one is malformed."""
    try:
        if accelerated and _retain_c is not None:
            hashes, offsets = offset_map.buffers
            return _retain_c(records, count, base_offset, hashes, offsets, horizon)
        scanned = scan_records(records, count, base_offset)
    except ValueError as error:
        raise InvalidBatch(str(error)) from None
    data = bytes(records)
    kept = [
        data[r.start : r.end]
        for r in scanned
        if r.key is not None
        and offset_map.get(r.key) <= r.offset
        and not (r.tombstone and r.offset < horizon)
    ]
    return len(kept), b"".join(kept)
