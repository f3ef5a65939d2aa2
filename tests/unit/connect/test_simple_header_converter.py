"""SimpleHeaderConverter: Kafka's SimpleHeaderConverterTest and ValuesTest cases, and more.

Expected results that go beyond Kafka's own tests were checked against Kafka's ``Values``
class running on a JVM in UTC.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import pytest

import seaway
from seaway.connect.api import ConnectError, DataError, Schema, SchemaAndValue
from seaway.connect.api.data import (
    Date,
    Decimal,
    SchemaBuilder,
    SchemaType,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.api.data.values import _Tokenizer, convert_to_string, parse_string
from seaway.connect.converters import (
    JsonConverter,
    SimpleHeaderConverter,
    StringConverter,
    converter_class,
    header_converter_class,
    new_converter,
    new_header_converter,
)
from seaway.connect.runtime.worker_config import SIMPLE_HEADER_CONVERTER
from seaway.java.numbers import JavaFloat, to_float32

TOPIC = "topic"
HEADER = "header"

STRING_MAP = {"foo": "123", "bar": "baz"}
STRING_MAP_SCHEMA = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build()
STRING_SHORT_MAP = {"foo": 12345, "bar": 0, "baz": -4321}
STRING_SHORT_MAP_SCHEMA = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT16_SCHEMA).build()
STRING_INT_MAP = {"foo": 1234567890, "bar": 0, "baz": -987654321}
STRING_INT_MAP_SCHEMA = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
INT_LIST = [1234567890, -987654321]
INT_LIST_SCHEMA = SchemaBuilder.array(Schema.INT32_SCHEMA).build()
STRING_LIST = ["foo", "bar"]
STRING_LIST_SCHEMA = SchemaBuilder.array(Schema.STRING_SCHEMA).build()
UTC = dt.UTC


def array_of(schema: Schema | None) -> Schema:
    return Schema(SchemaType.ARRAY, value_schema=schema)


def map_of(key: Schema | None, value: Schema | None) -> Schema:
    return Schema(SchemaType.MAP, key_schema=key, value_schema=value)


@pytest.fixture
def converter() -> SimpleHeaderConverter:
    return SimpleHeaderConverter()


def round_trip(
    converter: SimpleHeaderConverter, schema: Schema | None, value: Any
) -> SchemaAndValue:
    serialized = converter.from_connect_header(TOPIC, HEADER, schema, value)
    return converter.to_connect_header(TOPIC, HEADER, serialized)


def assert_round_trip(converter: SimpleHeaderConverter, schema: Schema, value: Any) -> None:
    """Kafka's ``assertRoundTrip``: the value and its schema come back, twice over."""
    serialized = converter.from_connect_header(TOPIC, HEADER, schema, value)
    result = converter.to_connect_header(TOPIC, HEADER, serialized)
    if value is None:
        assert serialized is None
        assert result == SchemaAndValue.NULL
        return
    assert serialized is not None
    assert result == SchemaAndValue(schema, value)
    serialized2 = converter.from_connect_header(TOPIC, HEADER, result.schema, result.value)
    assert serialized2 == serialized
    assert converter.to_connect_header(TOPIC, HEADER, serialized2) == result


def parse(text: str) -> SchemaAndValue | None:
    return SimpleHeaderConverter().to_connect_header(TOPIC, HEADER, text.encode())


# ------------------------------------------------------------------ SimpleHeaderConverterTest


def test_null_value(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, Schema.STRING_SCHEMA, None)
    assert_round_trip(converter, Schema.OPTIONAL_STRING_SCHEMA, None)
    assert converter.to_connect_header(TOPIC, HEADER, None) == SchemaAndValue.NULL


@pytest.mark.parametrize(
    "text",
    [
        "simple",
        "",
        'three"blind\\"mice',
        "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':",
        "null=",
        "true}",
        "false]",
        "[foo]",
    ],
)
def test_strings_round_trip(converter: SimpleHeaderConverter, text: str) -> None:
    assert_round_trip(converter, Schema.STRING_SCHEMA, text)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (STRING_MAP_SCHEMA, STRING_MAP),
        (STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),
        (STRING_INT_MAP_SCHEMA, STRING_INT_MAP),
        (STRING_LIST_SCHEMA, STRING_LIST),
        (INT_LIST_SCHEMA, INT_LIST),
    ],
)
def test_maps_and_lists_round_trip(
    converter: SimpleHeaderConverter, schema: Schema, value: Any
) -> None:
    assert_round_trip(converter, schema, value)


