"""Java's ``BigDecimal`` on :class:`decimal.Decimal`: parsing with its scale, printing, narrowing.

>>> parse_big_decimal("1.50E+2"), parse_big_decimal("1e"), parse_big_decimal("-0.0")
(Decimal('150'), None, Decimal('-0.0'))
>>> big_decimal_to_string(decimal.Decimal("-0.0")), big_decimal_scale(decimal.Decimal("1.50"))
('0.0', 2)
"""

from __future__ import annotations

import decimal
import math
import re
from fractions import Fraction
from typing import Final

_INT_MIN: Final = -(2**31)
_INT_MAX: Final = 2**31 - 1
_LONG_MIN: Final = -(2**63)
_LONG_MAX: Final = 2**63 - 1
_FLOAT32_MAX: Final = (2 - 2**-23) * 2.0**127
_TEXT: Final = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?)(\d+))?")


def parse_big_decimal(text: str) -> decimal.Decimal | None:
    """``new BigDecimal(text)`` with its scale, or None where Java throws."""
    match = _TEXT.fullmatch(text)
    if match is None or any(ord(c) > 0xFFFF for c in text):
        return None
    sign, whole, fraction, exponent_sign, exponent_digits = match.groups()
    fraction = fraction or ""
    digits = whole + fraction
    if not digits:
        return None
    exponent = 0
    if exponent_digits is not None:
        exponent = -int(exponent_digits) if exponent_sign == "-" else int(exponent_digits)
        if not _INT_MIN <= exponent <= _INT_MAX:
            return None
    scale = len(fraction) - exponent
    if not _INT_MIN <= scale <= _INT_MAX:
        return None
    return decimal.Decimal((int(sign == "-"), tuple(int(c) for c in digits), -scale))


def big_decimal_to_string(number: decimal.Decimal) -> str:
    """``BigDecimal.toString()`` (Java has no negative zero)."""
    return str(number.copy_abs() if number.is_zero() else number)


def big_decimal_scale(number: decimal.Decimal) -> int:
    """``BigDecimal.scale()`` of a finite *number*."""
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)  # finite
    return -exponent


def exact_long(number: decimal.Decimal) -> int | None:
    """``longValueExact()``: the value of an integral *number* within a long, else None."""
    if number.is_zero():
        return 0
    _, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    if exponent < 0 and any(digits[exponent:]):
        return None
    if number.adjusted() >= 19:
        return None
    value = int(number)
    return value if _LONG_MIN <= value <= _LONG_MAX else None


def big_decimal_to_float32(number: decimal.Decimal) -> float:
    """``floatValue()``: the nearest float32 (ties to even, no double rounding), infinite on
    overflow."""
    if number.is_zero():
        return 0.0
    negative = number.is_signed()
    if number.adjusted() > 39:
        return -math.inf if negative else math.inf
    if number.adjusted() < -46:
        return -0.0 if negative else 0.0
    exact = abs(Fraction(number))
    exponent = exact.numerator.bit_length() - exact.denominator.bit_length()
    if Fraction(2) ** exponent > exact:
        exponent -= 1
    ulp = max(exponent, -126) - 23
    result = math.ldexp(round(exact / Fraction(2) ** ulp), ulp)
    if result > _FLOAT32_MAX:
        result = math.inf
    return -result if negative else result


__all__ = [
    "big_decimal_scale",
    "big_decimal_to_float32",
    "big_decimal_to_string",
    "exact_long",
    "parse_big_decimal",
]
