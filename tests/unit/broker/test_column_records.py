"""Arrow columns encoded into record batches: the C loop and the pure-Python one give the same
bytes and the same errors, and a batch around them is byte for byte what ``build_batch``
writes for the same records."""

from __future__ import annotations

import itertools
import random
import struct
from typing import Any

import pyarrow as pa
import pytest

from seaway.protocol.column_records import (
    ColumnBuffers,
    EncodedRecords,
    HeaderBuffers,
    TimestampBuffers,
    accelerated,
    binary_buffers,
    binary_values,
    encode_records,
    header_buffers,
    millis_buffers,
)
from seaway.protocol.record_codec import Record, batch_from_section, build_batch, decode_records
from seaway.protocol.records import BATCH_OVERHEAD

NOW = 1_700_000_000_123
HEADER_TYPE = pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))

Row = tuple[bytes | None, bytes | None, int | None, list[tuple[str, bytes | None]] | None]


def _sliced(values: list[Any], kind: pa.DataType, rng: random.Random) -> pa.Array:
    """*values* as an array of *kind*, often a slice of a longer one (array.slice(k))."""
    if rng.random() < 0.5:
        return pa.array(values, kind)
    before, after = rng.randrange(0, 9), rng.randrange(0, 3)
    filler = [values[0] if values else None] * (before + after)
    padded = filler[:before] + values + filler[before:]
    return pa.array(padded, kind).slice(before, len(values))


def _blob(rng: random.Random, size: int, text: bool) -> bytes:
    if text:
        return "".join(rng.choice("abcé€") for _ in range(size)).encode()
    return rng.randbytes(size)


def _table(seed: int) -> tuple[list[Row], Any, Any, Any, Any]:
    """Random rows and their columns: keys, values, timestamps, headers (each may be None)."""
    rng = random.Random(seed)
    n = rng.randrange(0, 60)
    text_keys, text_values = rng.random() < 0.4, rng.random() < 0.2
    rows: list[Row] = []
    for _ in range(n):
        key = None if rng.random() < 0.3 else _blob(rng, rng.choice([0, 1, 8, 40]), text_keys)
        value = (
            None if rng.random() < 0.15 else _blob(rng, rng.choice([0, 3, 100, 400]), text_values)
        )
        ts = None if rng.random() < 0.2 else NOW + rng.randrange(-(10**9), 10**9)
        headers = (
            None
            if rng.random() < 0.3
            else [
                (f"h{i}é", None if rng.random() < 0.3 else rng.randbytes(rng.randrange(0, 8)))
                for i in range(rng.randrange(0, 4))
            ]
        )
        rows.append((key, value, ts, headers))
    key_kind = (
        rng.choice([pa.string(), pa.large_string()])
        if text_keys
        else (rng.choice([pa.binary(), pa.large_binary()]))
    )
    value_kind = pa.string() if text_values else pa.binary()
    keys = (
        None
        if rng.random() < 0.15
        else binary_buffers(
            _sliced(
                [r[0].decode() if text_keys and r[0] is not None else r[0] for r in rows],
                key_kind,
                rng,
            )
        )
    )
    if keys is None:
        rows = [(None, *r[1:]) for r in rows]
    values = binary_buffers(
        _sliced(
            [r[1].decode() if text_values and r[1] is not None else r[1] for r in rows],
            value_kind,
            rng,
        )
    )
    stamps = (
        None
        if rng.random() < 0.15
        else millis_buffers(_sliced([r[2] for r in rows], pa.int64(), rng))
    )
    if stamps is None:
        rows = [(r[0], r[1], None, r[3]) for r in rows]
    headers = (
        None
        if rng.random() < 0.15
        else header_buffers(
            _sliced(
                [None if r[3] is None else [{"key": k, "value": v} for k, v in r[3]] for r in rows],
                HEADER_TYPE,
                rng,
            )
        )
    )
    if headers is None:
        rows = [(*r[:3], None) for r in rows]
    return rows, values, keys, stamps, headers


def _record(row: Row, index: int) -> Record:
    key, value, ts, headers = row
    pairs = tuple((k.encode(), v) for k, v in headers or ())
    return Record(index, NOW if ts is None else ts, key, value, pairs)


def _positions(rng: random.Random, n: int) -> bytes | None:
    if rng.random() < 0.3 or not n:
        return None
    picks = [rng.randrange(n) for _ in range(rng.randrange(0, 2 * n))]
    return struct.pack(f"<{len(picks)}i", *picks)


