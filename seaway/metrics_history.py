"""A bounded in-memory history of selected metrics, for the web console to plot.

A :class:`MetricsHistory` reads the metric families of one source every ``interval_s``
seconds (default 5) — a ``prometheus_client`` registry's ``collect``, a collector's, or
:func:`text_source` over a Prometheus text endpoint — picks the samples its :class:`Track`\\ s
name, and keeps the last ``window_s`` (default one hour) in fixed-size ring buffers: one
shared ring of timestamps and one ``array('d')`` per series. Memory is therefore bounded by
``max_series * window_s / interval_s`` floats; a series absent for a whole window is dropped.

A track of kind ``rate`` turns a counter into its per-second increase since the previous
sample (a counter that went down was reset: its new value is the increase, as Prometheus'
``rate`` takes it); a ``gauge`` is kept as read. Labels not named in ``by`` are summed (or,
with ``agg="max"``, maxed) away. NaN samples are skipped; a missing point is NaN (``null``
in :meth:`MetricsHistory.snapshot`).

This module imports nothing of Seaway's packages: the broker, Connect and the mirror share it.

>>> history = MetricsHistory(registry.collect, [Track("bytes_in_per_s", "bytes_total",
...     "rate", by=("topic",))])  # doctest: +SKIP
>>> history.start()  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import math
import threading
import time
from array import array
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Self

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

__all__ = ["MetricsHistory", "Track", "text_source"]

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_S: Final = 5.0
DEFAULT_WINDOW_S: Final = 3600.0
DEFAULT_MAX_SERIES: Final = 1000
_NAN: Final = math.nan

Source = Callable[[], Iterable[Metric]]
Labels = tuple[tuple[str, str], ...]
Key = tuple[str, Labels]  # (series name, kept labels)


@dataclass(frozen=True, slots=True)
class Track:
    """One series of the history: samples named *sample* (the full sample name, e.g.
    ``..._total`` for a counter), stored as *name*, per distinct values of the *by* labels a
    sample has (the others aggregated with *agg*); *kind* ``rate`` for counters."""

    name: str
    sample: str
    kind: Literal["rate", "gauge"] = "gauge"
    by: tuple[str, ...] = ()
    agg: Literal["sum", "max"] = "sum"


def text_source(fetch: Callable[[], bytes | str]) -> Source:
    """A source over Prometheus text (e.g. a ``metrics_exposition()``), parsed at each sample."""

    def families() -> Iterable[Metric]:
        text = fetch()
        return text_string_to_metric_families(text.decode() if isinstance(text, bytes) else text)

    return families


class _Ring:
    __slots__ = ("seen", "values")

    def __init__(self, capacity: int) -> None:
        self.values = array("d", [_NAN]) * capacity
        self.seen = 0  # the tick it was last sampled at


class MetricsHistory:
    """The last *window_s* seconds of *tracks* read from *source* every *interval_s*
    seconds, at most *max_series* series; thread-safe. :meth:`start` samples from a daemon
    thread (or call :meth:`sample` yourself); *clock* gives the timestamps (epoch seconds)."""

    def __init__(
        self,
        source: Source,
        tracks: Sequence[Track],
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        window_s: float = DEFAULT_WINDOW_S,
        max_series: int = DEFAULT_MAX_SERIES,
        clock: Callable[[], float] = time.time,
        name: str = "seaway-metrics-history",
    ) -> None:
        if interval_s <= 0 or window_s < interval_s or max_series < 1:
            raise ValueError(
                "MetricsHistory needs interval_s > 0, window_s >= interval_s and max_series >= 1, "
                f"not {interval_s}, {window_s}, {max_series}"
            )
        self._kinds: dict[str, tuple[str, str]] = {}
        self._by_sample: dict[str, list[Track]] = {}
        for track in tracks:
            if self._kinds.setdefault(track.name, (track.kind, track.agg)) != (
                track.kind,
                track.agg,
            ):
                raise ValueError(f"tracks named {track.name!r} differ in kind or agg")
            self._by_sample.setdefault(track.sample, []).append(track)
        self.interval_s = interval_s
        self.window_s = window_s
        self.capacity = max(1, math.ceil(window_s / interval_s))
        self.max_series = max_series
        self._source = source
        self._clock = clock
        self._name = name
        self._lock = threading.Lock()
        self._times = array("d", [_NAN]) * self.capacity
        self._ticks = 0
        self._series: dict[Key, _Ring] = {}
        self._last: dict[Key, tuple[float, float]] = {}  # a rate's previous (time, counter)
        self._overflow_logged = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- sampling ---------------------------------------------------------------------------

    def sample(self) -> None:
        """Read the source once and record one point of every series."""
        now = self._clock()
        values: dict[Key, float] = {}
        for family in self._source():
            for s in family.samples:
                tracks = self._by_sample.get(s.name)
                if not tracks or math.isnan(s.value):
                    continue
                for track in tracks:
                    key = (track.name, tuple((k, s.labels[k]) for k in track.by if k in s.labels))
                    old = values.get(key)
                    if old is None:
                        values[key] = s.value
                    else:
                        values[key] = old + s.value if track.agg == "sum" else max(old, s.value)
        with self._lock:
            self._record(now, values)

    def _record(self, now: float, values: dict[Key, float]) -> None:
        tick = self._ticks
        slot = tick % self.capacity
        self._times[slot] = now
        for key, raw in values.items():
            value = raw
            if self._kinds[key[0]][0] == "rate":
                value = self._rate(key, now, raw)
            ring = self._series.get(key)
            if ring is None:
                if len(self._series) >= self.max_series:
                    if not self._overflow_logged:
                        log.warning(
                            "%s keeps at most %d series: %s%s and later new series are not kept",
                            self._name,
                            self.max_series,
                            key[0],
                            dict(key[1]),
                        )
                        self._overflow_logged = True
                    continue
                ring = self._series[key] = _Ring(self.capacity)
            ring.values[slot] = value
            ring.seen = tick
        for gone in [k for k in self._last if k not in values]:
            del self._last[gone]  # a counter gone for a sample starts over
        for key, ring in list(self._series.items()):
            if ring.seen != tick:
                ring.values[slot] = _NAN
                if tick - ring.seen >= self.capacity:
                    del self._series[key]
        self._ticks = tick + 1

    def _rate(self, key: Key, now: float, counter: float) -> float:
        previous = self._last.get(key)
        self._last[key] = (now, counter)
        if previous is None or now <= previous[0]:
            return _NAN
        increase = counter - previous[1]
        if increase < 0:  # reset
            increase = counter
        return increase / (now - previous[0])

    # --- reading ----------------------------------------------------------------------------

    def snapshot(
        self, names: Collection[str] | None = None, since: float | None = None
    ) -> dict[str, Any]:
        """The history as JSON-ready data, oldest point first: ``{"interval_s", "window_s",
        "times": [epoch s], "series": [{"name", "labels", "values": [float | None]}]}``, every
        ``values`` aligned with ``times``; only series in *names* and points after *since*
        when given."""
        with self._lock:
            count = min(self._ticks, self.capacity)
            first = self._ticks - count
            slots = [(first + i) % self.capacity for i in range(count)]
            if since is not None:
                slots = [i for i in slots if self._times[i] > since]
            series = [
                {
                    "name": name,
                    "labels": dict(labels),
                    "values": [_json(ring.values[i]) for i in slots],
                }
                for (name, labels), ring in sorted(self._series.items())
                if names is None or name in names
            ]
            times = [self._times[i] for i in slots]
        return {
            "interval_s": self.interval_s,
            "window_s": self.window_s,
            "times": times,
            "series": series,
        }

    def query(self, names: Sequence[str], since: str | None) -> dict[str, Any]:
        """:meth:`snapshot` for an HTTP query (``?name=...&name=...&since=<epoch s>``);
        ValueError naming ``since`` when it is not a number."""
        try:
            after = float(since) if since else None
        except ValueError:
            raise ValueError(f"since must be a time in epoch seconds, not {since!r}") from None
        return self.snapshot(names or None, after)

    # --- the sampling thread ------------------------------------------------------------------

    def start(self) -> Self:
        """Sample now and then every ``interval_s`` seconds from a daemon thread."""
        if self._thread is not None:
            raise RuntimeError(f"{self._name} already started")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        failing = False
        while True:
            try:
                self.sample()
                failing = False
            except Exception:  # a failing source costs a point, not the history
                level = logging.DEBUG if failing else logging.WARNING  # once per failing streak
                log.log(level, "%s could not sample its metrics", self._name, exc_info=True)
                failing = True
            if self._stop.wait(self.interval_s):
                return

    def stop(self) -> None:
        """Stop sampling (the history is kept)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.interval_s + 5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _json(value: float) -> float | None:
    return None if math.isnan(value) else value
