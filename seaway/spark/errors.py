"""The root of the errors of Seaway's Spark layer (the Kafka source and sink, sessions,
shipping Seaway to executors)."""

from __future__ import annotations

from seaway.errors import SeawayError

__all__ = ["SparkKafkaError"]


class SparkKafkaError(SeawayError):
    """Seaway's Spark layer could not do what was asked."""
