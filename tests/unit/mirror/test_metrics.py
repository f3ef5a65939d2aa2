"""Mirror metrics: per-partition stats folded as records are copied, MM2's mbean names and
attributes, Kafka-style windows, the Prometheus text, and the driver's HTTP endpoint."""

from __future__ import annotations

import itertools
import json
import math
import pickle
import re
import threading
import urllib.error
import urllib.request

import pytest

from seaway.mirror.metrics import (
    REPLICATION_LAG,
    MirrorMetrics,
    PartitionStats,
    RunningStats,
    mbean_name,
    merge_stats,
)
from seaway.mirror.metrics_server import MetricsServer, exposition

NOW = 1_700_000_010_000
SOURCE_ATTRIBUTES = {
    "record-count",
    "record-rate",
    "record-age-ms",
    "record-age-ms-min",
    "record-age-ms-max",
    "record-age-ms-avg",
    "byte-count",
    "byte-rate",
    "replication-latency-ms",
    "replication-latency-ms-min",
    "replication-latency-ms-max",
    "replication-latency-ms-avg",
}


ROWS = [
    ("orders", 0, NOW - 500, b"aaaa"),
    ("orders", 1, NOW - 100, b"b"),
    ("orders", 0, NOW - 300, b"cc"),
    ("orders", 0, None, b"ddd"),  # no timestamp: counted, not an age sample
    ("orders", 1, NOW - 50, None),  # a tombstone: 0 bytes
    ("pay", 0, NOW - 1000, b"eeeeeeeeee"),
    ("orders", 0, NOW - 200, b""),
]


# --- stats folded as records are copied ------------------------------------------------------


def running(rows: list[tuple[str, int, int | None, bytes | None]], at_ms: int = NOW) -> dict:
    """Each partition's :class:`RunningStats` of *rows*, one record at a time, read at *at_ms*."""
    out: dict[tuple[str, int], RunningStats] = {}
    for topic, partition, stamp, value in rows:
        stats = out.setdefault((topic, partition), RunningStats())
        stats.add(1, len(value or b""), [] if stamp is None else [stamp], at_ms)
    return out


def acked_stats(rows: list[tuple[str, int, int | None, bytes | None]], ack_delay: int = 20) -> dict:
    return {k: s.acked(NOW + ack_delay) for k, s in running(rows).items()}


def test_running_stats_per_partition() -> None:
    stats = acked_stats(ROWS, ack_delay=40)
    assert set(stats) == {("orders", 0), ("orders", 1), ("pay", 0)}
    p0 = stats[("orders", 0)]
    assert (p0.records, p0.bytes, p0.timed) == (4, 4 + 2 + 3 + 0, 3)
    assert (p0.age_min_ms, p0.age_max_ms, p0.age_sum_ms) == (200, 500, 1000)
    assert p0.age_last_ms == 200  # the partition's last record with a timestamp
    assert p0.age_avg_ms == pytest.approx(1000 / 3)
    assert (p0.latency_count, p0.latency_min_ms, p0.latency_max_ms) == (3, 240, 540)
    assert (p0.latency_sum_ms, p0.latency_last_ms) == (1120, 240)
    p1 = stats[("orders", 1)]
    assert (p1.records, p1.bytes, p1.age_min_ms, p1.age_max_ms, p1.age_last_ms) == (
        2,
        1,
        50,
        100,
        50,
    )
    assert stats[("pay", 0)] == PartitionStats(
        1, 10, 1, 1000, 1000, 1000, 1000, 1, 1040, 1040, 1040, 1040
    )
    untimed = RunningStats()
    untimed.add(2, 5, [], NOW)
    assert untimed.acked(NOW) == PartitionStats(records=2, bytes=5)
    assert math.isnan(untimed.acked(NOW).latency_avg_ms)


def test_running_stats_take_each_batch_at_its_own_read_time() -> None:
    stats = RunningStats()
    stats.add(1, 1, [NOW - 100], NOW)
    stats.add(1, 2, [NOW - 100], NOW + 400)
    stats.add(0, 0, [], NOW + 500)
    s = stats.acked(NOW + 1000)
    assert (s.records, s.bytes, s.age_min_ms, s.age_max_ms) == (2, 3, 100, 500)
    # both records were acked at NOW + 1000 and written at NOW - 100
    assert (s.latency_min_ms, s.latency_max_ms, s.latency_count) == (1100, 1100, 2)


