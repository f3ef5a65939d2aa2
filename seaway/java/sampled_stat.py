"""Kafka's sampled statistics (``org.apache.kafka.common.metrics.stats``): one
``SampledStat`` and what Seaway measures from it, ``Rate`` over a ``WindowedSum`` (with the
quota throttle time of ``QuotaUtils.throttleTime``), ``Min``, ``Max`` and ``Avg``.

Values are recorded into samples of ``window_ms``; a sample is complete once its window has
passed, and the next record starts a new one. Kafka keeps ``samples + 1`` of them, so the
oldest one overlapping the measured span is not lost, and resets a sample once no value was
recorded into it for ``samples`` windows. A rate is the sum of the retained samples over the
time they span, where windows missing before the oldest (``samples - 1`` whole windows are
assumed) count as passed and empty: a new client, or one back after a pause, may burst up to
``samples - 1`` windows' worth of a quota at once.

One object here serves what Kafka records into several stats of one sensor at the same
instants (MM2's ``record-age-ms`` and its ``-min``/``-max``/``-avg``): each sample keeps the
sum, the count, the min and the max of what went into it. Written for Seaway because no
Python library reproduces Kafka's window rules, which the broker's quotas and MM2's metrics
must match.
"""

from __future__ import annotations

import math

__all__ = ["SampledStat"]


class _Sample:
    __slots__ = ("count", "high", "last_ms", "low", "start_ms", "total")

    def __init__(self, now_ms: float) -> None:
        self.reset(now_ms)

    def reset(self, now_ms: float) -> None:
        self.start_ms = self.last_ms = now_ms
        self.count = 0
        self.total = 0.0
        self.low = math.inf
        self.high = -math.inf


class SampledStat:
    """Values recorded over ``samples`` windows of ``window_ms`` (any unit of time works, as
    long as every call uses it: the rates are per 1000 of it)."""

    def __init__(self, samples: int, window_ms: float) -> None:
        if samples < 1 or window_ms <= 0:
            raise ValueError(f"samples must be >= 1 and window_ms > 0, not {samples}, {window_ms}")
        self.samples = samples
        self.window_ms = window_ms
        self._samples: list[_Sample] = []
        self._current = 0

    @property
    def last_ms(self) -> float:
        """When a value was last recorded (-1: never)."""
        return max((s.last_ms for s in self._samples), default=-1)

    def record(
        self,
        value: float,
        now_ms: float,
        *,
        count: int = 1,
        low: float | None = None,
        high: float | None = None,
    ) -> None:
        """Record *value* (or *count* values summing to *value*, between *low* and *high*)."""
        if not self._samples:
            self._samples.append(_Sample(now_ms))
        sample = self._samples[self._current]
        if now_ms - sample.start_ms >= self.window_ms:
            self._current = (self._current + 1) % (self.samples + 1)
            if self._current >= len(self._samples):
                sample = _Sample(now_ms)
                self._samples.append(sample)
            else:
                sample = self._samples[self._current]
                sample.reset(now_ms)
        sample.total += value
        sample.count += count
        sample.low = min(sample.low, value if low is None else low)
        sample.high = max(sample.high, value if high is None else high)
        sample.last_ms = now_ms

    def _live(self, now_ms: float) -> list[_Sample]:
        """The samples, those that saw nothing for ``samples`` windows reset first."""
        expire = self.samples * self.window_ms
        for sample in self._samples:
            if now_ms - sample.last_ms >= expire:
                sample.reset(now_ms)
        return self._samples

    def window_size(self, now_ms: float) -> float:
        """The span a rate is measured over (Kafka's ``Rate.windowSize``)."""
        samples = self._live(now_ms)
        oldest = min((s.start_ms for s in samples), default=now_ms)
        elapsed = now_ms - oldest
        missing = self.samples - 1 - int(elapsed // self.window_ms)
        if missing > 0:
            elapsed += missing * self.window_ms
        return max(elapsed, 1)

    def rate(self, now_ms: float) -> float:
        """The values' sum per second (per 1000 units of time)."""
        total = sum(s.total for s in self._live(now_ms))
        return total / (self.window_size(now_ms) / 1000)

    def min(self, now_ms: float) -> float:
        """The least value of the retained samples (NaN: none)."""
        lows = [s.low for s in self._live(now_ms) if s.count]
        return min(lows) if lows else math.nan

    def max(self, now_ms: float) -> float:
        """The greatest value of the retained samples (NaN: none)."""
        highs = [s.high for s in self._live(now_ms) if s.count]
        return max(highs) if highs else math.nan

    def avg(self, now_ms: float) -> float:
        """The values' mean over the retained samples (NaN: none)."""
        samples = self._live(now_ms)
        count = sum(s.count for s in samples)
        return sum(s.total for s in samples) / count if count else math.nan

    def throttle_ms(self, bound: float, now_ms: float) -> int:
        """0 while the rate is within ``bound``, else how long until it would be with nothing
        more recorded: (rate - bound) / bound * span, rounded as Java's ``Math.round``."""
        rate = self.rate(now_ms)
        if rate <= bound:
            return 0
        return math.floor((rate - bound) / bound * self.window_size(now_ms) + 0.5)
