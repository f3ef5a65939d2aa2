"""A byte-rate bound shared by threads, as Kafka's ``Throttler`` bounds the log cleaner's
reads and writes (``log.cleaner.io.max.bytes.per.second``).

Each caller reports the bytes it has just moved; once a check interval has passed, if the
rate since the last check is above the bound, the caller sleeps until it is not, holding
the lock, so that every thread sharing the throttler waits with it.
"""

from __future__ import annotations

import threading
import time

__all__ = ["Throttler"]


class Throttler:
    """At most ``bytes_per_second`` on average over intervals of ``check_interval_s``;
    sleeps end early once ``stop`` is set (the broker is stopping)."""

    def __init__(
        self,
        bytes_per_second: float,
        check_interval_s: float = 0.3,
        stop: threading.Event | None = None,
    ) -> None:
        self.bytes_per_second = bytes_per_second
        self.check_interval_s = check_interval_s
        self._stop = stop or threading.Event()
        self._lock = threading.Lock()
        self._period_start = time.monotonic()
        self._observed = 0.0

    def maybe_throttle(self, observed: int) -> None:
        """Count ``observed`` bytes; sleep if the rate since the last check is too high."""
        with self._lock:
            self._observed += observed
            elapsed = time.monotonic() - self._period_start
            if elapsed <= self.check_interval_s or self._observed <= 0:
                return
            if self._observed / elapsed > self.bytes_per_second:
                self._stop.wait(self._observed / self.bytes_per_second - elapsed)
            self._period_start = time.monotonic()
            self._observed = 0.0
