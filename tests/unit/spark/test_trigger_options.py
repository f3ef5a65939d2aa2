"""minOffsetsPerTrigger, maxTriggerDelay and maxOffsetsPerTrigger in the stream's admission."""

from __future__ import annotations

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows, ReadMinRows

from seaway.spark.kafka import stream
from seaway.spark.kafka.offsets import PartitionOffsets, to_json_dict
from seaway.spark.kafka.options import parse_source_options
from seaway.spark.kafka.stream import KafkaMicroBatchReader


class FakeClient:
    """Two partitions of topic ``t`` whose log ends the test moves."""

    def __init__(self) -> None:
        self.ends: PartitionOffsets = {("t", 0): 0, ("t", 1): 0}

    def partitions(self, *, require_topics: bool = True) -> set[tuple[str, int]]:
        return set(self.ends)

    def latest(self, partitions: set[tuple[str, int]]) -> PartitionOffsets:
        return {tp: self.ends[tp] for tp in partitions}

    def earliest(self, partitions: set[tuple[str, int]]) -> PartitionOffsets:
        return dict.fromkeys(partitions, 0)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(stream.time, "monotonic", clock)
    return clock


def reader(**options: str) -> tuple[KafkaMicroBatchReader, FakeClient]:
    parsed = parse_source_options(
        {"kafka.bootstrap.servers": "h:9092", "subscribe": "t", **options}, streaming=True
    )
    r = KafkaMicroBatchReader(parsed)
    client = FakeClient()
    r._client = client  # type: ignore[assignment]
    return r, client


def rows(r: KafkaMicroBatchReader, start: dict) -> int:
    """Records the next batch would read from ``start``."""
    end = r.latestOffset(start, r.getDefaultReadLimit())
    return sum(end["t"][p] - start["t"][p] for p in start["t"])


def test_min_rows_or_max_delay_whichever_first(clock: Clock) -> None:
    r, client = reader(minOffsetsPerTrigger="10", maxTriggerDelay="30s")
    assert r.getDefaultReadLimit() == ReadMinRows(10)
    start = to_json_dict({("t", 0): 0, ("t", 1): 0})
    client.ends = {("t", 0): 2, ("t", 1): 1}
    assert rows(r, start) == 3  # the first batch is never held, as in Spark
    start = to_json_dict({("t", 0): 2, ("t", 1): 1})
    client.ends = {("t", 0): 6, ("t", 1): 4}
    clock.now += 29
    assert rows(r, start) == 0  # 7 < 10 records and under 30 s: held
    client.ends = {("t", 0): 8, ("t", 1): 5}
    assert rows(r, start) == 10  # enough records
    start = to_json_dict({("t", 0): 8, ("t", 1): 5})
    client.ends = {("t", 0): 9, ("t", 1): 5}
    clock.now += 29.9
    assert rows(r, start) == 0
    clock.now += 0.1
    assert rows(r, start) == 1  # maxTriggerDelay since the last batch


def test_min_and_max_rows_combine(clock: Clock) -> None:
    r, client = reader(minOffsetsPerTrigger="10", maxOffsetsPerTrigger="20")
    start = to_json_dict({("t", 0): 0, ("t", 1): 0})
    client.ends = {("t", 0): 50, ("t", 1): 50}
    assert rows(r, start) == 20
    assert r.latestOffset(start, ReadAllAvailable()) == to_json_dict(client.ends)
    assert r.latestOffset(start, ReadMaxRows(4)) == to_json_dict({("t", 0): 2, ("t", 1): 2})


def test_available_now_is_never_held(clock: Clock) -> None:
    r, client = reader(minOffsetsPerTrigger="1000")
    client.ends = {("t", 0): 3, ("t", 1): 0}
    r.prepareForTriggerAvailableNow()
    start = to_json_dict({("t", 0): 0, ("t", 1): 0})
    assert rows(r, start) == 3
    assert rows(r, start) == 3


def test_default_limits() -> None:
    assert reader()[0].getDefaultReadLimit() == ReadAllAvailable()
    assert reader(maxOffsetsPerTrigger="5")[0].getDefaultReadLimit() == ReadMaxRows(5)