@pytest.mark.parametrize(
    ("text", "schema", "value"),
    [
        ('{"foo":"123","bar":"baz"}', STRING_MAP_SCHEMA, STRING_MAP),
        ('{ "foo" : "123", \n"bar" : "baz" } ', STRING_MAP_SCHEMA, STRING_MAP),
        ('{"foo":12345,"bar":0,"baz":-4321}', STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),
        (
            ' { "foo" :  12345 , "bar" : 0,  "baz" : -4321 }  ',
            STRING_SHORT_MAP_SCHEMA,
            STRING_SHORT_MAP,
        ),
        ('{"foo":1234567890,"bar":0,"baz":-987654321}', STRING_INT_MAP_SCHEMA, STRING_INT_MAP),
        (
            ' { "foo" :  1234567890 , "bar" : 0,  "baz" : -987654321 }  ',
            STRING_INT_MAP_SCHEMA,
            STRING_INT_MAP,
        ),
    ],
)
def test_string_of_map_parses_as_map(
    converter: SimpleHeaderConverter, text: str, schema: Schema, value: Any
) -> None:
    result = round_trip(converter, Schema.STRING_SCHEMA, text)
    assert result == SchemaAndValue(schema, value)
    assert list(result.value) == list(value)  # in order


def test_map_with_mixed_values_has_no_value_schema(converter: SimpleHeaderConverter) -> None:
    value = {"foo": "bar", "baz": 3456}
    result = round_trip(converter, None, value)
    assert result == SchemaAndValue(map_of(Schema.STRING_SCHEMA, None), value)


def test_list_with_mixed_values_has_no_element_schema(converter: SimpleHeaderConverter) -> None:
    value = ["foo", 13344]
    assert round_trip(converter, None, value) == SchemaAndValue(array_of(None), value)


def test_empty_map_and_list(converter: SimpleHeaderConverter) -> None:
    assert round_trip(converter, None, {}) == SchemaAndValue(map_of(None, None), {})
    assert round_trip(converter, None, []) == SchemaAndValue(array_of(None), [])


def test_version_config_configure_close(converter: SimpleHeaderConverter) -> None:
    assert converter.version() == seaway.__version__
    assert list(converter.config().names()) == []
    converter.configure({"converter.type": "header", "anything": "ignored"})
    converter.close()


# ---------------------------------------------------------------------------- ValuesTest: parsing


def test_parse_string_null_and_empty() -> None:
    assert parse_string(None) == SchemaAndValue.NULL
    assert parse_string("") == SchemaAndValue(Schema.STRING_SCHEMA, "")
    assert parse_string("null") is None  # as Kafka's Values.parseString
    assert parse("null") == SchemaAndValue.NULL  # the converter never returns None


def test_no_infinite_loop_on_uffff() -> None:
    text = bytes([0xEF, 0xBF, 0xBF]).decode()
    assert parse(text) == SchemaAndValue(Schema.STRING_SCHEMA, text)


