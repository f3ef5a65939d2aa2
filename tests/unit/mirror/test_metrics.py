"""Mirror metrics: per-partition stats from Arrow batches, MM2's mbean names and attributes,
Kafka-style windows, the Prometheus text, and the driver's HTTP endpoint."""

from __future__ import annotations

import json
import math
import pickle
import re
import threading
import urllib.error
import urllib.request

import pyarrow as pa
import pytest

from seaway.mirror.metrics import (
    REPLICATION_LAG,
    MirrorMetrics,
    PartitionStats,
    RunningStats,
    StatsCollector,
    batch_stats,
    latency_from_ack,
    mbean_name,
    merge_stats,
    stats_of_batch,
)
from seaway.mirror.metrics_server import MetricsServer, apply_report, report_json, send_report

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


def kafka_batch(
    rows: list[tuple[str, int, int | None, bytes | None]], unit: str = "us"
) -> pa.RecordBatch:
    """A batch shaped like Seaway's Kafka source: (topic, partition, timestamp ms, value)."""
    scale = {"s": 0.001, "ms": 1, "us": 1000, "ns": 1_000_000}[unit]
    return pa.record_batch(
        {
            "key": pa.array([b"k"] * len(rows), pa.binary()),
            "value": pa.array([r[3] for r in rows], pa.binary()),
            "topic": pa.array([r[0] for r in rows], pa.string()),
            "partition": pa.array([r[1] for r in rows], pa.int32()),
            "offset": pa.array(range(len(rows)), pa.int64()),
            "timestamp": pa.array(
                [None if r[2] is None else int(r[2] * scale) for r in rows],
                pa.timestamp(unit, tz="UTC"),
            ),
        }
    )


ROWS = [
    ("orders", 0, NOW - 500, b"aaaa"),
    ("orders", 1, NOW - 100, b"b"),
    ("orders", 0, NOW - 300, b"cc"),
    ("orders", 0, None, b"ddd"),  # no timestamp: counted, not an age sample
    ("orders", 1, NOW - 50, None),  # a tombstone: 0 bytes
    ("pay", 0, NOW - 1000, b"eeeeeeeeee"),
    ("orders", 0, NOW - 200, b""),
]


# --- stats of a batch -------------------------------------------------------------------------


def test_batch_stats_group_by_partition() -> None:
    stats = stats_of_batch(kafka_batch(ROWS), NOW, {"orders": "A.orders"})
    assert set(stats) == {("A.orders", 0), ("A.orders", 1), ("pay", 0)}
    p0 = stats[("A.orders", 0)]
    assert (p0.records, p0.bytes, p0.timed) == (4, 4 + 2 + 3 + 0, 3)
    assert (p0.age_min_ms, p0.age_max_ms, p0.age_sum_ms) == (200, 500, 1000)
    assert p0.age_last_ms == 200  # the partition's last record with a timestamp
    assert p0.age_avg_ms == pytest.approx(1000 / 3)
    p1 = stats[("A.orders", 1)]
    assert (p1.records, p1.bytes, p1.age_min_ms, p1.age_max_ms, p1.age_last_ms) == (
        2,
        1,
        50,
        100,
        50,
    )
    assert stats[("pay", 0)] == PartitionStats(1, 10, 1, 1000, 1000, 1000, 1000)
    assert p0.latency_count == 0 and math.isnan(p0.latency_avg_ms)


def test_one_partition_batches_agree_with_the_group_by() -> None:
    """The single-partition fast path gives what the group-by gives for that partition."""
    whole = stats_of_batch(kafka_batch(ROWS), NOW)
    for topic, partition in whole:
        rows = [r for r in ROWS if (r[0], r[1]) == (topic, partition)]
        assert stats_of_batch(kafka_batch(rows), NOW) == {
            (topic, partition): whole[(topic, partition)]
        }
    last_untimed = [("t", 0, NOW - 5, b"a"), ("t", 0, None, b"b")]
    assert stats_of_batch(kafka_batch(last_untimed), NOW)[("t", 0)].age_last_ms == 5


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_timestamp_units(unit: str) -> None:
    rows = [("t", 0, NOW - 3000, b"x"), ("t", 0, NOW - 1000, b"y")]
    stats = stats_of_batch(kafka_batch(rows, unit), NOW)[("t", 0)]
    assert (stats.age_min_ms, stats.age_max_ms, stats.age_sum_ms) == (1000, 3000, 4000)


def test_int64_millis_and_missing_timestamps() -> None:
    stats = batch_stats(
        pa.array(["t", "t", "t"]),
        pa.array([2, 2, 2], pa.int32()),
        pa.array([NOW - 10, -1, None], pa.int64()),  # -1: Kafka's "no timestamp"
        pa.array([b"a", b"bb", b"ccc"]),
        NOW,
        key=pa.array([b"kk", None, b"k"]),
    )
    assert stats == {("t", 2): PartitionStats(3, 6 + 3, 1, 10, 10, 10, 10)}
    untimed = batch_stats(
        pa.array(["t"]), pa.array([0]), pa.array([None], pa.int64()), pa.array([b"a"]), NOW
    )
    assert untimed == {("t", 0): PartitionStats(records=1, bytes=1)}


