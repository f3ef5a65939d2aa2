"""A target topic's ``max.message.bytes``, which every writer of whole batches must respect.

A producer that builds its own record batches (the mirror's copy, the column producer) cuts
them to fit the topic's limit, as Kafka's producer cuts at ``batch.size``. The limit is read
with DescribeConfigs and trusted for :data:`TTL_S`; after a failed write it is forgotten,
so the next write reads it again (it may have changed). Where it cannot be read (no
DescribeConfigs permission) the broker's default is assumed.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Final, Protocol

__all__ = ["DEFAULT_MAX_MESSAGE_BYTES", "TTL_S", "forget", "max_message_bytes"]

log = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGE_BYTES: Final = 1_048_588
"""Kafka's default ``max.message.bytes`` (``message.max.bytes`` of the broker)."""

TTL_S: Final = 300.0
"""How long a topic's ``max.message.bytes`` is trusted before it is read again."""

_LIMITS: dict[tuple[str, str], tuple[int, float]] = {}
_LOCK = threading.Lock()


class TopicConfigs(Protocol):
    """What reads a topic's config (a :class:`~seaway.kafka.ranges.RangeProducer`)."""

    def topic_config(self, topic: str, name: str) -> str | None: ...


def max_message_bytes(cluster: str, topic: str, reader: TopicConfigs) -> int:
    """*topic*'s ``max.message.bytes`` on the cluster *cluster* (its bootstrap servers),
    read with *reader* when not known or older than :data:`TTL_S`."""
    key = (cluster, topic)
    with _LOCK:
        known = _LIMITS.get(key)
    if known is not None and time.monotonic() - known[1] < TTL_S:
        return known[0]
    try:
        value = reader.topic_config(topic, "max.message.bytes")
    except Exception as error:  # e.g. no DescribeConfigs permission: the broker's default
        log.debug("max.message.bytes of %s not readable (%s); assuming the default", topic, error)
        value = None
    limit = int(value) if value else DEFAULT_MAX_MESSAGE_BYTES
    with _LOCK:
        _LIMITS[key] = (limit, time.monotonic())
    return limit


def forget(cluster: str, topic: str) -> None:
    """Read *topic*'s limit again next time (a write to it failed)."""
    with _LOCK:
        _LIMITS.pop((cluster, topic), None)