WHITESPACE = "\n \t \t\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Literals
        ("true", SchemaAndValue(Schema.BOOLEAN_SCHEMA, True)),
        (WHITESPACE + "true" + WHITESPACE, SchemaAndValue(Schema.BOOLEAN_SCHEMA, True)),
        (WHITESPACE + "false" + WHITESPACE, SchemaAndValue(Schema.BOOLEAN_SCHEMA, False)),
        (WHITESPACE + "null" + WHITESPACE, SchemaAndValue.NULL),
        ("True", SchemaAndValue(Schema.STRING_SCHEMA, "True")),
        # Integers: the smallest type that holds the value
        ("127", SchemaAndValue(Schema.INT8_SCHEMA, 127)),
        ("-128", SchemaAndValue(Schema.INT8_SCHEMA, -128)),
        ("128", SchemaAndValue(Schema.INT16_SCHEMA, 128)),
        ("32767", SchemaAndValue(Schema.INT16_SCHEMA, 32767)),
        ("-32768", SchemaAndValue(Schema.INT16_SCHEMA, -32768)),
        ("32768", SchemaAndValue(Schema.INT32_SCHEMA, 32768)),
        ("2147483647", SchemaAndValue(Schema.INT32_SCHEMA, 2**31 - 1)),
        ("-2147483648", SchemaAndValue(Schema.INT32_SCHEMA, -(2**31))),
        ("2147483648", SchemaAndValue(Schema.INT64_SCHEMA, 2**31)),
        ("9223372036854775807", SchemaAndValue(Schema.INT64_SCHEMA, 2**63 - 1)),
        ("-9223372036854775808", SchemaAndValue(Schema.INT64_SCHEMA, -(2**63))),
        ("+1", SchemaAndValue(Schema.INT8_SCHEMA, 1)),
        ("-0.0", SchemaAndValue(Schema.INT8_SCHEMA, 0)),
        ("1e3", SchemaAndValue(Schema.INT16_SCHEMA, 1000)),
        ("\u0663\u0664", SchemaAndValue(Schema.INT8_SCHEMA, 34)),  # Arabic-Indic digits
        # Fractional parts that are zero still make integers
        ("1.0", SchemaAndValue(Schema.INT8_SCHEMA, 1)),
        ("300.0", SchemaAndValue(Schema.INT16_SCHEMA, 300)),
        ("66000.0", SchemaAndValue(Schema.INT32_SCHEMA, 66000)),
        # Other numbers are FLOAT32 (rounded) unless that overflows
        ("1.1", SchemaAndValue(Schema.FLOAT32_SCHEMA, to_float32(1.1))),
        ("300.01", SchemaAndValue(Schema.FLOAT32_SCHEMA, to_float32(300.01))),
        ("66000.0008", SchemaAndValue(Schema.FLOAT32_SCHEMA, to_float32(66000.0008))),
        ("+1.5", SchemaAndValue(Schema.FLOAT32_SCHEMA, 1.5)),
        ("3.4028235E38", SchemaAndValue(Schema.FLOAT32_SCHEMA, to_float32(3.4028235e38))),
        ("-3.4028235E38", SchemaAndValue(Schema.FLOAT32_SCHEMA, -to_float32(3.4028235e38))),
        ("1.0E30", SchemaAndValue(Schema.FLOAT32_SCHEMA, to_float32(1e30))),
        ("1e-50", SchemaAndValue(Schema.FLOAT32_SCHEMA, 0.0)),
        ("1e39", SchemaAndValue(Schema.FLOAT64_SCHEMA, 1e39)),
        ("1.7976931348623157E308", SchemaAndValue(Schema.FLOAT64_SCHEMA, 1.7976931348623157e308)),
        ("-1.7976931348623157E308", SchemaAndValue(Schema.FLOAT64_SCHEMA, -1.7976931348623157e308)),
        # Beyond INT64 (scale 0) or beyond a double: Decimal
        (
            "9223372036854775808",
            SchemaAndValue(Decimal.schema(0), decimal.Decimal("9223372036854775808")),
        ),
        (
            "-9223372036854775809",
            SchemaAndValue(Decimal.schema(0), decimal.Decimal("-9223372036854775809")),
        ),
        ("1E400", SchemaAndValue(Decimal.schema(-400), decimal.Decimal("1E400"))),
        ("1.5E400", SchemaAndValue(Decimal.schema(-399), decimal.Decimal("1.5E400"))),
        # Not numbers
        ("1_000", SchemaAndValue(Schema.STRING_SCHEMA, "1_000")),
        ("Infinity", SchemaAndValue(Schema.STRING_SCHEMA, "Infinity")),
        ("NaN", SchemaAndValue(Schema.STRING_SCHEMA, "NaN")),
        (".5", SchemaAndValue(Schema.STRING_SCHEMA, ".5")),
        ("1 2", SchemaAndValue(Schema.STRING_SCHEMA, "1 2")),
        ("0x10", SchemaAndValue(Schema.STRING_SCHEMA, "0x10")),
        # Unquoted strings inside maps and lists make the whole text a string
        ("{foo: 3}", SchemaAndValue(Schema.STRING_SCHEMA, "{foo: 3}")),
        ("{3: foo}", SchemaAndValue(Schema.STRING_SCHEMA, "{3: foo}")),
        ("[foo]", SchemaAndValue(Schema.STRING_SCHEMA, "[foo]")),
        ("{6:9 4:20}", SchemaAndValue(Schema.STRING_SCHEMA, "{6:9 4:20}")),
        ("[0 1 2]", SchemaAndValue(Schema.STRING_SCHEMA, "[0 1 2]")),
        ("{null: 3}", SchemaAndValue(Schema.STRING_SCHEMA, "{null: 3}")),
        ("[1, 2, 3,,,]", SchemaAndValue(Schema.STRING_SCHEMA, "[1, 2, 3,,,]")),
        ("[1, null]", SchemaAndValue(Schema.STRING_SCHEMA, "[1, null]")),
        ("[null, 1]", SchemaAndValue(Schema.STRING_SCHEMA, "[null, 1]")),
        (
            '{ "foo" :  1 ,, "bar" : 0 }',
            SchemaAndValue(Schema.STRING_SCHEMA, '{ "foo" :  1 ,, "bar" : 0 }'),
        ),
        (
            '{ "foo" : 1 , "a", "bar" : 0 }',
            SchemaAndValue(Schema.STRING_SCHEMA, '{ "foo" : 1 , "a", "bar" : 0 }'),
        ),
        ("[1, 2", SchemaAndValue(Schema.STRING_SCHEMA, "[1, 2")),
        ('"quoted"', SchemaAndValue(Schema.STRING_SCHEMA, '"quoted"')),
        # Lists and maps
        ("[]", SchemaAndValue(array_of(None), [])),
        ("{}", SchemaAndValue(map_of(None, None), {})),
        ("[true, false]", SchemaAndValue(array_of(Schema.BOOLEAN_SCHEMA), [True, False])),
        (
            "{true: false, false: true}",
            SchemaAndValue(
                map_of(Schema.BOOLEAN_SCHEMA, Schema.BOOLEAN_SCHEMA), {True: False, False: True}
            ),
        ),
        ("[null]", SchemaAndValue(array_of(None), [None])),
        ("{3: null}", SchemaAndValue(map_of(Schema.INT8_SCHEMA, None), {3: None})),
        ("[[]]", SchemaAndValue(array_of(array_of(None)), [[]])),
        ("[{}]", SchemaAndValue(array_of(map_of(None, None)), [{}])),
        ('{"a":{}}', SchemaAndValue(map_of(Schema.STRING_SCHEMA, map_of(None, None)), {"a": {}})),
        ('{"a":[]}', SchemaAndValue(map_of(Schema.STRING_SCHEMA, array_of(None)), {"a": []})),
        ('{"a": 1, "b": 70000}', SchemaAndValue(STRING_INT_MAP_SCHEMA, {"a": 1, "b": 70000})),
        # Numbers widen to the largest type in the list
        ("[1, 2, 32768]", SchemaAndValue(INT_LIST_SCHEMA, [1, 2, 32768])),
        (
            "[1, 2, 3.4028235E38]",
            SchemaAndValue(array_of(Schema.FLOAT32_SCHEMA), [1.0, 2.0, to_float32(3.4028235e38)]),
        ),
        (
            "[1, 2, 1.7976931348623157E308]",
            SchemaAndValue(array_of(Schema.FLOAT64_SCHEMA), [1.0, 2.0, 1.7976931348623157e308]),
        ),
        ("[16777217, 1.5]", SchemaAndValue(array_of(Schema.FLOAT32_SCHEMA), [16777216.0, 1.5])),
        ("[1.1, 1e300]", SchemaAndValue(array_of(Schema.FLOAT64_SCHEMA), [to_float32(1.1), 1e300])),
        (
            "[9223372036854775808, -9223372036854775809]",
            SchemaAndValue(
                array_of(Decimal.schema(0)),
                [decimal.Decimal(2**63), decimal.Decimal(-(2**63) - 1)],
            ),
        ),
        # Decimals, strings and ints have nothing in common
        (
            '["1.0", 9223372036854775808, -9223372036854775809, 1, 1]',
            SchemaAndValue(
                array_of(None),
                ["1.0", decimal.Decimal(2**63), decimal.Decimal(-(2**63) - 1), 1, 1],
            ),
        ),
        # Temporal literals
        (
            "2019-08-23T14:34:54.346Z",
            SchemaAndValue(Timestamp.SCHEMA, dt.datetime(2019, 8, 23, 14, 34, 54, 346000, UTC)),
        ),
        ("2019-08-23", SchemaAndValue(Date.SCHEMA, dt.date(2019, 8, 23))),
        ("14:34:54.346Z", SchemaAndValue(Time.SCHEMA, dt.time(14, 34, 54, 346000))),
        (
            "2019-08-23T14\\:34\\:54.346Z",
            SchemaAndValue(Timestamp.SCHEMA, dt.datetime(2019, 8, 23, 14, 34, 54, 346000, UTC)),
        ),
        ("14\\:34\\:54.346Z", SchemaAndValue(Time.SCHEMA, dt.time(14, 34, 54, 346000))),
        ("[2019-08-23]", SchemaAndValue(array_of(Date.SCHEMA), [dt.date(2019, 8, 23)])),
        ("[14:34:54.346Z]", SchemaAndValue(array_of(Time.SCHEMA), [dt.time(14, 34, 54, 346000)])),
        (
            "[2019-08-23T14:34:54.346Z,2019-01-23T15:12:34.567Z,   2019-04-23T19:12:34.567Z]",
            SchemaAndValue(
                array_of(Timestamp.SCHEMA),
                [
                    dt.datetime(2019, 8, 23, 14, 34, 54, 346000, UTC),
                    dt.datetime(2019, 1, 23, 15, 12, 34, 567000, UTC),
                    dt.datetime(2019, 4, 23, 19, 12, 34, 567000, UTC),
                ],
            ),
        ),
        (
            '{"k1":"14:34:54.346Z"}',
            SchemaAndValue(
                map_of(Schema.STRING_SCHEMA, Time.SCHEMA), {"k1": dt.time(14, 34, 54, 346000)}
            ),
        ),
        (
            '{"k1":14:34:54.346Z}',
            SchemaAndValue(
                map_of(Schema.STRING_SCHEMA, Time.SCHEMA), {"k1": dt.time(14, 34, 54, 346000)}
            ),
        ),
        ("00:00:00.000Z", SchemaAndValue(Time.SCHEMA, dt.time(0))),
        ("23:59:59.999Z", SchemaAndValue(Time.SCHEMA, dt.time(23, 59, 59, 999000))),
    ],
)
def test_parse(text: str, expected: SchemaAndValue) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("expected", "text"),
    [
        ([1, 2, 300, "four"], '[1, 2, 300, "four"]'),
        ([2, 300, "four", 1], '[2, 300, "four", 1]'),
        ([300, "four", 1, 2], '[300, "four", 1, 2]'),
        (["four", 1, 2, 300], '["four", 1, 2, 300]'),
    ],
)
def test_list_without_common_element_type(expected: list[Any], text: str) -> None:
    assert parse(text) == SchemaAndValue(array_of(None), expected)


