"""Record values as the JSON documents Confluent's sink indexes: the per-record reference
(``documents.document``, Confluent's ``DataConverter``) and the whole-column version
(``document_columns.documents_column``), which must agree with it row by row."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pytest

from seaway.connect.api.data import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.api.data.arrow import arrow_type
from seaway.connect.api.errors import DataError
from seaway.connectors.elasticsearch.document_columns import documents_column
from seaway.connectors.elasticsearch.documents import document
from seaway.java.numbers import to_float32

NULL_REQUIRED = r"^null value for field that is required and has no default value$"
UTC = dt.UTC


def doc(schema: Schema | None, value: Any, *, compact: bool = True, ignore: bool = False) -> bytes:
    return document(schema, value, compact_map_entries=compact, schema_ignore=ignore)


def struct(schema: Schema, **values: Any) -> Struct:
    """A Struct holding *values* as given (no validation: tests put invalid nulls too)."""
    return Struct.of_values(schema, [values.get(f.name) for f in schema.fields])


def fields(*items: tuple[str, Schema], name: str | None = None) -> Schema:
    builder = SchemaBuilder.struct()
    if name is not None:
        builder.name(name)
    for field_name, schema in items:
        builder.field(field_name, schema)
    return builder.build()


def optional(builder: SchemaBuilder, default: Any = None) -> Schema:
    builder.optional()
    if default is not None:
        builder.default_value(default)
    return builder.build()


# ---------------------------------------------------------------------- Arrow columns


def arrow_value(schema: Schema, value: Any) -> Any:
    """A Connect value as pyarrow builds *schema*'s Arrow type from it; nulls stay nulls."""
    if value is None:
        return None
    if schema.type is SchemaType.STRUCT:
        return {f.name: arrow_value(f.schema, value.get_without_default(f)) for f in schema.fields}
    if schema.type is SchemaType.ARRAY:
        assert schema.value_schema is not None
        return [arrow_value(schema.value_schema, v) for v in value]
    if schema.type is SchemaType.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        return [
            (arrow_value(schema.key_schema, k), arrow_value(schema.value_schema, v))
            for k, v in value.items()
        ]
    return value


def column_of(schema: Schema, values: Sequence[Any]) -> pa.Array:
    return pa.array([arrow_value(schema, v) for v in values], type=arrow_type(schema))


def column_docs(schema: Schema, values: Sequence[Any], *, compact: bool = True) -> list[Any]:
    column = documents_column(column_of(schema, values), schema, compact_map_entries=compact)
    assert column is not None, "the column path gave up"
    assert pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
    assert len(column) == len(values)
    return list(column.to_pylist())


def typed(node: Any) -> Any:
    """A parsed JSON tree whose numbers carry their kind (1 and 1.0 differ)."""
    if isinstance(node, dict):
        return {k: typed(v) for k, v in node.items()}
    if isinstance(node, list):
        return [typed(v) for v in node]
    if isinstance(node, tuple):  # an object's (name, value) pair, in order
        return (node[0], typed(node[1]))
    return (type(node).__name__, node)


def same_json(actual: str | bytes, expected: str | bytes, *, ordered: bool) -> bool:
    """Equal JSON: same structure, strings and integers, equal floats; object members in
    the same order when *ordered*."""
    hook: Callable[[list[tuple[str, Any]]], Any] = list if ordered else dict
    return typed(json.loads(actual, object_pairs_hook=hook)) == typed(
        json.loads(expected, object_pairs_hook=hook)
    )


def assert_agree(schema: Schema, values: Sequence[Any], *, compact: bool = True) -> list[Any]:
    """Each row of the column path is the reference's document for that value."""
    rows = column_docs(schema, values, compact=compact)
    for row, value in zip(rows, values, strict=True):
        if value is None:
            assert row is None
            continue
        expected = doc(schema, value, compact=compact)
        # compact maps: Java writes a HashMap's order, the column keeps the entries' order
        assert same_json(row, expected, ordered=not compact), (row, expected)
    return rows


# ---------------------------------------------------------------------- the anchor's example

