"""A stream read ahead in a thread of its own, as Debezium's ``ChangeEventQueue`` decouples
the log reader from ``poll()``: while Spark converts and produces one micro-batch, the next
one's events are already being read and turned into records, and ``poll()`` returns as soon
as some are queued instead of waiting out ``poll.interval.ms``.

Records keep their order (one reader, one queue); the queue holds a few batches at most,
so a stalled consumer stops the reader rather than filling memory. An error of the reader
is raised by the next :meth:`Prefetcher.take`."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Final

from seaway.connect.api import SourceRecord

__all__ = ["Prefetcher"]

log = logging.getLogger(__name__)

_PUT_WAIT_S: Final = 0.2
_JOIN_S: Final = 10.0


class Prefetcher:
    """Calls *read* in a thread until stopped, queueing what it returns (up to *batches*
    non-empty lists)."""

    def __init__(self, read: Callable[[], list[SourceRecord]], name: str, batches: int = 4):
        self._read = read
        self._queue: queue.Queue[list[SourceRecord]] = queue.Queue(maxsize=max(1, batches))
        self._stopping = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                records = self._read()
                while records and not self._stopping.is_set():
                    try:
                        self._queue.put(records, timeout=_PUT_WAIT_S)
                        break
                    except queue.Full:
                        continue
        except BaseException as error:  # raised to the task by take()
            self._error = error

    def take(self, limit: int, wait_s: float) -> list[SourceRecord]:
        """The queued records, up to about *limit* (whole batches), waiting up to *wait_s*
        for the first; raises what stopped the reader."""
        try:
            records = list(self._queue.get(timeout=wait_s))
        except queue.Empty:
            self._raise_error()
            return []
        while len(records) < limit:
            try:
                records += self._queue.get_nowait()
            except queue.Empty:
                break
        return records

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        """Stop the reader and wait for it (it finishes the read it is in)."""
        self._stopping.set()
        self._thread.join(_JOIN_S)
        if self._thread.is_alive():
            log.warning("The change stream's reader did not stop within %.0f s", _JOIN_S)