def test_running_stats_of_whole_batches() -> None:
    """A batch read whole: its records spread evenly between its first and max timestamps."""
    stats = RunningStats()
    stats.add_batch(4, 100, NOW - 400, NOW - 100, NOW)
    s = stats.acked(NOW + 10)
    assert (s.records, s.bytes, s.timed) == (4, 100, 4)
    assert (s.age_min_ms, s.age_max_ms, s.age_sum_ms, s.age_last_ms) == (100, 400, 1000, 100)
    assert (s.latency_min_ms, s.latency_max_ms, s.latency_sum_ms) == (110, 410, 1040)
    untimed = RunningStats()
    untimed.add_batch(3, 30, -1, -1, NOW)  # no timestamps (Kafka's -1)
    assert untimed.acked(NOW) == PartitionStats(records=3, bytes=30)


def test_merge_equals_the_whole() -> None:
    whole = acked_stats(ROWS)
    merged = merge_stats(acked_stats(ROWS[:3]), acked_stats(ROWS[3:]))
    assert merged == whole


def test_merge_rules() -> None:
    a = PartitionStats(2, 10, 2, 5, 50, 55, 5, 2, 15, 60, 75, 15)
    b = PartitionStats(1, 3, 1, 7, 7, 7, 7)
    ab = a.merge(b)
    assert (ab.records, ab.bytes, ab.timed) == (3, 13, 3)
    assert (ab.age_min_ms, ab.age_max_ms, ab.age_sum_ms, ab.age_last_ms) == (5, 50, 62, 7)
    # b had no latency samples: a's stay as they are
    assert (ab.latency_count, ab.latency_min_ms, ab.latency_max_ms, ab.latency_last_ms) == (
        2,
        15,
        60,
        15,
    )
    untimed = PartitionStats(records=4, bytes=4)
    assert untimed.merge(b).age_min_ms == 7 and b.merge(untimed).age_last_ms == 7
    assert PartitionStats().merge(a) == a


def test_stats_travel_pickled_and_as_json() -> None:
    stats = acked_stats(ROWS)
    assert pickle.loads(pickle.dumps(stats)) == stats
    for s in stats.values():
        assert PartitionStats.from_dict(json.loads(json.dumps(s.to_dict()))) == s


# --- the registry -----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_source_mbean_names_and_attributes_are_mm2s() -> None:
    metrics = MirrorMetrics()
    metrics.record_source("B", acked_stats([("A.orders", 3, NOW - 100, b"abc")]))
    metrics.record_source("B", acked_stats([("A.orders", 3, NOW - 10, b"a")]), source_alias="A")
    snapshot = metrics.snapshot()
    assert set(snapshot) == {
        "kafka.connect.mirror:type=MirrorSourceConnector,target=B,topic=A.orders,partition=3",
        "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.orders,partition=3",
    }
    for attributes in snapshot.values():
        assert set(attributes) == SOURCE_ATTRIBUTES
    four = snapshot[
        "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.orders,partition=3"
    ]
    assert four["record-count"] == 1 and four["byte-count"] == 1
    assert four["record-age-ms"] == four["record-age-ms-max"] == 10
    assert four["replication-latency-ms"] == 30


def test_source_values_over_batches() -> None:
    metrics = MirrorMetrics()
    metrics.record_source("B", acked_stats([("t", 0, NOW - 100, b"ab"), ("t", 0, NOW - 300, b"c")]))
    metrics.record_source("B", acked_stats([("t", 0, NOW - 50, b"defg")], ack_delay=5))
    a = metrics.snapshot()[
        "kafka.connect.mirror:type=MirrorSourceConnector,target=B,topic=t,partition=0"
    ]
    assert (a["record-count"], a["byte-count"]) == (3, 7)
    assert (a["record-age-ms"], a["record-age-ms-min"], a["record-age-ms-max"]) == (50, 50, 300)
    assert a["record-age-ms-avg"] == pytest.approx(150)
    assert a["replication-latency-ms"] == 55
    assert (a["replication-latency-ms-min"], a["replication-latency-ms-max"]) == (55, 320)
    assert a["replication-latency-ms-avg"] == pytest.approx((120 + 320 + 55) / 3)