CUSTOMERS = fields(
    ("id", Schema.INT32_SCHEMA),
    ("email", Schema.STRING_SCHEMA),
    ("balance", Decimal.builder(2).optional().build()),
    ("updated_at", Timestamp.builder().optional().build()),
    name="dbserver1.inventory.customers.Value",
)


def test_the_anchor_document() -> None:
    value = struct(
        CUSTOMERS, id=1004, email="anne@example.org", balance=decimal.Decimal("1234.50"),
        updated_at=dt.datetime(2026, 1, 2, 9, 30, 0, 123000, tzinfo=UTC),
    )  # fmt: skip
    expected = b'{"id":1004,"email":"anne@example.org","balance":1234.5,"updated_at":1767346200123}'
    assert doc(CUSTOMERS, value) == expected
    assert column_docs(CUSTOMERS, [value]) == [expected.decode()]


def test_schema_ignore_writes_the_raw_value() -> None:
    value = struct(
        CUSTOMERS, id=1004, email="anne@example.org", balance=decimal.Decimal("1234.50"),
        updated_at=dt.datetime(2026, 1, 2, 9, 30, 0, 123000, tzinfo=UTC),
    )  # fmt: skip
    # Decimal as JsonConverter writes it: base64 of the unscaled value (123450)
    assert doc(CUSTOMERS, value, ignore=True) == (
        b'{"id":1004,"email":"anne@example.org","balance":"AeI6","updated_at":1767346200123}'
    )


# ---------------------------------------------------------------------- the reference


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        (Schema.INT8_SCHEMA, -128, b"-128"),
        (Schema.INT16_SCHEMA, 32767, b"32767"),
        (Schema.INT32_SCHEMA, -(2**31), b"-2147483648"),
        (Schema.INT64_SCHEMA, 2**63 - 1, b"9223372036854775807"),
        (Schema.INT64_SCHEMA, -(2**63), b"-9223372036854775808"),
        (Schema.FLOAT32_SCHEMA, to_float32(0.1), b"0.1"),
        (Schema.FLOAT32_SCHEMA, to_float32(3.4028234663852886e38), b"3.4028235E38"),
        (Schema.FLOAT64_SCHEMA, 1.0, b"1.0"),
        (Schema.FLOAT64_SCHEMA, 1e20, b"1.0E20"),
        (Schema.FLOAT64_SCHEMA, -0.0, b"-0.0"),
        (Schema.FLOAT64_SCHEMA, 5e-324, b"4.9E-324"),
        (Schema.FLOAT64_SCHEMA, math.nan, b'"NaN"'),
        (Schema.BOOLEAN_SCHEMA, True, b"true"),
        (Schema.STRING_SCHEMA, "", b'""'),
        (Schema.BYTES_SCHEMA, b"\x00\xff", b'"AP8="'),
        (Schema.BYTES_SCHEMA, b"", b'""'),
        (Decimal.schema(2), decimal.Decimal("1234.50"), b"1234.5"),
        (Decimal.schema(0), decimal.Decimal(10**20), b"1.0E20"),
        (Decimal.schema(3), decimal.Decimal("-0.001"), b"-0.001"),
        (Date.SCHEMA, dt.date(2026, 1, 2), b"20455"),
        (Date.SCHEMA, dt.date(1900, 1, 1), b"-25567"),
        (Time.SCHEMA, dt.time(9, 30, 0, 123000), b"34200123"),
        (Timestamp.SCHEMA, dt.datetime(2026, 1, 2, 9, 30, 0, 123000, tzinfo=UTC), b"1767346200123"),
        (Timestamp.SCHEMA, dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC), b"-1"),
        (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2], b"[1,2]"),
        (SchemaBuilder.array(Decimal.schema(1)).build(), [decimal.Decimal("0.5")], b"[0.5]"),
    ],
)
def test_every_type(schema: Schema, value: Any, expected: bytes) -> None:
    assert doc(schema, value) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('say "hi"', rb'"say \"hi\""'),
        ("C:\\temp\\", rb'"C:\\temp\\"'),
        ("line\nnext\r\ttab", rb'"line\nnext\r\ttab"'),
        ("\b\f\x00\x01\x1f\x7f", b'"\\b\\f\\u0000\\u0001\\u001F\x7f"'),
        ("caf\u00e9 \u4e2d\u6587 \U0001f600", '"caf\u00e9 \u4e2d\u6587 \U0001f600"'.encode()),
        ("sep\u2028arator\u2029", '"sep\u2028arator\u2029"'.encode()),  # not escaped
        ('\\"', rb'"\\\""'),
    ],
)
def test_strings_are_escaped_as_jackson_does(text: str, expected: bytes) -> None:
    schema = fields(("s", Schema.STRING_SCHEMA))
    value = struct(schema, s=text)
    assert doc(schema, value) == b'{"s":' + expected + b"}"
    # the column path writes strings byte for byte the same
    assert column_docs(schema, [value]) == [(b'{"s":' + expected + b"}").decode()]


