"""The metrics history: fixed-size rings, rates from counters, aggregation by label, bounds
on series, and sampling from a real prometheus_client registry or Prometheus text."""

from __future__ import annotations

import itertools
import math
import time

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest

from seaway.metrics_history import MetricsHistory, Track, text_source


class Clock:
    """Epoch seconds that move only when told to."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float = 5.0) -> None:
        self.now += seconds


def registry_with_bytes() -> tuple[CollectorRegistry, Counter]:
    registry = CollectorRegistry()
    counter = Counter("bytes", "Bytes in.", ["topic", "partition"], registry=registry)
    return registry, counter


def values(history: MetricsHistory, name: str, **labels: str) -> list[float | None]:
    for series in history.snapshot()["series"]:
        if series["name"] == name and series["labels"] == labels:
            return list(series["values"])
    raise AssertionError(f"no series {name}{labels} in {history.snapshot()['series']}")


def test_rates_from_counters_summed_over_the_labels_not_kept() -> None:
    registry, counter = registry_with_bytes()
    clock = Clock()
    history = MetricsHistory(
        registry.collect,
        [
            Track("bytes_per_s", "bytes_total", "rate", by=("topic",)),
            Track("all_bytes_per_s", "bytes_total", "rate"),
        ],
        clock=clock,
    )
    counter.labels("a", "0").inc(100)
    counter.labels("a", "1").inc(50)
    history.sample()
    clock.tick(5)
    counter.labels("a", "0").inc(400)
    counter.labels("b", "0").inc(10)
    history.sample()
    clock.tick(10)
    counter.labels("a", "1").inc(200)
    history.sample()
    # the first point of a rate is unknown; then (500+100 - 150) / 5 s and 200 / 10 s
    assert values(history, "bytes_per_s", topic="a") == [None, 80.0, 20.0]
    assert values(history, "bytes_per_s", topic="b") == [None, None, 0.0]
    assert values(history, "all_bytes_per_s") == [None, 82.0, 20.0]
    assert history.snapshot()["times"] == [clock.now - 15, clock.now - 10, clock.now]


def test_a_counter_that_went_down_was_reset() -> None:
    counts = iter([100.0, 160.0, 30.0])
    clock = Clock()

    def source() -> list:
        registry = CollectorRegistry()
        Gauge("requests_total", "A counter read from elsewhere.", registry=registry).set(
            next(counts)
        )
        return list(registry.collect())

    history = MetricsHistory(source, [Track("rps", "requests_total", "rate")], clock=clock)
    for _ in range(3):
        history.sample()
        clock.tick(2)
    assert values(history, "rps") == [None, 30.0, 15.0]  # 30 since the reset, over 2 s


def test_gauges_kept_as_read_and_maxed() -> None:
    registry = CollectorRegistry()
    lag = Gauge("lag", "Records behind.", ["flow", "partition"], registry=registry)
    lag.labels("A->B", "0").set(3)
    lag.labels("A->B", "1").set(7)
    lag.labels("A->C", "0").set(float("nan"))  # skipped: no point
    clock = Clock()
    history = MetricsHistory(
        registry.collect,
        [Track("lag", "lag", by=("flow",)), Track("worst", "lag", by=("flow",), agg="max")],
        clock=clock,
    )
    history.sample()
    assert values(history, "lag", flow="A->B") == [10.0]
    assert values(history, "worst", flow="A->B") == [7.0]
    assert all(s["labels"] != {"flow": "A->C"} for s in history.snapshot()["series"])


def test_the_ring_keeps_the_last_window_only() -> None:
    registry = CollectorRegistry()
    gauge = Gauge("g", "A gauge.", registry=registry)
    clock = Clock()
    history = MetricsHistory(
        registry.collect, [Track("g", "g")], interval_s=5, window_s=20, clock=clock
    )
    assert history.capacity == 4
    for i in range(10):
        gauge.set(i)
        history.sample()
        clock.tick(5)
    snapshot = history.snapshot()
    assert values(history, "g") == [6.0, 7.0, 8.0, 9.0]
    assert snapshot["times"] == [clock.now - 20 + 5 * i for i in range(4)]
    assert snapshot["interval_s"] == 5 and snapshot["window_s"] == 20
    since = history.snapshot(since=snapshot["times"][1])
    assert since["times"] == snapshot["times"][2:]
    assert since["series"][0]["values"] == [8.0, 9.0]


def test_series_are_bounded_and_forgotten_after_a_window() -> None:
    registry, counter = registry_with_bytes()
    clock = Clock()
    history = MetricsHistory(
        registry.collect,
        [Track("bytes", "bytes_total", by=("topic",))],
        interval_s=1,
        window_s=3,
        max_series=2,
        clock=clock,
    )
    for topic in ("a", "b", "c"):
        counter.labels(topic, "0").inc()
    history.sample()
    assert [s["labels"]["topic"] for s in history.snapshot()["series"]] == ["a", "b"]
    counter.remove("a", "0")
    for _ in range(4):
        clock.tick(1)
        history.sample()
    # "a" was gone for a whole window (3 points): dropped, and "c" took its room
    assert {s["labels"]["topic"] for s in history.snapshot()["series"]} == {"b", "c"}
    assert values(history, "bytes", topic="c") == [None, None, 1.0]


def test_names_filter_and_query() -> None:
    registry = CollectorRegistry()
    Gauge("x", "x", registry=registry).set(1)
    Gauge("y", "y", registry=registry).set(2)
    history = MetricsHistory(registry.collect, [Track("x", "x"), Track("y", "y")])
    history.sample()
    assert [s["name"] for s in history.query(["y"], None)["series"]] == ["y"]
    assert [s["name"] for s in history.query([], "0")["series"]] == ["x", "y"]
    with pytest.raises(ValueError, match="since must be a time in epoch seconds, not 'soon'"):
        history.query([], "soon")


def test_tracks_of_one_name_must_agree() -> None:
    with pytest.raises(ValueError, match="tracks named 'r' differ"):
        MetricsHistory(list, [Track("r", "a_total", "rate"), Track("r", "b_total")])
    with pytest.raises(ValueError, match="interval_s > 0"):
        MetricsHistory(list, [], interval_s=0)


def test_text_source_and_the_sampling_thread() -> None:
    registry, counter = registry_with_bytes()
    counter.labels("t", "0").inc(5)
    history = MetricsHistory(
        text_source(lambda: generate_latest(registry)),
        [Track("bytes", "bytes_total", by=("topic",))],
        interval_s=0.05,
    )
    with history:
        deadline = time.monotonic() + 10
        while len(history.snapshot()["times"]) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
    points = values(history, "bytes", topic="t")
    assert len(points) >= 3 and set(points) == {5.0}
    times = history.snapshot()["times"]
    assert all(b > a for a, b in itertools.pairwise(times))
    assert not any(math.isnan(t) for t in times)


def test_a_failing_source_costs_a_point_not_the_thread() -> None:
    calls = []

    def source() -> list:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("scrape failed")
        registry = CollectorRegistry()
        Gauge("g", "g", registry=registry).set(1)
        return list(registry.collect())

    history = MetricsHistory(source, [Track("g", "g")], interval_s=0.02)
    with history:
        deadline = time.monotonic() + 10
        while not history.snapshot()["series"] and time.monotonic() < deadline:
            time.sleep(0.02)
    assert values(history, "g")[0] == 1.0
