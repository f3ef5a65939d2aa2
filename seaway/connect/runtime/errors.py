"""Errors that carry an HTTP status, as Kafka Connect's ``rest.errors`` package.

The herder raises these (and the API's :class:`~seaway.connect.api.errors.NotFoundError`,
:class:`~seaway.connect.api.errors.AlreadyExistsError`); the REST layer turns every error into
Connect's body ``{"error_code": <status>, "message": "..."}`` the way Kafka's
``ConnectExceptionMapper`` does: NotFoundError → 404, AlreadyExistsError → 409,
ConnectRestError → its status, anything else → 500.
"""

from __future__ import annotations

from seaway.connect.api.errors import ConnectError


class ConnectRestError(ConnectError):
    """An error answered with HTTP *status* (and *error_code*, which defaults to it)."""

    def __init__(self, status: int, message: str, error_code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = status if error_code is None else error_code
        self.message = message


class BadRequestError(ConnectRestError):
    """HTTP 400: the request is malformed or the config is invalid."""

    def __init__(self, message: str) -> None:
        super().__init__(400, message)


__all__ = ["BadRequestError", "ConnectRestError"]