STRING_MAP = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
INT_MAP = SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build()


def test_compact_maps_are_objects_in_hash_map_order() -> None:
    value = {"a": 1, "b": 2, "zz": 3}
    # "zz" hashes to bucket 0 of a 16-bucket java.util.HashMap, before "a" (1) and "b" (2)
    assert doc(STRING_MAP, value) == b'{"zz":3,"a":1,"b":2}'
    assert doc(STRING_MAP, value, compact=False) == (
        b'[{"key":"a","value":1},{"key":"b","value":2},{"key":"zz","value":3}]'
    )
    assert doc(STRING_MAP, {}) == b"{}"


def test_maps_with_other_keys_are_always_key_value_objects() -> None:
    assert doc(INT_MAP, {2: "x", 1: "y"}) == b'[{"key":2,"value":"x"},{"key":1,"value":"y"}]'
    # with schema.ignore, JsonConverter's own form: objects for string keys, else pairs
    assert doc(INT_MAP, {2: "x"}, ignore=True) == b'[[2,"x"]]'
    assert doc(STRING_MAP, {"a": 1}, compact=False, ignore=True) == b'{"a":1}'


def test_map_values_are_preprocessed() -> None:
    schema = SchemaBuilder.map(Schema.STRING_SCHEMA, Decimal.schema(2)).build()
    value = {"x": decimal.Decimal("1.25")}
    assert doc(schema, value) == b'{"x":1.25}'
    assert doc(schema, value, compact=False) == b'[{"key":"x","value":1.25}]'


def test_nested_structs_arrays_and_maps() -> None:
    point = fields(("x", Schema.FLOAT64_SCHEMA), ("at", Timestamp.SCHEMA))
    schema = fields(
        ("points", SchemaBuilder.array(point).build()),
        ("by_name", SchemaBuilder.map(Schema.STRING_SCHEMA, point).build()),
        ("matrix", SchemaBuilder.array(SchemaBuilder.array(Schema.INT64_SCHEMA).build()).build()),
    )
    epoch = dt.datetime(1970, 1, 1, tzinfo=UTC)
    p = struct(point, x=0.5, at=epoch)
    value = struct(schema, points=[p, p], by_name={"p": p}, matrix=[[1], [], [2**63 - 1]])
    assert doc(schema, value) == (
        b'{"points":[{"x":0.5,"at":0},{"x":0.5,"at":0}],"by_name":{"p":{"x":0.5,"at":0}},'
        b'"matrix":[[1],[],[9223372036854775807]]}'
    )
    assert_agree(schema, [value])
    assert_agree(schema, [value], compact=False)


def test_schemaless_values_are_written_as_json() -> None:
    assert doc(None, {"a": [1, 2.5, None, "x"], "b": {"c": True}}) == (
        b'{"a":[1,2.5,null,"x"],"b":{"c":true}}'
    )
    assert doc(None, {"n": 1}, ignore=True) == b'{"n":1}'


# ---------------------------------------------------------------------- nulls


