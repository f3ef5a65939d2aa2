"""MirrorMaker 2's metrics for Seaway's mirror flows.

MM2 publishes, per replicated (remote) topic-partition, in the JMX domain
``kafka.connect.mirror`` (``MirrorSourceMetrics``)::

    kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.orders,partition=0
        record-count, record-rate, byte-count, byte-rate (value bytes),
        record-age-ms{,-min,-max,-avg}           now - source timestamp, when read
        replication-latency-ms{,-min,-max,-avg}  now - source timestamp, when acked by B

and per consumer group partition (``MirrorCheckpointMetrics``)::

    kafka.connect.mirror:type=MirrorCheckpointConnector,source=A,target=B,group=g,topic=A.orders,partition=0
        checkpoint-latency-ms{,-min,-max,-avg}

The ``source`` tag of MirrorSourceConnector is always there in Kafka 4.0 and opt-in in
3.5-3.9 (``add.source.alias.to.metrics``); :meth:`MirrorMetrics.record_source` adds it when
given the source alias. As in Kafka, ``*-count`` are cumulative; ``*-rate``, ``-min``,
``-max`` and ``-avg`` cover the last 30-60 s (two 30 s samples, Kafka's default
``MetricConfig``); the un-suffixed ``record-age-ms`` / ``replication-latency-ms`` /
``checkpoint-latency-ms`` are the last value.

Seaway extensions (not in MM2, named so): ``seaway-replication-lag`` (records on the source
not yet copied) in the MirrorSourceConnector mbean, and ``seaway.mirror:type=Canary`` for
the canary (:mod:`seaway.mirror.canary`).

The copy tasks fold each partition's figures into a :class:`RunningStats` as they copy; each
range's :class:`PartitionStats` travel in its summary row, which the copy query observes
(``DataFrame.observe``, :data:`OBSERVATION`) as Connect's queries observe their tasks'
metrics, so they reach the driver in Spark's own progress reports; the flow reads them there
(:meth:`~seaway.mirror.source_flow.MirrorSourceFlow.record_metrics`) into the
driver's :class:`MirrorMetrics` registry (``MirrorMaker.metrics``, passed to every part that
records or reads it), which :mod:`seaway.mirror.metrics_server` serves.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final, NamedTuple

from seaway.java.sampled_stat import SampledStat

log = logging.getLogger(__name__)

DOMAIN: Final = "kafka.connect.mirror"
SOURCE_TYPE: Final = "MirrorSourceConnector"
CHECKPOINT_TYPE: Final = "MirrorCheckpointConnector"
SEAWAY_DOMAIN: Final = "seaway.mirror"
CANARY_TYPE: Final = "Canary"
FLOW_TYPE: Final = "Flow"
REPLICATION_LAG: Final = "seaway-replication-lag"
WINDOW_S: Final = 30.0
SAMPLES: Final = 2

Key = tuple[str, int]  # (topic, partition)


# --- per-partition statistics (executor side) ------------------------------------------------


@dataclass(frozen=True)
class PartitionStats:
    """What one topic-partition's records contributed: counts, bytes, ages and latencies (ms).

    ``timed`` records had a timestamp and are the samples of the age figures;
    ``latency_count`` are the samples of the latency figures (0 until the records were
    acked, see :meth:`RunningStats.acked`). ``*_last_ms`` is the newest record's figure.
    """

    records: int = 0
    bytes: int = 0
    timed: int = 0
    age_min_ms: int = 0
    age_max_ms: int = 0
    age_sum_ms: int = 0
    age_last_ms: int = 0
    latency_count: int = 0
    latency_min_ms: int = 0
    latency_max_ms: int = 0
    latency_sum_ms: int = 0
    latency_last_ms: int = 0

    @property
    def age_avg_ms(self) -> float:
        return self.age_sum_ms / self.timed if self.timed else math.nan

    @property
    def latency_avg_ms(self) -> float:
        return self.latency_sum_ms / self.latency_count if self.latency_count else math.nan

    def merge(self, other: PartitionStats) -> PartitionStats:
        """Both together; *other* is taken as the later one (its ``*_last_ms`` win)."""
        age = _merge_dist(
            (self.timed, self.age_min_ms, self.age_max_ms, self.age_sum_ms, self.age_last_ms),
            (other.timed, other.age_min_ms, other.age_max_ms, other.age_sum_ms, other.age_last_ms),
        )
        latency = _merge_dist(
            (
                self.latency_count,
                self.latency_min_ms,
                self.latency_max_ms,
                self.latency_sum_ms,
                self.latency_last_ms,
            ),
            (
                other.latency_count,
                other.latency_min_ms,
                other.latency_max_ms,
                other.latency_sum_ms,
                other.latency_last_ms,
            ),
        )
        return PartitionStats(
            self.records + other.records, self.bytes + other.bytes, *age, *latency
        )

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PartitionStats:
        return cls(**{k: int(data[k]) for k in cls.__dataclass_fields__ if k in data})


_Dist = tuple[int, int, int, int, int]  # count, min, max, sum, last


def _merge_dist(a: _Dist, b: _Dist) -> _Dist:
    if not b[0]:
        return a
    if not a[0]:
        return b
    return (a[0] + b[0], min(a[1], b[1]), max(a[2], b[2]), a[3] + b[3], b[4])


def merge_stats(*parts: Mapping[Key, PartitionStats]) -> dict[Key, PartitionStats]:
    """Per-key :meth:`PartitionStats.merge` of several stats dicts, in order."""
    out: dict[Key, PartitionStats] = {}
    for part in parts:
        for key, stats in part.items():
            out[key] = out[key].merge(stats) if key in out else stats
    return out


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class RunningStats:
    """One partition's :class:`PartitionStats` folded batch by batch as its records are
    copied, in constant memory: :meth:`add` each batch when it is read, :meth:`acked` once
    every record was acknowledged.

    Kept as sums and extremes of the raw timestamps: a record's age is its batch's read time
    minus its timestamp, its latency the ack time minus it (every record of the partition
    taken as acked with the last one: an upper bound, over by at most the spread of the acks).
    """

    __slots__ = (
        *("age_last", "age_max", "age_min", "age_sum", "bytes", "records"),
        *("ts_last", "ts_max", "ts_min", "ts_sum", "timed"),
    )

    def __init__(self) -> None:
        self.records = self.bytes = self.timed = 0
        self.age_min = self.age_max = self.age_sum = self.age_last = 0
        self.ts_min = self.ts_max = self.ts_sum = self.ts_last = 0

    def add(self, records: int, value_bytes: int, timestamps_ms: list[int], at_ms: int) -> None:
        """A batch of *records* with *value_bytes* value bytes, read at *at_ms*;
        *timestamps_ms* holds the timestamps (epoch ms) of those that have one, in order."""
        self.records += records
        self.bytes += value_bytes
        if timestamps_ms:
            self._fold(
                len(timestamps_ms),
                min(timestamps_ms),
                max(timestamps_ms),
                sum(timestamps_ms),
                timestamps_ms[-1],
                at_ms,
            )

    def add_batch(self, records: int, size: int, first_ms: int, max_ms: int, at_ms: int) -> None:
        """A record batch read whole at *at_ms*: its records taken as spread evenly between
        its first and max timestamps (the batch header's; its records are never decoded),
        *size* its bytes on the wire."""
        if records < 1 or first_ms < 0:
            self.add(records, size, [], at_ms)
            return
        low, high = min(first_ms, max_ms), max(first_ms, max_ms)
        self.records += records
        self.bytes += size
        self._fold(records, low, high, records * (low + high) // 2, max_ms, at_ms)

    def _fold(self, n: int, low: int, high: int, total: int, last: int, at_ms: int) -> None:
        """Fold *n* timestamps (extremes, sum, last) read at *at_ms* into the figures."""
        if self.timed:
            self.age_min = min(self.age_min, at_ms - high)
            self.age_max = max(self.age_max, at_ms - low)
            self.ts_min, self.ts_max = min(self.ts_min, low), max(self.ts_max, high)
        else:
            self.age_min, self.age_max = at_ms - high, at_ms - low
            self.ts_min, self.ts_max = low, high
        self.age_sum += n * at_ms - total
        self.ts_sum += total
        self.ts_last = last
        self.age_last = at_ms - last
        self.timed += n

    def acked(self, ack_ms: int) -> PartitionStats:
        """The stats, every record's replication latency taken at *ack_ms*."""
        if not self.timed:
            return PartitionStats(self.records, self.bytes)
        return PartitionStats(
            self.records,
            self.bytes,
            self.timed,
            self.age_min,
            self.age_max,
            self.age_sum,
            self.age_last,
            self.timed,
            ack_ms - self.ts_max,
            ack_ms - self.ts_min,
            self.timed * ack_ms - self.ts_sum,
            ack_ms - self.ts_last,
        )


# --- the registry (driver side) --------------------------------------------------------------


class _Latency:
    """Value (last) plus windowed min/max/avg of one latency-like figure."""

    __slots__ = ("last", "window")

    def __init__(self, samples: int, window_ms: float) -> None:
        self.last = 0.0
        self.window = SampledStat(samples, window_ms)

    def record(self, value: float, now_ms: float) -> None:
        self.last = value
        self.window.record(value, now_ms)

    def attributes(self, name: str, now_ms: float) -> dict[str, float]:
        w = self.window
        return {
            name: self.last,
            f"{name}-min": w.min(now_ms),
            f"{name}-max": w.max(now_ms),
            f"{name}-avg": w.avg(now_ms),
        }


class _SourcePartition:
    __slots__ = ("age", "byte_count", "bytes", "lag", "latency", "record_count", "records")

    def __init__(self, samples: int, window_ms: float) -> None:
        self.record_count = 0
        self.byte_count = 0
        self.records = SampledStat(samples, window_ms)
        self.bytes = SampledStat(samples, window_ms)
        self.age = _Latency(samples, window_ms)
        self.latency = _Latency(samples, window_ms)
        self.lag: float | None = None


class _Canary:
    __slots__ = ("gauges", "latency")

    def __init__(self, samples: int, window_ms: float) -> None:
        self.latency = _Latency(samples, window_ms)
        self.gauges: dict[str, float] = {}


Tags = tuple[tuple[str, str], ...]


class Mbean(NamedTuple):
    """One mbean: ``domain:type=kind,<tags>`` and its attributes."""

    domain: str
    kind: str
    tags: Tags
    attributes: dict[str, float]


_JMX_PLAIN = re.compile(r"[\w\-%. \t]*")


def _jmx_value(value: str) -> str:
    """A key-property value as Kafka's ``Sanitizer.jmxSanitize`` writes it (quoted if need be)."""
    if _JMX_PLAIN.fullmatch(value):
        return value
    escaped = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("*", "\\*")
        .replace("?", "\\?")
        .replace("\n", "\\n")
    )
    return f'"{escaped}"'


