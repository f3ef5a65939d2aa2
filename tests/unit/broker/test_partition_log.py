"""PartitionLog and Segment: append, read, roll, timestamps, recovery, idempotence."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.broker.log.config import LogConfig
from seaway.broker.log.partition import PartitionLog
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.records import iter_batches, validate_batch
from tests.unit.broker.batches import make_batch


def append(log: PartitionLog, values: list[bytes], **kw: object) -> int:
    batch = make_batch(values, **kw)  # type: ignore[arg-type]
    return log.append(batch, validate_batch(batch), now_ms=10_000).base_offset


def offsets_in(data: bytes) -> list[int]:
    return [h.base_offset for _, h in iter_batches(data)]


def test_append_assigns_offsets_and_read_returns_whole_batches(tmp_path: Path) -> None:
    log = PartitionLog(tmp_path / "t-0", LogConfig())
    assert append(log, [b"a", b"b"]) == 0
    assert append(log, [b"c"]) == 2
    assert append(log, [b"d", b"e", b"f"]) == 3
    assert (log.log_start_offset, log.high_watermark) == (0, 6)
    assert offsets_in(log.read(0, 1 << 20)) == [0, 2, 3]
    assert offsets_in(log.read(4, 1 << 20)) == [3]  # the batch holding offset 4
    assert log.read(6, 1 << 20) == b""
    with pytest.raises(KafkaError) as exc:
        log.read(7, 100)
    assert exc.value.code == ErrorCode.offset_out_of_range
    first = log.read(0, 1)  # smaller than a batch: the first batch still comes whole (KIP-74)
    assert offsets_in(first) == [0]


def test_roll_by_size_and_lookup_across_segments(tmp_path: Path) -> None:
    log = PartitionLog(tmp_path / "t-0", LogConfig(segment_bytes=300, index_interval_bytes=50))
    for i in range(40):
        append(log, [f"value-{i:03d}".encode() * 3])
    assert len(log.segments) > 5
    for offset in (0, 7, 19, 39):
        assert offsets_in(log.read(offset, 1))[0] == offset
    log.close()
    reopened = PartitionLog(tmp_path / "t-0", LogConfig(segment_bytes=300, index_interval_bytes=50))
    assert reopened.high_watermark == 40
    assert offsets_in(reopened.read(23, 1)) == [23]


def test_offset_for_timestamp_and_max_timestamp(tmp_path: Path) -> None:
    log = PartitionLog(tmp_path / "t-0", LogConfig(index_interval_bytes=1))
    append(log, [b"a", b"b"], timestamps=[100, 300])
    append(log, [b"c"], timestamps=[200])
    append(log, [b"d", b"e"], timestamps=[500, 400])
    assert log.offset_for_timestamp(0, 5) == (0, 100)
    assert log.offset_for_timestamp(150, 5) == (1, 300)
    assert log.offset_for_timestamp(301, 5) == (3, 500)
    assert log.offset_for_timestamp(450, 5) == (3, 500)
    assert log.offset_for_timestamp(501, 5) is None
    assert log.offset_for_timestamp(450, 3) is None  # beyond the visible end
    assert log.max_timestamp_offset() == (3, 500)


def test_idempotent_duplicates_and_sequence_gaps(tmp_path: Path) -> None:
    log = PartitionLog(tmp_path / "t-0", LogConfig())
    pid = {"producer_id": 7, "producer_epoch": 0}
    assert append(log, [b"a", b"b"], base_sequence=0, **pid) == 0
    assert append(log, [b"c"], base_sequence=2, **pid) == 2
    assert append(log, [b"a", b"b"], base_sequence=0, **pid) == 0  # retried: same offset
    assert log.high_watermark == 3
    with pytest.raises(KafkaError) as exc:
        append(log, [b"x"], base_sequence=9, **pid)
    assert exc.value.code == ErrorCode.out_of_order_sequence_number
    assert append(log, [b"n"], base_sequence=0, producer_id=7, producer_epoch=1) == 3
    with pytest.raises(KafkaError) as exc:
        append(log, [b"old"], base_sequence=3, **pid)
    assert exc.value.code == ErrorCode.invalid_producer_epoch
    log.close()
    reopened = PartitionLog(tmp_path / "t-0", LogConfig())  # state survives a restart
    batch = make_batch([b"n"], base_sequence=0, producer_id=7, producer_epoch=1)
    assert reopened.append(batch, validate_batch(batch), now_ms=0).duplicate


def test_recovery_truncates_a_corrupt_tail_and_drops_later_segments(tmp_path: Path) -> None:
    config = LogConfig(segment_bytes=200)
    log = PartitionLog(tmp_path / "t-0", config)
    for i in range(10):
        append(log, [f"v{i}".encode() * 20])
    second = log.segments[1].path
    log.close()
    raw = bytearray(second.read_bytes())
    raw[-5] ^= 0xFF  # corrupt the last batch of the second segment
    second.write_bytes(bytes(raw))
    # As if the crash came before any flush: every segment is after the recovery point.
    (tmp_path / "t-0" / "recovery-point").write_text("0\n")
    recovered = PartitionLog(tmp_path / "t-0", config, recover=True)
    assert recovered.segments[-1].path == second
    end = recovered.high_watermark
    assert 1 <= end < 10
    assert offsets_in(recovered.read(end - 1, 1 << 20))[-1] == end - 1
    assert append(recovered, [b"after"]) == end


def test_retention_by_bytes_and_delete_records(tmp_path: Path) -> None:
    log = PartitionLog(
        tmp_path / "t-0", LogConfig(segment_bytes=200, retention_bytes=400, retention_ms=-1)
    )
    for i in range(12):
        append(log, [f"v{i}".encode() * 20])
    assert log.delete_old_segments(now_ms=0) > 0
    assert log.size - log.active.size <= 400
    assert log.log_start_offset == log.segments[0].base_offset > 0
    assert log.delete_records(10) == 10
    with pytest.raises(KafkaError):
        log.read(9, 100)
    assert offsets_in(log.read(10, 1)) == [10]