def _batches(
    columns: tuple[Any, ...], rows: bytes | None, max_bytes: int, fast: bool
) -> list[EncodedRecords]:
    values = columns[0]
    total = values.length if rows is None else len(rows) // 4
    out, start = [], 0
    while start < total:
        encoded = encode_records(*columns, rows, start, max_bytes, NOW, accelerated=fast)
        assert encoded.records >= 1 and encoded.next == start + encoded.records
        out.append(encoded)
        start = encoded.next
    return out


def test_the_c_loop_is_built() -> None:
    """`make` installs Seaway with a compiler at hand: the C loop must be there."""
    assert accelerated(), "seaway.protocol._column_records was not built (pip install -e .)"


@pytest.mark.parametrize("seed", range(40))
def test_batches_hold_the_rows_and_match_build_batch_in_both_loops(seed: int) -> None:
    rows, values, keys, stamps, headers = _table(seed)
    rng = random.Random(seed)
    columns = (values, keys, stamps, headers)
    for _ in range(3):
        positions = _positions(rng, len(rows))
        order = (
            list(range(len(rows)))
            if positions is None
            else list(struct.unpack(f"<{len(positions) // 4}i", positions))
        )
        max_bytes = rng.choice([0, 70, 200, 1000, 1 << 20])
        fast = _batches(columns, positions, max_bytes, True)
        slow = _batches(columns, positions, max_bytes, False)
        assert fast == slow
        taken, expected_batches = 0, []
        for encoded in fast:
            expected = [
                _record(rows[r], i) for i, r in enumerate(order[taken : taken + encoded.records])
            ]
            taken += encoded.records
            batch = batch_from_section(
                encoded.section, encoded.records, encoded.base_timestamp, encoded.max_timestamp
            )
            assert batch == build_batch(expected)
            assert decode_records(batch)[1] == expected
            assert encoded.base_timestamp == expected[0].timestamp
            assert encoded.max_timestamp == max(r.timestamp for r in expected)
            if encoded.records > 1:
                assert BATCH_OVERHEAD + len(encoded.section) <= max_bytes
            expected_batches.append(expected)
        assert taken == len(order)
        for batch_records, after in itertools.pairwise(expected_batches):
            # full: with the next batch's first record it would have been over the limit
            more = [*batch_records, after[0]._replace(offset=len(batch_records))]
            assert len(build_batch(more)) > max_bytes


def test_compressed_and_producer_fields_match_build_batch() -> None:
    rows, values, keys, stamps, headers = _table(3)
    n = len(rows)
    encoded = encode_records(values, keys, stamps, headers, None, 0, 1 << 30, NOW)
    expected = [_record(row, i) for i, row in enumerate(rows)]
    for codec in range(5):
        fields: dict[str, Any] = {
            "compression": codec,
            "producer_id": 7,
            "producer_epoch": 2,
            "base_sequence": 40,
            "transactional": True,
        }
        assert batch_from_section(
            encoded.section, n, encoded.base_timestamp, encoded.max_timestamp, **fields
        ) == build_batch(expected, **fields)
    with pytest.raises(ValueError, match="at least one record"):
        batch_from_section(b"", 0, NOW, NOW)


@pytest.mark.parametrize("fast", [True, False])
def test_a_record_over_the_limit_goes_alone_and_the_end_gives_nothing(fast: bool) -> None:
    values = binary_buffers(pa.array([b"x" * 500, b"y", b"z"]))
    first = encode_records(values, None, None, None, None, 0, 100, NOW, accelerated=fast)
    assert (first.records, first.next) == (1, 1)
    rest = encode_records(values, None, None, None, None, 1, 100, NOW, accelerated=fast)
    assert (rest.records, rest.next) == (2, 3)
    assert (rest.base_timestamp, rest.max_timestamp) == (NOW, NOW)
    end = encode_records(values, None, None, None, None, 3, 100, NOW, accelerated=fast)
    assert end == EncodedRecords(b"", 0, -1, -1, 3)


