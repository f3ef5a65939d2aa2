"""Java's primitive numbers: printing, float32 rounding, casts, and parsing from text.

>>> double_to_string(1e10), double_to_string(100.0), double_to_string(5e-324)
('1.0E10', '100.0', '4.9E-324')
>>> float_to_string(1.1), narrow(300, 8), double_to_integer(-1.9, 8)
('1.1', 44, -1)
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Final

from seaway.java.strings import trim

_INT_TEXT: Final = re.compile(r"[+-]?[0-9]+")
# Double.parseDouble without hex floats: decimal, exponent, optional f/d suffix.
_DOUBLE_TEXT: Final = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)"
)


class JavaFloat(float):
    """A ``java.lang.Float``: a float32 value that prints as ``Float.toString``."""

    __slots__ = ()


def to_float32(value: float) -> float:
    """``(float) value``: the nearest IEEE single (overflowing to infinity)."""
    try:
        single: float = struct.unpack(">f", struct.pack(">f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return single


def narrow(value: int, bits: int) -> int:
    """Java's narrowing of an integer to *bits* bits, two's complement (``(byte) 300`` is 44)."""
    half = 1 << (bits - 1)
    return ((value + half) & ((1 << bits) - 1)) - half


def double_to_integer(value: float, bits: int) -> int:
    """``(byte)``/``(short)``/``(int)``/``(long)`` of a double (*bits* 8 to 64).

    Truncated toward zero and saturated to an int (a long for 64 bits), then narrowed;
    NaN is 0.
    """
    if math.isnan(value):
        return 0
    wide = 64 if bits == 64 else 32
    low, high = -(1 << (wide - 1)), (1 << (wide - 1)) - 1
    return narrow(high if value >= high else low if value <= low else int(value), bits)


# ---------------------------------------------------------------------------- parsing


def parse_int(text: str, bits: int = 32) -> int:
    """``Byte``/``Short``/``Integer``/``Long.parseXxx`` for *bits* 8/16/32/64 (ASCII digits).

    ValueError (Java's ``NumberFormatException``) when *text* is not such a number.
    """
    if _INT_TEXT.fullmatch(text):
        number = int(text)
        if -(1 << (bits - 1)) <= number < (1 << (bits - 1)):
            return number
    raise ValueError(f'For input string: "{text}"')


def parse_double(text: str) -> float:
    """``Double.parseDouble`` (trimmed; ``NaN``, ``Infinity``, ``1e3``, ``2f``; no hex floats).

    ValueError (Java's ``NumberFormatException``) when *text* is not a number.
    """
    trimmed = trim(text)
    if not _DOUBLE_TEXT.fullmatch(trimmed):
        raise ValueError(f'For input string: "{text}"')
    return float(trimmed.rstrip("fFdD"))


def parse_boolean(text: str | None) -> bool:
    """``Boolean.parseBoolean``: ``true`` in any case; anything else (and None) is false."""
    return text is not None and text.lower() == "true"


# ---------------------------------------------------------------------------- printing


def _closest_short_digits(value: float, shortest: str, round_trip: Callable[[float], float]) -> str:
    """Java's choice among short decimals: when one digit suffices, a closer two-digit one wins.

    (So ``Double.MIN_VALUE`` prints as ``4.9E-324`` where Python's repr says ``5e-324``.)
    """
    if len(Decimal(shortest).normalize().as_tuple().digits) != 1:
        return shortest
    two = f"{value:.2g}"
    exact = Decimal(value)
    if round_trip(float(two)) == value and abs(Decimal(two) - exact) < abs(
        Decimal(shortest) - exact
    ):
        return two
    return shortest


def _shortest_float32_digits(value: float) -> str:
    """The shortest decimal that rounds back to the float32 *value* (repr-style)."""
    for precision in range(1, 10):
        text = f"{value:.{precision}g}"
        if to_float32(float(text)) == value:
            return text
    return repr(value)


def _java_layout(shortest: str, value: float) -> str:
    """Lay out shortest digits the way ``Double.toString``/``Float.toString`` do."""
    sign, digits, exponent = Decimal(shortest).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + exponent  # digits before the decimal point
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        whole = text[:point].ljust(point, "0")
        return f"{prefix}{whole}.{text[point:] or '0'}"
    return f"{prefix}{text[0]}.{text[1:] or '0'}E{point - 1}"


def double_to_string(value: float) -> str:
    """``Double.toString`` (JDK 19+: shortest digits), e.g. ``1.0E7``, ``0.001``, ``NaN``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return _java_layout(_closest_short_digits(value, repr(value), float), value)


def float_to_string(value: float) -> str:
    """``Float.toString((float) value)`` (JDK 19+: shortest digits), e.g. ``1.4E-45``."""
    value = to_float32(value)
    if math.isnan(value) or math.isinf(value) or value == 0:
        return double_to_string(value)
    shortest = _shortest_float32_digits(value)
    return _java_layout(_closest_short_digits(value, shortest, to_float32), value)


__all__ = [
    "JavaFloat",
    "double_to_integer",
    "double_to_string",
    "float_to_string",
    "narrow",
    "parse_boolean",
    "parse_double",
    "parse_int",
    "to_float32",
]
