"""Kafka's SampledStat window rules, shared by the broker's quotas and MM2's metrics."""

from __future__ import annotations

import math

import pytest

from seaway.java.sampled_stat import SampledStat


def test_rate_counts_missing_windows_as_passed_and_empty() -> None:
    # Rate.windowSize's own example: 1 s windows, 2 samples, events at T, T+30, T+60 ms.
    stat = SampledStat(samples=2, window_ms=1000)
    for t in (0, 30, 60):
        stat.record(1, t)
    assert stat.window_size(20) == 1020
    assert stat.rate(60) == pytest.approx(3 / 1.06)
    assert stat.rate(1900) == pytest.approx(3 / 1.9)  # a whole window has passed: no padding


def test_samples_rotate_and_expire_by_their_last_record() -> None:
    stat = SampledStat(samples=2, window_ms=1000)
    stat.record(10, 0)
    stat.record(5, 900)  # same window: last record at 900
    stat.record(7, 1000)  # a new sample
    assert (stat.min(1000), stat.max(1000), stat.avg(1000)) == (5, 10, pytest.approx(22 / 3))
    # 2,000 ms after the first sample *began* it is kept: it saw a record at 900.
    assert stat.max(2000) == 10
    assert stat.max(2900) == 7  # 2 windows without a record: reset
    assert math.isnan(stat.min(5000)) and math.isnan(stat.avg(5000)) and stat.rate(5000) == 0
    assert stat.last_ms == 5000  # resets start the samples over


def test_a_batch_records_its_count_and_bounds() -> None:
    stat = SampledStat(samples=2, window_ms=30_000)
    stat.record(300, 0, count=3, low=50, high=150)
    assert (stat.min(1), stat.max(1), stat.avg(1)) == (50, 150, 100)


def test_throttle_time_as_kafka_rounds_it() -> None:
    stat = SampledStat(samples=11, window_ms=1000)
    stat.record(2 * 1024 * 1024, 0)
    assert stat.throttle_ms(102400, 0) == round((209715.2 - 102400) / 102400 * 10000)
    assert stat.throttle_ms(300000, 0) == 0


@pytest.mark.parametrize(("samples", "window"), [(0, 1000), (2, 0)])
def test_bad_windows_are_refused(samples: int, window: int) -> None:
    with pytest.raises(ValueError, match="samples must be >= 1"):
        SampledStat(samples, window)
