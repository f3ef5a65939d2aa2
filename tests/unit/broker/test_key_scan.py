"""Key-only record scans for compaction: the C loops and the pure-Python ones give the same
results, both match what :func:`decode_records` reads, and both refuse malformed or
truncated records alike (never reading past the section)."""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from typing import Any

import pytest

from seaway.broker.log.key_scan import (
    accelerated,
    map_keys,
    null_keys,
    retain,
    scan_records,
)
from seaway.broker.log.offset_map import OffsetMap
from seaway.protocol.record_codec import Record, build_batch, decode_records, records_section
from seaway.protocol.records import InvalidBatch, parse_header

BOTH = [True, False]


def _batches(seed: int, codec: int = 0) -> list[bytes]:
    """Batches numbered as the broker numbers them, with null keys, tombstones, headers."""
    rng = random.Random(seed)
    keys = [rng.randbytes(rng.randrange(0, 12)) for _ in range(rng.randrange(1, 40))]
    out, offset = [], 0
    for _ in range(rng.randrange(1, 20)):
        records = []
        for _ in range(rng.randrange(1, 30)):
            key = None if rng.random() < 0.1 else rng.choice(keys)
            value = None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 200))
            headers = tuple((b"h%d" % i, None if rng.random() < 0.3 else rng.randbytes(3))
                            for i in range(rng.randrange(0, 3)))  # fmt: skip
            records.append(Record(0, 1_700_000_000_000, key, value, headers))
        batch = bytearray(build_batch(records, compression=codec))
        struct.pack_into(">q", batch, 0, offset)
        offset += len(records)
        out.append(bytes(batch))
    return out


def _sections(batches: list[bytes]) -> list[tuple[bytes | memoryview, int, int]]:
    headers = [parse_header(b) for b in batches]
    return [(records_section(h, b), h.records_count, h.base_offset)
            for h, b in zip(headers, batches, strict=True)]  # fmt: skip