def test_nulls_take_the_default() -> None:
    schema = fields(
        ("n", optional(SchemaBuilder.int32())),
        ("d", optional(SchemaBuilder.int32(), 42)),
        ("r", SchemaBuilder.string().default_value("dflt").build()),
        ("amount", optional(Decimal.builder(2), decimal.Decimal("9.99"))),
        ("day", optional(Date.builder(), dt.date(1970, 1, 11))),
        ("sub", optional(SchemaBuilder.struct().field("a", Schema.INT8_SCHEMA))),
    )
    value = struct(schema)
    assert doc(schema, value) == (b'{"n":null,"d":42,"r":"dflt","amount":9.99,"day":10,"sub":null}')
    assert_agree(schema, [value, None])


def test_a_null_in_a_required_field_without_default_fails() -> None:
    schema = fields(("id", Schema.INT64_SCHEMA), ("name", Schema.STRING_SCHEMA))
    with pytest.raises(DataError, match=NULL_REQUIRED):
        doc(schema, struct(schema, id=1))
    column = column_of(schema, [struct(schema, id=1, name="a"), struct(schema, id=2)])
    # the column leaves it to the per-record path, which raises the exact error
    assert documents_column(column, schema, compact_map_entries=True) is None


def test_null_elements() -> None:
    optional_items = SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build()
    assert doc(optional_items, [1, None]) == b"[1,null]"
    defaulted = SchemaBuilder.array(optional(SchemaBuilder.string(), "?")).build()
    assert doc(defaulted, ["a", None]) == b'["a","?"]'
    required = SchemaBuilder.array(Schema.INT32_SCHEMA).build()
    with pytest.raises(DataError, match=NULL_REQUIRED):
        doc(required, [1, None])
    values_map = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).build()
    assert doc(values_map, {"a": None}) == b'{"a":null}'
    assert doc(values_map, {"a": None}, compact=False) == b'[{"key":"a","value":null}]'

    schema = fields(("a", optional_items), ("b", defaulted), ("c", values_map))
    value = struct(schema, a=[None, 2], b=[None], c={"k": None, "j": 5})
    assert_agree(schema, [value])
    assert_agree(schema, [value], compact=False)
    broken = fields(("r", required))
    column = column_of(broken, [struct(broken, r=[1, None])])
    assert documents_column(column, broken, compact_map_entries=True) is None


def test_a_decimal_element_default_is_taken_unconverted() -> None:
    # preProcessNullValue returns the default as it is: a BigDecimal where a double goes
    element = optional(Decimal.builder(1), decimal.Decimal("0.5"))
    schema = SchemaBuilder.array(element).build()
    with pytest.raises(DataError):
        doc(schema, [None])
    column = pa.array([[None]], arrow_type(schema))
    assert documents_column(column, schema, compact_map_entries=True) is None


def test_a_null_value_has_no_document() -> None:
    with pytest.raises(ValueError, match="null value"):
        doc(CUSTOMERS, None)


# ---------------------------------------------------------------------- the column path

SUB = optional(
    SchemaBuilder.struct()
    .field("a", Schema.OPTIONAL_INT64_SCHEMA)
    .field("b", Schema.OPTIONAL_STRING_SCHEMA)
)
EVERY_TYPE = fields(
    ("i8", Schema.INT8_SCHEMA),
    ("i16", Schema.INT16_SCHEMA),
    ("i32", Schema.INT32_SCHEMA),
    ("i64", Schema.INT64_SCHEMA),
    ("f32", Schema.FLOAT32_SCHEMA),
    ("f64", Schema.FLOAT64_SCHEMA),
    ("ok", Schema.BOOLEAN_SCHEMA),
    ("s", Schema.STRING_SCHEMA),
    ("raw", Schema.BYTES_SCHEMA),
    ("amount", Decimal.schema(4)),
    ("day", Date.SCHEMA),
    ("at", Time.SCHEMA),
    ("ts", Timestamp.SCHEMA),
    ("list", SchemaBuilder.array(Schema.STRING_SCHEMA).build()),
    ("smap", STRING_MAP),
    ("imap", INT_MAP),
    ("sub", SUB),
)