@pytest.mark.parametrize(
    "text",
    [
        '{1:1, 2:1, 300:300, "four":1}',
        '{2:1, 300:300, "four":1, 1:1}',
        '{300:300, "four":1, 1:1, 2:1}',
        '{"four":1, 1:1, 2:1, 300:300}',
    ],
)
def test_map_with_several_key_types(text: str) -> None:
    expected = {1: 1, 2: 1, 300: 300, "four": 1}
    assert parse(text) == SchemaAndValue(map_of(None, None), expected)


@pytest.mark.parametrize(
    "text",
    [
        '{1:1, 2:1, 300:300, 4:"four"}',
        '{2:1, 300:300, 4:"four", 1:1}',
        '{300:300, 4:"four", 1:1, 2:1}',
        '{4:"four", 1:1, 2:1, 300:300}',
    ],
)
def test_map_with_several_value_types(text: str) -> None:
    expected = {1: 1, 2: 1, 300: 300, 4: "four"}
    # Keys share INT16 (widened from INT8); values have nothing in common.
    assert parse(text) == SchemaAndValue(map_of(Schema.INT16_SCHEMA, None), expected)


def test_value_types() -> None:
    """Ints are ints, FLOAT32 values JavaFloats, others floats, Decimals keep their scale."""
    assert type(parse("300").value) is int
    assert isinstance(parse("1.5").value, JavaFloat)
    assert type(parse("1e39").value) is float
    value = parse("1.50E400").value
    assert isinstance(value, decimal.Decimal) and value.as_tuple().exponent == 398


