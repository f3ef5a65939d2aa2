"""seaway.java.objects: String.valueOf for the Python stand-ins of Java objects."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from seaway.java.numbers import JavaFloat, to_float32
from seaway.java.objects import to_string


class _Point:
    def __str__(self) -> str:
        return "Point{x=3}"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (-7, "-7"),
        (1.0, "1.0"),
        (1e7, "1.0E7"),
        (5e-324, "4.9E-324"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (to_float32(1.1), "1.100000023841858"),  # a plain float is a Double
        (JavaFloat(to_float32(1.1)), "1.1"),  # a Float
        ("text", "text"),
        (b"bytes \xc3\xa9", "bytes é"),  # decoded, where Java prints [B@1b6d3586
        ([1, None, "a"], "[1, null, a]"),
        ((1.0,), "[1.0]"),
        ({"k": 1, "m": [True]}, "{k=1, m=[true]}"),
        (Decimal("1.50"), "1.50"),
        (Decimal("-0"), "0"),
        (_Point(), "Point{x=3}"),
    ],
)
def test_to_string(value: Any, expected: str) -> None:
    assert to_string(value) == expected
