"""A byte-rate bound shared by threads, as Kafka's ``Throttler`` bounds the log cleaner's
reads and writes (``log.cleaner.io.max.bytes.per.second``).

Each caller reports the bytes it has just moved and, if the bytes since the period started
would take longer than the time since then at the bound, sleeps the difference, holding the
lock, so that every thread sharing the throttler waits with it. Kafka's throttler looks only
once a check interval (300 ms) has passed, so a burst shorter than that went through
unbounded; here every call is checked, and the period starts afresh after each interval
(an idle throttler does not bank the time it was idle). Over any window, at most one
report's bytes pass beyond the bound.
"""

from __future__ import annotations

import threading
import time

__all__ = ["Throttler"]


class Throttler:
    """At most ``bytes_per_second`` since the start of each period of ``check_interval_s``;
    sleeps end early once ``stop`` is set (the broker is stopping)."""

    def __init__(
        self,
        bytes_per_second: float,
        check_interval_s: float = 0.3,
        stop: threading.Event | None = None,
    ) -> None:
        self.bytes_per_second = bytes_per_second
        self.check_interval_s = check_interval_s
        self.total = 0  # bytes observed since it was made
        self._stop = stop or threading.Event()
        self._lock = threading.Lock()
        self._period_start = time.monotonic()
        self._observed = 0.0

    def maybe_throttle(self, observed: int) -> None:
        """Count ``observed`` bytes; sleep until the rate since the period start is within
        the bound."""
        with self._lock:
            self.total += observed
            now = time.monotonic()
            if now - self._period_start > self.check_interval_s:
                self._period_start, self._observed = now, 0.0  # a new period
            self._observed += observed
            delay = self._observed / self.bytes_per_second - (now - self._period_start)
            if delay > 0:
                self._stop.wait(delay)