# ---------------------------------------------------------------------------- Kafka's quirks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A leading number or list is taken even with more text after it.
        ("14:34", SchemaAndValue(Schema.INT8_SCHEMA, 14)),
        ("1.5:x", SchemaAndValue(Schema.FLOAT32_SCHEMA, 1.5)),
        ("[1] x", SchemaAndValue(array_of(Schema.INT8_SCHEMA), [1])),
        ("{}x", SchemaAndValue(map_of(None, None), {})),
        # ...but literals must stand alone.
        ("true:x", SchemaAndValue(Schema.STRING_SCHEMA, "true:x")),
        # A trailing comma is accepted.
        ("[1,]", SchemaAndValue(array_of(Schema.INT8_SCHEMA), [1])),
        ("{1:2,}", SchemaAndValue(map_of(Schema.INT8_SCHEMA, Schema.INT8_SCHEMA), {1: 2})),
        # Escapes are kept in quoted strings; blank tokens inside quotes are dropped.
        ('["a\\"b"]', SchemaAndValue(STRING_LIST_SCHEMA, ['a\\"b'])),
        ('["a, "]', SchemaAndValue(STRING_LIST_SCHEMA, ["a,"])),
        ('[" "]', SchemaAndValue(STRING_LIST_SCHEMA, [""])),
        # One type, different schemas: the last schema wins, values are left alone.
        ('[[1], ["a"]]', SchemaAndValue(array_of(STRING_LIST_SCHEMA), [[1], ["a"]])),
        (
            "[2019-08-23, 14:34:54.346Z]",
            SchemaAndValue(
                array_of(Time.SCHEMA), [dt.date(2019, 8, 23), dt.time(14, 34, 54, 346000)]
            ),
        ),
        # Ints merged with a logical type become that type.
        (
            "[1, 2019-08-23]",
            SchemaAndValue(array_of(Date.SCHEMA), [dt.date(1970, 1, 2), dt.date(2019, 8, 23)]),
        ),
        (
            "[1, 14:34:54.346Z]",
            SchemaAndValue(
                array_of(Time.SCHEMA), [dt.time(0, 0, 0, 1000), dt.time(14, 34, 54, 346000)]
            ),
        ),
        (
            "[1, 2019-08-23T14:34:54.346Z]",
            SchemaAndValue(
                array_of(Timestamp.SCHEMA),
                [
                    dt.datetime(1970, 1, 1, 0, 0, 0, 1000, UTC),
                    dt.datetime(2019, 8, 23, 14, 34, 54, 346000, UTC),
                ],
            ),
        ),
        # A failed list or map after a blank token gives that token.
        (" { ,,  , , }  ", SchemaAndValue(Schema.STRING_SCHEMA, " ")),
        # A float cannot take a date: the list stays text.
        ("[1.5, 2019-08-23]", SchemaAndValue(Schema.STRING_SCHEMA, "[1.5, 2019-08-23]")),
    ],
)
def test_kafka_quirks(text: str, expected: SchemaAndValue) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2019-13-01", dt.date(2020, 1, 1)),
        ("2019-02-30", dt.date(2019, 3, 2)),
        ("2019-00-00", dt.date(2018, 11, 30)),
        ("2019-08-2x", dt.date(2019, 8, 2)),  # text after the last field is ignored
        ("2019- 8- 3", dt.date(2019, 8, 3)),  # spaces before a field are skipped
        ("201E1-8-23", dt.date(2010, 8, 23)),  # Java's number parser reads exponents
        ("2019-\u0660\u0668-23", dt.date(2019, 8, 23)),
        # Julian before 1582-10-15 (Python's dates are proleptic Gregorian)
        ("1000-01-01", dt.date(1000, 1, 6)),
        ("1582-10-04", dt.date(1582, 10, 14)),
        ("1582-10-05", dt.date(1582, 10, 15)),
        ("1582-10-15", dt.date(1582, 10, 15)),
        ("1:2:3.4Zabcde", dt.time(1, 2, 3, 4000)),
        ("1:NaN:10.000Z", dt.time(1, 0, 10)),
    ],
)
def test_lenient_temporal_parsing(text: str, expected: dt.date | dt.time) -> None:
    assert parse(text).value == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Kafka keeps these as java.util.Date values Python's datetime cannot hold.
        ("25:00:00.000Z", SchemaAndValue(Schema.INT8_SCHEMA, 25)),
        ("0000-01-01", SchemaAndValue(Schema.STRING_SCHEMA, "0000-01-01")),
        ("10000-1-01", SchemaAndValue(Schema.STRING_SCHEMA, "10000-1-01")),
        ('["-1:00:00.000Z"]', SchemaAndValue(STRING_LIST_SCHEMA, ["-1:00:00.000Z"])),
        # Java tells true from 1 as map keys; Python cannot.
        ("{true: 1, 1: 2}", SchemaAndValue(map_of(None, None), {True: 2})),
        # Maps as map keys.
        ("{{1:2}:3}", SchemaAndValue(Schema.STRING_SCHEMA, "{{1:2}:3}")),
    ],
)
def test_documented_differences_from_kafka(text: str, expected: SchemaAndValue) -> None:
    assert parse(text) == expected