def test_checkpoint_mbean() -> None:
    metrics = MirrorMetrics()
    for latency in (30, 10, 20):
        metrics.record_checkpoint("A", "B", "app", "A.orders", 1, latency)
    name = (
        "kafka.connect.mirror:type=MirrorCheckpointConnector,"
        "source=A,target=B,group=app,topic=A.orders,partition=1"
    )
    assert metrics.snapshot() == {
        name: {
            "checkpoint-latency-ms": 20,
            "checkpoint-latency-ms-min": 10,
            "checkpoint-latency-ms-max": 30,
            "checkpoint-latency-ms-avg": 20,
        }
    }


def test_rates_and_windows_like_kafka() -> None:
    clock = Clock()
    metrics = MirrorMetrics(clock=clock)
    name = "kafka.connect.mirror:type=MirrorSourceConnector,target=B,topic=t,partition=0"
    metrics.record_source("B", acked_stats([("t", 0, NOW - 7, b"0123456789")] * 300))
    # Kafka's Rate (what MM2's Meter measures): before samples - 1 whole windows have passed,
    # the missing ones count as passed and empty: 10 s elapsed + one 30 s window.
    clock.now += 10
    a = metrics.snapshot()[name]
    assert (a["record-rate"], a["byte-rate"]) == (300 / 40, 3000 / 40)
    clock.now += 35  # 45 s since the first sample
    a = metrics.snapshot()[name]
    assert a["record-rate"] == pytest.approx(300 / 45)
    metrics.record_source("B", acked_stats([("t", 0, NOW - 9, b"")] * 90))  # a second sample
    a = metrics.snapshot()[name]
    assert a["record-rate"] == pytest.approx(390 / 45)
    assert (a["record-age-ms-min"], a["record-age-ms-max"]) == (7, 9)
    clock.now += 20  # 65 s: the first sample (no record for two windows) has expired
    a = metrics.snapshot()[name]
    assert a["record-rate"] == pytest.approx(90 / (20 + 30))  # 20 s since the second began
    assert a["record-age-ms-min"] == a["record-age-ms-max"] == 9
    clock.now += 60  # everything expired: rates 0, min/max/avg NaN, counts and last values stay
    a = metrics.snapshot()[name]
    assert a["record-rate"] == 0 and a["byte-rate"] == 0
    assert math.isnan(a["record-age-ms-max"]) and math.isnan(a["replication-latency-ms-avg"])
    assert (a["record-count"], a["byte-count"], a["record-age-ms"]) == (390, 3000, 9)


def test_replication_lag_and_canary_are_named_as_seaway_extensions() -> None:
    metrics = MirrorMetrics()
    metrics.record_replication_lag("B", {("orders", 0): 42}, "A", {"orders": "A.orders"})
    metrics.record_replication_lag("B", {("x", 1): 7}, "A", lambda t: f"A.{t}")
    metrics.record_canary("A", "B", 12.5, pending=1, alarm_count=0)
    snapshot = metrics.snapshot()
    lag = snapshot[
        "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.orders,partition=0"
    ]
    assert lag[REPLICATION_LAG] == 42 and REPLICATION_LAG == "seaway-replication-lag"
    assert lag["record-count"] == 0  # nothing copied yet
    assert (
        snapshot[
            "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.x,partition=1"
        ][REPLICATION_LAG]
        == 7
    )
    canary = snapshot["seaway.mirror:type=Canary,source=A,target=B"]
    assert canary["canary-latency-ms"] == 12.5 and canary["canary-latency-ms-max"] == 12.5
    assert canary["canary-pending"] == 1 and canary["canary-alarm-count"] == 0


def test_copied_offsets() -> None:
    metrics = MirrorMetrics()
    metrics.record_copied("A", "B", [("t", 0, 5), ("t", 1, 9)])
    metrics.record_copied("A", "B", [("t", 0, 3), ("t", 0, 8)])  # never goes back
    assert metrics.copied("A", "B") == {("t", 0): 8, ("t", 1): 9}
    assert metrics.copied("A", "C") == {}


def test_concurrent_recording() -> None:
    metrics = MirrorMetrics()
    stats = acked_stats([("t", p, NOW - 1, b"xy") for p in range(4)])

    def work() -> None:
        for _ in range(500):
            metrics.record_source("B", stats)
            metrics.snapshot()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in range(4):
        a = metrics.snapshot()[
            f"kafka.connect.mirror:type=MirrorSourceConnector,target=B,topic=t,partition={p}"
        ]
        assert (a["record-count"], a["byte-count"]) == (2000, 4000)


