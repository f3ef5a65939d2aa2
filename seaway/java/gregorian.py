"""Numeric date fields read the way a lenient ``SimpleDateFormat`` and ``GregorianCalendar`` do.

:func:`parse_lenient` reads a pattern of numeric fields (``yMdHmsS``) and literal characters
exactly as Java does in UTC: each field is read by ``DecimalFormat`` (any Unicode digits, a
sign, an ``E`` exponent, ``NaN``, ``∞``), fields overflow into the next (month 13 is January
of the next year), text after the pattern is ignored, and days before 1582-10-15 are Julian.
(:class:`~seaway.java.dates.SimpleDateFormat` is the general pattern formatter and parser;
this is the exact reading Kafka's ``Values`` needs for its three date literals.)

>>> parse_lenient("1970-01-02", ("y", "-", "M", "-", "d"))
86400000
>>> parse_lenient("2019-13-01", ("y", "-", "M", "-", "d")) == parse_lenient("2020-1-1", \
("y", "-", "M", "-", "d"))
True
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from typing import Final

from seaway.java.numbers import double_to_integer, narrow
from seaway.java.strings import digit

_MILLIS_PER_DAY: Final = 86_400_000
_INT_MIN: Final = -(2**31)
_INT_MAX: Final = 2**31 - 1
_LONG_MIN: Final = -(2**63)
_LONG_MAX: Final = 2**63 - 1
_FIELD_LETTERS: Final = frozenset("yMdHmsS")
_EPOCH_FIXED_DATE: Final = 719_163  # days from 0001-01-01 (Gregorian, day 1) to 1970-01-01
_GREGORIAN_CUTOVER: Final = 577_736  # fixed date of 1582-10-15, the first Gregorian day


def parse_lenient(text: str, pattern: Sequence[str]) -> int | None:
    """Epoch millis of *text* read with *pattern* (field letters and literal characters), or
    None where Java's parse fails."""
    fields: dict[str, int] = {}
    position = 0
    for item in pattern:
        if item in _FIELD_LETTERS:
            parsed = _parse_field(text, position)
            if parsed is None:
                return None
            fields[item], position = parsed
        elif text.startswith(item, position):
            position += 1
        else:
            return None
    return _calendar_millis(
        fields.get("y", 1970),
        narrow(fields.get("M", 1) - 1, 32),
        fields.get("d", 1),
        fields.get("H", 0) * 3_600_000
        + fields.get("m", 0) * 60_000
        + fields.get("s", 0) * 1000
        + fields.get("S", 0),
    )


def _parse_field(text: str, position: int) -> tuple[int, int] | None:
    """One numeric field as SimpleDateFormat's ``DecimalFormat`` reads it: (int, end)."""
    while True:
        if position >= len(text):
            return None
        if text[position] not in " \t":
            break
        position += 1
    if text.startswith("NaN", position):
        return 0, position + 3
    negative = text.startswith("-", position)
    if negative:
        position += 1
    if text.startswith("\u221e", position):
        return (_INT_MIN if negative else _INT_MAX), position + 1
    digits, position = _scan_digits(text, position)
    if not digits:
        return None
    exponent = 0
    if text.startswith("E", position):
        cursor = position + 1
        exponent_negative = text.startswith("-", cursor)
        if exponent_negative:
            cursor += 1
        exponent_digits, cursor = _scan_digits(text, cursor)
        if exponent_digits:
            value = -int(exponent_digits) if exponent_negative else int(exponent_digits)
            if _LONG_MIN <= value <= _LONG_MAX:
                exponent, position = value, cursor
    return _int_value(negative, int(digits), exponent), position


def _scan_digits(text: str, position: int) -> tuple[str, int]:
    digits: list[str] = []
    while position < len(text):
        value = digit(text[position])
        if value is None:
            break
        digits.append(str(value))
        position += 1
    return "".join(digits), position


def _int_value(negative: bool, mantissa: int, exponent: int) -> int:
    """``intValue()`` of the Long (integral, in range) or Double that DecimalFormat returns."""
    if mantissa == 0:
        return 0
    sign = -1 if negative else 1
    adjusted = len(str(mantissa)) - 1 + exponent
    value: int | None = None
    if adjusted < 19:
        if exponent >= 0:
            value = sign * mantissa * 10**exponent
        elif mantissa % 10**-exponent == 0:
            value = sign * (mantissa // 10**-exponent)
        if value is not None and _LONG_MIN <= value <= _LONG_MAX:
            return narrow(value, 32)
    if adjusted > 400:
        double = sign * math.inf
    elif adjusted < -400:
        double = 0.0
    else:
        double = sign * float(decimal.Decimal((0, tuple(map(int, str(mantissa))), exponent)))
    return double_to_integer(double, 32)


def _calendar_millis(year: int, month: int, day: int, time_of_day: int) -> int:
    """Epoch millis from lenient calendar fields, as Java's ``GregorianCalendar`` in UTC.

    *month* counts from 0; days before 1582-10-15 are Julian; Java's long overflow wraps.
    """
    day_offset, time_of_day = divmod(time_of_day, _MILLIS_PER_DAY)
    normal_year = narrow(year + month // 12, 32)
    normal_month = month % 12 + 1

    def fixed_date(julian: bool) -> int:
        first = (_julian_fixed if julian else _gregorian_fixed)(normal_year, normal_month)
        return day_offset + first + day - 1

    fixed = fixed_date(julian=year < 1582)
    if year >= 1582 and fixed < _GREGORIAN_CUTOVER:
        fixed = fixed_date(julian=True)
    return narrow((fixed - _EPOCH_FIXED_DATE) * _MILLIS_PER_DAY + time_of_day, 64)


def _gregorian_fixed(year: int, month: int) -> int:
    """Fixed date (0001-01-01 is 1) of the first of *month* in the proleptic Gregorian."""
    prior = year - 1
    days = 1 + 365 * prior + prior // 4 - prior // 100 + prior // 400 + (367 * month - 362) // 12
    if month > 2:
        days -= 1 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 2
    return days


def _julian_fixed(year: int, month: int) -> int:
    """Fixed date of the first of *month* in the Julian calendar (astronomical years)."""
    prior = year - 1
    days = -1 + 365 * prior + prior // 4 + (367 * month - 362) // 12
    if month > 2:
        days -= 1 if year % 4 == 0 else 2
    return days


__all__ = ["parse_lenient"]