def mbean_name(domain: str, kind: str, tags: Tags) -> str:
    """``domain:type=kind,k1=v1,...`` with the tags in order (as Kafka's JmxReporter)."""
    props = "".join(f",{k}={_jmx_value(v)}" for k, v in tags if k and v)
    return f"{domain}:type={kind}{props}"


def source_tags(target: str, topic: str, partition: int, source: str | None = None) -> Tags:
    head = (("source", source),) if source is not None else ()
    return (*head, ("target", target), ("topic", topic), ("partition", str(partition)))


class MirrorMetrics:
    """Thread-safe registry of the mirror metrics of this driver."""

    def __init__(
        self,
        window_s: float = WINDOW_S,
        samples: int = SAMPLES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if window_s <= 0 or samples < 1:
            raise ValueError(f"window_s must be > 0 and samples >= 1, not {window_s}, {samples}")
        self.window_s = window_s
        self.samples = samples
        self._window_ms = window_s * 1000
        self.clock = clock
        self._lock = threading.Lock()
        self._sources: dict[Tags, _SourcePartition] = {}
        self._checkpoints: dict[Tags, _Latency] = {}
        self._canaries: dict[Tags, _Canary] = {}
        self._flows: dict[Tags, dict[str, float]] = {}
        self._copied: dict[tuple[str, str], dict[Key, int]] = {}

    # --- recording ----------------------------------------------------------------------------

    def record_source(
        self,
        target_alias: str,
        stats: Mapping[Key, PartitionStats],
        source_alias: str | None = None,
    ) -> None:
        """Add a batch's per remote topic-partition stats (MirrorSourceMetrics)."""
        with self._lock:
            now = self._now_ms()
            for (topic, partition), s in stats.items():
                m = self._source(source_tags(target_alias, topic, partition, source_alias))
                m.record_count += s.records
                m.byte_count += s.bytes
                m.records.record(s.records, now, count=s.records)
                m.bytes.record(s.bytes, now, count=s.records)
                if s.timed:
                    m.age.last = s.age_last_ms
                    m.age.window.record(
                        s.age_sum_ms, now, count=s.timed, low=s.age_min_ms, high=s.age_max_ms
                    )
                if s.latency_count:
                    m.latency.last = s.latency_last_ms
                    m.latency.window.record(
                        s.latency_sum_ms,
                        now,
                        count=s.latency_count,
                        low=s.latency_min_ms,
                        high=s.latency_max_ms,
                    )

    def _now_ms(self) -> float:
        return self.clock() * 1000

    def record_checkpoint(
        self, source: str, target: str, group: str, topic: str, partition: int, latency_ms: float
    ) -> None:
        """One emitted checkpoint's latency (MirrorCheckpointMetrics; *topic* is the remote one)."""
        tags = (
            ("source", source),
            ("target", target),
            ("group", group),
            ("topic", topic),
            ("partition", str(partition)),
        )
        with self._lock:
            m = self._checkpoints.get(tags)
            if m is None:
                m = self._checkpoints[tags] = _Latency(self.samples, self._window_ms)
            m.record(latency_ms, self._now_ms())

    def record_copied(
        self, source: str, target: str, copied: Iterable[tuple[str, int, int]]
    ) -> None:
        """The last copied upstream offset per source partition (for :func:`lag_behind_source`)."""
        with self._lock:
            flow = self._copied.setdefault((source, target), {})
            for topic, partition, offset in copied:
                flow[(topic, partition)] = max(offset, flow.get((topic, partition), -1))

    def copied(self, source: str, target: str) -> dict[Key, int]:
        with self._lock:
            return dict(self._copied.get((source, target), {}))

    def record_replication_lag(
        self,
        target_alias: str,
        lags: Mapping[Key, int],
        source_alias: str | None = None,
        remote_topics: Mapping[str, str] | Callable[[str], str] | None = None,
    ) -> None:
        """Publish ``seaway-replication-lag`` per remote topic-partition (a Seaway extension).

        *lags* may be keyed by source topic (as :func:`lag_behind_source` returns them) when
        *remote_topics* maps them to the remote names.
        """
        rename = remote_topics if callable(remote_topics) else (remote_topics or {}).get
        with self._lock:
            for (topic, partition), lag in lags.items():
                remote = rename(topic) or topic
                tags = source_tags(target_alias, remote, partition, source_alias)
                self._source(tags).lag = float(lag)

    def record_canary(
        self, source: str, target: str, latency_ms: float | None = None, **gauges: float
    ) -> None:
        """The canary's end-to-end latency and gauges (``pending=3`` → ``canary-pending``)."""
        tags = (("source", source), ("target", target))
        with self._lock:
            m = self._canaries.get(tags)
            if m is None:
                m = self._canaries[tags] = _Canary(self.samples, self._window_ms)
            if latency_ms is not None:
                m.latency.record(latency_ms, self._now_ms())
            for name, value in gauges.items():
                m.gauges[f"canary-{name.replace('_', '-')}"] = float(value)

    def record_flow(self, source: str, target: str, **gauges: float) -> None:
        """A flow's own gauges (``stalled=1`` -> ``flow-stalled``; a Seaway extension)."""
        with self._lock:
            flow = self._flows.setdefault((("source", source), ("target", target)), {})
            for name, value in gauges.items():
                flow[f"flow-{name.replace('_', '-')}"] = float(value)

    def _source(self, tags: Tags) -> _SourcePartition:
        m = self._sources.get(tags)
        if m is None:
            m = self._sources[tags] = _SourcePartition(self.samples, self._window_ms)
        return m

    # --- reading ------------------------------------------------------------------------------

    def mbeans(self) -> list[Mbean]:
        """Every mbean and its attributes, as JMX would show them."""
        out: list[Mbean] = []
        with self._lock:
            now = self._now_ms()
            for tags, m in self._sources.items():
                attrs = {
                    "record-count": float(m.record_count),
                    "record-rate": m.records.rate(now),
                    "byte-count": float(m.byte_count),
                    "byte-rate": m.bytes.rate(now),
                    **m.age.attributes("record-age-ms", now),
                    **m.latency.attributes("replication-latency-ms", now),
                }
                if m.lag is not None:
                    attrs[REPLICATION_LAG] = m.lag
                out.append(Mbean(DOMAIN, SOURCE_TYPE, tags, attrs))
            for tags, latency in self._checkpoints.items():
                attrs = latency.attributes("checkpoint-latency-ms", now)
                out.append(Mbean(DOMAIN, CHECKPOINT_TYPE, tags, attrs))
            for tags, canary in self._canaries.items():
                attrs = {
                    **canary.latency.attributes("canary-latency-ms", now),
                    **canary.gauges,
                }
                out.append(Mbean(SEAWAY_DOMAIN, CANARY_TYPE, tags, attrs))
            for tags, gauges in self._flows.items():
                out.append(Mbean(SEAWAY_DOMAIN, FLOW_TYPE, tags, dict(gauges)))
        return out

    def snapshot(self) -> dict[str, dict[str, float]]:
        """Every mbean name (:func:`mbean_name`) and its attributes."""
        return {mbean_name(b.domain, b.kind, b.tags): b.attributes for b in self.mbeans()}


# --- the copy's observed summaries (Spark's progress -> the driver) ---------------------------

OBSERVATION: Final = "seaway_mirror"
"""The name of the copy query's observed metrics (``DataFrame.observe``): one JSON object per
range summary, ``{"topic", "partition", "last_offset", "stats"}`` (``stats``: the
:class:`PartitionStats` JSON of the range, or null)."""


def record_ranges(
    registry: MirrorMetrics,
    source: str,
    target: str,
    ranges: Iterable[str],
    remote_topic: Callable[[str], str],
) -> None:
    """Record one micro-batch's observed range summaries into *registry*: MM2's metrics per
    remote topic-partition (*remote_topic* names it), and the last offsets copied."""
    stats: dict[Key, PartitionStats] = {}
    copied: list[tuple[str, int, int]] = []
    for text in ranges:
        summary = json.loads(text)
        topic, partition = str(summary["topic"]), int(summary["partition"])
        if summary.get("stats"):
            part = PartitionStats.from_dict(json.loads(summary["stats"]))
            stats = merge_stats(stats, {(remote_topic(topic), partition): part})
        if int(summary["last_offset"]) >= 0:
            copied.append((topic, partition, int(summary["last_offset"])))
    if stats:
        registry.record_source(target, stats, source_alias=source)
    if copied:
        registry.record_copied(source, target, copied)


# --- replication lag -------------------------------------------------------------------------


def lag_behind_source(
    source_client: Mapping[str, str], copied: Mapping[Key, int], timeout: float = 10.0
) -> dict[Key, int]:
    """Records on the source not yet copied, per source (topic, partition): the partition's
    high watermark minus (last copied offset + 1), never below 0.

    *copied* holds the last copied upstream offset (MM2's stored source offset). A partition
    whose end offset cannot be read is left out.
    """
    if not copied:
        return {}
    from confluent_kafka import IsolationLevel, TopicPartition
    from confluent_kafka.admin import OffsetSpec

    from seaway.kafka import clients

    admin = clients.admin(source_client)
    request = {TopicPartition(t, p): OffsetSpec.latest() for t, p in copied}
    futures = admin.list_offsets(
        request, isolation_level=IsolationLevel.READ_UNCOMMITTED, request_timeout=timeout
    )
    out: dict[Key, int] = {}
    for tp, future in futures.items():
        try:
            end = future.result(timeout).offset
        except Exception:  # a deleted topic or an unavailable leader: no figure this time
            continue
        out[(tp.topic, tp.partition)] = max(0, end - (copied[(tp.topic, tp.partition)] + 1))
    return out


__all__ = [
    "CANARY_TYPE",
    "CHECKPOINT_TYPE",
    "DOMAIN",
    "FLOW_TYPE",
    "OBSERVATION",
    "REPLICATION_LAG",
    "SEAWAY_DOMAIN",
    "SOURCE_TYPE",
    "Mbean",
    "MirrorMetrics",
    "PartitionStats",
    "RunningStats",
    "lag_behind_source",
    "mbean_name",
    "merge_stats",
    "now_ms",
    "record_ranges",
]
