"""A micro-batch's ranges grouped into at most as many Spark tasks as the session runs at
once (:func:`seaway.mirror.copy.source.group_ranges`): every range exactly once, the
records spread evenly, one task per range when there are few or no limit is given."""

from __future__ import annotations

import random

import pytest

from seaway.kafka.ranges import OffsetRange
from seaway.mirror.copy.source import group_ranges
from seaway.spark.kafka.options import parse_source_options
from seaway.spark.kafka.stream import KafkaRangePartition

OPTIONS = parse_source_options(
    {"kafka.bootstrap.servers": "a:9092", "subscribe": "t"}, streaming=True
)


def _parts(sizes: list[int]) -> list[KafkaRangePartition]:
    return [
        KafkaRangePartition(OPTIONS, OffsetRange("t", i, 100, 100 + n)) for i, n in enumerate(sizes)
    ]


@pytest.mark.parametrize("seed", range(20))
def test_every_range_once_in_at_most_tasks_groups_of_even_load(seed: int) -> None:
    rng = random.Random(seed)
    sizes = [rng.randrange(0, 10_000) for _ in range(rng.randrange(1, 40))]
    tasks = rng.randrange(1, 9)
    groups = group_ranges(_parts(sizes), tasks)
    assert len(groups) <= tasks
    ranges = sorted((p.range for g in groups for p in g), key=lambda r: r.partition)
    assert [r.size for r in ranges] == sizes
    loads = [sum(p.range.size for p in g) for g in groups]
    if len(sizes) > tasks:  # greedy: no group exceeds the even share by more than one range
        assert max(loads) - min(loads) <= max(sizes)


def test_one_task_per_range_when_few_ranges_or_no_limit() -> None:
    parts = _parts([5, 7, 9])
    assert group_ranges(parts, 8) == [[p] for p in parts]
    assert group_ranges(parts, 0) == [[p] for p in parts]


def test_the_largest_ranges_are_placed_first() -> None:
    groups = group_ranges(_parts([4, 4, 4, 4, 1]), 2)
    assert sorted(sum(p.range.size for p in g) for g in groups) == [8, 9]
