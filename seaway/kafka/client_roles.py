"""Which librdkafka settings belong to one kind of client only.

One Seaway config often feeds several clients: a sink's producer settings also make the
consumer that reads its markers, a connector's consumer settings the admin client that lists
its group's offsets. librdkafka ignores the other kind's settings but warns of each one
(``CONFWARN``) in every log; these filters keep them out. The lists are librdkafka 2.x's
producer-only and consumer-only properties (its CONFIGURATION.md, scope ``P`` or ``C``) that
Seaway's configs can carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["admin_settings", "consumer_settings"]

PRODUCER_ONLY: Final = frozenset({
    "acks", "batch.num.messages", "batch.size", "compression.codec", "compression.level",
    "compression.type", "delivery.report.only.error", "delivery.timeout.ms",
    "enable.gapless.guarantee", "enable.idempotence", "linger.ms", "message.send.max.retries",
    "message.timeout.ms", "partitioner", "produce.offset.report", "queue.buffering.max.kbytes",
    "queue.buffering.max.messages", "queue.buffering.max.ms", "queuing.strategy",
    "request.required.acks", "request.timeout.ms", "retries", "sticky.partitioning.linger.ms",
    "transaction.timeout.ms", "transactional.id",
})  # fmt: skip

CONSUMER_ONLY: Final = frozenset({
    "auto.commit.interval.ms", "auto.offset.reset", "check.crcs", "consume.callback.max.messages",
    "coordinator.query.interval.ms", "enable.auto.commit", "enable.auto.offset.store",
    "enable.partition.eof", "fetch.error.backoff.ms", "fetch.max.bytes", "fetch.min.bytes",
    "fetch.queue.backoff.ms", "fetch.wait.max.ms", "group.instance.id", "group.protocol",
    "group.remote.assignor", "heartbeat.interval.ms", "isolation.level",
    "max.partition.fetch.bytes", "max.poll.interval.ms", "max.poll.records",
    "offset.store.method", "partition.assignment.strategy", "queued.max.messages.kbytes",
    "queued.min.messages", "session.timeout.ms",
})  # fmt: skip


def consumer_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """*config* without the producer-only settings."""
    return {k: v for k, v in config.items() if k not in PRODUCER_ONLY}


def admin_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """*config* without the producer-only and consumer-only settings (an admin client is
    neither)."""
    return {k: v for k, v in config.items() if k not in PRODUCER_ONLY and k not in CONSUMER_ONLY}
