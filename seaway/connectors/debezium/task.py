"""What every connector's source task shares: a plain ``poll()`` task that returns the
pending snapshot's records first, then, unless ``snapshot.mode=initial_only``, the stream's,
with a heartbeat record (:mod:`.heartbeat`) whenever ``heartbeat.interval.ms`` has passed. A
task whose stream may be read ahead (:attr:`SnapshotThenStreamTask.prefetch`) reads it in a
thread of its own (:mod:`.prefetch`).

Seaway's runtime polls it on the Spark driver and ships the records with the batch; with
``exactly.once.source.support=enabled`` each batch's records and its last offset commit in one
Kafka transaction."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from itertools import islice
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar

from seaway.connect.api import SourceRecord, SourceTask
from seaway.connectors.debezium.config import Settings
from seaway.connectors.debezium.heartbeat import Heartbeat
from seaway.connectors.debezium.prefetch import Prefetcher

__all__ = ["NEVER_AFTER_SNAPSHOT", "SnapshotThenStreamTask", "close_quietly"]

log = logging.getLogger(__name__)

_PREFETCH_WAIT_S: Final = 0.05  # the reader hands over what it read at least this often

NEVER_AFTER_SNAPSHOT: Final = (
    "The connector previously stopped while taking a snapshot, but now the connector is "
    "configured to never allow snapshots. Reconfigure the connector to use snapshots "
    "initially or when needed."
)


class Stream(Protocol):
    """The changes after a position, as records."""

    def poll(self, limit: int, wait_s: float) -> list[SourceRecord]: ...

    def offset(self) -> dict[str, Any]:
        """The offset a restart would resume from now."""
        ...


StreamT = TypeVar("StreamT", bound=Stream)
SnapshotT = TypeVar("SnapshotT")


def close_quietly(*closing: Any) -> None:
    """Close each of *closing* that is not None, logging (at debug) what fails."""
    for each in closing:
        if each is not None:
            try:
                each.close()
            except Exception:
                log.debug("Closing failed", exc_info=True)


class SnapshotThenStreamTask(SourceTask, Generic[SnapshotT, StreamT]):
    """A task whose ``start`` sets :attr:`pending` to a snapshot's records (with
    :attr:`snapshot`) or :attr:`stream`; :meth:`start_stream` starts the stream once the
    snapshot's records are all out."""

    settings: Settings
    prefetch: ClassVar[bool] = False
    """Whether the stream may be read ahead of ``poll()`` (a stream whose ``commit`` needs
    to know what was polled, as PostgreSQL's slot, may not)."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshot: SnapshotT | None = None
        self.pending: Iterator[SourceRecord] | None = None
        self.stream: StreamT | None = None
        self.heartbeat: Heartbeat | None = None
        self.reader: Prefetcher | None = None

    def start_stream(self, snapshot: SnapshotT) -> None:
        """Stream from where *snapshot* (done) left off."""
        raise NotImplementedError

    def poll(self) -> list[SourceRecord] | None:
        limit = self.settings.max_batch_size
        if self.pending is not None:
            records = list(islice(self.pending, limit))
            if len(records) == limit:
                return records
            self.pending = None
            snapshot, self.snapshot = self.snapshot, None
            if self.settings.snapshot_mode != "initial_only":
                assert snapshot is not None
                self.start_stream(snapshot)
            if records:
                return records
        wait_s = self.settings.poll_interval_ms / 1000
        if self.stream is None:
            time.sleep(wait_s)
            return []
        if not self.prefetch:
            return self._read(limit, wait_s)
        if self.reader is None:
            self.reader = Prefetcher(lambda: self._read(limit, _PREFETCH_WAIT_S),
                                     f"{self.settings.topic_prefix}-reader")  # fmt: skip
        return self.reader.take(limit, wait_s)

    def _read(self, limit: int, wait_s: float) -> list[SourceRecord]:
        """The stream's next records, and a heartbeat after them when one is due."""
        assert self.stream is not None
        records = self.stream.poll(limit, wait_s)
        if self.heartbeat is None:
            self.heartbeat = Heartbeat(self.settings)
        if self.heartbeat.due():
            records.append(self.heartbeat.record(self.stream.offset()))
        return records

    def stop_reading(self) -> None:
        """Stop the stream's reader thread, if any (before the stream is closed)."""
        reader, self.reader = self.reader, None
        if reader is not None:
            reader.stop()
