"""JsonConverter's struct columns written whole: a struct column of one STRUCT schema as
JSON envelopes, byte for byte what ``from_connect_data`` writes record by record; None
wherever the column path cannot be sure (the runtime then converts record by record)."""

from __future__ import annotations

import datetime as dt
import decimal
import random
from typing import Any

import pyarrow as pa
import pytest

from seaway.connect.api import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from seaway.connect.api.data.arrow import structs_to_table
from seaway.connect.converters import JsonConverter

TOPIC = "topic"
D = decimal.Decimal
RNG = random.Random(20261129)

ROW = (
    SchemaBuilder.struct().name("events")
    .field("i8", Schema.INT8_SCHEMA)
    .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
    .field("i32", Schema.INT32_SCHEMA)
    .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
    .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
    .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "12").build())
    .field("big", Decimal.builder(0).optional().build())
    .field("day", Date.builder().optional().build())
    .field("time", Time.builder().optional().build())
    .field("at", Timestamp.builder().optional().build())
    .field("wéird \"name\"", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)  # fmt: skip
TEXTS = ["", "plain", 'quote " and \\ backslash', "ünïcødé ✓ 𝄞", "/slash/", "tab-less"]


def converter(**configs: str) -> JsonConverter:
    result = JsonConverter()
    result.configure(configs, is_key=False)
    return result


def _maybe(value: Any) -> Any:
    return None if RNG.random() < 0.2 else value


def _row() -> Struct:
    moment = dt.datetime(1969, 12, 31, tzinfo=dt.UTC) + dt.timedelta(
        milliseconds=RNG.randrange(-10**12, 10**12))  # fmt: skip
    return (
        Struct(ROW).put("i8", RNG.randrange(-128, 128))
        .put("i16", _maybe(RNG.randrange(-(2**15), 2**15)))
        .put("i32", RNG.randrange(-(2**31), 2**31))
        .put("i64", _maybe(RNG.choice([-(2**63), 2**63 - 1, 0, RNG.randrange(-(2**63), 2**63)])))
        .put("flag", _maybe(RNG.random() < 0.5))
        .put("name", _maybe(RNG.choice(TEXTS)))
        .put("raw", _maybe(RNG.randbytes(RNG.randrange(0, 9))))
        .put("amount", D(RNG.randrange(-(10**12) + 1, 10**12)).scaleb(-2))
        .put("big", _maybe(D(RNG.choice([0, -1, 127, 128, -128, -129, 10**37,
                                          RNG.randrange(-(10**38) + 1, 10**38)]))))
        .put("day", _maybe(moment.date()))
        .put("time", _maybe(moment.time().replace(microsecond=moment.microsecond // 1000 * 1000,
                                                  tzinfo=dt.UTC)))
        .put("at", _maybe(moment))
        .put("wéird \"name\"", _maybe("x"))
    )  # fmt: skip


def column(schema: Schema, rows: list[Struct]) -> pa.Array:
    return structs_to_table(schema, rows).to_struct_array().combine_chunks()


def assert_as_records(schema: Schema, rows: list[Struct], **configs: str) -> None:
    json = converter(**configs)
    result = json.from_connect_column(TOPIC, schema, column(schema, rows))
    assert result is not None, "the column path refused"
    assert result.to_pylist() == [json.from_connect_data(TOPIC, schema, r) for r in rows]


@pytest.mark.parametrize("schemas", ["true", "false"])
def test_every_type_the_column_path_writes(schemas: str) -> None:
    rows = [_row() for _ in range(2000)]
    assert_as_records(ROW, rows, **{"schemas.enable": schemas})


def test_the_jdbc_bench_rows() -> None:
    schema = (SchemaBuilder.struct().name("events").field("id", Schema.INT64_SCHEMA)
              .field("name", Schema.STRING_SCHEMA)
              .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "12")
                     .build())
              .field("created", Timestamp.SCHEMA).build())  # fmt: skip
    at = dt.datetime(2026, 11, 20, 10, 0, 1, 250000, tzinfo=dt.UTC)
    rows = [Struct(schema).put("id", i).put("name", f"event {i}")
            .put("amount", D(f"{i % 100000}.{i % 100:02d}")).put("created", at)
            for i in range(1, 1001)]  # fmt: skip
    assert_as_records(schema, rows)


def _one(field: Schema, value: Any, **configs: str) -> tuple[Any, Any]:
    """(the column path's answer, the record path's bytes or its error's type)."""
    schema = SchemaBuilder.struct().field("x", field).field("i", Schema.INT32_SCHEMA).build()
    row = Struct(schema).put("x", value).put("i", 1)
    json = converter(**configs)
    try:
        record: Any = json.from_connect_data(TOPIC, schema, row)
    except Exception as error:
        record = type(error)
    array = (
        column(schema, [row]) if isinstance(value, Struct)  # a null stays null here:
        else pa.array([{"x": value, "i": 1}], type=column(schema, []).type)
    )  # fmt: skip
    return json.from_connect_column(TOPIC, schema, array), record


@pytest.mark.parametrize(
    ("field", "value", "configs"),
    [
        (Schema.FLOAT64_SCHEMA, 1e10, {}),  # Java prints 1.0E10
        (Schema.FLOAT32_SCHEMA, 0.5, {}),
        (Schema.STRING_SCHEMA, "line\nbreak", {}),  # Jackson's \n escape
        (Schema.STRING_SCHEMA, "\x01", {}),  # Jackson's upper-case \u0001
        (Decimal.schema(1), D("1.5"), {"decimal.format": "NUMERIC"}),
        (SchemaBuilder.string().optional().default_value("d").build(), None, {}),  # the default
        (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1], {}),
        (SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build(), None, {}),
    ],
    ids=["double", "float", "newline", "control", "numeric decimal", "default", "array", "struct"],
)
def test_what_the_records_write_their_own_way(field: Schema, value: Any, configs: Any) -> None:
    if field.type.name == "STRUCT":
        value = Struct(field).put("a", 1)
    column_answer, record = _one(field, value, **configs)
    assert column_answer is None
    assert isinstance(record, bytes)  # the record path writes it


def test_nulls_the_records_refuse_or_replace() -> None:
    schema = SchemaBuilder.struct().field("x", Schema.OPTIONAL_STRING_SCHEMA).build()
    json = converter()
    assert (
        json.from_connect_column(TOPIC, schema, pa.array([None], column(schema, []).type)) is None
    )  # a null record: the record path writes its envelope with a null payload
    with_default = SchemaBuilder.string().optional().default_value("d").build()
    answer, record = _one(with_default, None, **{"replace.null.with.default": "false"})
    assert answer is not None and answer.to_pylist() == [record]  # null written as null


def test_a_column_of_another_type_is_refused() -> None:
    schema = SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build()
    wide = pa.array([{"x": 2**40}], pa.struct([pa.field("x", pa.int64(), nullable=False)]))
    assert converter().from_connect_column(TOPIC, schema, wide) is None
