"""Kafka's logical types: named schemas over a physical type, with Python conversions.

=============  ==========================================  ===========  =====================
class          name                                        physical     Python value
=============  ==========================================  ===========  =====================
``Decimal``    ``org.apache.kafka.connect.data.Decimal``   BYTES        ``decimal.Decimal``
``Date``       ``org.apache.kafka.connect.data.Date``      INT32        ``datetime.date``
``Time``       ``org.apache.kafka.connect.data.Time``      INT32        ``datetime.time``
``Timestamp``  ``org.apache.kafka.connect.data.Timestamp`` INT64        ``datetime.datetime``
=============  ==========================================  ===========  =====================

``from_logical`` turns the Python value into the physical one, ``to_logical`` goes back.
Decimals are the unscaled value as big-endian two's-complement bytes (Java's
``BigInteger.toByteArray``) with the scale in the ``scale`` parameter. Dates count days
since 1970-01-01, times milliseconds since midnight and timestamps milliseconds since the
epoch, all in UTC: naive ``datetime``/``time`` values are taken as UTC, aware ones are
converted, and ``to_logical`` returns an aware UTC ``datetime`` for timestamps.
Sub-millisecond precision is truncated.

>>> import decimal
>>> Decimal.from_logical(Decimal.schema(2), decimal.Decimal("1.56"))
b'\\x00\\x9c'
>>> Timestamp.to_logical(Timestamp.SCHEMA, 0)
datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from typing import ClassVar, Final

from seaway.connect.api.data.builder import SchemaBuilder
from seaway.connect.api.data.schema import Schema, class_name
from seaway.connect.api.errors import DataError

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DATE: Final = _EPOCH.date()
_MILLIS_PER_DAY: Final = 24 * 60 * 60 * 1000
_JAVA_INT = re.compile(r"[+-]?[0-9]+")


def _check_name(schema: Schema, logical_name: str, what: str) -> None:
    if schema.name != logical_name:
        raise DataError(f"Requested conversion of {what} object but the schema does not match.")


def _as_utc(value: dt.datetime) -> dt.datetime:
    """Naive datetimes are UTC; aware ones are converted."""
    if value.tzinfo is None or value.utcoffset() is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def _millis_since_epoch(value: dt.datetime) -> int:
    delta = _as_utc(value) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _from_epoch_millis(millis: int) -> dt.datetime:
    try:
        return _EPOCH + dt.timedelta(milliseconds=millis)
    except OverflowError as exc:
        raise DataError(f"Timestamp {millis} is outside the range of datetime") from exc


def to_twos_complement(unscaled: int) -> bytes:
    """The minimal big-endian two's-complement bytes of *unscaled* (``toByteArray``)."""
    magnitude = unscaled if unscaled >= 0 else ~unscaled
    return unscaled.to_bytes(magnitude.bit_length() // 8 + 1, "big", signed=True)


class Decimal:
    """Arbitrary-precision decimals with a fixed scale, as BYTES."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Decimal"
    SCALE_FIELD: Final = "scale"

    @staticmethod
    def builder(scale: int) -> SchemaBuilder:
        """A builder for a Decimal schema with *scale* digits after the point."""
        return (
            SchemaBuilder.bytes()
            .name(Decimal.LOGICAL_NAME)
            .parameter(Decimal.SCALE_FIELD, str(scale))
            .version(1)
        )

    @staticmethod
    def schema(scale: int) -> Schema:
        """A required Decimal schema with *scale*."""
        return Decimal.builder(scale).build()

    @staticmethod
    def scale(schema: Schema) -> int:
        """The ``scale`` parameter of a Decimal schema."""
        text = (schema.parameters or {}).get(Decimal.SCALE_FIELD)
        if text is None:
            raise DataError("Invalid Decimal schema: scale parameter not found.")
        if not _JAVA_INT.fullmatch(text) or not -(2**31) <= int(text) < 2**31:
            raise DataError(f"Invalid scale parameter found in Decimal schema: {text}")
        return int(text)

    @staticmethod
    def from_logical(schema: Schema, value: decimal.Decimal) -> bytes:
        """The unscaled value's two's-complement bytes; the scales must match."""
        if not isinstance(value, decimal.Decimal):
            raise DataError(
                f"Invalid type for Decimal, expected decimal.Decimal but was {class_name(value)}"
            )
        if not value.is_finite():
            raise DataError(f"Decimal value must be finite, got {value}")
        schema_scale = Decimal.scale(schema)
        sign, digits, exponent = value.as_tuple()
        assert isinstance(exponent, int)  # finite
        if -exponent != schema_scale:
            raise DataError(
                "Decimal value has mismatching scale for given Decimal schema. "
                f"Schema has scale {schema_scale}, value has scale {-exponent}."
            )
        unscaled = int("".join(map(str, digits)) or "0")
        return to_twos_complement(-unscaled if sign else unscaled)

    @staticmethod
    def to_logical(schema: Schema, value: bytes) -> decimal.Decimal:
        """The decimal whose unscaled value is *value* at the schema's scale."""
        if not value:
            raise DataError("Invalid Decimal bytes: zero length")
        unscaled = int.from_bytes(value, "big", signed=True)
        digits = tuple(int(c) for c in str(abs(unscaled)))
        return decimal.Decimal((int(unscaled < 0), digits, -Decimal.scale(schema)))


class Date:
    """A calendar date (no time of day), as INT32 days since 1970-01-01."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Date"
    SCHEMA: ClassVar[Schema]

    @staticmethod
    def builder() -> SchemaBuilder:
        """A builder for the Date schema (e.g. to make it optional)."""
        return SchemaBuilder.int32().name(Date.LOGICAL_NAME).version(1)

    @staticmethod
    def from_logical(schema: Schema, value: dt.date) -> int:
        """Days since the epoch; a ``datetime`` must be exactly midnight UTC."""
        _check_name(schema, Date.LOGICAL_NAME, "Date")
        if isinstance(value, dt.datetime):
            utc = _as_utc(value)
            if utc.time() != dt.time(0):
                raise DataError(
                    "Kafka Connect Date type should not have any time fields set to non-zero "
                    "values."
                )
            value = utc.date()
        elif not isinstance(value, dt.date):
            raise DataError(f"Invalid type for Date, expected date but was {class_name(value)}")
        return (value - _EPOCH_DATE).days

    @staticmethod
    def to_logical(schema: Schema, value: int) -> dt.date:
        """The date *value* days after 1970-01-01."""
        _check_name(schema, Date.LOGICAL_NAME, "Date")
        try:
            return _EPOCH_DATE + dt.timedelta(days=value)
        except OverflowError as exc:
            raise DataError(f"Date {value} is outside the range of datetime.date") from exc


class Time:
    """A time of day, as INT32 milliseconds since midnight."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Time"
    SCHEMA: ClassVar[Schema]

    @staticmethod
    def builder() -> SchemaBuilder:
        """A builder for the Time schema (e.g. to make it optional)."""
        return SchemaBuilder.int32().name(Time.LOGICAL_NAME).version(1)

    @staticmethod
    def from_logical(schema: Schema, value: dt.time) -> int:
        """Milliseconds since midnight UTC; a ``datetime`` must fall on 1970-01-01 UTC."""
        _check_name(schema, Time.LOGICAL_NAME, "Time")
        if isinstance(value, dt.datetime):
            millis = _millis_since_epoch(value)
        elif isinstance(value, dt.time):
            offset = value.utcoffset() or dt.timedelta(0)
            millis = (
                ((value.hour * 60 + value.minute) * 60 + value.second) * 1000
                + value.microsecond // 1000
                - offset // dt.timedelta(milliseconds=1)
            )
        else:
            raise DataError(f"Invalid type for Time, expected time but was {class_name(value)}")
        if not 0 <= millis < _MILLIS_PER_DAY:
            raise DataError(
                "Kafka Connect Time type should not have any date fields set to non-zero values."
            )
        return millis

    @staticmethod
    def to_logical(schema: Schema, value: int) -> dt.time:
        """The naive (UTC) time *value* milliseconds after midnight."""
        _check_name(schema, Time.LOGICAL_NAME, "Time")
        if not 0 <= value < _MILLIS_PER_DAY:
            raise DataError(
                "Time values must use number of milliseconds greater than 0 and less than 86400000"
            )
        seconds, millis = divmod(value, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return dt.time(hour, minute, second, millis * 1000)


class Timestamp:
    """An instant, as INT64 milliseconds since the Unix epoch."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Timestamp"
    SCHEMA: ClassVar[Schema]

    @staticmethod
    def builder() -> SchemaBuilder:
        """A builder for the Timestamp schema (e.g. to make it optional)."""
        return SchemaBuilder.int64().name(Timestamp.LOGICAL_NAME).version(1)

    @staticmethod
    def from_logical(schema: Schema, value: dt.datetime) -> int:
        """Milliseconds since the epoch (naive values are UTC), rounded down."""
        _check_name(schema, Timestamp.LOGICAL_NAME, "Timestamp")
        if not isinstance(value, dt.datetime):
            raise DataError(
                f"Invalid type for Timestamp, expected datetime but was {class_name(value)}"
            )
        return _millis_since_epoch(value)

    @staticmethod
    def to_logical(schema: Schema, value: int) -> dt.datetime:
        """The aware UTC datetime *value* milliseconds after the epoch."""
        _check_name(schema, Timestamp.LOGICAL_NAME, "Timestamp")
        return _from_epoch_millis(value)


Date.SCHEMA = Date.builder().build()
Time.SCHEMA = Time.builder().build()
Timestamp.SCHEMA = Timestamp.builder().build()

__all__ = ["Date", "Decimal", "Time", "Timestamp", "to_twos_complement"]