def _every_type_value(i: int) -> Struct:
    return struct(
        EVERY_TYPE,
        i8=[-128, 127, 0][i % 3], i16=[-(2**15), 2**15 - 1, 7][i % 3],
        i32=[-(2**31), 2**31 - 1, 0][i % 3], i64=[-(2**63), 2**63 - 1, 1][i % 3],
        f32=to_float32([0.1, 1.0, -3.4e38][i % 3]), f64=[1.0, 1e20, -5e-324][i % 3],
        ok=bool(i % 2), s=['a"b\\c', "\n\U0001f600\u2028", ""][i % 3],
        raw=[b"", b"\x00", b"\xff\xfe\xfd\xfc"][i % 3],
        amount=[decimal.Decimal("1.0000"), decimal.Decimal("-12345678901234.5678"),
                decimal.Decimal("0.0001")][i % 3],
        day=[dt.date(1970, 1, 1), dt.date(2026, 1, 2), dt.date(1, 1, 1)][i % 3],
        at=[dt.time(0), dt.time(23, 59, 59, 999000), dt.time(12, 0, 0, 1000)][i % 3],
        ts=[dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(9999, 12, 31, tzinfo=UTC),
            dt.datetime(1, 1, 1, tzinfo=UTC)][i % 3],
        list=[[], ["x"], ["y", 'z"']][i % 3],
        smap=[{}, {"k": 1}, {"zz": 3, "a": 1}][i % 3],
        imap=[{}, {1: "x"}, {-1: "", 2: "\t"}][i % 3],
        sub=[struct(SUB, a=1, b="x"), struct(SUB), None][i % 3],
    )  # fmt: skip


@pytest.mark.parametrize("compact", [True, False])
def test_every_type_in_a_column(compact: bool) -> None:
    values = [_every_type_value(i) for i in range(6)]
    rows = assert_agree(EVERY_TYPE, [*values, None], compact=compact)
    assert rows[0].startswith(
        '{"i8":-128,"i16":-32768,"i32":-2147483648,"i64":-9223372036854775808,'
    )


