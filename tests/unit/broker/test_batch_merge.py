"""Joining small uncompressed batches keeps every record's bytes, order and timestamp, with
the C loop and with the pure-Python one (which must give the same bytes)."""

from __future__ import annotations

import random

import pytest

from seaway.protocol.batch_merge import accelerated, can_merge, merge_batches
from seaway.protocol.record_codec import Record, build_batch, decode_records
from seaway.protocol.records import parse_header, validate_batch


def _batches(seed: int) -> list[tuple[list[Record], bytes]]:
    rng = random.Random(seed)
    out = []
    ts = 1_700_000_000_000
    for _ in range(rng.randrange(1, 40)):
        records = []
        for _ in range(rng.randrange(1, 20)):
            ts += rng.randrange(-50, 200)  # timestamps may go backwards
            key = None if rng.random() < 0.3 else rng.randbytes(rng.randrange(0, 30))
            value = None if rng.random() < 0.1 else rng.randbytes(rng.randrange(0, 300))
            headers = tuple(
                (b"h%d" % i, None if rng.random() < 0.2 else rng.randbytes(5))
                for i in range(rng.randrange(0, 3))
            )
            records.append(Record(0, ts, key, value, headers))
        out.append((records, build_batch(records)))
    return out


def test_the_c_loop_is_built() -> None:
    """`make` installs Seaway with a compiler at hand: the C loop must be there."""
    assert accelerated(), "seaway.protocol._merge was not built (pip install -e . needs gcc)"


@pytest.mark.parametrize("seed", range(20))
def test_c_and_python_loops_give_the_same_bytes(seed: int) -> None:
    parts = [(parse_header(b), b) for _, b in _batches(seed)]
    assert merge_batches(parts, accelerated=True) == merge_batches(parts, accelerated=False)


def test_malformed_records_are_refused_by_both_loops() -> None:
    from seaway.protocol.records import InvalidBatch

    (_, good), *_ = _batches(1)
    bad = bytearray(good)
    bad[61] = 0x7F  # the first record's length varint: -64
    for fast in (True, False):
        with pytest.raises(InvalidBatch, match="cannot join"):
            merge_batches([(parse_header(bad), bad)], accelerated=fast)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("seed", range(20))
def test_merged_batch_holds_every_record(seed: int, fast: bool) -> None:
    batches = _batches(seed)
    merged = bytearray(merge_batches([(parse_header(b), b) for _, b in batches], accelerated=fast))
    from seaway.protocol.records import restamp_producer

    restamp_producer(merged, 0, producer_id=-1, producer_epoch=-1, base_sequence=-1,
                     transactional=False)  # fmt: skip
    header = validate_batch(merged)
    expected = [r for records, _ in batches for r in records]
    _, got = decode_records(merged)
    assert [(r.timestamp, r.key, r.value, r.headers) for r in got] == [
        (r.timestamp, r.key, r.value, r.headers) for r in expected
    ]
    assert [r.offset for r in got] == list(range(len(expected)))
    assert header.records_count == len(expected) == header.last_offset_delta + 1
    assert header.max_timestamp == max(r.timestamp for r in expected)


def test_only_uncompressed_create_time_data_batches_merge() -> None:
    record = [Record(0, 1, b"k", b"v")]
    assert can_merge(parse_header(build_batch(record)))
    assert not can_merge(parse_header(build_batch(record, compression=1)))
