"""A rate over sampled time windows: how Kafka measures a client's bytes per second against
its quota (``Rate`` over a ``WindowedSum``) and how long it throttles one over it
(``QuotaUtils.throttleTime``).

The rate is the sum of the retained samples over the time they span. Until ``samples - 1``
whole windows have passed since the oldest retained sample, the span counts them as passed
(empty), so a new client, or one back after a pause, may burst up to ``samples - 1``
windows' worth of its quota at once; that is also the most one fetch may return
(:meth:`ClientQuotaManager.max_value_in_window`).
"""

from __future__ import annotations

import math

__all__ = ["SampledRate"]


class _Sample:
    __slots__ = ("last_ms", "start_ms", "value")

    def __init__(self, now_ms: int) -> None:
        self.start_ms = self.last_ms = now_ms
        self.value = 0.0

    def reset(self, now_ms: int) -> None:
        self.start_ms = self.last_ms = now_ms
        self.value = 0.0


class SampledRate:
    """Values per second over ``samples`` windows of ``window_ms`` (Kafka keeps one more
    sample than it counts, so that the oldest one overlapping the span is not lost)."""

    def __init__(self, samples: int, window_ms: int) -> None:
        self.samples = samples
        self.window_ms = window_ms
        self._samples: list[_Sample] = []
        self._current = 0

    @property
    def last_ms(self) -> int:
        """When a value was last recorded (-1: never)."""
        return max((s.last_ms for s in self._samples), default=-1)

    def record(self, value: float, now_ms: int) -> None:
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
        sample.value += value
        sample.last_ms = now_ms

    def _purge(self, now_ms: int) -> None:
        """Reset the samples that saw nothing within the span."""
        expire = self.samples * self.window_ms
        for sample in self._samples:
            if now_ms - sample.last_ms >= expire:
                sample.reset(now_ms)

    def window_size(self, now_ms: int) -> int:
        """The span the rate is measured over, in ms (Kafka's ``Rate.windowSize``)."""
        self._purge(now_ms)
        oldest = min((s.start_ms for s in self._samples), default=now_ms)
        elapsed = now_ms - oldest
        missing = self.samples - 1 - elapsed // self.window_ms
        if missing > 0:
            elapsed += missing * self.window_ms
        return max(elapsed, 1)

    def measure(self, now_ms: int) -> float:
        """Values per second."""
        self._purge(now_ms)
        total = sum(s.value for s in self._samples)
        return total / (self.window_size(now_ms) / 1000)

    def throttle_ms(self, bound: float, now_ms: int) -> int:
        """0 while the rate is within ``bound``, else how long until it would be with nothing
        more recorded: (rate - bound) / bound * span, rounded as Java's ``Math.round``."""
        rate = self.measure(now_ms)
        if rate <= bound:
            return 0
        return math.floor((rate - bound) / bound * self.window_size(now_ms) + 0.5)