def test_integers_strings_and_structure_are_byte_identical() -> None:
    schema = fields(
        ("id", Schema.INT64_SCHEMA),
        ("small", Schema.INT8_SCHEMA),
        ("name", Schema.OPTIONAL_STRING_SCHEMA),
        ("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build()),
        ("attrs", STRING_MAP),
        ("ok", Schema.BOOLEAN_SCHEMA),
        ("day", Date.SCHEMA),
    )
    values = [
        struct(schema, id=2**63 - 1, small=-1, name='q"\\\n\x02\u2028', tags=["a", ""],
               attrs={"k": -(2**31)}, ok=True, day=dt.date(2000, 2, 29)),
        struct(schema, id=-(2**63), small=0, name=None, tags=[], attrs={}, ok=False,
               day=dt.date(1969, 12, 31)),
    ]  # fmt: skip
    rows = column_docs(schema, values, compact=False)
    assert [r.encode() for r in rows] == [doc(schema, v, compact=False) for v in values]


def test_floats_print_as_doubles() -> None:
    schema = fields(("x", Schema.FLOAT64_SCHEMA), ("y", Schema.FLOAT32_SCHEMA))
    values = [struct(schema, x=x, y=to_float32(x)) for x in (1.0, -0.0, 1e16, 0.1, 2.5e-300)]
    rows = assert_agree(schema, values)
    assert rows[0] == '{"x":1.0,"y":1.0}' and rows[1] == '{"x":-0.0,"y":-0.0}'
    decimals = fields(("d", Decimal.schema(7)))
    # Arrow's decimal-to-double cast is off by one unit in the last place for this one
    assert column_docs(decimals, [struct(decimals, d=decimal.Decimal("0.0000001"))]) == [
        '{"d":1e-7}'
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_go_record_by_record(bad: float) -> None:
    schema = fields(("x", Schema.FLOAT64_SCHEMA))
    column = column_of(schema, [struct(schema, x=1.0), struct(schema, x=bad)])
    assert documents_column(column, schema, compact_map_entries=True) is None


def test_control_characters_are_escaped_in_columns() -> None:
    schema = fields(("s", Schema.STRING_SCHEMA))
    texts = ["".join(map(chr, range(0x20))), "plain", '\\"\n', "\x7f\u0085"]
    assert_agree(schema, [struct(schema, s=t) for t in texts])
    assert column_docs(schema, [struct(schema, s="\x1f")]) == ['{"s":"\\u001F"}']


def test_field_defaults_fill_nulls_in_columns() -> None:
    schema = fields(
        ("d", optional(SchemaBuilder.int32(), 42)),
        ("r", SchemaBuilder.string().default_value('d"flt').build()),  # required with default
        ("amount", optional(Decimal.builder(2), decimal.Decimal("9.99"))),
        ("ts", optional(Timestamp.builder(), dt.datetime(2001, 1, 1, tzinfo=UTC))),
        ("tags", optional(SchemaBuilder.array(Schema.STRING_SCHEMA), ["x"])),
        ("n", Schema.OPTIONAL_FLOAT64_SCHEMA),
    )
    values = [struct(schema), struct(schema, d=1, r="r", amount=decimal.Decimal("0.10")), None]
    rows = assert_agree(schema, values)
    assert rows[0] == '{"d":42,"r":"d\\"flt","amount":9.99,"ts":978307200000,"tags":["x"],"n":null}'
    assert rows[2] is None


def test_sliced_columns_and_null_parents() -> None:
    schema = fields(
        ("inner", SchemaBuilder.struct().field("v", Schema.INT32_SCHEMA)
         .field("s", Schema.STRING_SCHEMA).optional().build()),
        ("items", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().build()),
        ("m", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).optional().build()),
    )  # fmt: skip
    optional_inner = schema.field("inner")
    assert optional_inner is not None
    values = [
        struct(schema, inner=Struct.of_values(optional_inner.schema, [1, "a"]), items=[1, 2],
               m={"a": 1}),
        struct(schema),  # null parents over required children
        struct(schema, inner=Struct.of_values(optional_inner.schema, [3, "\n"]), items=[],
               m={}),
    ]  # fmt: skip
    column = column_of(schema, values)
    for start in range(3):
        result = documents_column(column.slice(start), schema, compact_map_entries=True)
        assert result is not None
        for row, value in zip(result.to_pylist(), values[start:], strict=True):
            assert same_json(row, doc(schema, value), ordered=True)


def test_unexpected_arrow_types_go_record_by_record() -> None:
    schema = fields(("id", Schema.INT32_SCHEMA))
    wide = pa.array([{"id": 1}], pa.struct([("id", pa.int64())]))
    assert documents_column(wide, schema, compact_map_entries=True) is None
    missing = pa.array([{"other": 1}], pa.struct([("other", pa.int32())]))
    assert documents_column(missing, schema, compact_map_entries=True) is None
    ts = Timestamp.SCHEMA
    micros = pa.array([dt.datetime(2020, 1, 1)], pa.timestamp("us"))
    assert documents_column(micros, ts, compact_map_entries=True) is None
    raw = documents_column(pa.array([5], pa.int64()), ts, compact_map_entries=True)
    assert raw is not None and raw.to_pylist() == ["5"]  # the physical type serves too


def test_top_level_primitives_and_large_types() -> None:
    strings = pa.array(['a"', None], pa.large_string())
    result = documents_column(strings, Schema.OPTIONAL_STRING_SCHEMA, compact_map_entries=True)
    assert result is not None and result.to_pylist() == ['"a\\""', None]
    lists = pa.array([[1, None], None, []], pa.large_list(pa.int64()))
    schema = SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).optional().build()
    result = documents_column(lists, schema, compact_map_entries=True)
    assert result is not None and result.to_pylist() == ["[1,null]", None, "[]"]
    empty = documents_column(
        pa.array([], pa.int32()), Schema.INT32_SCHEMA, compact_map_entries=True
    )
    assert empty is not None and len(empty) == 0


# ---------------------------------------------------------------------- random rows

_KINDS = ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string",
          "bytes", "decimal", "date", "time", "timestamp")  # fmt: skip
