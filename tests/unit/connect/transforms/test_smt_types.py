"""Structure and type transforms: Flatten, Cast and TimestampConverter."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SchemaType,
    SinkRecord,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms import Cast, Flatten, TimestampConverter


def configured(cls: type[Transformation[Any]], **configs: str) -> Transformation[Any]:
    transform = cls()
    transform.configure({k.replace("_", "."): v for k, v in configs.items()})
    return transform


def sink(**kwargs: Any) -> SinkRecord:
    return SinkRecord(topic="test", kafka_partition=0, kafka_offset=0, **kwargs)


UTC = dt.UTC

# ---------------------------------------------------------------------------- Flatten


def test_flatten_schemaless_nested_maps() -> None:
    xform = configured(Flatten.Value)
    value = {
        "A": {"B": {"int8": 8, "string": "s", "array": [1, 2], "none": None}},
        "top": True,
    }
    assert xform.apply(sink(value=value)).value == {
        "A.B.int8": 8,
        "A.B.string": "s",
        "A.B.array": [1, 2],
        "A.B.none": None,
        "top": True,
    }


def test_flatten_delimiter_and_key() -> None:
    xform = configured(Flatten.Key, delimiter="#")
    assert xform.apply(sink(key={"a": {"b": 1}})).key == {"a#b": 1}


def test_flatten_schemaless_unsupported_values() -> None:
    xform = configured(Flatten.Value)
    with pytest.raises(DataError, match="which is not supported by Connect's data API"):
        xform.apply(sink(value={"a": dt.datetime(2020, 1, 1)}))
    with pytest.raises(DataError, match=r"Only Map objects supported .*\[flattening\]"):
        xform.apply(sink(value=42))


def test_flatten_with_schema_optionality_and_defaults() -> None:
    inner = (
        SchemaBuilder.struct()
        .optional()
        .field("req", Schema.INT32_SCHEMA)
        .field("dflt", SchemaBuilder.string().optional().default_value("d").build())
        .build()
    )
    schema = (
        SchemaBuilder.struct()
        .name("outer")
        .field("inner", inner)
        .field("top", Schema.BOOLEAN_SCHEMA)
        .field("arr", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
        .build()
    )
    value = (
        Struct(schema).put("inner", Struct(inner).put("req", 1)).put("top", True).put("arr", [1])
    )
    out = configured(Flatten.Value).apply(sink(value_schema=schema, value=value))
    flat = out.value_schema
    assert flat.name == "outer"
    assert [f.name for f in flat.fields] == ["inner.req", "inner.dflt", "top", "arr"]
    assert flat.field("inner.req").schema.is_optional  # its parent is optional
    assert flat.field("inner.dflt").schema.default_value == "d"
    assert not flat.field("top").schema.is_optional
    assert (out.value["inner.req"], out.value["inner.dflt"], out.value["top"]) == (1, "d", True)
    assert out.value["arr"] == [1]
    # a null nested struct leaves its fields null
    empty = Struct(schema).put("top", False).put("arr", [])
    assert (
        configured(Flatten.Value).apply(sink(value_schema=schema, value=empty)).value["inner.req"]
        is None
    )


def test_flatten_with_schema_rejects_maps_and_passes_null() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
        .build()
    )
    with pytest.raises(
        DataError, match=r"does not support MAP for record with schemas \(for field m\)"
    ):
        configured(Flatten.Value).apply(
            sink(value_schema=schema, value=Struct(schema).put("m", {}))
        )
    tombstone = sink(value_schema=schema.__class__(SchemaType.STRUCT, optional=True), value=None)
    assert configured(Flatten.Value).apply(tombstone) is tombstone


# ---------------------------------------------------------------------------- Cast


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ("int8", 300, 44),
        ("int8", 1.9, 1),
        ("int16", 1e10, -1),  # saturates to int32 first, like Java's (short) aDouble
        ("int32", "42", 42),
        ("int64", True, 1),
        ("float32", 1.1, 1.100000023841858),
        ("float64", "1e3", 1000.0),
        ("boolean", 0.5, False),
        ("boolean", 2, True),
        ("boolean", "TRUE", True),
        ("boolean", "yes", False),
        ("string", 1e10, "1.0E10"),
        ("string", True, "true"),
        ("string", 42, "42"),
        ("string", b"\xfe\xdc", "/tw="),
    ],
)
def test_cast_whole_value_schemaless(spec: str, value: Any, expected: Any) -> None:
    assert configured(Cast.Value, spec=spec).apply(sink(value=value)).value == expected


def test_cast_whole_value_with_schema() -> None:
    xform = configured(Cast.Key, spec="int32")
    schema = SchemaBuilder.float32().optional().default_value(-42.125).build()
    out = xform.apply(sink(key_schema=schema, key=42.125))
    assert out.key == 42
    assert out.key_schema.type is SchemaType.INT32
    assert out.key_schema.is_optional
    assert out.key_schema.default_value == -42


def test_cast_fields_with_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("int8", Schema.INT8_SCHEMA)
        .field("int32", Schema.INT32_SCHEMA)
        .field("float32", Schema.FLOAT32_SCHEMA)
        .field("string", Schema.STRING_SCHEMA)
        .field("bytes", Schema.BYTES_SCHEMA)
        .field("decimal", Decimal.schema(0))
        .field("date", Date.SCHEMA)
        .field("optional", Schema.OPTIONAL_FLOAT32_SCHEMA)
        .field("untouched", Schema.STRING_SCHEMA)
        .build()
    )
    value = (
        Struct(schema)
        .put("int8", 8)
        .put("int32", 2)
        .put("float32", 32.5)
        .put("string", "42")
        .put("bytes", b"\x01")
        .put("decimal", decimal.Decimal(1982))
        .put("date", dt.date(1970, 1, 2))
        .put("untouched", "x")
    )
    spec = "int8:int16,int32:boolean,float32:float64,string:int32,bytes:string,decimal:string,"
    spec += "date:int32,optional:int32"
    out = configured(Cast.Value, spec=spec).apply(sink(value_schema=schema, value=value))
    types = {f.name: f.schema.type for f in out.value_schema.fields}
    assert types == {
        "int8": SchemaType.INT16,
        "int32": SchemaType.BOOLEAN,
        "float32": SchemaType.FLOAT64,
        "string": SchemaType.INT32,
        "bytes": SchemaType.STRING,
        "decimal": SchemaType.STRING,
        "date": SchemaType.INT32,
        "optional": SchemaType.INT32,
        "untouched": SchemaType.STRING,
    }
    assert out.value_schema.field("optional").schema.is_optional
    got = {f.name: out.value[f.name] for f in out.value_schema.fields}
    assert got == {
        "int8": 8,
        "int32": True,
        "float32": 32.5,
        "string": 42,
        "bytes": "AQ==",
        "decimal": "1982",
        "date": 1,
        "optional": None,
        "untouched": "x",
    }


def test_cast_logical_types_to_string() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("date", Date.SCHEMA)
        .field("time", Time.SCHEMA)
        .field("ts", Timestamp.SCHEMA)
        .build()
    )
    value = (
        Struct(schema)
        .put("date", dt.date(2020, 2, 3))
        .put("time", dt.time(1, 2, 3, 4000))
        .put("ts", dt.datetime(2020, 2, 3, 4, 5, 6, 7000, tzinfo=UTC))
    )
    out = configured(Cast.Value, spec="date:string,time:string,ts:string").apply(
        sink(value_schema=schema, value=value)
    )
    assert (out.value["date"], out.value["time"], out.value["ts"]) == (
        "2020-02-03",
        "01:02:03.004Z",
        "2020-02-03T04:05:06.007Z",
    )
    whole = configured(Cast.Value, spec="string").apply(
        sink(value_schema=Timestamp.SCHEMA, value=dt.datetime(2020, 2, 3, 4, tzinfo=UTC))
    )
    assert whole.value_schema == Schema.STRING_SCHEMA  # no logical name copied over
    assert whole.value == "2020-02-03T04:00:00.000Z"


def test_cast_schemaless_fields_and_errors() -> None:
    xform = configured(Cast.Value, spec="a:int8,missing:string")
    assert xform.apply(sink(value={"a": "12", "b": 1})).value == {"a": 12, "b": 1, "missing": None}
    with pytest.raises(DataError, match=r"Value \(300\) was out of range for requested data type"):
        xform.apply(sink(value={"a": "300"}))
    with pytest.raises(DataError, match="Cast transformation does not support casting from ARRAY"):
        xform.apply(sink(value={"a": [1]}))
    with pytest.raises(DataError, match="which is not supported by Connect's data API"):
        xform.apply(sink(value={"a": dt.date(2020, 1, 1)}))
    tombstone = sink(value=None)
    assert xform.apply(tombstone) is tombstone


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "Must specify at least one field to cast."),
        ("a:uint8", "Invalid type found in casting spec: uint8"),
        ("a:array", "Cast transformation does not support casting to ARRAY"),
        ("int8,a:int16", "may only specify a single cast in their spec"),
        ("a:b:c", "Invalid rename mapping: a:b:c"),
    ],
)
def test_cast_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigException, match=message):
        configured(Cast.Value, spec=spec)


# ---------------------------------------------------------------------------- TimestampConverter

INSTANT = dt.datetime(2017, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)
MILLIS = 1_483_326_245_006


@pytest.mark.parametrize(
    ("configs", "value", "expected"),
    [
        ({"target.type": "unix"}, INSTANT, MILLIS),
        ({"target.type": "Timestamp"}, MILLIS, INSTANT),
        ({"target.type": "Date"}, MILLIS, dt.date(2017, 1, 2)),
        ({"target.type": "Time"}, MILLIS, dt.time(3, 4, 5, 6000)),
        (
            {"target.type": "string", "format": "yyyy MM dd HH mm ss SSS"},
            MILLIS,
            "2017 01 02 03 04 05 006",
        ),
        (
            {"target.type": "unix", "format": "yyyy MM dd HH mm ss SSS"},
            "2017 01 02 03 04 05 006",
            MILLIS,
        ),
        ({"target.type": "unix", "unix.precision": "seconds"}, INSTANT, MILLIS // 1000),
        ({"target.type": "unix", "unix.precision": "microseconds"}, INSTANT, MILLIS * 1000),
        (
            {"target.type": "Timestamp", "unix.precision": "nanoseconds"},
            MILLIS * 1_000_000 + 7,
            INSTANT,
        ),
        ({"target.type": "unix"}, dt.date(1970, 1, 2), 86_400_000),
    ],
)
def test_timestamp_converter_schemaless(configs: dict[str, str], value: Any, expected: Any) -> None:
    xform = TimestampConverter.Value()
    xform.configure(configs)
    assert xform.apply(sink(value=value)).value == expected


def test_timestamp_converter_field_with_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("ts", Timestamp.SCHEMA)
        .field("other", Schema.STRING_SCHEMA)
        .build()
    )
    value = Struct(schema).put("ts", INSTANT).put("other", "x")
    xform = TimestampConverter.Value()
    xform.configure({"field": "ts", "target.type": "string", "format": "yyyy-MM-dd"})
    out = xform.apply(sink(value_schema=schema, value=value))
    assert out.value_schema.field("ts").schema == Schema.STRING_SCHEMA
    assert (out.value["ts"], out.value["other"]) == ("2017-01-02", "x")


def test_timestamp_converter_whole_value_with_schema() -> None:
    xform = TimestampConverter.Key()
    xform.configure({"target.type": "Date"})
    optional_unix = Schema.OPTIONAL_INT64_SCHEMA
    out = xform.apply(sink(key_schema=optional_unix, key=MILLIS))
    assert out.key == dt.date(2017, 1, 2)
    assert out.key_schema.name == Date.LOGICAL_NAME and out.key_schema.is_optional
    out = xform.apply(sink(key_schema=optional_unix, key=None))
    assert out.key is None
    with pytest.raises(ConnectError, match="does not correspond to a known timestamp type"):
        xform.apply(sink(key_schema=Schema.BOOLEAN_SCHEMA, key=True))


def test_timestamp_converter_schemaless_field() -> None:
    xform = TimestampConverter.Value()
    xform.configure({"field": "when", "target.type": "Timestamp"})
    out = xform.apply(sink(value={"when": MILLIS, "x": 1}))
    assert out.value == {"when": INSTANT, "x": 1}


def test_timestamp_converter_errors() -> None:
    xform = TimestampConverter.Value()
    with pytest.raises(ConfigException, match="requires format option"):
        xform.configure({"target.type": "string"})
    with pytest.raises(ConfigException, match="SimpleDateFormat-compatible pattern"):
        xform.configure({"target.type": "string", "format": "bad pattern q"})
    with pytest.raises(ConfigException, match="String must be one of"):
        xform.configure({"target.type": "epoch"})
    xform.configure({"target.type": "unix", "format": "yyyy-MM-dd"})
    with pytest.raises(DataError, match=r"does not match pattern \(yyyy-MM-dd\)"):
        xform.apply(sink(value="not a date"))
    with pytest.raises(DataError, match="does not support class float objects as timestamps"):
        xform.apply(sink(value=1.5))
