"""Logical types: Decimal, Date, Time, Timestamp and their Python conversions."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from seaway.connect.api.data import Date, Decimal, Schema, SchemaBuilder, Time, Timestamp
from seaway.connect.api.data.logical import to_twos_complement
from seaway.connect.api.data.schema import _LOGICAL_TYPE_CLASSES
from seaway.connect.api.errors import DataError

D = decimal.Decimal


def test_logical_names_are_kafkas() -> None:
    assert Decimal.LOGICAL_NAME == "org.apache.kafka.connect.data.Decimal"
    assert Date.LOGICAL_NAME == "org.apache.kafka.connect.data.Date"
    assert Time.LOGICAL_NAME == "org.apache.kafka.connect.data.Time"
    assert Timestamp.LOGICAL_NAME == "org.apache.kafka.connect.data.Timestamp"
    assert set(_LOGICAL_TYPE_CLASSES) == {
        Decimal.LOGICAL_NAME,
        Date.LOGICAL_NAME,
        Time.LOGICAL_NAME,
        Timestamp.LOGICAL_NAME,
    }


def test_logical_schemas() -> None:
    decimal_schema = Decimal.schema(2)
    assert (decimal_schema.type, decimal_schema.name, decimal_schema.version) == (
        Schema.Type.BYTES,
        Decimal.LOGICAL_NAME,
        1,
    )
    assert dict(decimal_schema.parameters or {}) == {"scale": "2"}
    assert (Date.SCHEMA.type, Date.SCHEMA.version) == (Schema.Type.INT32, 1)
    assert (Time.SCHEMA.type, Time.SCHEMA.version) == (Schema.Type.INT32, 1)
    assert (Timestamp.SCHEMA.type, Timestamp.SCHEMA.version) == (Schema.Type.INT64, 1)
    assert Timestamp.builder().optional().build().is_optional


# ---------------------------------------------------------------------------- Decimal


@pytest.mark.parametrize(
    ("unscaled", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (-1, b"\xff"),
        (127, b"\x7f"),
        (128, b"\x00\x80"),
        (-128, b"\x80"),
        (-129, b"\xff\x7f"),
        (156, b"\x00\x9c"),
        (2**63, b"\x00\x80" + b"\x00" * 7),
    ],
)
def test_twos_complement_like_big_integer_to_byte_array(unscaled: int, encoded: bytes) -> None:
    assert to_twos_complement(unscaled) == encoded
    assert int.from_bytes(encoded, "big", signed=True) == unscaled


@pytest.mark.parametrize(
    ("value", "scale"),
    [
        (D("1.56"), 2),
        (D("-1.56"), 2),
        (D("0.00"), 2),
        (D("10.2345"), 4),
        (D("123456789012345678901234567890.123456789"), 9),
        (D("1E+3"), -3),
        (D("7"), 0),
    ],
)
def test_decimal_round_trip(value: decimal.Decimal, scale: int) -> None:
    schema = Decimal.schema(scale)
    back = Decimal.to_logical(schema, Decimal.from_logical(schema, value))
    assert back == value and back.as_tuple().exponent == -scale


def test_decimal_example_from_kafka() -> None:
    assert Decimal.from_logical(Decimal.schema(2), D("1.56")) == b"\x00\x9c"
    assert Decimal.from_logical(Decimal.schema(4), D("10.2345")) == (102345).to_bytes(3, "big")
    assert Decimal.to_logical(Decimal.schema(2), b"\xff\x64") == D("-1.56")


def test_decimal_scale_mismatch() -> None:
    with pytest.raises(DataError) as info:
        Decimal.from_logical(Decimal.schema(2), D("1.5"))
    assert str(info.value) == (
        "Decimal value has mismatching scale for given Decimal schema. "
        "Schema has scale 2, value has scale 1."
    )


def test_decimal_schema_errors() -> None:
    no_scale = SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).build()
    with pytest.raises(DataError, match=r"Invalid Decimal schema: scale parameter not found\."):
        Decimal.to_logical(no_scale, b"\x01")
    bad_scale = SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).parameter("scale", "x").build()
    with pytest.raises(DataError, match="Invalid scale parameter found in Decimal schema"):
        Decimal.to_logical(bad_scale, b"\x01")
    with pytest.raises(DataError, match="zero length"):
        Decimal.to_logical(Decimal.schema(1), b"")
    with pytest.raises(DataError, match="finite"):
        Decimal.from_logical(Decimal.schema(1), D("NaN"))


# ---------------------------------------------------------------------------- Date


def test_date_conversions() -> None:
    assert Date.from_logical(Date.SCHEMA, dt.date(1970, 1, 1)) == 0
    assert Date.from_logical(Date.SCHEMA, dt.date(1997, 5, 19)) == 10000
    assert Date.to_logical(Date.SCHEMA, 10000) == dt.date(1997, 5, 19)
    assert Date.to_logical(Date.SCHEMA, -1) == dt.date(1969, 12, 31)
    assert Date.from_logical(Date.SCHEMA, dt.datetime(1997, 5, 19, tzinfo=dt.UTC)) == 10000
    assert Date.from_logical(Date.SCHEMA, dt.datetime(1997, 5, 19)) == 10000


def test_date_errors() -> None:
    with pytest.raises(DataError) as info:
        Date.from_logical(Date.SCHEMA, dt.datetime(1997, 5, 19, 0, 0, 1))
    assert str(info.value) == (
        "Kafka Connect Date type should not have any time fields set to non-zero values."
    )
    with pytest.raises(DataError) as info:
        Date.from_logical(Time.SCHEMA, dt.date(1997, 5, 19))
    assert str(info.value) == "Requested conversion of Date object but the schema does not match."
    with pytest.raises(DataError, match="outside the range"):
        Date.to_logical(Date.SCHEMA, 10**9)


# ---------------------------------------------------------------------------- Time


def test_time_conversions() -> None:
    assert Time.from_logical(Time.SCHEMA, dt.time(4, 0)) == 14_400_000
    assert Time.to_logical(Time.SCHEMA, 14_400_000) == dt.time(4, 0)
    assert Time.to_logical(Time.SCHEMA, 86_399_999) == dt.time(23, 59, 59, 999_000)
    assert Time.from_logical(Time.SCHEMA, dt.time(4, 0, 0, 999)) == 14_400_000  # truncated
    assert (
        Time.from_logical(Time.SCHEMA, dt.time(6, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))))
        == 14_400_000
    )
    assert Time.from_logical(Time.SCHEMA, dt.datetime(1970, 1, 1, 4, tzinfo=dt.UTC)) == 14_400_000


def test_time_errors() -> None:
    with pytest.raises(DataError) as info:
        Time.to_logical(Time.SCHEMA, -1)
    assert str(info.value) == (
        "Time values must use number of milliseconds greater than 0 and less than 86400000"
    )
    with pytest.raises(DataError) as info:
        Time.from_logical(Time.SCHEMA, dt.datetime(1970, 1, 2, 4))
    assert str(info.value) == (
        "Kafka Connect Time type should not have any date fields set to non-zero values."
    )
    with pytest.raises(DataError, match="Invalid type for Time, expected time but was class int"):
        Time.from_logical(Time.SCHEMA, 5)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- Timestamp


def test_timestamp_conversions() -> None:
    moment = dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.UTC)
    assert Timestamp.from_logical(Timestamp.SCHEMA, moment) == 1_700_000_000_000
    assert Timestamp.to_logical(Timestamp.SCHEMA, 1_700_000_000_000) == moment
    assert Timestamp.to_logical(Timestamp.SCHEMA, 4_000_000_000).tzinfo is dt.UTC
    assert (
        Timestamp.from_logical(Timestamp.SCHEMA, moment.replace(tzinfo=None)) == 1_700_000_000_000
    )
    plus_one = moment.astimezone(dt.timezone(dt.timedelta(hours=1)))
    assert Timestamp.from_logical(Timestamp.SCHEMA, plus_one) == 1_700_000_000_000


def test_timestamp_truncates_to_milliseconds_and_handles_negatives() -> None:
    before_epoch = dt.datetime(1969, 12, 31, 23, 59, 59, 999_500, tzinfo=dt.UTC)
    assert Timestamp.from_logical(Timestamp.SCHEMA, before_epoch) == -1
    assert Timestamp.to_logical(Timestamp.SCHEMA, -1) == before_epoch.replace(microsecond=999_000)


def test_timestamp_errors() -> None:
    with pytest.raises(DataError, match="Requested conversion of Timestamp object"):
        Timestamp.to_logical(Date.SCHEMA, 0)
    with pytest.raises(DataError, match=r"expected datetime but was class datetime\.date"):
        Timestamp.from_logical(Timestamp.SCHEMA, dt.date(2020, 1, 1))  # type: ignore[arg-type]
    with pytest.raises(DataError, match="outside the range"):
        Timestamp.to_logical(Timestamp.SCHEMA, 2**62)
