"""Kafka's ``org.apache.kafka.connect.data.Values``: Connect values to text and back.

:func:`convert_to_string` prints a value the way ``Values.convertToString`` does and
:func:`parse_string` parses text like ``Values.parseString``, which picks the most specific
schema (SimpleHeaderConverter and InsertHeader's literals rest on them):

* ``null`` gives None; ``true`` and ``false`` give BOOLEAN.
* A number with an integral value gives the smallest of INT8, INT16, INT32 and INT64 that
  holds it (``300.0`` is INT16 300). Any other number gives FLOAT32 (rounded to a single,
  so ``1.1`` is the float32 nearest 1.1) unless it overflows a float, then FLOAT64; an
  integer beyond INT64, or a number beyond a double, gives a Decimal with the literal's
  scale.
* ``yyyy-MM-dd`` gives a Date, ``HH:mm:ss.SSS'Z'`` a Time and
  ``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`` a Timestamp (UTC), chosen by the text's length and
  parsed as leniently as Java's ``SimpleDateFormat`` (``2019-13-01`` is 2020-01-01, days
  before 1582-10-15 are Julian).
* ``[...]`` and ``{...}`` give an ARRAY or a MAP. Strings inside must be quoted; the
  element schema is the common one (numbers widen: INT8 and INT32 give INT32, any int and a
  float give the float) or None when the elements have none.
* Anything else, including any text that fails to parse as the above, is the whole text as
  a STRING.

Writing: a top-level string is written as it is, a string inside a list, map or struct is
quoted with ``\\`` and ``"`` escaped (reading keeps the backslashes, as Kafka does); bytes
are base64; numbers print as Java prints them (``Float.toString`` for a FLOAT32 value, known
by its schema or as a :class:`~seaway.java.numbers.JavaFloat`, ``Double.toString`` for other
floats); a Decimal as ``BigDecimal.toString``; structs as ``{"field":value,...}`` (defaults
applied). A Date, Time or Timestamp prints by its instant (:func:`format_temporal`, Kafka's
``Values.dateFormatFor``): ``HH:mm:ss.SSS'Z'`` before 1970-01-02 (every Date and Timestamp
before 1970 too), ``yyyy-MM-dd`` at any later midnight, otherwise the full timestamp.

Kafka's quirks are kept: a number or date at the start of the text is taken even when other
tokens follow it (``14:34`` is INT8 14, ``[1] x`` is the list ``[1]``); a trailing comma in
a list or map is accepted; ``[1, null]`` is a STRING because a null cannot be an INT8; when
elements share a type but not a schema the last schema wins (``[[1], ["a"]]`` is an ARRAY of
ARRAY of STRING holding ``[1]``).

Left out or different from Kafka, each in a corner:

* Kafka formats and parses temporal text in the JVM's default time zone while the ``Z`` is
  only a literal; this module always uses UTC (what Kafka does on a UTC JVM).
* Values Python's ``datetime`` cannot hold are not temporal here: dates and timestamps
  before 0001-01-01 or after 9999-12-31 and Time literals outside one day
  (``25:00:00.000Z``, ``"-1:00:00.000Z"``) parse as a number or STRING instead, where
  Kafka keeps them as ``java.util.Date``; so is a list or map that needs such a value
  (``[9223372036854775807, 2019-08-23T00:00:00.000Z]``).
* Python has one float type. A FLOAT32 value parsed here is a
  :class:`~seaway.java.numbers.JavaFloat` (a ``float`` that remembers it was a Java
  ``Float``), so it prints as ``Float.toString`` even inside a list or map without an
  element schema; any other float prints as a double unless its schema says FLOAT32.
* Map keys that Java tells apart but Python finds equal (``true`` and ``1``, ``1`` and a
  float ``1.0``, Decimals ``1.0`` and ``1.00``) collapse into one entry; a list key becomes
  a tuple; a map key holding a map makes the text a STRING.
* Nesting deeper than Python's recursion limit raises RecursionError, as Kafka's stack
  overflow does at a much greater depth. Numbers whose exponent is so large that Java's
  ``BigInteger`` overflows (near 10^9) fail in Kafka and give a Decimal here.
* Kafka reads date fields with the number format of the JVM's locale; this reads them as
  the default locale does: an optional ``-``, Unicode decimal digits, an ``E`` exponent,
  ``NaN`` and ``∞``.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
from collections.abc import Mapping
from typing import Any, Final

from seaway.connect.api.data.builder import SchemaBuilder
from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp
from seaway.connect.api.data.schema import Schema, SchemaType
from seaway.connect.api.data.schema_and_value import SchemaAndValue
from seaway.connect.api.data.struct import Struct
from seaway.connect.api.errors import DataError
from seaway.java.big_decimal import (
    big_decimal_scale,
    big_decimal_to_float32,
    big_decimal_to_string,
    exact_long,
    parse_big_decimal,
)
from seaway.java.gregorian import parse_lenient
from seaway.java.numbers import (
    JavaFloat,
    double_to_integer,
    double_to_string,
    float_to_string,
    narrow,
    to_float32,
)
from seaway.java.strings import digit, trim, utf16_length

_MILLIS_PER_DAY: Final = 86_400_000
_INT_MIN: Final = -(2**31)
_INT_MAX: Final = 2**31 - 1


def _is_blank(text: str) -> bool:
    return not trim(text)


# ---------------------------------------------------------------------------- writing


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """*value* as text (Kafka's ``Values.convertToString``); None stays None.

    *schema* only tells FLOAT32 values (printed as ``Float.toString``) from doubles.

    >>> convert_to_string(None, ["a\\"b", 1.5, None, {"k": False}])
    '["a\\\\"b",1.5,null,{"k":false}]'
    >>> convert_to_string(Schema.FLOAT32_SCHEMA, 1.1)
    '1.1'
    """
    if value is None:
        return None
    out: list[str] = []
    _append(out, value, False, schema)
    return "".join(out)


def _append(out: list[str], value: Any, embedded: bool, schema: Schema | None) -> None:
    schema_type = schema.type if schema is not None else None
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        single = isinstance(value, JavaFloat) or schema_type is SchemaType.FLOAT32
        out.append(float_to_string(value) if single else double_to_string(value))
    elif isinstance(value, decimal.Decimal):
        out.append(big_decimal_to_string(value))
    elif isinstance(value, str):
        if embedded:
            out.append('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"')
        else:
            out.append(value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, (list, tuple)):
        element = None
        if schema is not None and schema_type is SchemaType.ARRAY:
            element = schema.value_schema
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _append(out, item, True, element)
        out.append("]")
    elif isinstance(value, Mapping):
        key_schema = value_schema = None
        if schema is not None and schema_type is SchemaType.MAP:
            key_schema, value_schema = schema.key_schema, schema.value_schema
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                out.append(",")
            _append(out, key, True, key_schema)
            out.append(":")
            _append(out, item, True, value_schema)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for index, field in enumerate(value.schema.fields):
            if index:
                out.append(",")
            _append(out, field.name, True, None)
            out.append(":")
            _append(out, value.get(field), True, field.schema)
        out.append("}")
    elif isinstance(value, (dt.date, dt.time)):
        out.append(format_temporal(value))
    else:
        cls = type(value)
        raise DataError(
            "Failed to serialize unexpected value type "
            f"{cls.__module__}.{cls.__qualname__}: {value}"
        )


def format_temporal(value: dt.date | dt.time) -> str:
    """The text ``Values.dateFormatFor`` picks for the instant, in UTC."""
    if isinstance(value, dt.datetime):
        millis = Timestamp.from_logical(Timestamp.SCHEMA, value)
    elif isinstance(value, dt.date):
        millis = Date.from_logical(Date.SCHEMA, value) * _MILLIS_PER_DAY
    else:
        millis = Time.from_logical(Time.SCHEMA, value)
    instant = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=millis)
    time_text = f"{instant:%H:%M:%S}.{instant.microsecond // 1000:03d}Z"
    if millis < _MILLIS_PER_DAY:
        return time_text
    date_text = f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d}"
    if millis % _MILLIS_PER_DAY == 0:
        return date_text
    return f"{date_text}T{time_text}"


# ---------------------------------------------------------------------------- dates


_DATE_PATTERN: Final = ("y", "-", "M", "-", "d")
_TIME_PATTERN: Final = ("H", ":", "m", ":", "s", ".", "S", "Z")
_TIMESTAMP_PATTERN: Final = (*_DATE_PATTERN, "T", *_TIME_PATTERN)
_TEMPORAL_BY_LENGTH: Final = {
    13: (Time.SCHEMA, _TIME_PATTERN),
    24: (Timestamp.SCHEMA, _TIMESTAMP_PATTERN),
    10: (Date.SCHEMA, _DATE_PATTERN),
}


def _parse_as_temporal(token: str | None) -> SchemaAndValue | None:
    """A Date, Time or Timestamp literal (chosen by length), or None."""
    if token is None:
        return None
    token = token.replace("\\:", ":")
    found = _TEMPORAL_BY_LENGTH.get(utf16_length(token))
    if found is None:
        return None
    schema, pattern = found
    millis = parse_lenient(token, pattern)
    if millis is None:
        return None
    try:
        if schema is Time.SCHEMA:
            return SchemaAndValue(schema, Time.to_logical(schema, millis))
        if schema is Date.SCHEMA:
            days, rest = divmod(millis, _MILLIS_PER_DAY)
            return None if rest else SchemaAndValue(schema, Date.to_logical(schema, days))
        return SchemaAndValue(schema, Timestamp.to_logical(schema, millis))
    except DataError:  # no datetime value for it (see the module docstring)
        return None


# ---------------------------------------------------------------------------- parsing


_DELIMITERS: Final = frozenset(':,{}[]"')
_TRUE: Final = SchemaAndValue(Schema.BOOLEAN_SCHEMA, True)
_FALSE: Final = SchemaAndValue(Schema.BOOLEAN_SCHEMA, False)


def parse_string(text: str | None) -> SchemaAndValue | None:
    """*text* parsed with a schema inferred (Kafka's ``Values.parseString``).

    Returns None for ``null`` (as Kafka does) and ``SchemaAndValue.NULL`` for None.

    >>> parse_string("{\\"a\\": 1, \\"b\\": 70000}")
    SchemaAndValue(schema=Schema(MAP, key_schema=Schema(STRING), \
value_schema=Schema(INT32)), value={'a': 1, 'b': 70000})
    >>> parse_string("2019-08-23").value
    datetime.date(2019, 8, 23)
    """
    if text is None:
        return SchemaAndValue.NULL
    if not text:
        return SchemaAndValue(Schema.STRING_SCHEMA, text)
    return _ValueParser(text).parse(embedded=False)


class _Tokenizer:
    """Kafka's ``Values.Parser``: tokens split at unescaped ``:,{}[]"``, with look-ahead."""

    __slots__ = ("_index", "_next", "original")

    def __init__(self, original: str) -> None:
        self.original = original
        self._index = 0
        self._next: str | None = None

    def mark(self) -> int:
        """Where the next token starts."""
        return self._index - (len(self._next) if self._next is not None else 0)

    def rewind_to(self, position: int) -> None:
        self._index = position
        self._next = None

    def has_next(self) -> bool:
        return self._next is not None or self._index < len(self.original)

    def next(self) -> str:
        if self._next is not None:
            token, self._next = self._next, None
            return token
        return self._consume()

    def next_text(self, count: int) -> str | None:
        """The text of the next *count* tokens (consumed), or None if there are fewer."""
        start = self.mark()
        for _ in range(count):
            if not self.has_next():
                self.rewind_to(start)
                return None
            self.next()
        return self.original[start : self._index]

    def can_consume(self, expected: str) -> bool:
        """Consume the next non-blank token if, trimmed, it is *expected*."""
        if self._next is None:
            if not self.has_next():
                return False
            self._next = self._consume()
        while _is_blank(self._next) and self._index < len(self.original):
            self._next = self._consume()
        if trim(self._next) == expected:
            self._next = None
            return True
        return False

    def _consume(self) -> str:
        text, start = self.original, self._index
        escaped = False
        for index in range(start, len(text)):
            char = text[index]
            if char == "\\":
                escaped = not escaped
            elif char in _DELIMITERS and not escaped:
                self._index = index if start < index else index + 1
                return text[start : self._index]
            else:
                escaped = False
        self._index = len(text)
        return text[start:]


class _ValueParser:
    """Kafka's ``Values.ValueParser`` over one text."""

    __slots__ = ("_tokens",)

    def __init__(self, text: str) -> None:
        self._tokens = _Tokenizer(text)

    def parse(self, embedded: bool) -> SchemaAndValue | None:
        tokens = self._tokens
        if not tokens.has_next():
            return None
        if embedded and tokens.can_consume('"'):
            return self._parse_quoted_string()
        if self._single_token_literal(embedded, "null"):
            return None
        if self._single_token_literal(embedded, "true"):
            return _TRUE
        if self._single_token_literal(embedded, "false"):
            return _FALSE
        start = tokens.mark()
        try:
            if tokens.can_consume("["):
                return self._parse_array()
            if tokens.can_consume("{"):
                return self._parse_map()
        except DataError:
            tokens.rewind_to(start)
        token = tokens.next()
        if _is_blank(token):
            return SchemaAndValue(Schema.STRING_SCHEMA, token)
        return self._parse_next_token(embedded, trim(token))

    def _single_token_literal(self, embedded: bool, literal: str) -> bool:
        """Whether the next token is *literal*, alone in the text unless *embedded*."""
        start = self._tokens.mark()
        if self._tokens.can_consume(literal) and (embedded or not self._tokens.has_next()):
            return True
        self._tokens.rewind_to(start)
        return False

    def _parse_next_token(self, embedded: bool, token: str) -> SchemaAndValue:
        first = token[0]
        first_is_digit = digit(first) is not None
        if first_is_digit:
            temporal = self._parse_multiple_tokens_as_temporal(token)
            if temporal is not None:
                return temporal
        if first_is_digit or first in "+-":
            number = _parse_as_number(token)
            if number is not None:
                return number
        if embedded:
            raise DataError("Failed to parse embedded value")
        return SchemaAndValue(Schema.STRING_SCHEMA, self._tokens.original)

    def _parse_multiple_tokens_as_temporal(self, token: str) -> SchemaAndValue | None:
        # An unescaped colon splits a time into five tokens: try those first.
        position = self._tokens.mark()
        remainder = self._tokens.next_text(4)
        if remainder is not None:
            temporal = _parse_as_temporal(token + remainder)
            if temporal is not None:
                return temporal
        self._tokens.rewind_to(position)
        return _parse_as_temporal(token)

    def _parse_quoted_string(self) -> SchemaAndValue:
        parts: list[str] = []
        while self._tokens.has_next():
            if self._tokens.can_consume('"'):
                break
            parts.append(self._tokens.next())
        content = "".join(parts)
        temporal = _parse_as_temporal(content)
        return temporal or SchemaAndValue(Schema.STRING_SCHEMA, content)

    def _parse_array(self) -> SchemaAndValue:
        tokens = self._tokens
        result: list[Any] = []
        elements = _SchemaMerger()
        while tokens.has_next():
            if tokens.can_consume("]"):
                if elements.common is None:  # every element is null
                    return SchemaAndValue(Schema(SchemaType.ARRAY), result)
                schema = SchemaBuilder.array(elements.common).build()
                return SchemaAndValue(schema, _align_list(elements.common, result))
            if tokens.can_consume(","):
                raise DataError(f"Unable to parse an empty array element: {tokens.original}")
            element = self.parse(embedded=True)
            elements.merge(element)
            result.append(element.value if element is not None else None)
            position = tokens.mark()
            if tokens.can_consume("]"):
                tokens.rewind_to(position)
            elif not tokens.can_consume(","):
                raise DataError("Array elements missing ',' delimiter")
        raise DataError(f"Array is missing terminating ']': {tokens.original}")

    def _parse_map(self) -> SchemaAndValue:
        tokens = self._tokens
        result: dict[Any, Any] = {}
        keys, values = _SchemaMerger(), _SchemaMerger()
        while tokens.has_next():
            if tokens.can_consume("}"):
                if keys.common is None:
                    return SchemaAndValue(Schema(SchemaType.MAP), result)
                if values.common is None:
                    schema = Schema(SchemaType.MAP, key_schema=keys.common)
                    return SchemaAndValue(schema, _align_map(keys.common, None, result))
                schema = SchemaBuilder.map(keys.common, values.common).build()
                return SchemaAndValue(schema, _align_map(keys.common, values.common, result))
            if tokens.can_consume(","):
                raise DataError(
                    f"Unable to parse a map entry with no key or value: {tokens.original}"
                )
            key = self.parse(embedded=True)
            if key is None or key.value is None:
                raise DataError(f"Map entry may not have a null key: {tokens.original}")
            if not tokens.can_consume(":"):
                raise DataError(f"Map entry is missing ':' in {tokens.original}")
            value = self.parse(embedded=True)
            result[_hashable(key.value)] = value.value if value is not None else None
            tokens.can_consume(",")
            keys.merge(key)
            values.merge(value)
        raise DataError(f"Map is missing terminating '}}': {tokens.original}")


def _hashable(key: Any) -> Any:
    """A map key Python can hash: lists become tuples; a map cannot be one."""
    if isinstance(key, list):
        return tuple(_hashable(item) for item in key)
    if isinstance(key, dict):
        raise DataError("A map key may not be a map here")
    return key


def _int_schema(value: int) -> Schema:
    if -(2**7) <= value < 2**7:
        return Schema.INT8_SCHEMA
    if -(2**15) <= value < 2**15:
        return Schema.INT16_SCHEMA
    if _INT_MIN <= value <= _INT_MAX:
        return Schema.INT32_SCHEMA
    return Schema.INT64_SCHEMA


def _parse_as_number(token: str) -> SchemaAndValue | None:
    """*token* as a number, or None if it is not a Java ``BigDecimal`` literal."""
    number = parse_big_decimal(token)
    if number is None:
        return None
    integral = exact_long(number)
    if integral is not None:
        return SchemaAndValue(_int_schema(integral), integral)
    scale = big_decimal_scale(number)
    if scale != 0:
        single = big_decimal_to_float32(number)
        if math.isfinite(single):
            return SchemaAndValue(Schema.FLOAT32_SCHEMA, JavaFloat(single))
        double = float(number)
        if math.isfinite(double):
            return SchemaAndValue(Schema.FLOAT64_SCHEMA, double)
    return SchemaAndValue(Decimal.schema(scale), number)


# ---------------------------------------------------------------------------- common schemas


_NUMERIC_RANK: Final = {
    SchemaType.INT8: 0,
    SchemaType.INT16: 1,
    SchemaType.INT32: 2,
    SchemaType.INT64: 3,
    SchemaType.FLOAT32: 4,
    SchemaType.FLOAT64: 5,
}


class _SchemaMerger:
    """The schema common to the values seen so far (Kafka's ``Values.SchemaMerger``).

    ``common`` is None until a value with a schema arrives, and again for good once two
    schemas have nothing in common.
    """

    __slots__ = ("_compatible", "common")

    def __init__(self) -> None:
        self.common: Schema | None = None
        self._compatible = True

    def merge(self, latest: SchemaAndValue | None) -> None:
        if latest is None or latest.schema is None or not self._compatible:
            return
        if self.common is None:
            self.common = latest.schema
        else:
            self.common = _merge_schemas(self.common, latest.schema)
            self._compatible = self.common is not None


def _merge_schemas(previous: Schema, latest: Schema) -> Schema | None:
    """The wider of two numeric types; for one type, the later schema; else None."""
    if previous.type is not latest.type:
        previous_rank = _NUMERIC_RANK.get(previous.type)
        latest_rank = _NUMERIC_RANK.get(latest.type)
        if previous_rank is None or latest_rank is None:
            return None
        return previous if previous_rank > latest_rank else latest
    if previous.is_optional == latest.is_optional:
        return previous if previous.is_optional else latest
    return None


def _align_list(element_schema: Schema, values: list[Any]) -> list[Any]:
    return [_convert_to(element_schema, value) for value in values]


def _align_map(
    key_schema: Schema, value_schema: Schema | None, entries: dict[Any, Any]
) -> dict[Any, Any]:
    aligned: dict[Any, Any] = {}
    for key, value in entries.items():
        new_value = value if value_schema is None else _convert_to(value_schema, value)
        aligned[_hashable(_convert_to(key_schema, key))] = new_value
    return aligned


# ---------------------------------------------------------------------------- conversions
# Kafka's Values.convertTo(toSchema, null, value), as the parser uses it to give every
# element of a list or map the common schema.


def _unable(value: Any, target: object) -> DataError:
    return DataError(f"Unable to convert {value} ({type(value).__name__}) to {target}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def _as_long(value: Any) -> int:
    """``Values.asLong`` without a source schema."""
    if isinstance(value, str):
        parsed = parse_big_decimal(value)
        if parsed is None:
            raise _unable(value, "a number")
        value = parsed
    if isinstance(value, bool) or not _is_number(value):
        raise _unable(value, "a number")
    if isinstance(value, float):
        return double_to_integer(value, 64)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise _unable(value, "a number")
        return narrow(int(value), 64)
    return narrow(value, 64)


def _as_double(value: Any) -> float:
    """``Values.asDouble`` without a source schema."""
    if isinstance(value, str):
        parsed = parse_big_decimal(value)
        if parsed is None:
            raise _unable(value, "a number")
        value = parsed
    if not _is_number(value):
        return float(_as_long(value))  # raises
    try:
        return float(value)
    except OverflowError:  # an int beyond a double
        return math.copysign(math.inf, value)


def _parsed_value(value: Any) -> Any:
    if isinstance(value, str):
        parsed = parse_string(value)
        return parsed.value if parsed is not None else None
    return value


def _convert_to(schema: Schema, value: Any) -> Any:
    """*value* converted to *schema* (Kafka's ``Values.convertTo`` with no source schema)."""
    if value is None:
        if schema.is_optional:
            return None
        raise DataError("Unable to convert a null value to a schema that requires a value")
    schema_type, name = schema.type, schema.name
    if schema_type is SchemaType.BYTES:
        if name == Decimal.LOGICAL_NAME:
            return _convert_to_decimal(schema, value)
        if isinstance(value, (bytes, bytearray)):
            return value
        if isinstance(value, decimal.Decimal):
            return Decimal.from_logical(schema, value)
    elif schema_type is SchemaType.STRING:
        return convert_to_string(None, value)
    elif schema_type is SchemaType.BOOLEAN:
        if isinstance(value, bool):
            return value
        parsed = _parsed_value(value)
        if isinstance(parsed, bool):
            return parsed
        return _as_long(value) != 0
    elif schema_type in (SchemaType.INT8, SchemaType.INT16):
        return narrow(_as_long(value), 8 if schema_type is SchemaType.INT8 else 16)
    elif schema_type is SchemaType.INT32:
        if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME):
            value = _parsed_value(value)
            if isinstance(value, (dt.date, dt.time)):
                return value
            logical = Date if name == Date.LOGICAL_NAME else Time
            return logical.to_logical(schema, narrow(_as_long(value), 32))
        return narrow(_as_long(value), 32)
    elif schema_type is SchemaType.INT64:
        if name == Timestamp.LOGICAL_NAME:
            value = _parsed_value(value)
            if isinstance(value, (dt.date, dt.time)):
                return value
            return Timestamp.to_logical(schema, _as_long(value))
        return _as_long(value)
    elif schema_type is SchemaType.FLOAT32:
        return value if isinstance(value, JavaFloat) else JavaFloat(to_float32(_as_double(value)))
    elif schema_type is SchemaType.FLOAT64:
        return float(_as_double(value))
    elif schema_type is SchemaType.ARRAY:
        value = _parsed_value(value)
        if isinstance(value, (list, tuple)):
            return value
    elif schema_type is SchemaType.MAP:
        value = _parsed_value(value)
        if isinstance(value, Mapping):
            return value
    elif isinstance(value, Struct):
        return value
    raise _unable(value, schema)


def _convert_to_decimal(schema: Schema, value: Any) -> decimal.Decimal:
    if isinstance(value, (bytes, bytearray)):
        return Decimal.to_logical(schema, bytes(value))
    if isinstance(value, decimal.Decimal):
        return value
    if _is_number(value):
        # BigDecimal.valueOf(double): the double's shortest decimal form.
        parsed = parse_big_decimal(double_to_string(float(value)))
    elif isinstance(value, str):
        parsed = parse_big_decimal(value)
    else:
        parsed = None
    if parsed is None:
        raise _unable(value, schema)
    return parsed


__all__ = ["convert_to_string", "format_temporal", "parse_string"]
