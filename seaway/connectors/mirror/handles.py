"""The flow handles of the mirror connectors, and a small periodic-job thread.

* :class:`SourceFlowHandle` wraps a :class:`~seaway.mirror.source_flow.MirrorSourceFlow`
  (a Spark query): started on the worker's thread, failed when the query fails; its
  periodic topic config and ACL syncs run in threads of their own.
* :class:`PeriodicFlowHandle` runs a driver-side flow (checkpoints, heartbeats) in its own
  thread: optionally waits until it can start, starts it, then calls its job every interval.
  A failed start fails the handle (so the tasks turn FAILED with the trace); a failed job is
  logged and retried at the next interval, as MirrorCheckpointTask does.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Iterable
from typing import Any, Final

from seaway.connect.api.flow import FlowHandle

log = logging.getLogger(__name__)

_JOIN_S: Final = 60.0
_READY_POLL_S: Final = 1.0


class Periodic:
    """Calls *job* every *interval_s* seconds (first after *first_delay_s*) in a daemon
    thread until :meth:`stop`; an exception is logged and the next call still happens."""

    def __init__(
        self, name: str, interval_s: float, job: Callable[[], Any], first_delay_s: float = 0.0
    ) -> None:
        self.name = name
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(interval_s, job, first_delay_s), name=name, daemon=True
        )
        self._thread.start()

    def _run(self, interval_s: float, job: Callable[[], Any], delay_s: float) -> None:
        while not self._stopping.wait(delay_s):
            try:
                job()
            except Exception:
                log.exception("%s failed; trying again in %g s", self.name, interval_s)
            delay_s = interval_s

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not threading.current_thread():
            self._thread.join(_JOIN_S)


class PeriodicFlowHandle(FlowHandle):
    """Runs ``start()`` once, then ``job()`` right away and every *interval_s* seconds, then
    ``close()``, all in its own thread. *ready* (if given) is polled every second before the
    start, for a prerequisite another connector creates (*waiting_for* says which, in the
    warning logged while waiting)."""

    def __init__(
        self,
        name: str,
        *,
        start: Callable[[], Any],
        job: Callable[[], Any],
        interval_s: float,
        close: Callable[[], Any],
        ready: Callable[[], bool] | None = None,
        waiting_for: str = "its prerequisites",
    ) -> None:
        self.name = name
        self.waiting_for = waiting_for
        self._failure: str | None = None
        self._stopping = threading.Event()
        self._started = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(start, job, interval_s, close, ready), name=name, daemon=True
        )
        self._thread.start()

    def _run(
        self,
        start: Callable[[], Any],
        job: Callable[[], Any],
        interval_s: float,
        close: Callable[[], Any],
        ready: Callable[[], bool] | None,
    ) -> None:
        try:
            if not self._wait_ready(ready):
                return
            start()
        except Exception:
            failure = traceback.format_exc()
            log.error("%s could not start:\n%s", self.name, failure)
            self._close(close)
            self._failure = failure  # last: whoever sees the failure sees it closed
            return
        self._started.set()
        while not self._stopping.is_set():
            try:
                job()
            except Exception:
                log.exception("%s failed; trying again in %g s", self.name, interval_s)
            if self._stopping.wait(max(interval_s, 0.0)):
                break
        self._close(close)

    def _wait_ready(self, ready: Callable[[], bool] | None) -> bool:
        waiting = False
        while ready is not None and not ready():
            if not waiting:
                log.warning("%s is waiting for %s", self.name, self.waiting_for)
                waiting = True
            if self._stopping.wait(_READY_POLL_S):
                return False
        return not self._stopping.is_set()

    def _close(self, close: Callable[[], Any]) -> None:
        try:
            close()
        except Exception:
            log.warning("Closing %s failed", self.name, exc_info=True)

    @property
    def started(self) -> bool:
        """Whether the start succeeded (the job runs)."""
        return self._started.is_set()

    @property
    def active(self) -> bool:
        return self._failure is None and not self._stopping.is_set()

    def failure(self) -> str | None:
        return self._failure

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not threading.current_thread():
            self._thread.join(_JOIN_S)


class SourceFlowHandle(FlowHandle):
    """A MirrorSource flow (a Spark query), started on the calling thread; once it runs,
    each ``(name, interval_s, job)`` of *jobs* is called right away and every interval in
    a thread of its own (topic config and ACL syncs)."""

    def __init__(
        self, flow: Any, jobs: Iterable[tuple[str, float, Callable[[], Any]]] = ()
    ) -> None:
        self.flow = flow
        self._failure: str | None = None
        self._stopped = False
        self._jobs: list[Periodic] = []
        try:
            flow.start()
        except Exception:
            self._failure = traceback.format_exc()
            log.error("Mirror flow %s could not start:\n%s", flow.name, self._failure)
            self._stop_flow()
            return
        self._jobs = [Periodic(name, interval, job) for name, interval, job in jobs]

    @property
    def active(self) -> bool:
        return not self._stopped and self.failure() is None

    def failure(self) -> str | None:
        return self._failure or self.flow.failure()

    def _stop_flow(self) -> None:
        try:
            self.flow.stop()
        except Exception:
            log.warning("Stopping mirror flow %s failed", self.flow.name, exc_info=True)

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            for job in self._jobs:
                job.stop()
            self._stop_flow()


__all__ = ["Periodic", "PeriodicFlowHandle", "SourceFlowHandle"]