_TEXT_PIECES = ("a", "Zz", " ", '"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\u00e9",
                "\u4e2d", "\U0001f600", "\u2028", "{", "}", ",", ":", "null", "1")  # fmt: skip
_NAME_SUFFIXES = ("x", "\u00e9", 'q"', "b\\s", "nl\n")
_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
_FLOAT_SPECIALS = (0.0, -0.0, 1.0, -1.0, 0.1, 1e20, 1e-7, 5e-324, 1.7976931348623157e308,
                   123456789012345678.0, 2.5)  # fmt: skip


class RandomRows:
    """Random schemas and values; *chaos* adds what the column path must refuse (nulls in
    required fields, NaN and infinities)."""

    def __init__(self, seed: int, *, chaos: bool) -> None:
        self.rng = random.Random(seed)
        self.chaos = chaos

    def primitive(self, kind: str) -> SchemaBuilder:
        if kind == "decimal":
            return Decimal.builder(self.rng.randint(0, 6))
        logical: dict[str, Callable[[], SchemaBuilder]] = {
            "date": Date.builder, "time": Time.builder, "timestamp": Timestamp.builder
        }  # fmt: skip
        if kind in logical:
            return logical[kind]()
        return SchemaBuilder.of_type(SchemaType(kind))

    def schema(self, depth: int = 0, *, element: bool = False) -> Schema:
        rng = self.rng
        roll = rng.random()
        if depth < 3 and roll < 0.12:
            builder = SchemaBuilder.array(self.schema(depth + 1, element=True))
        elif depth < 3 and roll < 0.22:
            key = SchemaBuilder.of_type(rng.choice(
                [SchemaType.STRING, SchemaType.STRING, SchemaType.INT32, SchemaType.INT64]
            )).build()  # fmt: skip
            builder = SchemaBuilder.map(key, self.schema(depth + 1, element=True))
        elif depth < 3 and roll < 0.32:
            builder = self.struct_builder(depth + 1)
        else:
            kind = rng.choice(_KINDS)
            builder = self.primitive(kind)
            # a Decimal element's default is written unconverted: the column refuses those
            if rng.random() < 0.25 and not (element and kind == "decimal"):
                builder.default_value(self.value(builder.build(), valid=True))
        if rng.random() < 0.4:
            builder.optional()
        return builder.build()

    def struct_builder(self, depth: int) -> SchemaBuilder:
        builder = SchemaBuilder.struct()
        for i in range(self.rng.randint(0, 5)):
            suffix = self.rng.choice(_NAME_SUFFIXES)
            builder.field(f"f{i}_{suffix}", self.schema(depth))
        return builder

    def value(self, schema: Schema, *, valid: bool = False) -> Any:
        rng = self.rng
        if schema.is_optional and rng.random() < 0.2:
            return None
        if schema.default_value is not None and rng.random() < 0.2:
            return None
        if self.chaos and not valid and rng.random() < 0.03:
            return None
        if schema.name == Decimal.LOGICAL_NAME:
            scale = Decimal.scale(schema)
            unscaled = rng.choice([0, 1, -1, rng.randint(-(10**30), 10**30)])
            return decimal.Decimal(unscaled).scaleb(-scale)
        if schema.name == Date.LOGICAL_NAME:
            return dt.date(1970, 1, 1) + dt.timedelta(days=rng.randint(-700_000, 2_900_000))
        if schema.name == Time.LOGICAL_NAME:
            millis = rng.randrange(86_400_000)
            return (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=millis)).time()
        if schema.name == Timestamp.LOGICAL_NAME:
            millis = rng.randint(-62_000_000_000_000, 253_000_000_000_000)
            return dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=millis)
        return self.physical(schema, valid=valid)

    def physical(self, schema: Schema, *, valid: bool) -> Any:
        rng, kind = self.rng, schema.type
        if kind.value in _INT_BITS:
            bits = _INT_BITS[kind.value]
            low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
            return rng.choice([low, high, 0, -1, rng.randint(low, high)])
        if kind in (SchemaType.FLOAT32, SchemaType.FLOAT64):
            number = rng.choice([*_FLOAT_SPECIALS, rng.uniform(-1e9, 1e9), rng.random()])
            if self.chaos and not valid and rng.random() < 0.05:
                number = rng.choice([math.nan, math.inf, -math.inf])
            if kind is SchemaType.FLOAT32 and math.isfinite(number):
                number = math.copysign(min(abs(number), 3.4e38), number)  # no overflow
            return to_float32(number) if kind is SchemaType.FLOAT32 else number
        if kind is SchemaType.BOOLEAN:
            return rng.random() < 0.5
        if kind is SchemaType.STRING:
            return "".join(rng.choice(_TEXT_PIECES) for _ in range(rng.randint(0, 6)))
        if kind is SchemaType.BYTES:
            return bytes(rng.randrange(256) for _ in range(rng.randint(0, 7)))
        if kind is SchemaType.ARRAY:
            assert schema.value_schema is not None
            return [self.value(schema.value_schema) for _ in range(rng.randint(0, 3))]
        if kind is SchemaType.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            return {
                self.physical(schema.key_schema, valid=True): self.value(schema.value_schema)
                for _ in range(rng.randint(0, 3))
            }
        return Struct.of_values(schema, [self.value(f.schema) for f in schema.fields])


