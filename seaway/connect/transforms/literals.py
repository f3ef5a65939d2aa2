"""Typed values from config strings, as Kafka's ``Values.parseString`` infers them.

>>> parse_literal("42")
SchemaAndValue(schema=Schema(INT8), value=42)
>>> parse_literal("true").value, parse_literal("hello").value
(True, 'hello')

Supported: ``null``; ``true``/``false`` (BOOLEAN); integers (the narrowest of INT8 to INT64,
else a Decimal); other numbers (FLOAT32 or FLOAT64, else a Decimal); ISO 8601 dates
(``2024-03-05``), times (``12:30:00.000Z``) and timestamps (``2024-03-05T12:30:00.000Z``);
anything else is a STRING of the whole text. Unlike Kafka, ``[...]`` arrays and ``{...}`` maps
are not parsed (they stay strings).
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from typing import Final

from seaway.connect.api.data import Date, Decimal, Schema, SchemaAndValue, Time, Timestamp

_NUMBER: Final = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|[+-]\.[0-9]+")
_DATE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME: Final = re.compile(r"(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_TIMESTAMP: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_FLOAT32_MAX: Final = 3.4028234663852886e38
_INT_SCHEMAS: Final = (
    (8, Schema.INT8_SCHEMA),
    (16, Schema.INT16_SCHEMA),
    (32, Schema.INT32_SCHEMA),
    (64, Schema.INT64_SCHEMA),
)


def _temporal(text: str) -> SchemaAndValue | None:
    try:
        if match := _TIMESTAMP.fullmatch(text):
            y, mo, d, h, mi, s, ms = map(int, match.groups())
            return SchemaAndValue(
                Timestamp.SCHEMA, dt.datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=dt.UTC)
            )
        if match := _TIME.fullmatch(text):
            h, mi, s, ms = map(int, match.groups())
            return SchemaAndValue(Time.SCHEMA, dt.time(h, mi, s, ms * 1000))
        if match := _DATE.fullmatch(text):
            y, mo, d = map(int, match.groups())
            return SchemaAndValue(Date.SCHEMA, dt.date(y, mo, d))
    except ValueError:
        return None
    return None


def _number(text: str) -> SchemaAndValue | None:
    if not _NUMBER.fullmatch(text):
        return None
    number = decimal.Decimal(text)
    if number == number.to_integral_value():
        integral = int(number)
        for bits, schema in _INT_SCHEMAS:
            if -(1 << (bits - 1)) <= integral < (1 << (bits - 1)):
                return SchemaAndValue(schema, integral)
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    if exponent != 0:
        as_float = float(number)
        if abs(as_float) <= _FLOAT32_MAX:
            return SchemaAndValue(Schema.FLOAT32_SCHEMA, as_float)
        if as_float not in (float("inf"), float("-inf")):
            return SchemaAndValue(Schema.FLOAT64_SCHEMA, as_float)
    return SchemaAndValue(Decimal.schema(-exponent), number)


def parse_literal(text: str | None) -> SchemaAndValue:
    """The schema and value *text* denotes; ``SchemaAndValue.NULL`` for None or ``null``."""
    if text is None:
        return SchemaAndValue.NULL
    if not text:
        return SchemaAndValue(Schema.STRING_SCHEMA, text)
    token = text.strip()
    if token == "null":
        return SchemaAndValue.NULL
    if token in ("true", "false"):
        return SchemaAndValue(Schema.BOOLEAN_SCHEMA, token == "true")
    if token[:1].isdigit():
        temporal = _temporal(token)
        if temporal is not None:
            return temporal
    if token[:1].isdigit() or token[:1] in "+-":
        number = _number(token)
        if number is not None:
            return number
    return SchemaAndValue(Schema.STRING_SCHEMA, text)


__all__ = ["parse_literal"]
