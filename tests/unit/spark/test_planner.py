"""Offset planning: rate limits shared by backlog, range splitting."""

from __future__ import annotations

from seaway.kafka.ranges import OffsetRange
from seaway.spark.kafka.planner import plan_ranges, rate_limit


def test_rate_limit_shares_the_limit_by_backlog() -> None:
    start = {("t", 0): 0, ("t", 1): 100, ("t", 2): 50}
    latest = {("t", 0): 300, ("t", 1): 200, ("t", 2): 50}
    end = rate_limit(start, latest, 100)
    assert end == {("t", 0): 75, ("t", 1): 125, ("t", 2): 50}
    assert rate_limit(start, latest, 1000) == latest
    # A tiny share still moves a partition that has data (Spark rounds a share < 1 up).
    assert rate_limit({("a", 0): 0, ("b", 0): 0}, {("a", 0): 1000, ("b", 0): 1}, 10)[("b", 0)] == 1


def test_plan_ranges_skips_empty_and_splits_by_options() -> None:
    start = {("t", 0): 0, ("t", 1): 10, ("t", 2): 5}
    end = {("t", 0): 100, ("t", 1): 10, ("t", 2): 25}
    assert plan_ranges(start, end) == [OffsetRange("t", 0, 0, 100), OffsetRange("t", 2, 5, 25)]
    pieces = plan_ranges(start, end, min_partitions=6)
    assert len(pieces) >= 6
    assert sum(r.size for r in pieces) == 120
    capped = plan_ranges(start, end, max_records_per_partition=30)
    assert max(r.size for r in capped) <= 30
    assert [(r.start, r.end) for r in capped if r.partition == 0] == [
        (0, 25),
        (25, 50),
        (50, 75),
        (75, 100),
    ]