@pytest.mark.parametrize("seed", range(60))
def test_random_rows_agree(seed: int) -> None:
    rows = RandomRows(seed, chaos=False)
    schema = rows.struct_builder(0).build()
    values = [rows.value(schema, valid=True) for _ in range(25)] + [None]
    compact = seed % 2 == 0
    assert_agree(schema, values, compact=compact)


@pytest.mark.parametrize("seed", range(60))
def test_random_rows_with_what_only_records_handle(seed: int) -> None:
    rows = RandomRows(1000 + seed, chaos=True)
    schema = rows.struct_builder(0).build()
    values = [rows.value(schema, valid=True) for _ in range(25)]
    compact = seed % 2 == 1
    expected: list[bytes | None] = []
    for value in values:
        try:
            expected.append(doc(schema, value, compact=compact))
        except DataError:
            expected.append(None)
    column = documents_column(column_of(schema, values), schema, compact_map_entries=compact)
    if column is None:
        return  # always allowed: the per-record path decides
    assert None not in expected, "a record the reference refuses got a document"
    for row, want in zip(column.to_pylist(), expected, strict=True):
        assert want is not None and same_json(row, want, ordered=not compact), (row, want)


# ---------------------------------------------------------------------- throughput


THROUGHPUT_ROWS = int(os.environ.get("SEAWAY_DOCUMENTS_ROWS", "5000"))  # measured at 100000


def test_throughput(capsys: pytest.CaptureFixture[str]) -> None:
    """documents_column against the per-record path (printed, not checked); set
    SEAWAY_DOCUMENTS_ROWS=100000 for the full measurement."""
    schema = fields(
        ("id", Schema.INT64_SCHEMA),
        ("email", Schema.STRING_SCHEMA),
        ("balance", Schema.FLOAT64_SCHEMA),
        ("updated_at", Timestamp.SCHEMA),
        ("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build()),
    )
    epoch = dt.datetime(2026, 1, 1, tzinfo=UTC)
    values = [
        struct(schema, id=i, email=f"user{i}@example.org", balance=i * 1.25,
               updated_at=epoch + dt.timedelta(milliseconds=i), tags=["a", f"t{i % 7}"])
        for i in range(THROUGHPUT_ROWS)
    ]  # fmt: skip
    column = column_of(schema, values)
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        result = documents_column(column, schema, compact_map_entries=True)
        best = min(best, time.perf_counter() - start)
    assert result is not None
    start = time.perf_counter()
    for value in values:
        doc(schema, value)
    per_record = time.perf_counter() - start
    rows = len(values)
    with capsys.disabled():
        print(
            f"\n{rows:,} rows: documents_column {best * 1000:.1f} ms ({rows / best:,.0f}/s), "
            f"per record {per_record * 1000:.1f} ms ({rows / per_record:,.0f}/s), "
            f"x{per_record / best:.1f}"
        )
