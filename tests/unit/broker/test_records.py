"""RecordBatch header parsing, validation and in-place rewrites."""

from __future__ import annotations

import pytest

from seaway.protocol.record_codec import (
    CONTROL_ABORT,
    CONTROL_COMMIT,
    control_type,
    record_timestamps,
)
from seaway.protocol.records import (
    InvalidBatch,
    control_batch,
    iter_batches,
    set_base_offset,
    set_log_append_time,
    validate_batch,
)
from tests.unit.broker.batches import make_batch


def test_assigning_offsets_keeps_the_crc_valid() -> None:
    batch = make_batch([b"a", b"b", b"c"])
    set_base_offset(batch, 0, 1234)
    header = validate_batch(batch)
    assert (header.base_offset, header.last_offset, header.next_offset) == (1234, 1236, 1237)
    assert header.records_count == 3


def test_crc_mismatch_is_corrupt_and_framing_errors_are_not() -> None:
    batch = make_batch([b"payload"])
    batch[-3] ^= 0x01
    with pytest.raises(InvalidBatch) as exc:
        validate_batch(batch)
    assert exc.value.corrupt
    short = make_batch([b"payload"])[:-1]
    with pytest.raises(InvalidBatch) as exc:
        validate_batch(short)
    assert not exc.value.corrupt
    old_magic = make_batch([b"x"])
    old_magic[16] = 1
    with pytest.raises(InvalidBatch, match="magic 1"):
        validate_batch(old_magic)


def test_iter_batches_stops_at_a_partial_tail() -> None:
    one, two = make_batch([b"1"]), make_batch([b"2", b"3"], base_offset=1)
    data = bytes(one + two) + bytes(two[:20])
    assert [(pos, h.base_offset) for pos, h in iter_batches(data)] == [(0, 0), (len(one), 1)]


def test_record_timestamps_plain_and_gzip() -> None:
    for compressed in (False, True):
        batch = make_batch(
            [b"a", b"b", b"c"], timestamps=[50, 40, 70], base_offset=10, gzip_records=compressed
        )
        assert record_timestamps(bytes(batch)) == [(10, 50), (11, 40), (12, 70)]


def test_log_append_time_restamps_header_and_crc() -> None:
    batch = make_batch([b"a", b"b"], timestamps=[5, 6])
    set_log_append_time(batch, 0, 99_000)
    header = validate_batch(batch)
    assert header.max_timestamp == 99_000
    assert header.attributes & 0x08
    assert record_timestamps(bytes(batch)) == [(0, 99_000), (1, 99_000)]


def test_control_batch_is_a_valid_transaction_marker() -> None:
    marker = control_batch(
        base_offset=7,
        producer_id=3,
        producer_epoch=1,
        commit=True,
        coordinator_epoch=0,
        timestamp=123,
    )
    header = validate_batch(marker)
    assert header.is_control and header.is_transactional
    assert (header.base_offset, header.records_count, header.producer_id) == (7, 1, 3)


def test_control_batches_say_commit_or_abort() -> None:
    for commit, kind in ((True, CONTROL_COMMIT), (False, CONTROL_ABORT)):
        marker = control_batch(
            base_offset=7, producer_id=3, producer_epoch=1, commit=commit,
            coordinator_epoch=0, timestamp=1,
        )  # fmt: skip
        assert control_type(marker) == kind
