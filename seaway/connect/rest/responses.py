"""JSON responses, and errors mapped to them as Kafka's ``ConnectExceptionMapper`` does:
every error is ``{"error_code": <int>, "message": <str>}``."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from seaway.connect.api.errors import AlreadyExistsError, ConnectError, NotFoundError
from seaway.connect.runtime.errors import ConnectRestError

__all__ = [
    "JSON_MEDIA_TYPE",
    "MappingError",
    "WebError",
    "empty_response",
    "error_response",
    "json_response",
]

log = logging.getLogger(__name__)

JSON_MEDIA_TYPE = "application/json"

_STATUS_TEXT = {
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    415: "Unsupported Media Type",
}


class WebError(ConnectError):
    """A JAX-RS ``WebApplicationException``: message ``HTTP <status> <reason>``."""

    def __init__(self, status: int, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status} {_STATUS_TEXT[status]}")
        self.status = status
        self.headers = dict(headers or {})


class MappingError(ConnectError):
    """Jackson could not map the request body: answered 500 with Jackson's words."""

    def __init__(self, message: str, chain: tuple[tuple[str, str | int], ...] = ()) -> None:
        if chain:
            refs = "->".join(
                f"{owner}[{key}]" if isinstance(key, int) else f'{owner}["{key}"]'
                for owner, key in chain
            )
            message = f"{message} (through reference chain: {refs})"
        super().__init__(message)


def _dumps(entity: Any) -> bytes:
    text = json.dumps(entity, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "backslashreplace")  # a lone surrogate stays a JSON escape


def json_response(
    entity: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(_dumps(entity), status, dict(headers or {}), JSON_MEDIA_TYPE)


def empty_response(status: int) -> Response:
    return Response(None, status)


def _error(status: int, message: str | None, error_code: int | None = None) -> Response:
    code = status if error_code is None else error_code
    return json_response({"error_code": code, "message": message}, status)


def error_response(exc: BaseException, path: str) -> Response:
    """``ConnectExceptionMapper``: the status and body for *exc*."""
    if isinstance(exc, ConnectRestError):
        log.debug("REST call to %s failed", path, exc_info=exc)
        return _error(exc.status, exc.message, exc.error_code)
    if isinstance(exc, NotFoundError):
        log.debug("REST call to %s failed", path, exc_info=exc)
        return _error(404, str(exc))
    if isinstance(exc, AlreadyExistsError):
        log.debug("REST call to %s failed", path, exc_info=exc)
        return _error(409, str(exc))
    if isinstance(exc, WebError):
        response = _error(exc.status, str(exc))
        response.headers.update(exc.headers)
        return response
    if isinstance(exc, MappingError):
        log.error("Uncaught exception in REST call to %s: %s", path, exc)
        return _error(500, str(exc))
    log.error("Uncaught exception in REST call to %s", path, exc_info=exc)
    return _error(500, str(exc) or None)
