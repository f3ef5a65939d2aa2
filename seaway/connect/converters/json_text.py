"""JSON text exactly as Kafka's Jackson setup writes and reads it.

The tree is plain Python: ``None``, ``bool``, ``int``, ``float`` (a double),
:class:`~seaway.java.numbers.JavaFloat` (a float), ``decimal.Decimal``, ``str``, ``bytes``
(Jackson's binary node, written as standard base64), ``list`` and ``dict``. :func:`dumps`
writes compact JSON with keys in insertion order, numbers the way Java prints them
(``1.0E10``), non-finite numbers as quoted strings (``"NaN"``), control characters as
``\\n``-style or upper-case ``\\u001F`` escapes, and everything else as raw UTF-8.

:func:`loads` reads one JSON value like Jackson's ``readTree`` with Kafka's features:
non-integral numbers become ``decimal.Decimal`` (``USE_BIG_DECIMAL_FOR_FLOATS``), leading
zeros are allowed (``0012``), text after the first value is ignored, and empty input gives
:data:`MISSING`.
"""

from __future__ import annotations

import base64
import decimal
import json
import re
from typing import Any, Final

from seaway.java.big_decimal import big_decimal_to_string
from seaway.java.numbers import JavaFloat, double_to_string, float_to_string


class _Missing:
    """Jackson's MissingNode: no JSON value at all."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\]')


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPES.get(char) or f"\\u{ord(char):04X}"


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return '"' + text + '"'
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, text) + '"'


def string_bytes(text: str) -> bytes:
    """A JSON string literal as Jackson writes it, in UTF-8."""
    return _string(text).encode("utf-8")


_NON_FINITE = frozenset(("NaN", "Infinity", "-Infinity"))


def _number(text: str) -> str:
    # Jackson's QUOTE_NON_NUMERIC_NUMBERS: NaN and infinities are written as strings.
    return f'"{text}"' if text in _NON_FINITE else text


def _write(node: Any, out: list[str]) -> None:
    if node is None:
        out.append("null")
    elif node is True:
        out.append("true")
    elif node is False:
        out.append("false")
    elif isinstance(node, str):
        out.append(_string(node))
    elif isinstance(node, int):
        out.append(str(node))
    elif isinstance(node, JavaFloat):
        out.append(_number(float_to_string(node)))
    elif isinstance(node, float):
        out.append(_number(double_to_string(node)))
    elif isinstance(node, dict):
        out.append("{")
        for i, (key, value) in enumerate(node.items()):
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value, out)
        out.append("}")
    elif isinstance(node, list):
        out.append("[")
        for i, value in enumerate(node):
            if i:
                out.append(",")
            _write(value, out)
        out.append("]")
    elif isinstance(node, bytes | bytearray):
        out.append('"' + base64.b64encode(node).decode("ascii") + '"')
    elif isinstance(node, decimal.Decimal):
        out.append(big_decimal_to_string(node))
    else:
        raise TypeError(f"not a JSON tree node: {node!r}")


def dumps(node: Any) -> bytes:
    """Compact UTF-8 JSON of *node*; raises ``UnicodeEncodeError`` on lone surrogates."""
    out: list[str] = []
    _write(node, out)
    return "".join(out).encode("utf-8")


def _binary(node: Any) -> str:
    if isinstance(node, bytes | bytearray):
        return base64.b64encode(node).decode("ascii")
    raise TypeError(f"not a JSON tree node: {node!r}")


_ENCODER: Final = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False, allow_nan=False,
    default=_binary,
)  # fmt: skip


def dumps_plain(node: Any) -> bytes:
    """:func:`dumps` of a tree without ``float``, ``JavaFloat`` or ``Decimal`` nodes (Java
    prints those its own way), through the standard library's C encoder: the same bytes,
    several times faster. Its escapes are Jackson's but for the hex digits of a control
    character (``\\u001f``, Jackson ``\\u001F``): text with one is written by :func:`dumps`."""
    text = _ENCODER.encode(node)
    if "\\u00" in text:
        return dumps(node)
    return text.encode("utf-8")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


_DECODER = json.JSONDecoder(parse_float=decimal.Decimal, parse_constant=_reject_constant)
_WHITESPACE = " \t\n\r"
# A string token (left alone) or the leading zeros of a number token.
_LEADING_ZEROS = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![0-9.eE+-])(-?)0+(?=[0-9])')


def _strip_leading_zeros(text: str) -> str:
    return _LEADING_ZEROS.sub(lambda m: m.group() if m.group().startswith('"') else m[1], text)


def loads(data: bytes) -> Any:
    """The first JSON value in *data*, or :data:`MISSING` if there is none.

    Raises ``ValueError`` (or ``UnicodeDecodeError``) on malformed input.
    """
    text = data.decode(json.detect_encoding(data)).lstrip(_WHITESPACE)
    if not text:
        return MISSING
    try:
        return _DECODER.raw_decode(text)[0]
    except json.JSONDecodeError:
        relaxed = _strip_leading_zeros(text)
        if relaxed == text:
            raise
        return _DECODER.raw_decode(relaxed)[0]


def loads_whole(text: str) -> Any:
    """The JSON value that is all of *text* (whitespace aside); ``ValueError`` otherwise."""
    node, end = _DECODER.raw_decode(text.lstrip(_WHITESPACE))
    if text.lstrip(_WHITESPACE)[end:].strip(_WHITESPACE):
        raise ValueError("text after the JSON value")
    return node


def node_type(node: Any) -> str:
    """Jackson's ``JsonNodeType`` name of *node* (``OBJECT``, ``NUMBER``, ...)."""
    if node is MISSING:
        return "MISSING"
    if node is None:
        return "NULL"
    if isinstance(node, bool):
        return "BOOLEAN"
    if isinstance(node, int | float | decimal.Decimal):
        return "NUMBER"
    if isinstance(node, str):
        return "STRING"
    if isinstance(node, list):
        return "ARRAY"
    if isinstance(node, dict):
        return "OBJECT"
    if isinstance(node, bytes | bytearray):
        return "BINARY"
    return "POJO"


__all__ = ["MISSING", "dumps", "loads", "loads_whole", "node_type"]