def test_adapters_take_strings_large_types_and_refuse_others() -> None:
    strings = pa.array(["a", None, "ccc"]).slice(1)
    assert binary_values(binary_buffers(strings)) == [None, b"ccc"]
    assert binary_values(binary_buffers(pa.array([b"a", b"bc"], pa.large_binary()))) == [
        b"a",
        b"bc",
    ]
    assert binary_values(binary_buffers(pa.array(["é"], pa.large_string()))) == ["é".encode()]
    assert binary_buffers(pa.array([b"a"])).validity is None  # no nulls: no bitmap to read
    for wrong in (pa.array([1, 2]), pa.array([[b"a"]])):
        with pytest.raises(TypeError):
            binary_buffers(wrong)
    with pytest.raises(TypeError):
        millis_buffers(pa.array([1.0]))
    stamps = millis_buffers(pa.array([5, None, 7], pa.timestamp("ms")))
    assert (stamps.offset, stamps.length) == (0, 3)
    with pytest.raises(TypeError):
        header_buffers(pa.array([[{"name": "a"}]]))
    large = pa.array([[{"key": "k", "value": b"v"}], None], pa.large_list(HEADER_TYPE.value_type))
    encoded = encode_records(
        binary_buffers(pa.array([b"1", b"2"])),
        None,
        None,
        header_buffers(large),
        None,
        0,
        1 << 20,
        NOW,
    )
    batch = batch_from_section(encoded.section, 2, NOW, NOW)
    assert [r.headers for r in decode_records(batch)[1]] == [((b"k", b"v"),), ()]


def test_sliced_header_lists_and_struct_children_read_the_right_entries() -> None:
    entries = pa.StructArray.from_arrays(
        [pa.array(["x", "a", "b", "c", "d"]), pa.array([b"0", b"1", None, b"3", b"4"])],
        names=["key", "value"],
    ).slice(1)  # the struct's own offset: entries a, b, c, d
    lists = pa.ListArray.from_arrays(pa.array([0, 1, 1, 3, 4], pa.int32()), entries)
    values = binary_buffers(pa.array([b"r0", b"r1", b"r2", b"r3"]).slice(1))
    for fast in (True, False):
        encoded = encode_records(
            values,
            None,
            None,
            header_buffers(lists.slice(1)),
            None,
            0,
            1 << 20,
            NOW,
            accelerated=fast,
        )
        batch = batch_from_section(encoded.section, encoded.records, NOW, NOW)
        assert [r.headers for r in decode_records(batch)[1]] == [
            (),
            ((b"b", None), (b"c", b"3")),
            ((b"d", b"4"),),
        ]


def _errors(*args: Any) -> list[str]:
    """The error both loops raise for the same call: the same message (twice)."""
    messages = []
    for fast in (True, False):
        with pytest.raises(ValueError) as info:
            encode_records(*args, accelerated=fast)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    return messages


def test_both_loops_refuse_bad_rows_starts_and_buffers_alike() -> None:
    values = binary_buffers(pa.array([b"a", b"bb", None]))
    assert (
        "index 3 at position 1"
        in _errors(values, None, None, None, struct.pack("<2i", 0, 3), 1, 1 << 20, NOW)[0]
    )
    assert "index -1" in _errors(values, None, None, None, struct.pack("<i", -1), 0, 99, NOW)[0]
    assert "start -1" in _errors(values, None, None, None, None, -1, 1 << 20, NOW)[0]
    assert "start 4" in _errors(values, None, None, None, None, 4, 1 << 20, NOW)[0]
    assert "multiple of 4" in _errors(values, None, None, None, b"\0\0\0", 0, 99, NOW)[0]
    assert "rows:" in _errors(values, None, None, None, 17, 0, 99, NOW)[0]
    short = ColumnBuffers(None, struct.pack("<3i", 0, 1, 3), b"abb", 0, 3)
    assert (
        "values: offsets buffer too short" in _errors(short, None, None, None, None, 0, 99, NOW)[0]
    )
    outside = ColumnBuffers(None, struct.pack("<4i", 0, 1, 9, 9), b"abb", 0, 3)
    assert "values: offsets of row 1" in _errors(outside, None, None, None, None, 1, 99, NOW)[0]
    backwards = ColumnBuffers(None, struct.pack("<4i", 0, 2, 1, 3), b"abb", 0, 3)
    assert "row 1" in _errors(backwards, None, None, None, None, 1, 1 << 20, NOW)[0]
    missing = ColumnBuffers(None, None, None, 0, 1)
    assert "offsets buffer missing" in _errors(missing, None, None, None, None, 0, 99, NOW)[0]
    assert (
        "validity buffer too short"
        in _errors(
            ColumnBuffers(b"", struct.pack("<2i", 0, 0), None, 0, 1),
            None,
            None,
            None,
            None,
            0,
            99,
            NOW,
        )[0]
    )
    assert (
        "negative"
        in _errors(ColumnBuffers(None, b"", None, -1, 0), None, None, None, None, 0, 99, NOW)[0]
    )
    assert (
        "not a contiguous buffer"
        in _errors(ColumnBuffers(None, 5, None, 0, 1), None, None, None, None, 0, 99, NOW)[0]
    )
    huge = ColumnBuffers(None, b"\0" * 8, None, 1 << 62, 1 << 62)
    assert "too short" in _errors(huge, None, None, None, None, 0, 99, NOW)[0]
    two = binary_buffers(pa.array([b"a", b"b"]))
    assert "keys: 2 rows, values have 3" in _errors(values, two, None, None, None, 0, 99, NOW)[0]
    stamps = TimestampBuffers(None, b"\0" * 16, 0, 3)
    assert (
        "timestamps: values buffer too short"
        in _errors(values, None, stamps, None, None, 0, 99, NOW)[0]
    )


