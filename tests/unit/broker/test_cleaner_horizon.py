"""Tombstones whose delete horizon passes inside a batch: the cleaner's key scan drops those
below one offset, and falls back to record-by-record when no single offset splits them."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from seaway.broker.log import key_scan
from seaway.broker.log.cleaner import CleanPlan, _Cleaner, clean
from seaway.broker.log.config import LogConfig
from seaway.broker.log.log_cleaner import cleanable, plan
from seaway.broker.log.partition import PartitionLog
from seaway.protocol.record_codec import decode_records
from seaway.protocol.records import iter_batches, validate_batch
from tests.unit.broker.batches import make_batch

NOW = 1_700_000_000_000
RETENTION = 1000
PASSED, NOT_PASSED = NOW - 2 * RETENTION, NOW  # first-cleaned times of a clean range


def _plan(first_dirty: int, ranges: tuple[tuple[int, int], ...]) -> CleanPlan:
    return CleanPlan("t-0", Path(), (), first_dirty, (), {}, ranges, NOW, RETENTION, 1, 1)


def test_the_horizon_splits_a_batch_where_the_delete_horizon_stops_passing() -> None:
    rng = random.Random(3)
    for _ in range(300):
        ends = sorted(rng.sample(range(1, 100), rng.randrange(0, 6)))
        times = [rng.choice([PASSED, NOT_PASSED]) for _ in ends]
        first_dirty = rng.randrange(ends[-1], 120) if ends else rng.randrange(0, 120)
        cleaner = _Cleaner(_plan(first_dirty, tuple(zip(ends, times, strict=True))), 1, None, None)
        first = rng.randrange(0, 110)
        last = first + rng.randrange(0, 30)
        passed = [cleaner._horizon_passed(o) for o in range(first, last + 1)]
        horizon = cleaner._tombstone_horizon(first, last)
        if horizon is None:  # passed, then not, then passed again
            assert True in passed[passed.index(False) :]
        else:
            assert passed == [o < horizon for o in range(first, last + 1)]


@pytest.mark.parametrize("fast", [True, False])
def test_tombstones_go_where_their_range_passed_the_delete_horizon(
    tmp_path: Path, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not fast:  # the Python loops, as where the C module is not built
        for name in ("_map_keys_c", "_retain_c"):
            monkeypatch.setattr(key_scan, name, None)
    config = LogConfig(compact=True, delete=False, segment_bytes=600, index_interval_bytes=100)
    plog = PartitionLog(tmp_path / "t-0", config)
    try:
        written: list[tuple[int, bool]] = []  # (offset, tombstone); every key is new
        for b in range(8):
            values = [None if i % 3 == 0 else b"v%d" % i for i in range(10)]
            batch = make_batch(values, keys=[b"k%d-%d" % (b, i) for i in range(10)],
                               timestamps=[NOW] * 10)  # fmt: skip
            base = plog.append(batch, validate_batch(batch), now_ms=NOW).base_offset
            written += [(base + i, v is None) for i, v in enumerate(values)]
        section = cleanable(plog, NOW)
        assert section is not None and section.end >= 60
        # [0, 13) passed, [13, 27) not, [27, 45) passed, dirty from 45: every cut mid-batch
        ranges = ((13, PASSED), (27, NOT_PASSED), (45, PASSED))
        work = dataclasses.replace(
            plan(plog, section, "t-0", NOW),
            first_dirty=45,
            clean_ranges=ranges,
            delete_retention_ms=RETENTION,
        )
        try:
            result = clean(work, memory=1 << 20)
        finally:
            work.close()
        kept = []
        for path in sorted((tmp_path / "t-0").glob("*.log.cleaned")):
            data = path.read_bytes()
            for at, header in iter_batches(data, check_crc=False):
                kept += [r.offset for r in decode_records(data[at : at + header.size])[1]]

        def passed(offset: int) -> bool:
            return offset < 13 or 27 <= offset < 45

        expected = [o for o, tomb in written if o < section.end and not (tomb and passed(o))]
        assert kept == expected
        assert result.records_written == len(expected)
    finally:
        plog.close()
