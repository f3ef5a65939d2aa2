"""seaway.java.dates (SimpleDateFormat) and seaway.java.gregorian (lenient numeric fields)."""

from __future__ import annotations

import datetime as dt

import pytest

from seaway.java.dates import SimpleDateFormat
from seaway.java.gregorian import parse_lenient

MOMENT = dt.datetime(2001, 7, 4, 12, 8, 56, 235000, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy.MM.dd G 'at' HH:mm:ss z", "2001.07.04 AD at 12:08:56 UTC"),
        ("EEE, MMM d, ''yy", "Wed, Jul 4, '01"),
        ("h:mm a", "12:08 PM"),
        ("K:mm a", "0:08 PM"),
        ("yyyyy.MMMMM.dd hh:mm aaa", "02001.July.04 12:08 PM"),
        ("EEE, d MMM yyyy HH:mm:ss Z", "Wed, 4 Jul 2001 12:08:56 +0000"),
        ("yyMMddHHmmssZ", "010704120856+0000"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2001-07-04T12:08:56.235Z"),
        ("D u k", "185 3 12"),
    ],
)
def test_simple_date_format(pattern: str, text: str) -> None:
    assert SimpleDateFormat(pattern).format(MOMENT) == text


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("yyyyMMddHHmmssSSS", "20010704120856235", MOMENT),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2001-07-04T14:08:56.235+02:00", MOMENT),
        ("dd MMM yyyy hh:mm:ss.SSS a", "04 jul 2001 12:08:56.235 PM", MOMENT),
        ("yyyy-MM-dd", "2001-13-01", dt.datetime(2002, 1, 1, tzinfo=dt.UTC)),  # lenient
        ("yyyy-MM-dd", "2001-07-04 and more", dt.datetime(2001, 7, 4, tzinfo=dt.UTC)),
    ],
)
def test_simple_date_format_parse(pattern: str, text: str, expected: dt.datetime) -> None:
    assert SimpleDateFormat(pattern).parse(text) == expected


def test_simple_date_format_errors() -> None:
    with pytest.raises(ValueError, match="Illegal pattern character 'q'"):
        SimpleDateFormat("yyyy-qq")
    with pytest.raises(ValueError, match="Unterminated quote"):
        SimpleDateFormat("yyyy 'at")
    with pytest.raises(ValueError, match='Unparseable date: "nope"'):
        SimpleDateFormat("yyyy").parse("nope")


DATE = ("y", "-", "M", "-", "d")
TIMESTAMP = (*DATE, "T", "H", ":", "m", ":", "s", ".", "S", "Z")
DAY = 86_400_000


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        ("1970-01-02", DATE, DAY),
        ("1969-12-31", DATE, -DAY),
        ("2019-13-01", DATE, parse_lenient("2020-01-01", DATE)),  # fields overflow
        ("2019-01-01 and more", DATE, parse_lenient("2019-01-01", DATE)),
        ("1970-01-01T00:00:01.5E2Z", TIMESTAMP, 1500),  # DecimalFormat: 5E2 ms
        ("1970-01-\u0662", DATE, DAY),  # any Unicode decimal digit
        ("1582-10-04", DATE, parse_lenient("1582-10-15", DATE) - DAY),  # the Julian cut-over
        ("1582-10-10", DATE, parse_lenient("1582-10-20", DATE)),  # Julian 10th is Gregorian 20th
        ("1970-01-0x", DATE, -DAY),  # day 0, text after the field ignored
        ("1970/01/01", DATE, None),
        ("1970-01-", DATE, None),
    ],
)
def test_parse_lenient(text: str, pattern: tuple[str, ...], expected: int | None) -> None:
    assert parse_lenient(text, pattern) == expected
