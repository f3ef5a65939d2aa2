"""Log compaction: the key map, batch rewriting, the checkpoint, cleaning a PartitionLog,
and recovery from a crash at each step of the swap."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.broker.log import swap
from seaway.broker.log.batch_filter import empty_batch, filter_batch
from seaway.broker.log.cleaner import SourceSegment, clean, group_by_size
from seaway.broker.log.cleaner_checkpoint import CleanerCheckpoint
from seaway.broker.log.config import LogConfig
from seaway.broker.log.log_cleaner import (
    CleanerConfig,
    clean_now,
    cleanable,
    needs_cleaning,
    plan,
)
from seaway.broker.log.offset_map import OffsetMap
from seaway.broker.log.partition import PartitionLog
from seaway.protocol.record_codec import Record, decode_records
from seaway.protocol.records import (
    check_crc,
    iter_batches,
    parse_header,
    restamp_producer,
    validate_batch,
)
from tests.unit.broker.batches import make_batch

NOW = 1_700_000_000_000
DAY = 86_400_000


# -- pure parts ------------------------------------------------------------------------------


def test_offset_map_keeps_the_latest_offset_within_its_capacity() -> None:
    m = OffsetMap(8, load_factor=0.75)
    assert (m.slots, m.capacity) == (8, 6)
    for offset, key in enumerate([b"a", b"b", b"a", b"c"]):
        m.put(key, offset)
    assert (m.get(b"a"), m.get(b"b"), m.get(b"c"), m.get(b"zz")) == (2, 1, 3, -1)
    assert (m.size, m.latest_offset, m.full) == (3, 3, False)
    for offset, key in enumerate([b"d", b"e", b"f"], start=4):
        m.put(key, offset)
    assert m.full
    small = OffsetMap.for_budget(1 << 30, keys=10)  # never more than the keys need
    assert small.slots == 12 and small.capacity >= 10
    assert OffsetMap.for_budget(160, keys=1000).slots == 10  # 16 bytes a key


def test_filter_batch_keeps_offsets_header_and_surviving_records() -> None:
    for gzip_records in (False, True):
        batch = make_batch(
            [b"v0", b"v1", None, b"v3"],
            keys=[b"a", b"b", b"c", b"d"],
            base_offset=100,
            producer_id=5,
            producer_epoch=2,
            base_sequence=40,
            gzip_records=gzip_records,
        )
        header = validate_batch(batch)
        out = filter_batch(memoryview(batch), header, [False, True, True, False])
        kept = parse_header(out)
        check_crc(out, 0, kept)
        assert kept._replace(records_count=4, batch_length=0, crc=0) == header._replace(
            batch_length=0, crc=0
        )
        assert kept.records_count == 2 and kept.last_offset == 103
        records = decode_records(out)[1]
        assert [(r.offset, r.key, r.value) for r in records] == [
            (101, b"b", b"v1"),
            (102, b"c", None),
        ]
        assert [r.timestamp for r in records] == [1001, 1002]
        empty = empty_batch(memoryview(batch), header)
        eh = parse_header(empty)
        check_crc(empty, 0, eh)
        assert (eh.records_count, eh.compression, eh.last_offset, eh.base_sequence) == (
            0,
            0,
            103,
            40,
        )
        assert decode_records(empty)[1] == []


def test_checkpoint_ranges_survive_a_restart_and_merge(tmp_path: Path) -> None:
    cp = CleanerCheckpoint(tmp_path)
    assert cp.first_dirty == 0 and cp.cleaned_at(5) is None
    cp.advance(100, NOW, log_start=0, expired_before_ms=NOW - DAY)
    cp.advance(250, NOW + 10, log_start=0, expired_before_ms=NOW - DAY)
    again = CleanerCheckpoint(tmp_path)
    assert again.first_dirty == 250
    assert (again.cleaned_at(0), again.cleaned_at(99), again.cleaned_at(100)) == (
        NOW,
        NOW,
        NOW + 10,
    )
    assert again.cleaned_at(250) is None
    # Both expired: merged into one range that is still expired.
    again.advance(300, NOW + 2 * DAY, log_start=0, expired_before_ms=NOW + DAY)
    assert again.ranges == [(250, NOW + 10), (300, NOW + 2 * DAY)]
    again.reset()
    assert CleanerCheckpoint(tmp_path).ranges == []


def test_group_by_size_respects_the_segment_size() -> None:
    sources = [SourceSegment(i * 10, i * 10 + 10, -1, 400, 0) for i in range(5)]
    assert [[s.base for s in g] for g in group_by_size(sources, 1000)] == [[0, 10], [20, 30], [40]]
    assert [len(g) for g in group_by_size(sources, 100)] == [1, 1, 1, 1, 1]


# -- cleaning a log --------------------------------------------------------------------------


def compacted(tmp_path: Path, **config: object) -> PartitionLog:
    settings: dict[str, object] = {
        "compact": True,
        "delete": False,
        "segment_bytes": 300,
        "index_interval_bytes": 100,
        "min_cleanable_dirty_ratio": 0.0,
    }
    settings.update(config)
    return PartitionLog(tmp_path / "t-0", LogConfig(**settings))  # type: ignore[arg-type]


def put(
    plog: PartitionLog,
    keys: list[bytes],
    values: list[bytes | None],
    *,
    ts: int = NOW,
    pid: int = -1,
    seq: int = -1,
    transactional: bool = False,
) -> int:
    batch = make_batch(values, keys=keys, timestamps=[ts] * len(keys))  # type: ignore[arg-type]
    if pid >= 0:
        restamp_producer(
            batch,
            0,
            producer_id=pid,
            producer_epoch=0,
            base_sequence=seq,
            transactional=transactional,
        )
    return plog.append(batch, validate_batch(batch), now_ms=ts).base_offset


def everything(plog: PartitionLog) -> list[Record]:
    """Every record a read_uncommitted consumer gets, reading from the log start."""
    out: list[Record] = []
    offset = plog.log_start_offset
    while offset < plog.high_watermark:
        data = plog.read(offset, 1 << 20)
        if not data:
            break
        for pos, header in iter_batches(data, check_crc=False):
            check_crc(data, pos, header)
            if not header.is_control:
                out += [
                    r
                    for r in decode_records(data[pos : pos + header.size])[1]
                    if r.offset >= offset
                ]
            offset = header.next_offset
    return out


def latest(records: list[tuple[int, bytes, bytes | None]], below: int) -> list[int]:
    """Offsets a full cleaning below ``below`` keeps: the newest per key, and all above."""
    last = {key: offset for offset, key, _ in records if offset < below}
    return sorted({*last.values(), *(o for o, _, _ in records if o >= below)})


def fill(
    plog: PartitionLog, count: int, keys: int, start: int = 0
) -> list[tuple[int, bytes, bytes | None]]:
    written = []
    for i in range(start, start + count):
        key, value = f"k{i % keys}".encode(), f"v{i}".encode()
        written.append((put(plog, [key], [value]), key, value))
    return written


def test_cleaning_keeps_the_latest_record_per_key_at_its_offset(tmp_path: Path) -> None:
    plog = compacted(tmp_path)
    written = fill(plog, 120, keys=5)
    before = plog.size
    end = plog.active.base_offset
    result = clean_now(plog, now_ms=NOW)
    assert result is not None and result.end == end and result.groups
    assert plog.cleaner_checkpoint.first_dirty == end
    seen = everything(plog)
    assert [r.offset for r in seen] == latest(written, end)
    values = {o: v for o, _, v in written}
    assert all(r.value == values[r.offset] for r in seen)
    assert plog.size < before / 2
    # A fetch from a removed offset gets the next batch; reading resumes after a restart.
    gone = next(o for o, _, _ in written if o not in {r.offset for r in seen})
    first = parse_header(plog.read(gone, 1))
    assert first.base_offset > gone
    plog.close()
    reopened = compacted(tmp_path)
    assert [r.offset for r in everything(reopened)] == [r.offset for r in seen]
    assert reopened.cleaner_checkpoint.first_dirty == end
    assert clean_now(reopened, now_ms=NOW) is None  # nothing dirty
    # New updates: the next cleaning dedupes the clean part against them.
    more = fill(reopened, 60, keys=5, start=120)
    clean_now(reopened, now_ms=NOW)
    assert [r.offset for r in everything(reopened)] == latest(
        written + more, reopened.active.base_offset
    )
    reopened.close()


def test_tombstones_stay_until_delete_retention_after_their_first_cleaning(tmp_path: Path) -> None:
    plog = compacted(tmp_path, delete_retention_ms=DAY)
    fill(plog, 20, keys=4)
    put(plog, [b"k1"], [None])
    put(plog, [b"k2"], [None])
    fill(plog, 30, keys=2, start=100)  # k0 and k1 again: k1's tombstone is superseded
    fill(plog, 20, keys=1, start=1000)
    clean_now(plog, now_ms=NOW)
    keys = {r.key: r.value for r in everything(plog)}
    assert keys[b"k2"] is None and keys[b"k1"] is not None  # the tombstone is kept for now
    fill(plog, 20, keys=1, start=2000)  # dirty again
    clean_now(plog, now_ms=NOW + DAY - 1)
    assert {r.key: r.value for r in everything(plog)}[b"k2"] is None
    fill(plog, 20, keys=1, start=3000)
    clean_now(plog, now_ms=NOW + DAY + 1)
    assert b"k2" not in {r.key for r in everything(plog)}
    plog.close()


def test_aborted_transactions_go_and_markers_follow_after_the_horizon(tmp_path: Path) -> None:
    plog = compacted(tmp_path, delete_retention_ms=1000)
    put(plog, [b"a"], [b"committed"], pid=7, seq=0, transactional=True)
    plog.write_marker(7, 0, commit=True, coordinator_epoch=0, now_ms=NOW)
    put(plog, [b"b", b"c"], [b"aborted", b"aborted"], pid=7, seq=1, transactional=True)
    abort_at = plog.write_marker(7, 0, commit=False, coordinator_epoch=0, now_ms=NOW)
    put(plog, [b"d"], [b"later"], pid=7, seq=3, transactional=True)
    plog.write_marker(7, 0, commit=True, coordinator_epoch=0, now_ms=NOW)
    assert [a.last_offset for a in plog.aborted.entries] == [abort_at]
    fill(plog, 30, keys=3)
    clean_now(plog, now_ms=NOW)
    values = {r.key: r.value for r in everything(plog)}
    assert values[b"a"] == b"committed" and values[b"d"] == b"later"
    assert b"b" not in values and b"c" not in values
    assert plog.aborted.entries  # the ABORT marker stays until the horizon...
    fill(plog, 30, keys=3, start=30)
    clean_now(plog, now_ms=NOW + 2000)
    assert plog.aborted.entries == []  # ...then goes, with its aborted-index entry
    values = {r.key: r.value for r in everything(plog)}
    assert values[b"a"] == b"committed" and values[b"d"] == b"later"
    plog.close()


def test_a_producers_last_batch_stays_empty_and_its_sequence_survives(tmp_path: Path) -> None:
    plog = compacted(tmp_path)
    put(plog, [b"x"], [b"1"], pid=9, seq=0)
    put(plog, [b"x"], [b"2"], pid=9, seq=1)
    last = put(plog, [b"x"], [b"3"], pid=9, seq=2)
    fill(plog, 20, keys=1)
    put(plog, [b"x"], [b"4"])  # supersedes producer 9's last record
    fill(plog, 20, keys=1, start=50)
    clean_now(plog, now_ms=NOW)
    headers = [h for _, h in iter_batches(plog.read(0, 1 << 20), check_crc=False)]
    assert [(h.base_offset, h.records_count, h.base_sequence) for h in headers][:1] == [
        (last, 0, 2)
    ]
    plog.close()
    for snapshot in (tmp_path / "t-0").glob("*.snapshot"):
        snapshot.unlink()  # rebuild producer state from the (cleaned) log
    reopened = compacted(tmp_path)
    assert reopened.producer_state.producers[9].last_sequence == 2
    put(reopened, [b"x"], [b"5"], pid=9, seq=3)  # the producer goes on
    reopened.close()


def test_a_small_key_map_cleans_the_part_that_fits(tmp_path: Path) -> None:
    plog = compacted(tmp_path)
    written = fill(plog, 120, keys=100)
    end = plog.active.base_offset
    tiny = CleanerConfig(dedupe_buffer_size=16 * 50)  # 45 keys
    result = clean_now(plog, now_ms=NOW, config=tiny)
    assert result is not None and 0 < result.end < end
    assert plog.cleaner_checkpoint.first_dirty == result.end
    while plog.cleaner_checkpoint.first_dirty < end:
        clean_now(plog, now_ms=NOW, config=tiny)
    assert clean_now(plog, now_ms=NOW, config=tiny) is None  # all clean
    assert {r.key: r.value for r in everything(plog)} == {k: v for _, k, v in written}
    plog.close()


def test_nothing_younger_than_min_compaction_lag_or_past_the_lso_is_cleaned(
    tmp_path: Path,
) -> None:
    plog = compacted(tmp_path, min_compaction_lag_ms=60_000)
    fill(plog, 60, keys=2)
    assert cleanable(plog, NOW + 1000) is None
    assert cleanable(plog, NOW + 61_000) is not None
    other = compacted(tmp_path / "lso")
    fill(other, 10, keys=2)
    open_at = put(other, [b"t"], [b"open"], pid=3, seq=0, transactional=True)
    fill(other, 60, keys=2, start=10)
    section = cleanable(other, NOW)
    assert section is not None and section.end <= open_at
    plog.close()
    other.close()


def test_max_compaction_lag_forces_cleaning_and_rolls_the_active_segment(
    tmp_path: Path,
) -> None:
    plog = compacted(tmp_path, min_cleanable_dirty_ratio=0.5, max_compaction_lag_ms=60_000)
    fill(plog, 60, keys=60)
    clean_now(plog, now_ms=NOW)
    fill(plog, 12, keys=60, start=60)
    section = cleanable(plog, NOW + 1000)
    assert section is not None and not needs_cleaning(plog, section)  # not dirty enough
    section = cleanable(plog, NOW + 61_000)
    assert section is not None and section.forced and needs_cleaning(plog, section)
    big = compacted(tmp_path / "roll", segment_bytes=1 << 20, max_compaction_lag_ms=60_000)
    put(big, [b"a"], [b"1"], ts=NOW)
    put(big, [b"a"], [b"2"], ts=NOW + 30_000)
    assert len(big.segments) == 1
    put(big, [b"a"], [b"3"], ts=NOW + 61_000)  # the first record is past the lag: roll
    assert len(big.segments) == 2
    plog.close()
    big.close()


def test_retention_deletes_only_with_the_delete_policy(tmp_path: Path) -> None:
    for policy_delete, survivors in ((False, True), (True, False)):
        plog = compacted(tmp_path / str(policy_delete), delete=policy_delete, retention_ms=1000)
        fill(plog, 60, keys=60)
        segments = len(plog.segments)
        plog.delete_old_segments(NOW + 10_000)
        assert (len(plog.segments) == segments) is survivors
        plog.close()


# -- crash safety -----------------------------------------------------------------------------


def cleaned_but_not_swapped(plog: PartitionLog) -> list[int]:
    """Run the worker only; return the bases of the cleaned segments it wrote."""
    section = cleanable(plog, NOW)
    assert section is not None
    work = plan(plog, section, "t-0", NOW)
    try:
        result = clean(work, memory=1 << 20)
    finally:
        work.close()
    return [g.base for g in result.groups]


def files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.parametrize("step", ["cleaned", "swap", "half-finished", "finished-but-end"])
def test_a_crash_at_any_step_of_the_swap_recovers_a_consistent_log(
    tmp_path: Path, step: str
) -> None:
    plog = compacted(tmp_path, segment_bytes=2000)
    written = fill(plog, 150, keys=6)
    end = plog.active.base_offset
    directory = plog.directory
    bases = cleaned_but_not_swapped(plog)
    assert len(bases) >= 2
    before = everything(plog)
    if step != "cleaned":
        for base in bases:
            swap.commit(directory, base)
    if step == "half-finished":  # the first group's old segments partly deleted
        old = sorted(int(p.stem) for p in directory.glob("*.log"))
        second = next(b for b in old if b > bases[0])
        (directory / f"{second:020d}.log").unlink()
        (directory / f"{bases[0]:020d}.index").unlink()
    if step == "finished-but-end":
        for base in bases:
            swap.finish(directory, base)
            (directory / f"{base:020d}.end.swap").write_text("bogus")
    for segment in plog.segments:  # kill -9: nothing is closed cleanly
        segment.close()
    recovered = compacted(tmp_path, segment_bytes=2000)
    assert not [n for n in files(directory) if n.endswith((".cleaned", ".swap"))]
    offsets = [r.offset for r in everything(recovered)]
    if step == "cleaned":
        assert offsets == [r.offset for r in before]
    else:
        assert offsets == latest(written, end)
    assert len(offsets) == len(set(offsets))
    assert recovered.log_end_offset == written[-1][0] + 1
    clean_now(recovered, now_ms=NOW)
    assert [r.offset for r in everything(recovered)] == latest(written, end)
    recovered.close()
