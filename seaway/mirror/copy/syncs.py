"""MM2's offset syncs of a flow: the rule's state per Python worker, and where syncs go.

Each acknowledged run of records feeds MM2's offset-sync rule
(:meth:`~seaway.mirror.offset_syncs.OffsetSyncWriter.queue_offset_syncs_run`). Its state
(each partition's last sync, the delayed one) must last across the ranges a Python worker
copies, as it lasts across a Connect task's polls: one writer per flow and offset-syncs
topic, kept here for the life of the process (:func:`sync_writer`).

The syncs go out through a librdkafka producer of the process (:func:`seaway.kafka.pool.
producer`), not the copy's batch producer: they are a few small records for another topic,
perhaps on another cluster (``offset-syncs.topic.location``), sent as they come and flushed
once per range; librdkafka gathers them into batches by itself (``linger.ms``), where
the batch producer would make a Produce request per call.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from seaway.kafka import pool
from seaway.kafka.librdkafka_producer import BATCHING
from seaway.kafka.timeouts import FLUSH_TIMEOUT_S
from seaway.mirror.copy.spec import MirrorCopySpec
from seaway.mirror.formats import OffsetSync
from seaway.mirror.offset_syncs import OffsetSyncWriter

__all__ = ["SyncSender", "sync_writer"]

log = logging.getLogger(__name__)


_WRITERS: dict[tuple[str, str, str], OffsetSyncWriter] = {}
_LOCK = threading.Lock()


def sync_writer(spec: MirrorCopySpec) -> OffsetSyncWriter | None:
    """The process's offset-sync writer of *spec*'s flow (None: syncs are off)."""
    if not spec.offset_syncs_topic:
        return None
    key = (spec.source_alias, spec.target_alias, spec.offset_syncs_topic)
    with _LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            writer = _WRITERS[key] = OffsetSyncWriter(spec.offset_lag_max)
        return writer


class SyncSender:
    """Where a range's offset syncs go: sent as they come (at least once, as MM2 sends
    each sync once its record is acknowledged), or held until the range's transaction has
    committed (exactly once: a sync must never point at an aborted copy)."""

    def __init__(self, spec: MirrorCopySpec, hold: bool) -> None:
        self.spec = spec
        self.writer = sync_writer(spec)
        self.hold = hold
        self.held: list[OffsetSync] = []
        self.producer: Any = None

    def add(self, syncs: list[OffsetSync]) -> None:
        if not syncs or not self.spec.offset_syncs_topic:
            return
        if self.hold:
            self.held += syncs
            return
        if self.producer is None:
            config = {**BATCHING, **self.spec.offset_syncs_producer}
            self.producer = pool.producer(config, connected=True)
        topic = self.spec.offset_syncs_topic
        for sync in syncs:
            args = (topic, sync.record_value(), sync.record_key(), 0)
            while True:
                try:
                    self.producer.produce(*args)
                    break
                except BufferError:  # the queue is full: serve reports until it has room
                    self.producer.poll(0.05)

    def promote(self) -> None:
        """Promote the delayed syncs, as on a Connect offset commit, and send them (a
        following task does at each periodic store of its offsets)."""
        if self.writer is None or self.hold:
            return
        self.writer.promote_delayed_offset_syncs()
        self.add(self.writer.take_pending_offset_syncs())

    def finish(self) -> None:
        """Send what was held, promote the delayed syncs and send everything."""
        if self.writer is None:
            return
        self.hold, held = False, self.held
        self.add(held)
        self.promote()
        if self.producer is not None and self.producer.flush(FLUSH_TIMEOUT_S):
            log.warning("Could not send offset syncs to %s", self.spec.offset_syncs_topic)
            pool.drop(self.producer)