def test_mbean_values_quoted_as_jmx_sanitize() -> None:
    tags = (("source", "A"), ("group", 'my "app",v2*'), ("topic", "A.t"))
    assert mbean_name("d", "T", tags) == r'd:type=T,source=A,group="my \"app\",v2\*",topic=A.t'


# --- Prometheus -------------------------------------------------------------------------------

LINE = re.compile(
    r'(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)\{(?P<labels>(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\}'
    r" (?P<value>NaN|[+-]Inf|-?[0-9.eE+-]+)"
)
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
Sample = tuple[str, frozenset[tuple[str, str]]]


def parse_prometheus(text: str) -> dict[Sample, float]:
    """``(name, labels)`` -> value; the label order is the exposition's business."""
    samples = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.fullmatch(
                r"# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* gauge)", line
            ), line
            continue
        match = LINE.fullmatch(line)
        assert match, f"not name{{labels}} value: {line!r}"
        labels = frozenset(
            (k, re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], v))
            for k, v in LABEL.findall(match["labels"])
        )
        samples[(match["name"], labels)] = float(match["value"])
    return samples


def sample(name: str, **labels: str) -> Sample:
    return (name, frozenset(labels.items()))


def test_prometheus_text_parses() -> None:
    metrics = MirrorMetrics()
    metrics.record_source("B", acked_stats([("A.t", 0, NOW - 80, b"abc")]), "A")
    metrics.record_checkpoint("A", "B", 'we"ird,group\\x', "A.t", 0, 9)
    metrics.record_canary("A", "B", 3, pending=0)
    text = exposition(metrics).decode()
    samples = parse_prometheus(text)
    labels = {"source": "A", "target": "B", "topic": "A.t", "partition": "0"}
    prefix = "kafka_connect_mirror_mirrorsourceconnector_"
    assert samples[sample(prefix + "record_age_ms_max", **labels)] == 80
    assert samples[sample(prefix + "record_count", **labels)] == 1
    assert samples[sample(prefix + "replication_latency_ms", **labels)] == 100
    assert len([k for k in samples if k[0].startswith(prefix)]) == 12
    group = {**labels, "group": 'we"ird,group\\x'}
    name = "kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms"
    assert samples[sample(name, **group)] == 9
    assert samples[sample("seaway_mirror_canary_canary_latency_ms", source="A", target="B")] == 3
    assert "# TYPE kafka_connect_mirror_mirrorsourceconnector_record_count gauge" in text
    assert exposition(MirrorMetrics()) == b""


# --- the driver's endpoint --------------------------------------------------------------------


def test_server_serves_metrics_and_history() -> None:
    metrics = MirrorMetrics()
    stats = acked_stats([("A.t", 0, NOW - 80, b"abc"), ("A.t", 1, NOW - 20, b"d")])
    with MetricsServer(metrics) as server:
        metrics.record_source("B", stats, source_alias="A")
        with urllib.request.urlopen(server.url + "/metrics", timeout=5) as response:
            assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            samples = parse_prometheus(response.read().decode())
        labels = {"source": "A", "target": "B", "topic": "A.t", "partition": "1"}
        name = "kafka_connect_mirror_mirrorsourceconnector_byte_count"
        assert samples[sample(name, **labels)] == 1
        with urllib.request.urlopen(server.url + "/mbeans", timeout=5) as response:
            mbeans = json.load(response)
        name = "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,"
        assert mbeans[name + "topic=A.t,partition=0"]["record-age-ms"] == 80
        gone = urllib.request.Request(server.url + "/report", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError, match=r"404|405"):
            urllib.request.urlopen(gone, timeout=5)  # no loopback reports any more
        # the history per flow: a gauge at once, records/s from the second sample on
        server.history.sample()
        metrics.record_source("B", stats, source_alias="A")
        server.history.sample()
        with urllib.request.urlopen(server.url + "/api/history", timeout=5) as response:
            history = json.load(response)
        series = {s["name"]: s["values"] for s in history["series"]}
        assert {s["labels"]["target"] for s in history["series"]} == {"B"}
        assert series["replication_latency_ms_max"][-1] == 100
        times, rates = history["times"], series["records_per_s"]
        steps = zip(itertools.pairwise(times), rates[1:], strict=True)
        copied = sum(r * (t - t0) for (t0, t), r in steps if r)
        assert copied == pytest.approx(2)  # the second batch's records