def test_null_header_keys_are_refused_naming_the_row_and_far_timestamps_split() -> None:
    entries = pa.array(
        [{"key": "a", "value": b"1"}, {"key": None, "value": b"2"}, None], HEADER_TYPE.value_type
    )
    lists = pa.ListArray.from_arrays(pa.array([0, 1, 2, 3], pa.int32()), entries)
    values = binary_buffers(pa.array([b"a", b"b", b"c"]))
    headers = header_buffers(lists)
    assert (
        "header key of row 1 is null"
        in _errors(values, None, None, headers, None, 1, 1 << 20, NOW)[0]
    )
    # a null struct entry has a null key too
    assert (
        "header key of row 2 is null"
        in _errors(values, None, None, headers, struct.pack("<i", 2), 0, 1 << 20, NOW)[0]
    )
    for fast in (True, False):  # a bad row after the first ends the batch before it
        assert (
            encode_records(
                values, None, None, headers, None, 0, 1 << 20, NOW, accelerated=fast
            ).next
            == 1
        )
    far = millis_buffers(pa.array([-(1 << 63), (1 << 63) - 1, 0], pa.int64()))
    for fast in (True, False):  # a timestamp delta past 64 bits starts a new batch
        got = [
            encode_records(values, None, far, None, None, start, 1 << 20, NOW, accelerated=fast)[1:]
            for start in (0, 1)
        ]
        assert got == [(1, -(1 << 63), -(1 << 63), 1), (2, (1 << 63) - 1, (1 << 63) - 1, 3)]
    wrong = HeaderBuffers(None, struct.pack("<4i", 0, 1, 5, 5), 0, 3, headers.keys, headers.values)
    assert (
        "headers: offsets of row 1" in _errors(values, None, None, wrong, None, 1, 1 << 20, NOW)[0]
    )


class _Fuzz:
    """Column buffers mostly of the right size, with random contents."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def sized(self, size: int) -> bytes | None:
        roll = self.rng.random()
        if roll < 0.05:
            return None
        return self.rng.randbytes(self.rng.randrange(0, size + 1) if roll < 0.15 else size)

    def offsets(self, count: int, top: int) -> bytes | None:
        if self.rng.random() < 0.2:
            return self.sized(4 * count)
        return struct.pack(
            f"<{count}i", *sorted(self.rng.randrange(-1, top + 2) for _ in range(count))
        )

    def validity(self, rows: int) -> bytes | None:
        return None if self.rng.random() < 0.4 else self.sized((rows + 7) // 8)

    def column(self, n: int) -> ColumnBuffers:
        offset = self.rng.randrange(0, 3)
        data = self.rng.randbytes(self.rng.randrange(0, 40))
        return ColumnBuffers(
            self.validity(offset + n), self.offsets(offset + n + 1, len(data)), data, offset, n
        )


@pytest.mark.parametrize("seed", range(200))
def test_random_buffers_never_crash_and_both_loops_agree(seed: int) -> None:
    fuzz = _Fuzz(seed)
    rng = fuzz.rng
    n = rng.randrange(0, 8)
    values, keys = fuzz.column(n), fuzz.column(n) if rng.random() < 0.5 else None
    offset = rng.randrange(0, 3)
    stamps = TimestampBuffers(fuzz.validity(offset + n), fuzz.sized(8 * (offset + n)), offset, n)
    entries = rng.randrange(0, 6)
    headers = HeaderBuffers(
        fuzz.validity(offset + n),
        fuzz.offsets(offset + n + 1, entries),
        offset,
        n,
        fuzz.column(entries),
        fuzz.column(entries),
    )
    rows = None
    if rng.random() < 0.5:
        rows = struct.pack("<6i", *(rng.randrange(-1, n + 1) for _ in range(6)))
    start = rng.randrange(0, 3)
    max_bytes = rng.choice([0, 100, 1 << 20])
    outcomes: list[object] = []
    for fast in (True, False):
        try:
            outcomes.append(
                encode_records(
                    values, keys, stamps, headers, rows, start, max_bytes, NOW, accelerated=fast
                )
            )
        except ValueError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]
