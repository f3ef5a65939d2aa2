"""seaway.java.numbers: Double/Float.toString, float32 rounding, casts and parsing."""

from __future__ import annotations

import math
import random
import struct

import pytest

from seaway.java.numbers import (
    JavaFloat,
    double_to_integer,
    double_to_string,
    float_to_string,
    narrow,
    parse_boolean,
    parse_double,
    parse_int,
    to_float32,
)

FLOAT_MIN_VALUE = struct.unpack(">f", b"\x00\x00\x00\x01")[0]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (100.0, "100.0"),
        (-2.5, "-2.5"),
        (0.001, "0.001"),
        (1e-4, "1.0E-4"),
        (1.5e-5, "1.5E-5"),
        (1234567.5, "1234567.5"),
        (9999999.0, "9999999.0"),
        (1e7, "1.0E7"),
        (1e10, "1.0E10"),
        (-2.5e20, "-2.5E20"),
        (0.1 + 0.2, "0.30000000000000004"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        # One digit suffices, but Java picks the closer two-digit decimal; Python's repr
        # (and Seaway's former Cast and FileStreamSink copies) said 5.0E-324 and 1.0E-323.
        (5e-324, "4.9E-324"),
        (1e-323, "9.9E-324"),
    ],
)
def test_double_to_string(value: float, text: str) -> None:
    assert double_to_string(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.1, "1.1"),
        (to_float32(1.1), "1.1"),
        (0.1, "0.1"),
        (12.34, "12.34"),
        (1e10, "1.0E10"),
        (16777216.0, "1.6777216E7"),
        (3.4028235e38, "3.4028235E38"),
        (1e40, "Infinity"),
        (-0.0, "-0.0"),
        # Float.MIN_VALUE and its neighbours: Java's closer two digits again, where the
        # former Cast copy printed 1.0E-45, 3.0E-45 and 1.0E-44.
        (FLOAT_MIN_VALUE, "1.4E-45"),
        (2 * FLOAT_MIN_VALUE, "2.8E-45"),
        (7 * FLOAT_MIN_VALUE, "9.8E-45"),
    ],
)
def test_float_to_string(value: float, text: str) -> None:
    assert float_to_string(value) == text


def test_printed_numbers_read_back_as_the_same_value() -> None:
    rng = random.Random(18)
    for _ in range(20_000):
        double = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
        single = struct.unpack(">f", rng.getrandbits(32).to_bytes(4, "big"))[0]
        if math.isfinite(double):
            assert float(double_to_string(double)) == double
        if math.isfinite(single):
            assert to_float32(float(float_to_string(single))) == single


def test_to_float32() -> None:
    assert to_float32(1.1) == 1.100000023841858
    assert to_float32(1e39) == math.inf and to_float32(-1e39) == -math.inf
    assert to_float32(1e-50) == 0.0
    assert math.copysign(1.0, to_float32(-0.0)) == -1.0
    assert math.isnan(to_float32(math.nan))


def test_narrow_and_double_to_integer() -> None:
    assert [narrow(v, 8) for v in (300, 128, -129, 127)] == [44, -128, 127, 127]
    assert narrow(2**63, 64) == -(2**63)
    assert [double_to_integer(v, 8) for v in (1.9, -1.9, 300.7, math.nan)] == [1, -1, 44, 0]
    # (byte) 1e20 is (byte) Integer.MAX_VALUE; a long saturates on its own.
    assert [double_to_integer(1e20, bits) for bits in (8, 16, 32, 64)] == [
        -1,
        -1,
        2**31 - 1,
        2**63 - 1,
    ]
    assert double_to_integer(-math.inf, 32) == -(2**31)


def test_parse_int() -> None:
    assert parse_int("+42") == 42 and parse_int("-0128", 8) == -128
    assert parse_int("9223372036854775807", 64) == 2**63 - 1
    for text, bits in [
        ("128", 8),
        ("2147483648", 32),
        ("1.0", 32),
        (" 1", 32),
        ("", 32),
        ("1_0", 32),
    ]:
        with pytest.raises(ValueError, match="For input string"):
            parse_int(text, bits)


def test_parse_double() -> None:
    assert parse_double(" 1.5f\t") == 1.5
    assert parse_double(".5") == 0.5 and parse_double("1e3D") == 1000.0
    assert parse_double("-Infinity") == -math.inf and math.isnan(parse_double("NaN"))
    assert parse_double("1e400") == math.inf
    for text in ["", "1.5x", "0x1p3", "inf", "1e", "\u2003 1"]:
        with pytest.raises(ValueError, match="For input string"):
            parse_double(text)


def test_parse_boolean() -> None:
    assert parse_boolean("true") and parse_boolean("TrUe")
    assert not any(parse_boolean(text) for text in (None, "", "yes", "1", " true", "false"))


def test_java_float_is_a_float() -> None:
    value = JavaFloat(to_float32(0.1))
    assert isinstance(value, float) and value == to_float32(0.1)