def test_empty_batch_and_bad_columns() -> None:
    assert stats_of_batch(kafka_batch([]), NOW) == {}
    with pytest.raises(TypeError, match="timestamp must be epoch milliseconds"):
        batch_stats(pa.array(["t"]), pa.array([0]), pa.array(["noon"]), pa.array([b"a"]), NOW)
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['timestamp'\]"):
        stats_of_batch(kafka_batch(ROWS).drop_columns(["timestamp"]), NOW)


def test_merge_equals_the_whole_batch() -> None:
    whole = stats_of_batch(kafka_batch(ROWS), NOW)
    first, second = kafka_batch(ROWS[:3]), kafka_batch(ROWS[3:])
    merged = merge_stats(stats_of_batch(first, NOW), stats_of_batch(second, NOW))
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
    stats = stats_of_batch(kafka_batch(ROWS), NOW)
    assert pickle.loads(pickle.dumps(stats)) == stats
    for s in stats.values():
        assert PartitionStats.from_dict(json.loads(json.dumps(s.to_dict()))) == s


def test_latency_from_ack() -> None:
    stats = stats_of_batch(kafka_batch(ROWS), NOW, {"orders": "A.orders"})
    acked = latency_from_ack(stats, NOW + 40, NOW)
    p0 = acked[("A.orders", 0)]
    assert (p0.latency_count, p0.latency_min_ms, p0.latency_max_ms) == (3, 240, 540)
    assert (p0.latency_sum_ms, p0.latency_last_ms) == (1120, 240)
    assert p0.age_min_ms == 200  # the age stays the one at read time
    per_partition = latency_from_ack(stats, {("pay", 0): NOW + 5}, NOW)
    assert per_partition[("pay", 0)].latency_min_ms == 1005
    assert per_partition[("A.orders", 1)].latency_min_ms == 50  # no ack time given: read time
    untimed = {("t", 0): PartitionStats(records=1)}
    assert latency_from_ack(untimed, NOW, NOW) == untimed


def test_collector_applies_each_batch_its_own_read_time() -> None:
    collector = StatsCollector({"orders": "A.orders"})
    collector.add(kafka_batch([("orders", 0, NOW - 100, b"x")]), at_ms=NOW)
    collector.add(kafka_batch([("orders", 0, NOW - 100, b"yy")]), at_ms=NOW + 400)
    collector.add(kafka_batch([]), at_ms=NOW + 500)
    stats = collector.acked(ack_ms=NOW + 1000)
    s = stats[("A.orders", 0)]
    assert (s.records, s.bytes, s.age_min_ms, s.age_max_ms) == (2, 3, 100, 500)
    # both records were acked at NOW + 1000 and written at NOW - 100
    assert (s.latency_min_ms, s.latency_max_ms, s.latency_count) == (1100, 1100, 2)


@pytest.mark.parametrize("seed", range(6))
def test_running_stats_equal_the_collectors(seed: int) -> None:
    import random

    rng = random.Random(seed)
    collector, running = StatsCollector({"orders": "A.orders"}), RunningStats()
    at = NOW
    for _ in range(rng.randrange(1, 8)):
        rows = []
        for _ in range(rng.randrange(0, 30)):
            stamp = None if rng.random() < 0.2 else NOW - rng.randrange(0, 5000)
            value = None if rng.random() < 0.1 else b"v" * rng.randrange(0, 20)
            rows.append(("orders", 2, stamp, value))
        collector.add(kafka_batch(rows), at_ms=at)
        stamps = [r[2] for r in rows if r[2] is not None]
        running.add(len(rows), sum(len(r[3] or b"") for r in rows), stamps, at)
        at += rng.randrange(0, 300)
    expected = collector.acked(ack_ms=at + 7).get(("A.orders", 2), PartitionStats())
    assert running.acked(at + 7) == expected


# --- the registry -----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def acked_stats(rows: list[tuple[str, int, int | None, bytes | None]], ack_delay: int = 20) -> dict:
    return latency_from_ack(stats_of_batch(kafka_batch(rows), NOW), NOW + ack_delay, NOW)


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
    clock.now += 10  # less than one window elapsed: the rate is over the whole 30 s window
    a = metrics.snapshot()[name]
    assert (a["record-rate"], a["byte-rate"]) == (10.0, 100.0)
    clock.now += 35  # 45 s since the first sample
    a = metrics.snapshot()[name]
    assert a["record-rate"] == pytest.approx(300 / 45)
    metrics.record_source("B", acked_stats([("t", 0, NOW - 9, b"")] * 90))  # a second sample
    a = metrics.snapshot()[name]
    assert a["record-rate"] == pytest.approx(390 / 45)
    assert (a["record-age-ms-min"], a["record-age-ms-max"]) == (7, 9)
    clock.now += 20  # 65 s: the first sample (two windows old) has expired
    a = metrics.snapshot()[name]
    assert a["record-rate"] == pytest.approx(90 / 30)
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


