"""seaway.java.big_decimal: BigDecimal parsing, printing and narrowing."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from seaway.java.big_decimal import (
    big_decimal_scale,
    big_decimal_to_float32,
    big_decimal_to_string,
    exact_long,
    parse_big_decimal,
)


@pytest.mark.parametrize(
    ("text", "expected", "scale"),
    [
        ("1.50", Decimal("1.50"), 2),
        ("-.5", Decimal("-0.5"), 1),
        ("5.", Decimal("5"), 0),
        ("1E+3", Decimal("1E+3"), -3),
        ("1.5e-3", Decimal("0.0015"), 4),
        ("\u0661\u0662", Decimal("12"), 0),  # Character.digit: any Unicode decimal digit
    ],
)
def test_parse(text: str, expected: Decimal, scale: int) -> None:
    parsed = parse_big_decimal(text)
    assert parsed == expected and parsed is not None and big_decimal_scale(parsed) == scale


@pytest.mark.parametrize("text", ["", ".", "e3", "1e", "1.5.2", "NaN", "Infinity", "1e9999999999"])
def test_parse_fails_where_java_throws(text: str) -> None:
    assert parse_big_decimal(text) is None


def test_to_string() -> None:
    assert big_decimal_to_string(Decimal("-0.00")) == "0.00"
    assert big_decimal_to_string(Decimal("1E+3")) == "1E+3"
    assert big_decimal_to_string(Decimal("0.0000001")) == "1E-7"


def test_float_value_rounds_once() -> None:
    # Just above the midpoint of two floats: through a double it would round twice (to 1.0).
    number = Decimal("1.00000005960464477539062500000001")
    assert big_decimal_to_float32(number) == 1 + 2**-23
    assert big_decimal_to_float32(Decimal("-1e39")) == -math.inf
    assert big_decimal_to_float32(Decimal("1e-50")) == 0.0
    assert big_decimal_to_float32(Decimal("3.4028235E38")) == (2 - 2**-23) * 2.0**127


def test_exact_long() -> None:
    assert exact_long(Decimal("300.00")) == 300
    assert exact_long(Decimal("9223372036854775807")) == 2**63 - 1
    assert exact_long(Decimal("9223372036854775808")) is None
    assert exact_long(Decimal("1.5")) is None
