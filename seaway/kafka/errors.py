"""The root of the Kafka client's errors (:mod:`seaway.kafka`), as Kafka's ``KafkaException``."""

from __future__ import annotations

from seaway.errors import SeawayError

__all__ = ["KafkaClientError"]


class KafkaClientError(SeawayError):
    """A request, a batch or a connection of Seaway's Kafka client failed."""