def test_list_keys_become_tuples() -> None:
    result = parse("{[1, 2]: 3}")
    assert result == SchemaAndValue(
        map_of(array_of(Schema.INT8_SCHEMA), Schema.INT8_SCHEMA), {(1, 2): 3}
    )
    assert convert_to_string(result.schema, result.value) == "{[1,2]:3}"


def test_invalid_utf8_becomes_replacement_characters(converter: SimpleHeaderConverter) -> None:
    assert converter.to_connect_header(TOPIC, HEADER, b"a\xffb") == SchemaAndValue(
        Schema.STRING_SCHEMA, "a\ufffdb"
    )


def test_text_that_breaks_the_parser_gives_bytes(converter: SimpleHeaderConverter) -> None:
    deep = b"[" * 5000 + b"]" * 5000
    assert converter.to_connect_header(TOPIC, HEADER, deep) == SchemaAndValue(
        Schema.BYTES_SCHEMA, deep
    )


# ---------------------------------------------------------------------------- the tokenizer


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("  ", ["  "]),
        ("simple string", ["simple string"]),
        ("simple \n\t\bstring", ["simple \n\t\bstring"]),
        ("'simple' string", ["'simple' string"]),
        ("si\\mple", ["si\\mple"]),
        ("si\\\\mple", ["si\\\\mple"]),
        ('si\\"mple', ['si\\"mple']),
        ("si\\{mple", ["si\\{mple"]),
        ("si\\:mple", ["si\\:mple"]),
        ("si\\,mple", ["si\\,mple"]),
        ("a{b", ["a", "{", "b"]),
        ("a:b", ["a", ":", "b"]),
        ('a"b', ["a", '"', "b"]),
        ("{b", ["{", "b"]),
        (",", [","]),
        ('"simple" string', ['"', "simple", '"', " string"]),
        ("a{bc}d", ["a", "{", "bc", "}", "d"]),
        ("a { b c } d", ["a ", "{", " b c ", "}", " d"]),
    ],
)
def test_tokens(text: str, tokens: list[str]) -> None:
    tokenizer = _Tokenizer(text)
    found = []
    while tokenizer.has_next():
        position = tokenizer.mark()
        token = tokenizer.next()
        tokenizer.rewind_to(position)
        assert tokenizer.next() == token
        found.append(token)
    assert found == tokens


