"""Records decoded into column buffers: the C loop and the pure-Python one give the same
bytes, and both hold exactly what :func:`decode_records` reads from the same batches."""

from __future__ import annotations

import random
import struct

import pytest

from seaway.protocol.record_codec import Record, build_batch, decode_records
from seaway.protocol.record_columns import accelerated, decode_columns, section_of
from seaway.protocol.records import ATTR_TIMESTAMP_TYPE, parse_header


def _batches(seed: int, codec: int = 0) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    ts = 1_700_000_000_000
    offset = 0
    for _ in range(rng.randrange(1, 30)):
        records = []
        for _ in range(rng.randrange(1, 20)):
            ts += rng.randrange(-50, 200)
            key = None if rng.random() < 0.3 else rng.randbytes(rng.randrange(0, 30))
            value = None if rng.random() < 0.1 else rng.randbytes(rng.randrange(0, 300))
            headers = tuple(
                (b"h%d" % i, None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 6)))
                for i in range(rng.randrange(0, 3))
            )
            records.append(Record(0, ts, key, value, headers))
        batch = bytearray(build_batch(records, compression=codec))
        struct.pack_into(">q", batch, 0, offset)  # as the broker numbers it
        offset += len(records)
        out.append(bytes(batch))
    return out


def _sections(batches: list[bytes]) -> list:
    return [section_of(parse_header(b), b) for b in batches]


def _expected(batches: list[bytes], start: int, end: int) -> list[Record]:
    return [r for b in batches for r in decode_records(b)[1] if start <= r.offset < end]


def _rows(columns) -> list[Record]:  # type: ignore[no-untyped-def]
    """Read the buffers back as Arrow would (validity bit i set = row i not null)."""
    n = columns.rows

    def ints(data: bytes, fmt: str) -> list[int]:
        return list(struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data))

    def binary(column, count: int) -> list[bytes | None]:  # type: ignore[no-untyped-def]
        offs = ints(column.offsets, "i")
        assert len(offs) == count + 1
        return [
            column.data[offs[i] : offs[i + 1]] if column.validity[i >> 3] >> (i & 7) & 1 else None
            for i in range(count)
        ]

    offsets, stamps = ints(columns.offsets, "q"), ints(columns.timestamps, "q")
    keys, values = binary(columns.keys, n), binary(columns.values, n)
    headers: list[tuple] = [()] * n
    if columns.headers is not None:
        h = columns.headers
        list_offsets = ints(h.offsets, "i")
        total = list_offsets[-1]
        names, header_values = binary(h.keys, total), binary(h.values, total)
        headers = [
            tuple(zip(names[list_offsets[i] : list_offsets[i + 1]],
                      header_values[list_offsets[i] : list_offsets[i + 1]], strict=True))
            if h.validity[i >> 3] >> (i & 7) & 1 else ()
            for i in range(n)
        ]  # fmt: skip
        assert h.nulls == sum(1 for x in headers if not x)
    assert len(offsets) == len(stamps) == n
    return [Record(offsets[i], stamps[i] // 1000, keys[i], values[i], headers[i]) for i in range(n)]


def test_the_c_loop_is_built() -> None:
    """`make` installs Seaway with a compiler at hand: the C loop must be there."""
    assert accelerated(), "seaway.protocol._columns was not built (pip install -e . needs gcc)"


@pytest.mark.parametrize("codec", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("seed", range(8))
def test_c_and_python_loops_give_the_same_bytes(seed: int, codec: int) -> None:
    sections = _sections(_batches(seed, codec))
    for start, end in [(0, 1 << 62), (3, 17), (5, 5)]:
        for headers in (True, False):
            fast = decode_columns(sections, start, end, headers=headers, accelerated=True)
            slow = decode_columns(sections, start, end, headers=headers, accelerated=False)
            assert fast == slow


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_columns_hold_exactly_the_records_of_the_range(seed: int, fast: bool) -> None:
    batches = _batches(seed)
    total = sum(parse_header(b).records_count for b in batches)
    rng = random.Random(seed)
    start = rng.randrange(0, total)
    end = rng.randrange(start, total + 2)
    columns = decode_columns(_sections(batches), start, end, headers=True, accelerated=fast)
    assert _rows(columns) == _expected(batches, start, end)
    assert struct.unpack(f"<{columns.rows}i", columns.timestamp_types) == (0,) * columns.rows
    assert columns.keys.nulls == sum(1 for r in _expected(batches, start, end) if r.key is None)
    without = decode_columns(_sections(batches), start, end, headers=False, accelerated=fast)
    assert without.headers is None and without.values == columns.values


@pytest.mark.parametrize("fast", [True, False])
def test_a_log_append_time_batch_gives_every_record_the_append_time(fast: bool) -> None:
    batch = bytearray(_batches(3)[0])
    attributes = struct.unpack_from(">h", batch, 21)[0] | ATTR_TIMESTAMP_TYPE
    struct.pack_into(">h", batch, 21, attributes)
    struct.pack_into(">q", batch, 35, 1_800_000_000_000)  # max timestamp = append time
    columns = decode_columns(_sections([bytes(batch)]), 0, 1 << 62, headers=False, accelerated=fast)
    n = columns.rows
    assert struct.unpack(f"<{n}q", columns.timestamps) == (1_800_000_000_000_000,) * n
    assert struct.unpack(f"<{n}i", columns.timestamp_types) == (1,) * n


def test_malformed_records_are_refused_by_both_loops_naming_the_offset() -> None:
    batch = bytearray(_batches(1)[0])
    batch[61] = 0x7F  # the first record's length varint: -64
    for fast in (True, False):
        with pytest.raises(ValueError, match="malformed record at offset 0"):
            decode_columns(_sections([bytes(batch)]), 0, 100, headers=True, accelerated=fast)
    truncated = _batches(2)[0]
    header = parse_header(truncated)
    section = (memoryview(truncated)[61 : header.size - 3], header.records_count, 0,
               header.base_timestamp, 0, header.max_timestamp)  # fmt: skip
    errors = []
    for fast in (True, False):
        with pytest.raises(ValueError, match="malformed record at offset") as info:
            decode_columns([section], 0, 100, headers=True, accelerated=fast)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
