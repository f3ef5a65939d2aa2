"""The internal converter: Kafka's JsonConverter with ``schemas.enable=false``.

Every value Connect writes to its internal topics (and the offset keys) goes through it, so
the bytes match what a Java worker writes: compact JSON, keys in insertion order.
"""

from __future__ import annotations

from typing import Any

from seaway.connect.converters import JsonConverter

__all__ = ["decode", "encode"]

_TOPIC = ""  # JsonConverter ignores the topic


def _converter() -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, is_key=False)
    return converter


_CONVERTER = _converter()


def encode(value: Any) -> bytes | None:
    """Schemaless JSON bytes of *value*; None gives None (a tombstone)."""
    return _CONVERTER.from_connect_data(_TOPIC, None, value)


def decode(data: bytes | None) -> Any:
    """The schemaless value of JSON bytes (integers as int, other numbers as float).

    Raises :class:`~seaway.connect.api.errors.DataError` for bytes that are not JSON.
    """
    return _CONVERTER.to_connect_data(_TOPIC, data).value
