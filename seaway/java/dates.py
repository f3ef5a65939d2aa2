"""Java ``SimpleDateFormat`` patterns, formatted and parsed in UTC.

Connect configs give date formats the Java way (``TimestampRouter.timestamp.format=yyyyMMdd``,
``TimestampConverter.format``). :class:`SimpleDateFormat` understands these pattern letters:
``G y Y M L d D E u a H k K h m s S z Z X``, quoted literals (``'T'``, ``''``) and any other
non-letter character. Other letters raise ValueError, as Java's ``Illegal pattern character``.

>>> import datetime as dt
>>> SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSX").format(dt.datetime(2024, 3, 5, 7, 8, 9))
'2024-03-05T07:08:09.000Z'
>>> SimpleDateFormat("yyyyMMdd").parse("20240305")
datetime.datetime(2024, 3, 5, 0, 0, tzinfo=datetime.timezone.utc)

Parsing is lenient like Java's: out-of-range fields roll over (month 13 is January of the
next year) and text after the pattern is ignored.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Final

_LETTERS: Final = frozenset("GyYMLdDEuaHkKhmsSzZX")
_NUMERIC: Final = frozenset("yYMLdDuHkKhmsS")
_MONTHS: Final = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_DAYS: Final = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_ZONE_REGEX: Final = "Z|[+-]\\d{2}:?(?:\\d{2})?|UTC|GMT|Coordinated Universal Time"


@dataclass(frozen=True, slots=True)
class _Field:
    letter: str
    count: int


_Token = _Field | str


def _tokenize(pattern: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            if pattern.startswith("''", i):
                tokens.append("'")
                i += 2
                continue
            end = i + 1
            text: list[str] = []
            while True:
                if end >= n:
                    raise ValueError("Unterminated quote")
                if pattern[end] == "'":
                    if pattern.startswith("''", end):
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            tokens.append("".join(text))
            i = end + 1
        elif c.isascii() and c.isalpha():
            if c not in _LETTERS:
                raise ValueError(f"Illegal pattern character '{c}'")
            end = i
            while end < n and pattern[end] == c:
                end += 1
            tokens.append(_Field(c, end - i))
            i = end
        else:
            tokens.append(c)
            i += 1
    return tokens


def _month_text(month: int, count: int) -> str:
    name = _MONTHS[month - 1]
    return name if count >= 4 else name[:3]


class SimpleDateFormat:
    """A Java date pattern, always in UTC; ValueError on an invalid pattern."""

    __slots__ = ("_regex", "_tokens", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokenize(pattern)
        self._regex = re.compile(self._parse_regex(), re.IGNORECASE)

    def __repr__(self) -> str:
        return f"SimpleDateFormat({self.pattern!r})"

    # ------------------------------------------------------------------ formatting

    def format(self, value: dt.datetime) -> str:
        """*value* (naive values are UTC) in this pattern."""
        if value.tzinfo is None or value.utcoffset() is None:
            value = value.replace(tzinfo=dt.UTC)
        value = value.astimezone(dt.UTC)
        return "".join(
            token if isinstance(token, str) else self._format_field(token, value)
            for token in self._tokens
        )

    @staticmethod
    def _format_field(field: _Field, value: dt.datetime) -> str:
        letter, count = field.letter, field.count
        number: int
        match letter:
            case "G":
                return "AD"
            case "y" | "Y":
                if count == 2:
                    return f"{value.year % 100:02d}"
                number = value.year
            case "M" | "L":
                if count >= 3:
                    return _month_text(value.month, count)
                number = value.month
            case "d":
                number = value.day
            case "D":
                number = value.timetuple().tm_yday
            case "E":
                name = _DAYS[value.weekday()]
                return name if count >= 4 else name[:3]
            case "u":
                number = value.isoweekday()
            case "a":
                return "AM" if value.hour < 12 else "PM"
            case "H":
                number = value.hour
            case "k":
                number = value.hour or 24
            case "K":
                number = value.hour % 12
            case "h":
                number = value.hour % 12 or 12
            case "m":
                number = value.minute
            case "s":
                number = value.second
            case "S":
                number = value.microsecond // 1000
            case "z":
                return "Coordinated Universal Time" if count >= 4 else "UTC"
            case "Z":
                return "+0000"
            case _:  # "X"
                return "Z"
        return str(number).zfill(count)

    # ------------------------------------------------------------------ parsing

    def _parse_regex(self) -> str:
        parts: list[str] = []
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                parts.append(re.escape(token))
                continue
            following = self._tokens[index + 1] if index + 1 < len(self._tokens) else None
            abutting = isinstance(following, _Field) and following.letter in _NUMERIC
            group = f"(?P<f{index}>"
            letter, count = token.letter, token.count
            if letter in "ML" and count >= 3:
                parts.append(group + "|".join(_MONTHS + [m[:3] for m in _MONTHS]) + ")")
            elif letter == "E":
                parts.append(group + "|".join(_DAYS + [d[:3] for d in _DAYS]) + ")")
            elif letter == "a":
                parts.append(group + "AM|PM)")
            elif letter == "G":
                parts.append(group + "AD|BC)")
            elif letter in "zZX":
                parts.append(group + _ZONE_REGEX + ")")
            elif abutting:
                parts.append(group + f"[+-]?\\d{{{count}}})")
            else:
                parts.append(group + "[+-]?\\d+)")
        return "".join(parts)

    def parse(self, text: str) -> dt.datetime:
        """The UTC instant *text* starts with; ValueError when it does not match."""
        match = self._regex.match(text)
        if match is None:
            raise ValueError(f'Unparseable date: "{text}"')
        year, month, day, hour, minute, second, millis = 1970, 1, 1, 0, 0, 0, 0
        day_of_year: int | None = None
        pm: bool | None = None
        twelve_hour: int | None = None
        offset = dt.timedelta(0)
        for index, token in enumerate(self._tokens):
            if isinstance(token, str):
                continue
            raw = match.group(f"f{index}")
            letter = token.letter
            if letter in "ML" and token.count >= 3:
                month = _month_number(raw)
            elif letter in "EG":
                continue
            elif letter == "a":
                pm = raw.upper() == "PM"
            elif letter in "zZX":
                offset = _parse_offset(raw)
            else:
                number = int(raw)
                match letter:
                    case "y" | "Y":
                        two_digits = token.count <= 2 and len(raw) == 2
                        year = _two_digit_year(number) if two_digits else number
                    case "M" | "L":
                        month = number
                    case "d":
                        day = number
                    case "D":
                        day_of_year = number
                    case "H":
                        hour = number
                    case "k":
                        hour = 0 if number == 24 else number
                    case "K" | "h":
                        twelve_hour = number % 12
                    case "m":
                        minute = number
                    case "s":
                        second = number
                    case "S":
                        millis = number
        if twelve_hour is not None:
            hour = twelve_hour + (12 if pm else 0)
        elif pm is not None and hour < 12 and pm:
            hour += 12
        year += (month - 1) // 12
        month = (month - 1) % 12 + 1
        base = dt.datetime(year, month, 1, tzinfo=dt.UTC)
        days = (day_of_year - 1) if day_of_year is not None else day - 1
        if day_of_year is not None:
            base = dt.datetime(year, 1, 1, tzinfo=dt.UTC)
        return (
            base
            + dt.timedelta(
                days=days, hours=hour, minutes=minute, seconds=second, milliseconds=millis
            )
            - offset
        )


def _month_number(name: str) -> int:
    lowered = name.lower()
    for number, month in enumerate(_MONTHS, start=1):
        if lowered in (month.lower(), month[:3].lower()):
            return number
    raise ValueError(f"Unknown month: {name}")


def _parse_offset(raw: str) -> dt.timedelta:
    if raw.upper() in ("Z", "UTC", "GMT", "COORDINATED UNIVERSAL TIME"):
        return dt.timedelta(0)
    sign = -1 if raw[0] == "-" else 1
    digits = raw[1:].replace(":", "")
    hours = int(digits[:2])
    minutes = int(digits[2:4] or 0)
    return sign * dt.timedelta(hours=hours, minutes=minutes)


def _two_digit_year(number: int) -> int:
    """Java's rule: the century that puts the year within 80 years before and 20 after now."""
    now = dt.datetime.now(dt.UTC).year
    start = now - 80
    year = start - start % 100 + number
    return year + 100 if year < start else year


__all__ = ["SimpleDateFormat"]
