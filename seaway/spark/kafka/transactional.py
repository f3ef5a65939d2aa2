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
  :class:`SequenceFence` the marker is a per-task sequence instead of the batch id, in a
  group shared by every run of the task. After ``init_transactions`` (which completes every
  older transaction of the id) the task commits sequence *n+1* only if the committed one is
  still *n*, the one its batch was planned after. A run that finds another value was
  overtaken by another incarnation: it writes nothing and fails with
  :class:`TransactionFenced`, as does a run whose commit another incarnation fenced. So the
  committed batches of a task form one unbroken chain, whoever wrote them.

Only standard Kafka APIs are used, so this works against any cluster with transactions.
A batch (non-streaming) write has no batch id: each task is still atomic (all or nothing)
but a task retried after a commit it could not report would write twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from seaway.spark.kafka.options import SinkOptions
from seaway.spark.kafka.writer import KafkaCommitMessage, KafkaTaskWriter, TrackedProducer

log = logging.getLogger(__name__)

__all__ = ["SequenceFence", "TransactionFenced", "write_in_transaction"]


@dataclass(frozen=True)
class SequenceFence:
    """Commit ``next`` as *group*'s offset of *topic*/0 only if it is still ``previous``."""

    group: str
    topic: str
    previous: int
    next: int


class TransactionFenced(RuntimeError):
    """Another incarnation of this writer has written since this batch was planned, or has
    fenced this producer: this run must stop (the one that wrote goes on)."""


_TIMEOUT_S = 60.0


# One admin client per Python worker (it holds no transaction state), kept warm.
_ADMINS: dict[tuple[tuple[str, Any], ...], Any] = {}


def _client_config(options: SinkOptions) -> dict[str, Any]:
    # librdkafka waits half of reconnect.backoff.ms (default 100) before it may connect to
    # the broker named in the first metadata reply; per-task clients pay it every time.
    return {
        "reconnect.backoff.ms": 10,
        **options.kafka_params,
        "bootstrap.servers": options.bootstrap_servers,
    }


def _admin(options: SinkOptions) -> Any:
    from confluent_kafka.admin import AdminClient

    config = _client_config(options)
    key = tuple(sorted(config.items()))
    if key not in _ADMINS:
        _ADMINS[key] = AdminClient(config)
    return _ADMINS[key]


def _committed_batch(options: SinkOptions, group: str, topic: str) -> int:
    """The offset this task's group committed (batch id + 1 of its last batch), or -1."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    admin = _admin(options)
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, 0)])
    deadline = time.monotonic() + _TIMEOUT_S
    while True:
        try:
            result = admin.list_consumer_group_offsets([request], require_stable=True)[
                group
            ].result(_TIMEOUT_S)
            return max((tp.offset for tp in result.topic_partitions), default=-1)
        except KafkaException as e:
            # UNSTABLE_OFFSET_COMMIT while an older attempt's commit is completing: wait.
            if time.monotonic() > deadline or not e.args[0].retriable():
                raise
            time.sleep(0.1)


def committed_sequence(options: SinkOptions, group: str, topic: str) -> int:
    """The sequence a :class:`SequenceFence` group committed, 0 when none."""
    return max(_committed_batch(options, group, topic), 0)


def _fenced(error: BaseException) -> bool:
    """Whether *error* says another producer with the same transactional id took over."""
    from confluent_kafka import KafkaError, KafkaException

    if not isinstance(error, KafkaException) or not error.args:
        return False
    code = error.args[0].code() if isinstance(error.args[0], KafkaError) else None
    return code in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                    KafkaError.INVALID_PRODUCER_EPOCH)  # fmt: skip


def _first_topic(options: SinkOptions, batches: list[pa.RecordBatch]) -> str | None:
    if options.topic:
        return options.topic
    for batch in batches:
        names = {n.lower(): i for i, n in enumerate(batch.schema.names)}
        for topic in batch.column(names["topic"]).to_pylist():
            if topic is not None:
                return str(topic)
    return None


def write_in_transaction(
    options: SinkOptions,
    iterator: Iterator[pa.RecordBatch],
    context: Any,
    fence: SequenceFence | None = None,
) -> KafkaCommitMessage:
    from confluent_kafka import Consumer, TopicPartition

    task = context.partitionId() if context else 0
    raw_batch = context.getLocalProperty("streaming.sql.batchId") if context else None
    query = context.getLocalProperty("sql.streaming.queryId") if context else None
    batch_id = int(raw_batch) if raw_batch is not None else -1
    marker_group = f"{options.transactional_id_prefix}-{query or 'batch'}-{task}"
    transactional_id = (
        marker_group
        if options.transactional_id_per_query
        else f"{options.transactional_id_prefix}-{task}"
    )
    tracked = TrackedProducer(
        {
            "reconnect.backoff.ms": 10,
            **options.producer_config(),
            "transactional.id": transactional_id,
        }
    )
    producer = tracked.producer
    # librdkafka asks for a producer id before any broker connection is up and then waits
    # a fixed 500 ms to retry; two metadata requests make it connect to the broker first.
    producer.list_topics(timeout=_TIMEOUT_S)
    producer.list_topics(timeout=_TIMEOUT_S)
    producer.init_transactions(_TIMEOUT_S)  # fences older attempts, aborts their open work
    # Take the first batch to learn the marker topic; later batches stream through.
    pending: list[pa.RecordBatch] = []
    for batch in iterator:
        pending.append(batch)
        if batch.num_rows:
            break
    marker_topic = _first_topic(options, pending)
    if marker_topic is None:  # no rows at all in this task
        return KafkaCommitMessage(0, task)
    marker = batch_id + 1
    if fence is not None:
        marker_group, marker_topic, marker = fence.group, fence.topic, fence.next
        committed = committed_sequence(options, fence.group, fence.topic)
        done = committed == fence.next
        if not done and committed != fence.previous:
            raise TransactionFenced(
                f"{transactional_id}: sequence {committed} is committed, this batch was planned "
                f"after {fence.previous}: another run of this task has written since; this run "
                "is fenced and writes nothing"
            )
    else:
        done = batch_id >= 0 and _committed_batch(options, marker_group, marker_topic) > batch_id
    if done:
        log.info(
            "Batch %d task %d already committed by an earlier attempt; skipping", batch_id, task
        )
        for _ in iterator:
            pass
        return KafkaCommitMessage(0, task, skipped=True)
    writer = KafkaTaskWriter(options, tracked)
    producer.begin_transaction()
    try:
        for batch in pending:
            writer.write(batch)
        for batch in iterator:
            writer.write(batch)
        records = writer.finish()
        if batch_id >= 0 or fence is not None:
            group = Consumer(
                {
                    "bootstrap.servers": options.bootstrap_servers,
                    **options.kafka_params,
                    "group.id": marker_group,
                }
            )
            try:
                producer.send_offsets_to_transaction(
                    [TopicPartition(marker_topic, 0, marker)],
                    group.consumer_group_metadata(),
                    _TIMEOUT_S,
                )
            finally:
                group.close()
        producer.commit_transaction(_TIMEOUT_S)
    except BaseException as error:
        try:
            producer.abort_transaction(_TIMEOUT_S)
        except Exception:  # fenced or fatal: the coordinator aborts it anyway
            log.warning("Could not abort the transaction of %s", transactional_id, exc_info=True)
        if fence is not None and _fenced(error):
            raise TransactionFenced(
                f"{transactional_id}: another run of this task has taken over its transactional "
                f"id; this run is fenced ({error})"
            ) from error
        raise
    return KafkaCommitMessage(records, task)