def test_consume_multiple_tokens() -> None:
    tokenizer = _Tokenizer("a:b:c:d:e:f:g:h")
    assert tokenizer.next_text(5) == "a:b:c"
    assert [tokenizer.next(), tokenizer.next(), tokenizer.next()] == [":", "d", ":"]
    assert tokenizer.next_text(8) is None  # only 7 remain
    assert tokenizer.next() == "e"


# ---------------------------------------------------------------------------- writing


def test_escapes_embedded_strings() -> None:
    assert convert_to_string(None, ['three"blind\\"mice']) == '["three\\"blind\\\\\\"mice"]'
    assert convert_to_string(None, 'three"blind\\"mice') == 'three"blind\\"mice'


@pytest.mark.parametrize(
    ("schema", "value", "text"),
    [
        (Schema.BOOLEAN_SCHEMA, True, "true"),
        (Schema.INT8_SCHEMA, -5, "-5"),
        (Schema.INT64_SCHEMA, 2**63 - 1, "9223372036854775807"),
        (Schema.FLOAT64_SCHEMA, 1.0, "1.0"),
        (Schema.FLOAT64_SCHEMA, 1e7, "1.0E7"),
        (Schema.FLOAT64_SCHEMA, math.nan, "NaN"),
        (Schema.FLOAT64_SCHEMA, -math.inf, "-Infinity"),
        (None, 0.001, "0.001"),
        (Schema.FLOAT32_SCHEMA, 1.1, "1.1"),  # Float.toString by the schema
        (None, to_float32(1.1), "1.100000023841858"),  # a plain float is a double
        (None, JavaFloat(to_float32(1.1)), "1.1"),
        (array_of(Schema.FLOAT32_SCHEMA), [1.1, 2.5], "[1.1,2.5]"),
        (None, decimal.Decimal("1.50"), "1.50"),
        (None, decimal.Decimal("1E+400"), "1E+400"),
        (None, decimal.Decimal("0.0000001"), "1E-7"),
        (None, decimal.Decimal("-0.00"), "0.00"),
        (Schema.BYTES_SCHEMA, b"\x00\xffhi", "AP9oaQ=="),
        (None, [b"hi", None, "x"], '["aGk=",null,"x"]'),
        (None, ("a", 1), '["a",1]'),
        (None, {"a": {"b": [1, 2]}, "c": None}, '{"a":{"b":[1,2]},"c":null}'),
        (None, "", ""),
    ],
)
def test_convert_to_string(schema: Schema | None, value: Any, text: str) -> None:
    assert convert_to_string(schema, value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (dt.date(2019, 8, 23), "2019-08-23"),
        (dt.time(14, 34, 54, 346000), "14:34:54.346Z"),
        (dt.datetime(2019, 8, 23, 14, 34, 54, 346000, UTC), "2019-08-23T14:34:54.346Z"),
        (
            dt.datetime(2019, 8, 23, 16, 34, 54, 346999, dt.timezone(dt.timedelta(hours=2))),
            "2019-08-23T14:34:54.346Z",
        ),
        (dt.datetime(2019, 8, 23, 14, 34, 54, 346000), "2019-08-23T14:34:54.346Z"),  # naive is UTC
        # Kafka picks the format by the instant, not the schema:
        (dt.datetime(2019, 8, 23, tzinfo=UTC), "2019-08-23"),  # a timestamp at midnight
        (dt.date(1970, 1, 1), "00:00:00.000Z"),  # a date before 1970-01-02
        (dt.date(1969, 12, 31), "00:00:00.000Z"),
        (dt.datetime(1969, 12, 31, 23, 59, 59, 999000, UTC), "23:59:59.999Z"),
        (dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC), "00:00:01.000Z"),
        (dt.date(1970, 1, 2), "1970-01-02"),
    ],
)
def test_temporal_formats(value: Any, text: str) -> None:
    assert convert_to_string(None, value) == text


