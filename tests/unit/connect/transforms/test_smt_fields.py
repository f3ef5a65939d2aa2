"""Field transforms: InsertField, ReplaceField, MaskField, ValueToKey, ExtractField,
HoistField and SetSchemaMetadata, with Struct and schemaless values."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import (
    DataError,
    Decimal,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Timestamp,
)
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms import (
    ExtractField,
    HoistField,
    InsertField,
    MaskField,
    ReplaceField,
    SetSchemaMetadata,
    ValueToKey,
)


def configured(cls: type[Transformation[Any]], **configs: str) -> Transformation[Any]:
    transform = cls()
    transform.configure({k.replace("_", "."): v for k, v in configs.items()})
    return transform


def sink(**kwargs: Any) -> SinkRecord:
    kwargs.setdefault("topic", "test")
    kwargs.setdefault("kafka_partition", 0)
    kwargs.setdefault("kafka_offset", 42)
    return SinkRecord(**kwargs)


def source(**kwargs: Any) -> SourceRecord:
    kwargs.setdefault("topic", "test")
    return SourceRecord(source_partition=None, source_offset=None, **kwargs)


SIMPLE = (
    SchemaBuilder.struct()
    .name("name")
    .version(1)
    .doc("doc")
    .field("magic", Schema.INT64_SCHEMA)
    .build()
)


# ---------------------------------------------------------------------------- InsertField

INSERT_ALL = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "offset.field": "offset_field!",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}


def test_insert_field_with_schema() -> None:
    xform = InsertField.Value()
    xform.configure(INSERT_ALL)
    value = Struct(SIMPLE).put("magic", 42)
    record = sink(value_schema=SIMPLE, value=value, timestamp=1_500_000_000_000)
    out = xform.apply(record)
    schema = out.value_schema
    assert (schema.name, schema.version, schema.doc) == ("name", 1, "doc")
    assert schema.field("topic_field").schema == Schema.STRING_SCHEMA
    assert schema.field("partition_field").schema == Schema.OPTIONAL_INT32_SCHEMA
    assert schema.field("offset_field").schema == Schema.INT64_SCHEMA
    assert schema.field("timestamp_field").schema.name == Timestamp.LOGICAL_NAME
    assert schema.field("timestamp_field").schema.is_optional
    assert schema.field("instance_id").schema == Schema.OPTIONAL_STRING_SCHEMA
    assert out.value["magic"] == 42
    assert out.value["topic_field"] == "test"
    assert out.value["partition_field"] == 0
    assert out.value["offset_field"] == 42
    assert out.value["timestamp_field"] == dt.datetime(2017, 7, 14, 2, 40, tzinfo=dt.UTC)
    assert out.value["instance_id"] == "my-instance-id"
    # the updated schema is cached per input schema
    assert xform.apply(record).value_schema is schema


def test_insert_field_schemaless_and_key() -> None:
    xform = InsertField.Key()
    xform.configure(INSERT_ALL)
    out = xform.apply(sink(key={"magic": 42}, value="v", timestamp=7))
    assert out.key == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "offset_field": 42,
        "timestamp_field": 7,
        "instance_id": "my-instance-id",
    }
    assert out.value == "v"


def test_insert_field_skips_missing_metadata_and_passes_nulls() -> None:
    xform = configured(InsertField.Value, partition_field="p", timestamp_field="ts")
    out = xform.apply(source(kafka_partition=None, value={"a": 1}))
    assert out.value == {"a": 1}
    tombstone = source(value=None)
    assert xform.apply(tombstone) is tombstone


def test_insert_offset_needs_a_sink_record() -> None:
    xform = configured(InsertField.Value, offset_field="offset")
    with pytest.raises(DataError, match=r"Only SinkRecord supported for \[field insertion\]"):
        xform.apply(source(value={"a": 1}))


def test_insert_field_errors() -> None:
    with pytest.raises(ConfigException, match="No field insertion configured"):
        configured(InsertField.Value)
    with pytest.raises(ConfigException, match="No value specified for static field: x"):
        configured(InsertField.Value, static_field="x")
    xform = configured(InsertField.Value, topic_field="t")
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema"):
        xform.apply(sink(value="not a map"))
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[field insertion\]"):
        xform.apply(sink(value_schema=SIMPLE, value={"magic": 1}))


def test_insert_field_replace_null_with_default() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("opt", SchemaBuilder.int32().optional().default_value(7).build())
        .build()
    )
    value = Struct(schema)
    with_default = configured(InsertField.Value, topic_field="t")
    assert (
        with_default.apply(sink(value_schema=schema, value=value)).value.get_without_default("opt")
        == 7
    )
    without = configured(InsertField.Value, topic_field="t", replace_null_with_default="false")
    out = without.apply(sink(value_schema=schema, value=value))
    assert out.value.get_without_default("opt") is None


# ---------------------------------------------------------------------------- ReplaceField


def test_replace_field_schemaless() -> None:
    xform = configured(ReplaceField.Value, exclude="dont", renames="abc:xyz,foo:bar")
    value = {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}
    assert xform.apply(sink(value=value)).value == {"xyz": 42, "bar": True, "etc": "etc"}


def test_replace_field_include_and_exclude_precedence() -> None:
    xform = configured(ReplaceField.Value, include="abc,foo", exclude="foo")
    assert xform.apply(sink(value={"abc": 1, "foo": 2, "etc": 3})).value == {"abc": 1}


def test_replace_field_with_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("n")
        .field("dont", Schema.STRING_SCHEMA)
        .field("abc", Schema.INT32_SCHEMA)
        .field("foo", Schema.BOOLEAN_SCHEMA)
        .field("etc", Schema.STRING_SCHEMA)
        .build()
    )
    value = Struct(schema).put("dont", "x").put("abc", 42).put("foo", True).put("etc", "etc")
    xform = configured(ReplaceField.Key, exclude="dont", renames="abc:xyz,foo:bar")
    out = xform.apply(sink(key_schema=schema, key=value))
    assert [f.name for f in out.key_schema.fields] == ["xyz", "bar", "etc"]
    assert out.key_schema.name == "n"
    assert (out.key["xyz"], out.key["bar"], out.key["etc"]) == (42, True, "etc")


def test_replace_field_passes_nulls_and_rejects_bad_renames() -> None:
    xform = configured(ReplaceField.Value, exclude="a")
    tombstone = sink(value=None)
    assert xform.apply(tombstone) is tombstone
    with pytest.raises(ConfigException, match="Invalid rename mapping: abc"):
        configured(ReplaceField.Value, renames="abc")
    with pytest.raises(ConfigException, match="Invalid rename mapping: a:b:c"):
        configured(ReplaceField.Value, renames="a:b:c")


# ---------------------------------------------------------------------------- MaskField

MASK_SCHEMA = (
    SchemaBuilder.struct()
    .field("magic", Schema.INT32_SCHEMA)
    .field("bool", Schema.BOOLEAN_SCHEMA)
    .field("byte", Schema.INT8_SCHEMA)
    .field("long", Schema.INT64_SCHEMA)
    .field("double", Schema.FLOAT64_SCHEMA)
    .field("string", Schema.STRING_SCHEMA)
    .field("date", Timestamp.SCHEMA)
    .field("decimal", Decimal.schema(2))
    .field("array", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
    .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build())
    .field("withDefault", SchemaBuilder.string().optional().default_value("default").build())
    .build()
)
MASK_VALUES: dict[str, Any] = {
    "magic": 42,
    "bool": True,
    "byte": 42,
    "long": 42,
    "double": 42.0,
    "string": "55.121.20.20",
    "date": dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
    "decimal": decimal.Decimal("42.00"),
    "array": [4, 2],
    "map": {"k": "v"},
}
MASKED = {
    "bool": False,
    "byte": 0,
    "long": 0,
    "double": 0.0,
    "string": "",
    "date": dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
    "decimal": decimal.Decimal("0.00"),
    "array": [],
    "map": {},
}


def test_mask_field_schemaless() -> None:
    xform = configured(MaskField.Value, fields=",".join(MASKED))
    out = xform.apply(sink(value=dict(MASK_VALUES)))
    assert out.value == {"magic": 42, **MASKED}
    assert out.value["decimal"].as_tuple().exponent == 0  # schemaless: plain zero


def test_mask_field_with_schema() -> None:
    xform = configured(MaskField.Value, fields=",".join([*MASKED, "withDefault"]))
    value = Struct(MASK_SCHEMA)
    for name, item in MASK_VALUES.items():
        value.put(name, item)
    out = xform.apply(sink(value_schema=MASK_SCHEMA, value=value))
    assert out.value_schema == MASK_SCHEMA
    assert out.value["magic"] == 42
    for name, masked in MASKED.items():
        assert out.value[name] == masked, name
    assert out.value["decimal"].as_tuple().exponent == -2  # the schema's scale
    assert out.value["withDefault"] == ""  # the default was masked


def test_mask_field_replacement() -> None:
    xform = configured(
        MaskField.Value, fields="magic,long,double,string,decimal", replacement="123"
    )
    out = xform.apply(sink(value=dict(MASK_VALUES)))
    assert (out.value["magic"], out.value["long"], out.value["double"]) == (123, 123, 123.0)
    assert out.value["string"] == "123"
    assert out.value["decimal"] == decimal.Decimal("123")


@pytest.mark.parametrize("field", ["bool", "date", "array", "map"])
def test_mask_field_unsupported_replacement(field: str) -> None:
    xform = configured(MaskField.Value, fields=field, replacement="123")
    with pytest.raises(DataError, match="Cannot mask value of type"):
        xform.apply(sink(value=dict(MASK_VALUES)))


def test_mask_field_replacement_type_mismatch() -> None:
    xform = configured(MaskField.Value, fields="magic", replacement="foo")
    with pytest.raises(DataError, match=r"Unable to convert foo \(class str\) to number"):
        xform.apply(sink(value=dict(MASK_VALUES)))
    out_of_range = configured(MaskField.Value, fields="byte", replacement="300")
    value = Struct(MASK_SCHEMA)
    for name, item in MASK_VALUES.items():
        value.put(name, item)
    with pytest.raises(DataError, match="Unable to convert 300"):
        out_of_range.apply(sink(value_schema=MASK_SCHEMA, value=value))


def test_mask_field_config_errors() -> None:
    with pytest.raises(ConfigException, match="String must be non-empty"):
        configured(MaskField.Value, fields="a", replacement="")
    with pytest.raises(ConfigException, match='Missing required configuration "fields"'):
        configured(MaskField.Value)
    with pytest.raises(ConfigException, match="Empty list"):
        configured(MaskField.Value, fields="")


def test_mask_field_key_and_null_fields() -> None:
    xform = configured(MaskField.Key, fields="a,missing")
    out = xform.apply(sink(key={"a": "secret", "b": None}, value="v"))
    assert out.key == {"a": "", "b": None, "missing": None}
    assert out.value == "v"


# ---------------------------------------------------------------------------- ValueToKey


def test_value_to_key_schemaless() -> None:
    xform = configured(ValueToKey, fields="a,b")
    out = xform.apply(sink(value={"a": 1, "b": 2, "c": 3}))
    assert out.key == {"a": 1, "b": 2}
    assert out.key_schema is None
    assert out.value == {"a": 1, "b": 2, "c": 3}


def test_value_to_key_with_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT32_SCHEMA)
        .field("b", Schema.INT32_SCHEMA)
        .field("c", Schema.INT32_SCHEMA)
        .build()
    )
    value = Struct(schema).put("a", 1).put("b", 2).put("c", 3)
    out = configured(ValueToKey, fields="a,b").apply(sink(value_schema=schema, value=value))
    assert [f.name for f in out.key_schema.fields] == ["a", "b"]
    assert (out.key["a"], out.key["b"]) == (1, 2)
    assert out.value is value
    with pytest.raises(DataError, match="Field does not exist: not_exist"):
        configured(ValueToKey, fields="not_exist").apply(sink(value_schema=schema, value=value))


def test_value_to_key_requires_fields_and_a_value() -> None:
    with pytest.raises(ConfigException, match="Empty list"):
        configured(ValueToKey, fields="")
    with pytest.raises(DataError, match="found: null"):
        configured(ValueToKey, fields="a").apply(sink(value=None))


# ---------------------------------------------------------------------------- ExtractField


def test_extract_field_schemaless() -> None:
    xform = configured(ExtractField.Key, field="magic")
    assert xform.apply(sink(key={"magic": 42})).key == 42
    assert xform.apply(sink(key={"other": 42})).key is None
    assert xform.apply(sink(key=None)).key is None


def test_extract_field_with_schema() -> None:
    xform = configured(ExtractField.Value, field="magic")
    out = xform.apply(sink(value_schema=SIMPLE, value=Struct(SIMPLE).put("magic", 42)))
    assert (out.value_schema, out.value) == (Schema.INT64_SCHEMA, 42)
    # a null value keeps the field's schema
    optional = SchemaBuilder.struct().optional().field("magic", Schema.INT64_SCHEMA).build()
    out = xform.apply(sink(value_schema=optional, value=None))
    assert (out.value_schema, out.value) == (Schema.INT64_SCHEMA, None)
    with pytest.raises(DataError, match="Unknown field: nonexistent"):
        configured(ExtractField.Value, field="nonexistent").apply(
            sink(value_schema=SIMPLE, value=Struct(SIMPLE).put("magic", 42))
        )


def test_extract_field_nested_v2() -> None:
    inner = SchemaBuilder.struct().field("c", Schema.STRING_SCHEMA).build()
    outer = SchemaBuilder.struct().field("a.b", inner).build()
    value = Struct(outer).put("a.b", Struct(inner).put("c", "deep"))
    v2 = configured(ExtractField.Value, field="`a.b`.c", field_syntax_version="v2")
    out = v2.apply(sink(value_schema=outer, value=value))
    assert (out.value_schema, out.value) == (Schema.STRING_SCHEMA, "deep")
    assert v2.apply(sink(value={"a.b": {"c": 1}})).value == 1
    v1 = configured(ExtractField.Value, field="a.b")
    assert v1.apply(sink(value={"a.b": 5})).value == 5
    with pytest.raises(ConfigException, match="String must be one of"):
        configured(ExtractField.Value, field="a", field_syntax_version="V3")


def test_extract_field_requires_map_or_struct() -> None:
    with pytest.raises(DataError, match=r"Only Map objects supported .*\[field extraction\]"):
        configured(ExtractField.Value, field="a").apply(sink(value=42))


# ---------------------------------------------------------------------------- HoistField


def test_hoist_field() -> None:
    schemaless = configured(HoistField.Key, field="magic")
    assert schemaless.apply(sink(key=42)).key == {"magic": 42}
    with_schema = configured(HoistField.Value, field="magic")
    out = with_schema.apply(sink(value_schema=Schema.INT32_SCHEMA, value=42))
    assert [f.name for f in out.value_schema.fields] == ["magic"]
    assert out.value_schema.field("magic").schema == Schema.INT32_SCHEMA
    assert out.value["magic"] == 42
    with pytest.raises(DataError):  # a null is invalid for the required wrapped schema
        with_schema.apply(sink(value_schema=Schema.INT32_SCHEMA, value=None))


# ---------------------------------------------------------------------------- SetSchemaMetadata


def test_set_schema_metadata_struct_value() -> None:
    xform = configured(SetSchemaMetadata.Value, schema_name="foo", schema_version="42")
    value = Struct(SIMPLE).put("magic", 1)
    out = xform.apply(sink(value_schema=SIMPLE, value=value))
    assert (out.value_schema.name, out.value_schema.version) == ("foo", 42)
    assert out.value_schema.doc == "doc"
    assert out.value.schema is out.value_schema  # the Struct moved to the new schema
    assert out.value["magic"] == 1


def test_set_schema_metadata_primitive_key_and_nulls() -> None:
    xform = configured(SetSchemaMetadata.Key, schema_version="3")
    out = xform.apply(sink(key_schema=Schema.STRING_SCHEMA, key="k"))
    assert (out.key_schema.type, out.key_schema.version, out.key) == (
        Schema.STRING_SCHEMA.type,
        3,
        "k",
    )
    empty = sink(key=None)
    assert xform.apply(empty) is empty
    with pytest.raises(DataError, match=r"Schema required for \[updating schema metadata\]"):
        xform.apply(sink(key="k"))
    with pytest.raises(ConfigException, match="Neither schema name nor version configured"):
        configured(SetSchemaMetadata.Value)


def test_set_schema_metadata_keeps_map_and_array_parts() -> None:
    map_schema = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    out = configured(SetSchemaMetadata.Value, schema_name="m").apply(
        sink(value_schema=map_schema, value={"a": 1})
    )
    assert (out.value_schema.key_schema, out.value_schema.value_schema) == (
        Schema.STRING_SCHEMA,
        Schema.INT32_SCHEMA,
    )
    array_schema = SchemaBuilder.array(Schema.INT32_SCHEMA).build()
    out = configured(SetSchemaMetadata.Value, schema_name="a").apply(
        sink(value_schema=array_schema, value=[1])
    )
    assert out.value_schema.value_schema == Schema.INT32_SCHEMA
