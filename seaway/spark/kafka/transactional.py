"""Exactly-once writes: each Spark task writes its part of a micro-batch in one Kafka
transaction, and records in the same transaction that the batch is done.

How it holds up to failures:

- **Deterministic transactional ids.** Task *p* of query *q* always uses
  ``<transactionalIdPrefix>-<q>-<p>`` (or ``<transactionalIdPrefix>-<p>`` with
  ``transactionalIdPerQuery=false``, so a new query run fences a crashed run's producers).
  A retried task, a speculative duplicate, or the same task after a driver restart calls
  ``init_transactions`` with the same id, which fences
  every older producer with it and aborts whatever transaction it left open. A failed
  attempt therefore never leaves records visible to read_committed consumers.
- **The batch id committed with the data.** Inside the transaction the task also commits
  offset ``batchId + 1`` for partition 0 of the topic it writes, in a consumer group named
  ``<transactionalIdPrefix>-<q>-<p>`` (``send_offsets_to_transaction``, KIP-447). Records and marker
  become visible atomically. Spark replays a batch with the same id and the same input
  after a driver restart (its offset log fixes both); the task first reads its group's
  committed offset (``require_stable``) and, if the batch is already there, writes nothing.

- **A sequence fence for writers with several incarnations** (Connect's exactly-once source
  tasks, which another worker may take over while the first is frozen, not dead): with a
  :class:`SequenceFence` the marker is the id of the task's last committed batch (random,
  so no two runs plan the same one), in a group shared by every run of the task. After
  ``init_transactions`` (which completes every older transaction of the id) the task
  commits its batch's id only if the committed one is still the one its batch was planned
  after, and skips the batch only if its own id is committed. A run that finds another
  value was overtaken by another incarnation: it writes nothing and fails with
  :class:`TransactionFenced`, as does a run whose commit another incarnation fenced. So the
  committed batches of a task form one unbroken chain, whoever wrote them.

The transaction itself, marker and fence included, is
:func:`seaway.kafka.transactions.write_range`; this module names each task's transaction,
and the sink's writer (:mod:`seaway.spark.kafka.writer`) runs it. Only standard Kafka APIs
are used, so this works against any cluster with transactions. A batch (non-streaming)
write has no batch id: each task is still atomic (all or nothing)
but a task retried after a commit it could not report would write twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from seaway.kafka.transactions import Marker, TransactionFenced, committed
from seaway.spark.kafka.options import SinkOptions

__all__ = [
    "SequenceFence",
    "TaskTransaction",
    "TransactionFenced",
    "client_config",
    "committed_sequence",
]


@dataclass(frozen=True)
class SequenceFence:
    """Commit ``next`` as *group*'s offset of *topic*/0 only if it is still ``previous``."""

    group: str
    topic: str
    previous: int
    next: int


def client_config(options: SinkOptions) -> dict[str, Any]:
    """The config of the clients besides the producer (marker reads, group metadata)."""
    # librdkafka waits half of reconnect.backoff.ms (default 100) before it may connect to
    # the broker named in the first metadata reply; per-task clients pay it every time.
    return {
        "reconnect.backoff.ms": 10,
        **options.kafka_params,
        "bootstrap.servers": options.bootstrap_servers,
    }


def committed_sequence(options: SinkOptions, group: str, topic: str) -> int:
    """The sequence a :class:`SequenceFence` group committed, 0 when none."""
    return max(committed(client_config(options), group, topic), 0)


@dataclass(frozen=True)
class TaskTransaction:
    """The transaction of one Spark task: its transactional id and its marker."""

    task: int
    batch_id: int  # -1: a batch (non-streaming) write, no marker
    transactional_id: str
    marker_group: str

    @classmethod
    def of(cls, options: SinkOptions, context: Any) -> TaskTransaction:
        """The transaction of the task *context* (a ``TaskContext``, or None) runs."""
        task = context.partitionId() if context else 0
        raw_batch = context.getLocalProperty("streaming.sql.batchId") if context else None
        query = context.getLocalProperty("sql.streaming.queryId") if context else None
        group = f"{options.transactional_id_prefix}-{query or 'batch'}-{task}"
        transactional_id = (
            group
            if options.transactional_id_per_query
            else f"{options.transactional_id_prefix}-{task}"
        )
        batch_id = int(raw_batch) if raw_batch is not None else -1
        return cls(task, batch_id, transactional_id, group)

    def marker(self, topic: str, fence: SequenceFence | None) -> Marker | None:
        """The marker: *fence*'s sequence, else the batch id on *topic* (the first written)."""
        if fence is not None:
            return Marker(fence.group, fence.topic, next=fence.next, previous=fence.previous)
        if self.batch_id < 0:
            return None
        return Marker(self.marker_group, topic, next=self.batch_id + 1)