def test_temporal_round_trips(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, Date.SCHEMA, dt.date(2019, 8, 23))
    assert_round_trip(converter, Time.SCHEMA, dt.time(14, 34, 54, 346000))
    assert_round_trip(
        converter, Timestamp.SCHEMA, dt.datetime(2019, 8, 23, 14, 34, 54, 346000, UTC)
    )


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Schema.BOOLEAN_SCHEMA, False),
        (Schema.BOOLEAN_SCHEMA, True),
        (Schema.INT8_SCHEMA, 0),
        (Schema.INT8_SCHEMA, 1),
        (Schema.INT16_SCHEMA, -4321),
        (Schema.INT32_SCHEMA, 1234567890),
        (Schema.INT64_SCHEMA, 2**62),
        (Schema.FLOAT32_SCHEMA, to_float32(1.1)),
        (Schema.FLOAT64_SCHEMA, 1e39),
        (Decimal.schema(0), decimal.Decimal(2**70)),
        (array_of(Schema.FLOAT32_SCHEMA), [1.5, to_float32(0.1)]),
        (
            map_of(Schema.STRING_SCHEMA, array_of(Schema.BOOLEAN_SCHEMA)),
            {"a": [True], "b": [False]},
        ),
    ],
)
def test_typed_values_round_trip(
    converter: SimpleHeaderConverter, schema: Schema, value: Any
) -> None:
    assert_round_trip(converter, schema, value)


def test_struct_is_written_as_a_map(converter: SimpleHeaderConverter) -> None:
    schema = (
        SchemaBuilder.struct()
        .field("name", Schema.STRING_SCHEMA)
        .field("ratio", Schema.FLOAT32_SCHEMA)
        .field("tags", STRING_LIST_SCHEMA)
        .field("level", SchemaBuilder.int32().optional().default_value(7).build())
        .field("note", Schema.OPTIONAL_STRING_SCHEMA)
        .build()
    )
    struct = Struct(schema).put("name", 'a "b"').put("ratio", 1.1).put("tags", ["x"])
    serialized = converter.from_connect_header(TOPIC, HEADER, schema, struct)
    assert serialized == b'{"name":"a \\"b\\"","ratio":1.1,"tags":["x"],"level":7,"note":null}'
    result = converter.to_connect_header(TOPIC, HEADER, serialized)
    assert result.schema == map_of(Schema.STRING_SCHEMA, None)
    assert result.value == {
        "name": 'a \\"b\\"',
        "ratio": to_float32(1.1),
        "tags": ["x"],
        "level": 7,
        "note": None,
    }


def test_unsupported_value_types_fail(converter: SimpleHeaderConverter) -> None:
    with pytest.raises(DataError, match=r"Failed to serialize unexpected value type builtins\.set"):
        converter.from_connect_header(TOPIC, HEADER, None, {1, 2})


def test_non_ascii_text(converter: SimpleHeaderConverter) -> None:
    assert converter.from_connect_header(TOPIC, HEADER, None, ["h\u00e9", "\U0001f600"]) == (
        '["h\u00e9","\U0001f600"]'.encode()
    )
    assert_round_trip(converter, Schema.STRING_SCHEMA, "h\u00e9llo \U0001f600")


# ---------------------------------------------------------------------------- the registry


@pytest.mark.parametrize(
    "name",
    [SIMPLE_HEADER_CONVERTER, "SimpleHeaderConverter", "SimpleHeader", " SimpleHeader "],
)
def test_header_converter_names(name: str) -> None:
    assert header_converter_class(name) is SimpleHeaderConverter
    converter = new_header_converter(name, {"unused": "x"})
    assert isinstance(converter, SimpleHeaderConverter)
    assert converter.from_connect_header(TOPIC, HEADER, None, [1, "a"]) == b'[1,"a"]'


def test_converters_that_are_both_kinds_are_header_converters() -> None:
    assert header_converter_class("JsonConverter") is JsonConverter
    assert header_converter_class("seaway.connect.converters:StringConverter") is StringConverter


@pytest.mark.parametrize("name", [SIMPLE_HEADER_CONVERTER, "SimpleHeader"])
def test_simple_header_converter_is_not_a_converter(name: str) -> None:
    prefix = f"Failed to find any class that implements Converter and which name matches {name}"
    with pytest.raises(ConnectError, match=prefix):
        converter_class(name)
    with pytest.raises(ConnectError, match=prefix):
        new_converter(name, {}, is_key=False)


@pytest.mark.parametrize("name", ["Avro", "seaway.connect.api.Schema", ""])
def test_unknown_header_converter_lists_the_known_ones(name: str) -> None:
    with pytest.raises(ConnectError) as info:
        new_header_converter(name, {})
    message = str(info.value)
    assert message.startswith(
        "Failed to find any class that implements HeaderConverter and which name matches "
        f"{name}, available header converters are: "
    )
    for known in ("SimpleHeaderConverter", "StringConverter", "JsonConverter", "ByteArray"):
        assert known in message
