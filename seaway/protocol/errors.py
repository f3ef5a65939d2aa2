"""Kafka protocol errors as exceptions.

Handlers raise :class:`KafkaError` (or a subclass) and the dispatcher turns it into the
``error_code`` of the partition, group or request it concerns. The code table itself is
kio's :class:`~kio.schema.errors.ErrorCode`, generated from Kafka's own error list.
"""

from __future__ import annotations

from kio.schema.errors import ErrorCode

from seaway.errors import SeawayError

__all__ = ["ErrorCode", "KafkaError", "UnsupportedVersion"]


class KafkaError(SeawayError):
    """An error that maps onto one Kafka protocol ``error_code``."""

    def __init__(self, code: ErrorCode, message: str | None = None) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code.name}: {message}" if message else code.name)

    @property
    def retriable(self) -> bool:
        return bool(self.code.retriable)


class UnsupportedVersion(KafkaError):
    """A request of an API version the broker cannot parse."""

    def __init__(self, api_key: int, version: int) -> None:
        super().__init__(
            ErrorCode.unsupported_version, f"API key {api_key} version {version} is not supported"
        )
        self.api_key = api_key
        self.version = version
