"""JsonConverter: byte-for-byte Kafka compatibility, round trips, settings and errors."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.converters import DecimalFormat, JsonConverter
from seaway.connect.converters.json_converter import ENVELOPE_ERROR

D = decimal.Decimal
TOPIC = "topic"


def converter(**configs: Any) -> JsonConverter:
    result = JsonConverter()
    result.configure(configs, is_key=False)
    return result


def write(schema: Schema | None, value: Any, **configs: Any) -> bytes | None:
    return converter(**configs).from_connect_data(TOPIC, schema, value)


def read(data: bytes | str, **configs: Any) -> SchemaAndValue:
    raw = data.encode() if isinstance(data, str) else data
    return converter(**configs).to_connect_data(TOPIC, raw)


USER = (
    SchemaBuilder.struct()
    .name("com.example.User")
    .field("id", Schema.INT32_SCHEMA)
    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
    .field("ts", Timestamp.SCHEMA)
    .build()
)

# ---------------------------------------------------------------------------- connect.md §2.4

STRING_FOO = '{"schema":{"type":"string","optional":false},"payload":"foo"}'
USER_JSON = (
    '{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
    '{"type":"string","optional":true,"field":"name"},{"type":"int64","optional":false,'
    '"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"}],'
    '"optional":false,"name":"com.example.User"},"payload":{"id":1,"name":null,'
    '"ts":1700000000000}}'
)
INT_MAP_JSON = (
    '{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32",'
    '"optional":false},"optional":false},"payload":[[1,12],[2,15]]}'
)
DECIMAL_JSON = (
    '{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
    '"version":1,"parameters":{"scale":"2"}},"payload":"AJw="}'
)
DEFAULT_JSON = '{"schema":{"type":"string","optional":true,"default":"default"},"payload":null}'


def user(ts_millis: int = 1_700_000_000_000) -> Struct:
    return Struct(USER).put("id", 1).put("ts", Timestamp.to_logical(Timestamp.SCHEMA, ts_millis))


def test_plain_string() -> None:
    assert write(Schema.STRING_SCHEMA, "foo") == STRING_FOO.encode()
    assert read(STRING_FOO) == SchemaAndValue(Schema.STRING_SCHEMA, "foo")


def test_file_stream_source_line_on_the_topic() -> None:
    # FileStreamSourceTask emits SourceRecord(partition, offset, topic, null, null, null,
    # STRING_SCHEMA, line, now); the worker's default JsonConverter writes key and value.
    record = SourceRecord(
        source_partition={"filename": "test.txt"},
        source_offset={"position": 4},
        topic="connect-test",
        value_schema=Schema.STRING_SCHEMA,
        value="foo",
        timestamp=1_700_000_000_000,
    )
    key_converter, value_converter = JsonConverter(), JsonConverter()
    key_converter.configure({}, is_key=True)
    value_converter.configure({}, is_key=False)
    assert key_converter.from_connect_data(record.topic, record.key_schema, record.key) is None
    value = value_converter.from_connect_data(record.topic, record.value_schema, record.value)
    assert value == b'{"schema":{"type":"string","optional":false},"payload":"foo"}'


def test_struct_field_order() -> None:
    assert write(USER, user()) == USER_JSON.encode()
    assert read(USER_JSON) == SchemaAndValue(USER, user())


def test_map_with_non_string_keys() -> None:
    schema = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).build()
    assert write(schema, {1: 12, 2: 15}) == INT_MAP_JSON.encode()
    assert read(INT_MAP_JSON) == SchemaAndValue(schema, {1: 12, 2: 15})


def test_decimal_base64() -> None:
    assert write(Decimal.schema(2), D("1.56")) == DECIMAL_JSON.encode()
    assert read(DECIMAL_JSON) == SchemaAndValue(Decimal.schema(2), D("1.56"))


def test_null_payload_read_as_default() -> None:
    schema = SchemaBuilder.string().optional().default_value("default").build()
    assert read(DEFAULT_JSON) == SchemaAndValue(schema, "default")


# ---------------------------------------------------------------------------- exact schema JSON


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        (Schema.BOOLEAN_SCHEMA, True, '{"type":"boolean","optional":false},"payload":true'),
        (Schema.INT8_SCHEMA, 12, '{"type":"int8","optional":false},"payload":12'),
        (Schema.INT16_SCHEMA, 12, '{"type":"int16","optional":false},"payload":12'),
        (Schema.INT32_SCHEMA, 12, '{"type":"int32","optional":false},"payload":12'),
        (
            Schema.INT64_SCHEMA,
            4398046511104,
            '{"type":"int64","optional":false},"payload":4398046511104',
        ),
        (Schema.FLOAT32_SCHEMA, 12.34, '{"type":"float","optional":false},"payload":12.34'),
        (Schema.FLOAT64_SCHEMA, 12.34, '{"type":"double","optional":false},"payload":12.34'),
        (
            Schema.BYTES_SCHEMA,
            b"test-string",
            '{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="',
        ),
        (
            Schema.STRING_SCHEMA,
            "test-string",
            '{"type":"string","optional":false},"payload":"test-string"',
        ),
        (
            SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
            [1, 2, 3],
            '{"type":"array","items":{"type":"int32","optional":false},"optional":false},'
            '"payload":[1,2,3]',
        ),
        (
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
            {"key1": 12, "key2": 15},
            '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32",'
            '"optional":false},"optional":false},"payload":{"key1":12,"key2":15}',
        ),
        (
            Date.SCHEMA,
            dt.date(1997, 5, 19),
            '{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date",'
            '"version":1},"payload":10000',
        ),
        (
            Time.SCHEMA,
            dt.time(4, 0),
            '{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time",'
            '"version":1},"payload":14400000',
        ),
        (
            Timestamp.SCHEMA,
            dt.datetime(2096, 10, 2, 7, 6, 40, tzinfo=dt.UTC),
            '{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp",'
            '"version":1},"payload":4000000000000',
        ),
        (
            Schema.OPTIONAL_STRING_SCHEMA,
            None,
            '{"type":"string","optional":true},"payload":null',
        ),
    ],
)
def test_exact_bytes_per_type(schema: Schema, value: Any, expected: str) -> None:
    assert write(schema, value) == ('{"schema":' + expected + "}").encode()


def test_every_schema_attribute_in_kafkas_order() -> None:
    schema = (
        SchemaBuilder.int32()
        .optional()
        .name("n")
        .version(2)
        .doc("the documentation")
        .parameter("foo", "bar")
        .parameter("a", "b")
        .default_value(5)
        .build()
    )
    assert write(schema, 7) == (
        b'{"schema":{"type":"int32","optional":true,"name":"n","version":2,'
        b'"doc":"the documentation","parameters":{"foo":"bar","a":"b"},"default":5},"payload":7}'
    )


def test_struct_field_key_comes_after_the_field_default() -> None:
    field_schema = SchemaBuilder.string().optional().default_value("default").build()
    schema = SchemaBuilder.struct().field("field1", field_schema).build()
    assert write(schema, Struct(schema)) == (
        b'{"schema":{"type":"struct","fields":[{"type":"string","optional":true,'
        b'"default":"default","field":"field1"}],"optional":false},"payload":{"field1":"default"}}'
    )


def test_nested_struct_and_defaults_of_complex_types() -> None:
    point = SchemaBuilder.struct().name("Point").field("x", Schema.FLOAT64_SCHEMA).build()
    tags = SchemaBuilder.array(Schema.STRING_SCHEMA).optional().default_value(["a"]).build()
    schema = SchemaBuilder.struct().field("p", point).field("tags", tags).build()
    value = Struct(schema).put("p", Struct(point).put("x", 1.0))
    assert write(schema, value) == (
        b'{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"double",'
        b'"optional":false,"field":"x"}],"optional":false,"name":"Point","field":"p"},'
        b'{"type":"array","items":{"type":"string","optional":false},"optional":true,'
        b'"default":["a"],"field":"tags"}],"optional":false},"payload":{"p":{"x":1.0},'
        b'"tags":["a"]}}'
    )


# ---------------------------------------------------------------------------- Jackson text


@pytest.mark.parametrize(
    ("value", "payload"),
    [
        (1e10, "1.0E10"),
        (1e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (0.001, "0.001"),
        (1e-4, "1.0E-4"),
        (-0.0, "-0.0"),
        (100.0, "100.0"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "4.9E-324"),
        (math.nan, '"NaN"'),
        (math.inf, '"Infinity"'),
        (-math.inf, '"-Infinity"'),
    ],
)
def test_doubles_are_written_like_java(value: float, payload: str) -> None:
    assert write(Schema.FLOAT64_SCHEMA, value, **{"schemas.enable": False}) == payload.encode()


@pytest.mark.parametrize(
    ("value", "payload"),
    [
        (0.1, "0.1"),
        (12.34, "12.34"),
        (1e10, "1.0E10"),
        (16777216.0, "1.6777216E7"),
        (1e40, '"Infinity"'),
    ],
)
def test_floats_are_written_like_java(value: float, payload: str) -> None:
    assert write(Schema.FLOAT32_SCHEMA, value, **{"schemas.enable": False}) == payload.encode()


def test_non_finite_numbers_read_back() -> None:
    for value in (math.inf, -math.inf):
        data = write(Schema.FLOAT64_SCHEMA, value)
        assert data is not None and read(data).value == value
    data = write(Schema.FLOAT32_SCHEMA, math.nan)
    assert data is not None and math.isnan(read(data).value)


def test_strings_are_escaped_like_jackson() -> None:
    text = 'quote" back\\ nl\n tab\t cr\r bs\b ff\f ctl\x01\x1f del\x7f slash/ é 🎉 \u2028'
    expected = (
        '"quote\\" back\\\\ nl\\n tab\\t cr\\r bs\\b ff\\f ctl\\u0001\\u001F del\x7f slash/ é 🎉 '
        '\u2028"'
    )
    assert write(Schema.STRING_SCHEMA, text, **{"schemas.enable": False}) == expected.encode()
    assert read(expected.encode(), **{"schemas.enable": False}).value == text


def test_lone_surrogates_cannot_be_serialized() -> None:
    with pytest.raises(DataError, match="failed due to serialization error"):
        write(Schema.STRING_SCHEMA, "\ud800")


# ---------------------------------------------------------------------------- reading Kafka's tests


@pytest.mark.parametrize(
    ("json", "schema", "value"),
    [
        ('{ "schema": { "type": "boolean" }, "payload": true }', Schema.BOOLEAN_SCHEMA, True),
        ('{ "schema": { "type": "boolean" }, "payload": false }', Schema.BOOLEAN_SCHEMA, False),
        ('{ "schema": { "type": "int8" }, "payload": 12 }', Schema.INT8_SCHEMA, 12),
        ('{ "schema": { "type": "int16" }, "payload": 12 }', Schema.INT16_SCHEMA, 12),
        ('{ "schema": { "type": "int32" }, "payload": 12 }', Schema.INT32_SCHEMA, 12),
        (
            '{ "schema": { "type": "int64" }, "payload": 4398046511104 }',
            Schema.INT64_SCHEMA,
            4398046511104,
        ),
        ('{ "schema": { "type": "int8" }, "payload": 0012 }', Schema.INT8_SCHEMA, 12),
        ('{ "schema": { "type": "int16" }, "payload": 000123 }', Schema.INT16_SCHEMA, 123),
        ('{ "schema": { "type": "int64" }, "payload": -00012 }', Schema.INT64_SCHEMA, -12),
        ('{ "schema": { "type": "double" }, "payload": 12.34 }', Schema.FLOAT64_SCHEMA, 12.34),
        (
            '{ "schema": { "type": "bytes" }, "payload": "dGVzdC1zdHJpbmc=" }',
            Schema.BYTES_SCHEMA,
            b"test-string",
        ),
        (
            '{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }',
            Schema.STRING_SCHEMA,
            "foo-bar-baz",
        ),
        (
            '{ "schema": { "type": "array", "items": { "type" : "int32" } }, '
            '"payload": [1, 2, 3] }',
            SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
            [1, 2, 3],
        ),
        (
            '{ "schema": { "type": "map", "keys": { "type" : "string" }, "values": { "type" : '
            '"int32" } }, "payload": { "key1": 12, "key2": 15} }',
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
            {"key1": 12, "key2": 15},
        ),
        (
            '{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Date", '
            '"version": 1 }, "payload": 10000 }',
            Date.SCHEMA,
            dt.date(1997, 5, 19),
        ),
        (
            '{ "schema": { "type": "int32", "name": "org.apache.kafka.connect.data.Time", '
            '"version": 1 }, "payload": 14400000 }',
            Time.SCHEMA,
            dt.time(4, 0),
        ),
        (
            '{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", '
            '"version": 1 }, "payload": 4000000000 }',
            Timestamp.SCHEMA,
            dt.datetime(1970, 2, 16, 7, 6, 40, tzinfo=dt.UTC),
        ),
        (
            '{ "schema": { "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", '
            '"version": 1, "optional": true, "default": 42 }, "payload": null }',
            Timestamp.builder()
            .optional()
            .default_value(Timestamp.to_logical(Timestamp.SCHEMA, 42))
            .build(),
            dt.datetime(1970, 1, 1, 0, 0, 0, 42000, tzinfo=dt.UTC),
        ),
        (
            '{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2, '
            '"doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }',
            SchemaBuilder.boolean()
            .required()
            .name("bool")
            .version(2)
            .doc("the documentation")
            .parameter("foo", "bar")
            .build(),
            True,
        ),
    ],
)
def test_to_connect(json: str, schema: Schema, value: Any) -> None:
    assert read(json) == SchemaAndValue(schema, value)


def test_float_to_connect_is_rounded_to_float32() -> None:
    result = read('{ "schema": { "type": "float" }, "payload": 12.34 }')
    assert result.value == 12.34000015258789 and result.schema == Schema.FLOAT32_SCHEMA


def test_struct_to_connect_with_missing_optional_field() -> None:
    result = read(
        '{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", '
        '"optional": true }, {  "field": "required", "type": "string" }] }, "payload": '
        '{ "required": "required" } }'
    )
    schema = (
        SchemaBuilder.struct()
        .field("optional", Schema.OPTIONAL_STRING_SCHEMA)
        .field("required", Schema.STRING_SCHEMA)
        .build()
    )
    assert result == SchemaAndValue(schema, Struct(schema).put("required", "required"))


def test_decimal_defaults_are_read_with_their_logical_type() -> None:
    result = read(
        '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", '
        '"version": 1, "default": "AJw=", "parameters": { "scale": "2" } }, "payload": null }'
    )
    assert result.value == D("1.56")
    assert result.schema == Decimal.builder(2).default_value(D("1.56")).build()


# ---------------------------------------------------------------------------- round trips

POINT = SchemaBuilder.struct().name("Point").field("x", Schema.INT32_SCHEMA).build()
EVERYTHING = (
    SchemaBuilder.struct()
    .name("com.example.Everything")
    .version(3)
    .doc("all the types")
    .field("i8", Schema.INT8_SCHEMA)
    .field("i16", Schema.INT16_SCHEMA)
    .field("i32", Schema.INT32_SCHEMA)
    .field("i64", Schema.INT64_SCHEMA)
    .field("f32", Schema.FLOAT32_SCHEMA)
    .field("f64", Schema.FLOAT64_SCHEMA)
    .field("flag", Schema.BOOLEAN_SCHEMA)
    .field("text", Schema.STRING_SCHEMA)
    .field("raw", Schema.BYTES_SCHEMA)
    .field("list", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build())
    .field("by_name", SchemaBuilder.map(Schema.STRING_SCHEMA, POINT).build())
    .field("by_point", SchemaBuilder.map(POINT, Schema.STRING_SCHEMA).optional().build())
    .field(
        "by_list",
        SchemaBuilder.map(
            SchemaBuilder.array(Schema.INT8_SCHEMA).build(), Schema.INT8_SCHEMA
        ).build(),
    )
    .field("amount", Decimal.builder(3).optional().build())
    .field("day", Date.SCHEMA)
    .field("at", Time.SCHEMA)
    .field("when", Timestamp.SCHEMA)
    .field("level", SchemaBuilder.int32().default_value(3).build())
    .field("p", POINT)
    .build()
)


def everything() -> Struct:
    return (
        Struct(EVERYTHING)
        .put("i8", -128)
        .put("i16", 32767)
        .put("i32", -(2**31))
        .put("i64", 2**63 - 1)
        .put("f32", 0.5)
        .put("f64", 1.0e-300)
        .put("flag", True)
        .put("text", "héllo \n wörld")
        .put("raw", bytes(range(256)))
        .put("list", ["a", None, ""])
        .put("by_name", {"origin": Struct(POINT).put("x", 0)})
        .put("by_list", {(1, 2): 3})
        .put("amount", D("-12345678901234567890.125"))
        .put("day", dt.date(1969, 7, 20))
        .put("at", dt.time(23, 59, 59, 999000))
        .put("when", dt.datetime(2024, 2, 29, 12, 0, 0, 1000, tzinfo=dt.UTC))
        .put("level", 4)
        .put("p", Struct(POINT).put("x", 5))
    )


ROUND_TRIPS = [
    (Schema.INT8_SCHEMA, -1),
    (Schema.INT16_SCHEMA, 300),
    (Schema.INT32_SCHEMA, 2**31 - 1),
    (Schema.INT64_SCHEMA, -(2**63)),
    (Schema.FLOAT32_SCHEMA, 3.5),
    (Schema.FLOAT64_SCHEMA, 2.2250738585072014e-308),
    (Schema.BOOLEAN_SCHEMA, False),
    (Schema.STRING_SCHEMA, ""),
    (Schema.BYTES_SCHEMA, b""),
    (Schema.OPTIONAL_BYTES_SCHEMA, None),
    (SchemaBuilder.array(Schema.FLOAT64_SCHEMA).build(), [1.5, -2.0]),
    (SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.BOOLEAN_SCHEMA).build(), {-1: True}),
    (Decimal.schema(0), D("-7")),
    (Decimal.schema(-2), D("1E+2")),
    (Decimal.schema(20), D("0.00000000000000000001")),
    (Date.SCHEMA, dt.date(9999, 12, 31)),
    (Time.SCHEMA, dt.time(0, 0)),
    (Timestamp.SCHEMA, dt.datetime(1, 1, 1, tzinfo=dt.UTC)),
    (EVERYTHING, everything()),
]


@pytest.mark.parametrize(("schema", "value"), ROUND_TRIPS)
@pytest.mark.parametrize("decimal_format", ["BASE64", "NUMERIC"])
def test_round_trip(schema: Schema, value: Any, decimal_format: str) -> None:
    json = converter(**{"decimal.format": decimal_format})
    data = json.from_connect_data(TOPIC, schema, value)
    assert data is not None
    result = json.to_connect_data(TOPIC, data)
    assert result == SchemaAndValue(schema, value)
    assert json.from_connect_data(TOPIC, result.schema, result.value) == data


def test_round_trip_of_every_schema_attribute() -> None:
    schema = (
        SchemaBuilder.map(Schema.STRING_SCHEMA, Decimal.schema(1))
        .optional()
        .name("m")
        .version(7)
        .doc("d")
        .parameters({"k": "v", "z": "a"})
        .default_value({"a": D("1.5")})
        .build()
    )
    json = converter()
    result = json.to_connect_data(TOPIC, json.from_connect_data(TOPIC, schema, None) or b"")
    assert result == SchemaAndValue(schema, {"a": D("1.5")})
    assert list(result.schema.parameters or {}) == ["k", "z"]  # type: ignore[union-attr]


def test_json_schema_helpers() -> None:
    json = converter()
    assert json.as_json_schema(Schema.OPTIONAL_INT8_SCHEMA) == {"type": "int8", "optional": True}
    assert json.as_json_schema(None) is None
    assert json.as_connect_schema({"type": "double"}) == Schema.FLOAT64_SCHEMA
    assert json.as_connect_schema(None) is None


# ---------------------------------------------------------------------------- schemaless

SCHEMALESS = {"schemas.enable": False}


def test_schemaless_write() -> None:
    assert write(None, {"a": 1, "b": [True, None, 2.5, "x"]}, **SCHEMALESS) == (
        b'{"a":1,"b":[true,null,2.5,"x"]}'
    )
    assert write(None, {1: "x", "y": 2}, **SCHEMALESS) == b'[[1,"x"],["y",2]]'
    assert write(None, b"\x00", **SCHEMALESS) == b'"AA=="'
    assert write(Schema.STRING_SCHEMA, "foo", **SCHEMALESS) == b'"foo"'
    assert write(Schema.OPTIONAL_STRING_SCHEMA, None, **SCHEMALESS) == b"null"
    assert write(None, None, **SCHEMALESS) is None


def test_schemaless_in_an_envelope() -> None:
    assert write(None, True) == b'{"schema":null,"payload":true}'
    assert write(None, [1, "string", True]) == b'{"schema":null,"payload":[1,"string",true]}'
    assert write(None, None) is None


@pytest.mark.parametrize(
    ("payload", "value"),
    [
        ("true", True),
        ("12", 12),
        ("12.24", 12.24),
        ("1e3", 1000.0),
        ('"a string"', "a string"),
        ('[1, "2", 3]', [1, "2", 3]),
        ('{ "field1": 1, "field2": 2}', {"field1": 1, "field2": 2}),
        ('{ "a": "", "b": null}', {"a": "", "b": None}),
        ("null", None),
        ("", None),
        ("  \n", None),
    ],
)
def test_schemaless_inference(payload: str, value: Any) -> None:
    result = read(payload, **SCHEMALESS)
    assert result == SchemaAndValue(None, value)
    assert type(result.value) is type(value)
    if payload.strip():
        assert read('{ "schema": null, "payload": ' + payload + " }") == result


def test_schemaless_struct_cannot_be_written() -> None:
    with pytest.raises(DataError, match=r"Mismatching schema\."):
        write(None, Struct(POINT).put("x", 1))
    with pytest.raises(DataError, match="does not have corresponding schema type"):
        write(None, D(1))


def test_trailing_content_is_ignored_like_jackson() -> None:
    assert read("true false", **SCHEMALESS).value is True
    assert read(b"\xef\xbb\xbf[1]", **SCHEMALESS).value == [1]


# ---------------------------------------------------------------------------- decimal.format


def test_decimal_numeric() -> None:
    numeric = {"decimal.format": "NUMERIC"}
    assert write(Decimal.schema(2), D("1.56"), **numeric) == (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
        b'"version":1,"parameters":{"scale":"2"}},"payload":1.56}'
    )
    assert write(Decimal.schema(4), D("1.5600"), **numeric, **SCHEMALESS) == b"1.5600"
    assert write(Decimal.schema(0), D("-0"), **numeric, **SCHEMALESS) == b"0"
    assert write(Decimal.schema(-3), D("1E+3"), **numeric, **SCHEMALESS) == b"1E+3"
    assert write(Decimal.schema(7), D("1E-7"), **numeric, **SCHEMALESS) == b"1E-7"
    assert (
        converter(**{"decimal.format": "numeric"}).settings.decimal_format is DecimalFormat.NUMERIC
    )


@pytest.mark.parametrize(
    ("scale", "payload", "value"),
    [
        (2, "1.56", D("1.56")),
        (4, "1.5600", D("1.5600")),
        (17, "1.23456789123456789", D("1.23456789123456789")),
        (2, '"AJw="', D("1.56")),
    ],
)
def test_decimal_reads_numbers_and_base64(scale: int, payload: str, value: decimal.Decimal) -> None:
    json = (
        '{ "schema": { "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", '
        f'"version": 1, "parameters": {{ "scale": "{scale}" }} }}, "payload": {payload} }}'
    )
    result = read(json).value
    assert result == value and str(result) == str(value)


# ------------------------------------------------------------------ replace.null.with.default

OPTIONAL_WITH_DEFAULT = SchemaBuilder.string().optional().default_value("default").build()
FIELD_STRUCT = SchemaBuilder.struct().field("field1", OPTIONAL_WITH_DEFAULT).build()
FIELD_JSON_SCHEMA = (
    '{"type":"struct","fields":[{"type":"string","optional":true,"default":"default",'
    '"field":"field1"}],"optional":false}'
)


@pytest.mark.parametrize(("replace", "payload"), [(True, '"default"'), (False, "null")])
def test_replace_null_with_default_on_write(replace: bool, payload: str) -> None:
    settings = {"replace.null.with.default": replace}
    assert (
        write(OPTIONAL_WITH_DEFAULT, None, **settings)
        == (
            '{"schema":{"type":"string","optional":true,"default":"default"},"payload":'
            + payload
            + "}"
        ).encode()
    )
    assert (
        write(FIELD_STRUCT, Struct(FIELD_STRUCT), **settings)
        == ('{"schema":' + FIELD_JSON_SCHEMA + ',"payload":{"field1":' + payload + "}}").encode()
    )


@pytest.mark.parametrize(("replace", "value"), [(True, "default"), (False, None)])
def test_replace_null_with_default_on_read(replace: bool, value: str | None) -> None:
    settings = {"replace.null.with.default": str(replace).lower()}
    assert read(DEFAULT_JSON, **settings).value == value
    struct = read('{"schema":' + FIELD_JSON_SCHEMA + ',"payload":{"field1":null}}', **settings)
    assert struct.value == Struct(FIELD_STRUCT).put("field1", value)


def test_required_field_with_default_needs_the_replacement() -> None:
    schema = SchemaBuilder.int32().default_value(5).build()
    assert write(schema, None, **SCHEMALESS) == b"5"
    with pytest.raises(DataError) as info:
        write(schema, None, **SCHEMALESS, **{"replace.null.with.default": False})
    assert str(info.value) == (
        "Conversion error: null value for field that is required and has no default value"
    )


# ---------------------------------------------------------------------------- errors


def test_envelope_is_required_with_schemas_enabled() -> None:
    assert ENVELOPE_ERROR == (
        'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not '
        "contain additional fields. If you are trying to deserialize plain JSON data, set "
        "schemas.enable=false in your converter configuration."
    )
    for data in ("true", '{"schema":null}', '{"schema":null,"payload":1,"x":2}', ""):
        with pytest.raises(DataError) as info:
            read(data)
        assert str(info.value) == ENVELOPE_ERROR


def test_malformed_json() -> None:
    for data in (b"{", b"\xff", b"NaN", b"[1,]"):
        with pytest.raises(DataError) as info:
            read(data, **SCHEMALESS)
        assert str(info.value) == (
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        )


def test_null_tombstones() -> None:
    assert converter().to_connect_data(TOPIC, None) == SchemaAndValue.NULL
    assert write(None, None) is None


@pytest.mark.parametrize(
    ("schema_json", "payload", "message"),
    [
        ('{"optional":true}', "1", "Schema must contain 'type' field"),
        ("5", "1", "Schema must contain 'type' field"),
        ('{"type":"foo"}', "1", "Unknown schema type: foo"),
        (
            '{"type":"int32","parameters":{"a":1}}',
            "1",
            "Schema parameters must have string values.",
        ),
        ('{"type":"array"}', "[]", "Array schema did not specify the element type"),
        ('{"type":"array","items":null}', "[]", "Array schema did not specify the element type"),
        (
            '{"type":"map","values":{"type":"int8"}}',
            "{}",
            "Map schema did not specify the key type",
        ),
        (
            '{"type":"map","keys":{"type":"int8"}}',
            "{}",
            "Map schema did not specify the value type",
        ),
        ('{"type":"map","keys":null,"values":{"type":"int8"}}', "{}", "keySchema cannot be null."),
        ('{"type":"struct"}', "{}", 'Struct schema\'s "fields" argument is not an array.'),
        (
            '{"type":"struct","fields":[{"type":"int8"}]}',
            "{}",
            "Struct schema's field name not specified properly",
        ),
        ('{"type":"int32"}', "null", "Invalid null value for required INT32 field"),
        ('{"type":"int32","default":null}', "1", "Invalid null value for required INT32 field"),
        (
            '{"type":"map","keys":{"type":"string"},"values":{"type":"int8"}}',
            "[]",
            "Maps with string fields should be encoded as JSON objects, but found ARRAY",
        ),
        (
            '{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}',
            "{}",
            "Maps with non-string fields should be encoded as JSON array of tuples, but found "
            "OBJECT",
        ),
        (
            '{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}',
            "[1]",
            "Found invalid map entry instead of array tuple: NUMBER",
        ),
        (
            '{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}}',
            "[[1]]",
            "Found invalid map entry, expected length 2 but found :1",
        ),
        (
            '{"type":"struct","fields":[]}',
            "[]",
            "Structs should be encoded as JSON objects, but found ARRAY",
        ),
        ('{"type":"bytes"}', '"not base64!"', "Invalid bytes field"),
        (
            '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}',
            "true",
            "Invalid type for Decimal, underlying representation should be numeric or bytes but "
            "was BOOLEAN",
        ),
        (
            '{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}}',
            '"!!"',
            "Invalid bytes for Decimal field",
        ),
        (
            '{"type":"int32","name":"org.apache.kafka.connect.data.Date"}',
            '"2020-01-01"',
            "Invalid type for Date, underlying representation should be integer but was STRING",
        ),
        (
            '{"type":"int32","name":"org.apache.kafka.connect.data.Time"}',
            "4294967296",
            "Invalid type for Time, underlying representation should be integer but was NUMBER",
        ),
        (
            '{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"}',
            "1.5",
            "Invalid type for Timestamp, underlying representation should be integral but was "
            "NUMBER",
        ),
        ('{"type":"int32"}', '"12"', "Invalid type for INT32: expected a number but found STRING"),
        ('{"type":"boolean"}', "1", "Invalid type for BOOLEAN: found NUMBER"),
        ('{"type":"string"}', "1", "Invalid type for STRING: found NUMBER"),
    ],
)
def test_to_connect_errors(schema_json: str, payload: str, message: str) -> None:
    with pytest.raises(DataError) as info:
        read('{"schema":' + schema_json + ',"payload":' + payload + "}")
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (Schema.FLOAT64_SCHEMA, True, "Invalid type for FLOAT64: class bool"),
        (Schema.INT32_SCHEMA, "1", "Invalid type for INT32: class str"),
        (Schema.INT8_SCHEMA, 128, "Invalid value for INT8: 128 is out of range"),
        (Schema.STRING_SCHEMA, None, "Conversion error: null value for field that is required"),
        (POINT, Struct(FIELD_STRUCT), "Mismatching schema."),
        (POINT, {"x": 1}, "Invalid type for STRUCT: class dict"),
        (
            Decimal.schema(2),
            D("1.5"),
            "Decimal value has mismatching scale for given Decimal schema. Schema has scale 2, "
            "value has scale 1.",
        ),
        (
            Decimal.schema(2),
            1.5,
            "Invalid type for Decimal, expected decimal.Decimal but was class float",
        ),
        (Date.SCHEMA, "2020-01-01", "Invalid type for Date, expected date but was class str"),
        (
            Date.SCHEMA,
            dt.datetime(2020, 1, 1, 12),
            "Kafka Connect Date type should not have any time fields set to non-zero values.",
        ),
    ],
)
def test_from_connect_errors(schema: Schema, value: Any, message: str) -> None:
    with pytest.raises(DataError) as info:
        write(schema, value)
    assert str(info.value).startswith(message)


def test_leniency_matches_jackson_number_coercion() -> None:
    # Jackson's intValue() truncates fractions and wraps like a Java cast.
    assert read('{"schema":{"type":"int32"},"payload":1.9}').value == 1
    assert read('{"schema":{"type":"int8"},"payload":300}').value == 44
    assert read('{"schema":{"type":"double"},"payload":1}').value == 1.0


# ---------------------------------------------------------------------------- configuration


def test_config_def() -> None:
    config = JsonConverter().config()
    assert list(config.names()) == [
        "converter.type",
        "schemas.enable",
        "schemas.cache.size",
        "decimal.format",
        "replace.null.with.default",
    ]
    assert config.default_values() == {
        "schemas.enable": True,
        "schemas.cache.size": 1000,
        "decimal.format": "BASE64",
        "replace.null.with.default": True,
    }


def test_configure_as_header_converter() -> None:
    json = JsonConverter()
    json.configure({"converter.type": "header", "schemas.enable": "false"})
    assert json.from_connect_header(TOPIC, "h", Schema.STRING_SCHEMA, "v") == b'"v"'
    assert json.to_connect_header(TOPIC, "h", b'"v"') == SchemaAndValue(None, "v")
    with pytest.raises(ConfigException, match=r"converter\.type"):
        JsonConverter().configure({})


def test_invalid_settings() -> None:
    with pytest.raises(ConfigException, match=r"decimal\.format"):
        converter(**{"decimal.format": "HEX"})
    with pytest.raises(ConfigException, match=r"schemas\.enable"):
        converter(**{"schemas.enable": "maybe"})


def test_unconfigured_converter_uses_value_defaults() -> None:
    assert (
        JsonConverter().from_connect_data(TOPIC, Schema.STRING_SCHEMA, "foo") == STRING_FOO.encode()
    )
    assert JsonConverter().version()


def test_schema_caches() -> None:
    json = converter()
    assert len(json.codec.from_connect_schema_cache) == 0
    json.from_connect_data(TOPIC, SchemaBuilder.boolean().build(), True)
    json.from_connect_data(TOPIC, SchemaBuilder.boolean().build(), True)
    assert len(json.codec.from_connect_schema_cache) == 1
    json.from_connect_data(TOPIC, SchemaBuilder.boolean().optional().build(), True)
    assert len(json.codec.from_connect_schema_cache) == 2

    json.to_connect_data(TOPIC, b'{ "schema": { "type": "boolean" }, "payload": true }')
    json.to_connect_data(TOPIC, b'{"schema":{"type":"boolean"},"payload":false}')
    assert len(json.codec.to_connect_schema_cache) == 1
    json.to_connect_data(
        TOPIC, b'{ "schema": { "type": "boolean", "optional": true }, "payload": true }'
    )
    json.to_connect_data(
        TOPIC, b'{ "schema": { "type": "boolean", "optional": false }, "payload": true }'
    )
    assert len(json.codec.to_connect_schema_cache) == 3

    small = converter(**{"schemas.cache.size": 1})
    for schema in (Schema.INT8_SCHEMA, Schema.INT16_SCHEMA, Schema.INT32_SCHEMA):
        small.from_connect_data(TOPIC, schema, 1)
    assert len(small.codec.from_connect_schema_cache) == 1


# --- the string fast paths give exactly the generic path's results --------------------------

_STRINGS = [
    "",
    "plain text",
    'with "quotes"',
    "back\\slash",
    "tab\tnew\nline\rcr",
    "\x00\x01\x1f control",
    "naïve café ☕ 𝄞",
    "\u2028\u2029 separators",
    "x" * 5000,
]


def _generic_bytes(conv: JsonConverter, schema: Any, value: str) -> bytes:
    from seaway.connect.converters.json_text import dumps

    payload = conv.codec.to_json(schema, value)
    if conv.settings.schemas_enabled:
        return dumps({"schema": conv.codec.schema_to_json(schema), "payload": payload})
    return dumps(payload)


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("text", _STRINGS)
def test_string_fast_path_writes_the_generic_bytes(text: str, enabled: bool) -> None:
    conv = converter(**{"schemas.enable": str(enabled).lower()})
    for schema in (Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA):
        assert conv.from_connect_data("t", schema, text) == _generic_bytes(conv, schema, text)


@pytest.mark.parametrize("text", _STRINGS)
def test_string_envelope_fast_read_matches_a_full_parse(text: str) -> None:
    conv = converter()
    data = conv.from_connect_data("t", Schema.STRING_SCHEMA, text)
    first = conv.to_connect_data("t", data)  # full parse; learns the envelope
    again = conv.to_connect_data("t", data)  # fast path when the text allows it
    assert first.value == again.value == text
    assert first.schema == again.schema == Schema.STRING_SCHEMA


def test_string_envelope_fast_read_still_rejects_bad_json() -> None:
    conv = converter()
    good = conv.from_connect_data("t", Schema.STRING_SCHEMA, "ok")
    conv.to_connect_data("t", good)
    prefix = good[: good.index(b'"payload":') + len(b'"payload":')]
    for bad in (prefix + b'"a"b"}', prefix + b'"\xff\xfe"}', prefix + b'"a\x01"}'):
        with pytest.raises(DataError):
            conv.to_connect_data("t", bad)


def test_struct_envelope_fast_read_matches_a_full_parse() -> None:
    """A struct schema seen once is recognised by its bytes: only the payload is parsed,
    and the result is the full parse's; anything else falls back to the full parse."""
    schema = (SchemaBuilder.struct().name("login").field("id", Schema.INT64_SCHEMA)
              .field("note", Schema.OPTIONAL_STRING_SCHEMA).build())  # fmt: skip
    writer, learned, fresh = converter(), converter(), converter()
    records = [Struct(schema).put("id", i).put("note", None if i % 2 else f"n {i}\n")
               for i in range(5)]  # fmt: skip
    encoded = [writer.from_connect_data("t", schema, r) for r in records]
    learned.to_connect_data("t", encoded[0])  # a full parse learns the envelope
    assert learned._structs  # the fast path is armed
    for data in encoded:
        fast, full = learned.to_connect_data("t", data), fresh.to_connect_data("t", data)
        assert (fast.schema, fast.value) == (full.schema, full.value)
    prefix = encoded[0][: encoded[0].index(b'"payload":') + len(b'"payload":')]
    for bad in (prefix + b'{"id":1,"note":null},"x":1}',  # a third key in the envelope
                prefix + b'{"id":1}',  # no closing brace
                prefix + b'{"note":"x"}}'):  # the required id missing  # fmt: skip
        with pytest.raises(DataError):
            learned.to_connect_data("t", bad)