def test_copied_offsets_and_remove_flow() -> None:
    metrics = MirrorMetrics()
    metrics.record_copied("A", "B", [("t", 0, 5), ("t", 1, 9)])
    metrics.record_copied("A", "B", [("t", 0, 3), ("t", 0, 8)])  # never goes back
    assert metrics.copied("A", "B") == {("t", 0): 8, ("t", 1): 9}
    metrics.record_source("B", acked_stats([("A.t", 0, NOW, b"x")]), "A")
    metrics.record_source("C", acked_stats([("A.t", 0, NOW, b"x")]), "A")
    metrics.record_checkpoint("A", "B", "g", "A.t", 0, 5)
    metrics.remove_flow("A", "B")
    assert metrics.copied("A", "B") == {}
    assert [n for n in metrics.snapshot()] == [
        "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=C,topic=A.t,partition=0"
    ]


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


def parse_prometheus(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    samples = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert re.fullmatch(r"# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (gauge|counter)", line), line
            continue
        match = LINE.fullmatch(line)
        assert match, f"not name{{labels}} value: {line!r}"
        labels = tuple(
            (k, re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], v))
            for k, v in LABEL.findall(match["labels"])
        )
        samples[(match["name"], labels)] = float(match["value"])
    return samples


def test_prometheus_text_parses() -> None:
    metrics = MirrorMetrics()
    metrics.record_source("B", acked_stats([("A.t", 0, NOW - 80, b"abc")]), "A")
    metrics.record_checkpoint("A", "B", 'we"ird,group\\x', "A.t", 0, 9)
    metrics.record_canary("A", "B", 3, pending=0)
    text = metrics.prometheus()
    samples = parse_prometheus(text)
    labels = (("source", "A"), ("target", "B"), ("topic", "A.t"), ("partition", "0"))
    prefix = "kafka_connect_mirror_mirrorsourceconnector_"
    assert samples[(prefix + "record_age_ms_max", labels)] == 80
    assert samples[(prefix + "record_count", labels)] == 1
    assert samples[(prefix + "replication_latency_ms", labels)] == 100
    assert len([k for k in samples if k[0].startswith(prefix)]) == 12
    group = (
        ("source", "A"),
        ("target", "B"),
        ("group", 'we"ird,group\\x'),
        ("topic", "A.t"),
        ("partition", "0"),
    )
    assert (
        samples[("kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms", group)]
        == 9
    )
    assert (
        samples[("seaway_mirror_canary_canary_latency_ms", (("source", "A"), ("target", "B")))] == 3
    )
    assert "# TYPE kafka_connect_mirror_mirrorsourceconnector_record_count counter" in text
    assert MirrorMetrics().prometheus() == ""


# --- the driver's endpoint --------------------------------------------------------------------


def test_server_takes_reports_and_serves_metrics() -> None:
    metrics = MirrorMetrics()
    stats = acked_stats([("A.t", 0, NOW - 80, b"abc"), ("A.t", 1, NOW - 20, b"d")])
    with MetricsServer(metrics) as server:
        assert send_report(server.report_url, "A", "B", stats, [("t", 0, 41), ("t", 1, 7)])
        assert metrics.copied("A", "B") == {("t", 0): 41, ("t", 1): 7}
        with urllib.request.urlopen(server.url + "/metrics", timeout=5) as response:
            assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            samples = parse_prometheus(response.read().decode())
        labels = (("source", "A"), ("target", "B"), ("topic", "A.t"), ("partition", "1"))
        assert samples[("kafka_connect_mirror_mirrorsourceconnector_byte_count", labels)] == 1
        with urllib.request.urlopen(server.url + "/mbeans", timeout=5) as response:
            mbeans = json.load(response)
        name = "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,"
        assert mbeans[name + "topic=A.t,partition=0"]["record-age-ms"] == 80
        bad = urllib.request.Request(server.report_url, data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError, match="400"):
            urllib.request.urlopen(bad, timeout=5)
        url = server.report_url
    assert not send_report(url, "A", "B", stats, timeout=1)  # server gone: logged, no raise


def test_report_round_trip() -> None:
    stats = acked_stats([("A.t", 2, NOW - 5, b"abc")])
    metrics = MirrorMetrics()
    apply_report(metrics, report_json("A", "B", stats, [("t", 2, 10)]))
    name = "kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.t,partition=2"
    assert metrics.snapshot()[name]["replication-latency-ms"] == 25
