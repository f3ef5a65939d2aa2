"""Telling a flow that has stopped copying from one that has nothing to copy.

A flow is *stalled* when records wait on the source (its replication lag is above 0) and
the offsets it has copied have not moved for ``seaway.flow.stall.timeout.ms``. The driver
checks each time it reads the lag (``seaway.metrics.lag.interval.ms``), so a stall is
reported at most one lag interval after the timeout: one WARNING naming the flow, the
records waiting and what its query is doing, the gauge ``flow-stalled`` set to 1, and one
INFO line when the flow copies again. Nothing is restarted: a query that *failed* is
restarted by the driver's health check; a stalled one is waiting on something (a cluster
that does not answer, a transaction the target cannot complete), which the operator
should see.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Final

log = logging.getLogger(__name__)

STALL_TIMEOUT_MS: Final = "seaway.flow.stall.timeout.ms"
STALL_TIMEOUT_DEFAULT_MS: Final = 60_000

Key = tuple[str, int]


class StallWatch:
    """Watches one flow's copied offsets against its lag; see the module docstring."""

    def __init__(
        self, flow: str, timeout_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.flow = flow
        self.timeout_s = timeout_s
        self.clock = clock
        self._copied: dict[Key, int] = {}
        self._since = clock()  # when the copied offsets last moved (or the watch began)
        self.stalled = False

    def observe(self, copied: Mapping[Key, int], lags: Mapping[Key, int], status: str = "") -> bool:
        """Record the flow's copied offsets and its lag now (empty: the source did not
        answer); whether it is stalled.

        *status* (what the flow's query is doing) goes into the warning.
        """
        now = self.clock()
        if dict(copied) != self._copied:
            self._copied = dict(copied)
            if self.stalled:
                log.info("Flow %s is making progress again after %.0f s", self.flow,
                         now - self._since)  # fmt: skip
            self._since = now
            self.stalled = False
            return False
        if not lags:  # the source's end offsets could not be read: no news either way
            return self.stalled
        waiting = sum(lags.values())
        if waiting <= 0:
            self._since = now  # nothing to copy is not a stall
            if self.stalled:
                log.info("Flow %s is making progress again: nothing waits on the source",
                         self.flow)  # fmt: skip
            self.stalled = False
            return False
        idle = now - self._since
        if idle >= self.timeout_s and not self.stalled:
            self.stalled = True
            log.warning(
                "Flow %s has made no progress for %.0f s while %d records wait on the source "
                "(%s); it resumes by itself once both clusters answer. Check that they do.",
                self.flow, idle, waiting, status or "no query status",
            )  # fmt: skip
        return self.stalled


__all__ = ["STALL_TIMEOUT_DEFAULT_MS", "STALL_TIMEOUT_MS", "StallWatch"]