def _outcome(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """What a call returns, or the type and message of what it raises."""
    try:
        return call(*args, **kwargs)
    except (InvalidBatch, OverflowError) as error:
        return type(error).__name__, str(error)


def test_the_c_loops_are_built() -> None:
    """`make` installs Seaway with a compiler at hand: the C loops must be there."""
    assert accelerated(), "seaway.broker.log._keyscan was not built (pip install -e . needs gcc)"


@pytest.mark.parametrize("codec", [0, 1, 4])
@pytest.mark.parametrize("seed", range(10))
def test_both_loops_find_the_records_without_a_key(seed: int, codec: int) -> None:
    batches = _batches(seed, codec)
    for batch, (records, count, _) in zip(batches, _sections(batches), strict=True):
        expected = [i for i, r in enumerate(decode_records(batch)[1]) if r.key is None]
        assert null_keys(records, count, accelerated=True) == expected
        assert null_keys(records, count, accelerated=False) == expected


@pytest.mark.parametrize("seed", range(20))
def test_both_loops_fill_the_offset_map_alike(seed: int) -> None:
    batches = _batches(seed, codec=seed % 3)
    maps = {fast: OffsetMap(64) for fast in BOTH}
    reference = OffsetMap(64)  # the cleaner's loop before the key scan: put per record
    for batch, (records, count, base) in zip(batches, _sections(batches), strict=True):
        for fast, offset_map in maps.items():
            map_keys(offset_map, records, count, base, accelerated=fast)
        for r in decode_records(batch)[1]:
            if r.key is not None:
                reference.put(r.key, r.offset)
    for offset_map in maps.values():
        assert offset_map.buffers == reference.buffers
        assert (offset_map.size, offset_map.latest_offset) == (
            reference.size,
            reference.latest_offset,
        )


@pytest.mark.parametrize("seed", range(20))
def test_both_loops_keep_the_same_records(seed: int) -> None:
    batches = _batches(seed, codec=seed % 3)
    offset_map = OffsetMap(64)
    for records, count, base in _sections(batches):
        map_keys(offset_map, records, count, base)
    horizon = random.Random(seed).randrange(0, 200)  # tombstones below it go
    for batch, (records, count, base) in zip(batches, _sections(batches), strict=True):
        expected = [
            r
            for r in decode_records(batch)[1]
            if r.key is not None
            and offset_map.get(r.key) <= r.offset
            and not (r.value is None and r.offset < horizon)
        ]
        results = [retain(offset_map, records, count, base, horizon, accelerated=f) for f in BOTH]
        assert results[0] == results[1]
        kept, data = results[0]
        got = [(r.offset, r.key, r.tombstone) for r in scan_records(data, kept, base)]
        assert got == [(r.offset, r.key, r.value is None) for r in expected]


def test_a_full_map_stops_both_loops_at_the_same_record() -> None:
    records, count, base = _sections(_batches(3))[0]
    distinct = len({r.key for r in scan_records(records, count) if r.key is not None})
    assert distinct > 2
    maps = {fast: OffsetMap(3) for fast in BOTH}  # room for 2 keys
    for fast, offset_map in maps.items():
        with pytest.raises(OverflowError, match="full"):
            map_keys(offset_map, records, count, base, accelerated=fast)
    fast_map, slow_map = maps[True], maps[False]
    assert fast_map.buffers == slow_map.buffers and fast_map.size == slow_map.size == 2
    assert fast_map.latest_offset == slow_map.latest_offset


def _calls(data: bytes | memoryview, count: int) -> list[list[Any]]:
    """Each scan of ``data`` by one loop and by the other (fresh maps)."""
    seeded = OffsetMap(64)
    seeded.put(b"k", 5)
    calls = []
    for fast in BOTH:
        offset_map = OffsetMap(64)
        calls.append([
            _outcome(null_keys, data, count, accelerated=fast),
            _outcome(map_keys, offset_map, data, count, 100, accelerated=fast),
            (offset_map.buffers, offset_map.size),
            _outcome(retain, seeded, data, count, 100, 103, accelerated=fast),
        ])  # fmt: skip
    return calls


def test_truncated_records_are_refused_by_both_loops_without_reading_past_them() -> None:
    batch = _batches(5)[0]
    records, count, _ = _sections([batch])[0]
    whole = bytes(records)
    for cut in range(len(whole)):
        # a view of the first `cut` bytes: the rest of the records lie just past its end
        fast, slow = _calls(memoryview(whole)[:cut], count)
        assert fast == slow
        assert fast[0][0] == "InvalidBatch" and "malformed records" in fast[0][1]
        assert fast[2][1] == 0  # nothing was put


def test_malformed_records_get_the_same_answer_from_both_loops() -> None:
    rng = random.Random(7)
    records, count, _ = _sections(_batches(11))[0]
    whole = bytes(records)
    refused = 0
    for _ in range(1500):
        bad = bytearray(whole)
        for _ in range(rng.randrange(1, 4)):
            bad[rng.randrange(len(bad))] = rng.choice(
                [0x00, 0x01, 0x7F, 0x80, 0xFF, rng.randrange(256)]
            )
        fast, slow = _calls(bytes(bad), count)
        assert fast == slow
        refused += isinstance(fast[0], tuple)
    assert 100 < refused < 1500  # corrupt lengths are caught; corrupt key or value bytes read


@pytest.mark.parametrize(
    ("data", "count", "error"),
    [
        (b"", 1, "1 records cannot fit in 0 bytes"),
        (b"\x02\x00", -1, "-1 records cannot fit"),
        (b"\xff" * 20, 2, "record 0 of 2"),  # a length varint that never ends
        (b"\x0e\x00\x00\x00\x7e\x00\x00\x00", 1, "record 0 of 1"),  # key of 63 bytes in 7
        (b"\x0e\x00\x00\x00\x02k\x01\x00" + b"\x0e\x00\x00\x00\x02k\x01\x03", 2, "record 1 of 2"),
        (b"\x12\x00\x00\x00\x02k\x01\x02\x01\x00", 1, "record 0 of 1"),  # null header key
        (b"\x16\x00\x00\xff\xff\xff\xff\x7f\x02k\x01\x00", 1, "record 0 of 1"),  # > int32
        (b"\x18\x00\x00\x80\x80\x80\x80\x80\x00\x02k\x01\x00", 1, "record 0 of 1"),  # 6 bytes
        (b"\x10\x00\x00\x00\x02k\x01\x00\x00", 1, "record 0 of 1"),  # length past the fields
    ],
)
def test_clear_errors_for_malformed_records(data: bytes, count: int, error: str) -> None:
    for fast in BOTH:
        with pytest.raises(InvalidBatch, match=f"malformed records: {error}"):
            null_keys(data, count, accelerated=fast)
        with pytest.raises(InvalidBatch, match=f"malformed records: {error}"):
            retain(OffsetMap(8), data, count, 0, 0, accelerated=fast)
