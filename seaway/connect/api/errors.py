"""The Connect error taxonomy (Kafka's ``org.apache.kafka.connect.errors``).

How many failures to tolerate, what to retry and where dead letters go is runtime
configuration (``errors.tolerance``, ``errors.retry.timeout``, ...), never connector code:
a connector only raises the right class.
"""

from __future__ import annotations

from seaway.errors import SeawayError


class ConnectError(SeawayError):
    """Root of every Connect error (Kafka's ``ConnectException``)."""


class RetriableError(ConnectError):
    """A transient failure: the runtime may retry the operation (``RetriableException``)."""


class DataError(ConnectError):
    """Data does not match its schema, or cannot be converted (``DataException``)."""


class SchemaBuilderError(DataError):
    """A :class:`~seaway.connect.api.data.SchemaBuilder` was used incorrectly."""


class NotFoundError(ConnectError):
    """A connector, task or plugin does not exist (``NotFoundException``)."""


class AlreadyExistsError(ConnectError):
    """A connector with that name already exists (``AlreadyExistsException``)."""


class IllegalWorkerStateError(ConnectError):
    """The worker is not in a state that allows the operation (``IllegalWorkerStateException``)."""


__all__ = [
    "AlreadyExistsError",
    "ConnectError",
    "DataError",
    "IllegalWorkerStateError",
    "NotFoundError",
    "RetriableError",
    "SchemaBuilderError",
]
