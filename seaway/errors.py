"""The root of Seaway's own exceptions, and of each layer's: ``except SeawayError`` catches
whatever Seaway raised on purpose, ``except KafkaClientError`` / ``SparkKafkaError`` /
``MirrorError`` / ``ConnectError`` what one layer did (as Kafka's ``KafkaException`` and
``ConnectException``). A layer's errors keep the built-in base they always had
(``RuntimeError``, ``ValueError``...), so code that caught those still does."""

from __future__ import annotations

__all__ = ["SeawayError"]


class SeawayError(Exception):
    """An error Seaway raises on purpose."""
