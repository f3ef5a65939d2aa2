"""What an endpoint sees of its request, and its query and path parameters read as Jersey
reads them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from starlette.datastructures import QueryParams
from starlette.responses import Response

from seaway.connect.rest.responses import WebError
from seaway.java.numbers import parse_int

__all__ = ["Call", "Endpoint", "java_int", "query_bool", "query_first"]


@dataclass(frozen=True, slots=True)
class Call:
    """What an endpoint sees of its request."""

    params: dict[str, str]
    query: QueryParams
    body: bytes
    base_url: str
    headers: Mapping[str, str]


Endpoint = Callable[[Call], Response]


def query_first(query: QueryParams, name: str) -> str | None:
    values = query.getlist(name)
    return values[0] if values else None


def query_bool(query: QueryParams, name: str, default: bool) -> bool:
    """A boolean query parameter as Jersey reads it: ``true`` in any case, else false."""
    value = query_first(query, name)
    if value is None or not value.strip():
        return default
    return value.lower() == "true"


def java_int(text: str) -> int:
    """A path ``Integer``; a 404 when Java's ``Integer.valueOf`` would fail."""
    try:
        return parse_int(text)
    except ValueError:
        raise WebError(404) from None
