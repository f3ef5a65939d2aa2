"""The explicit index mapping made from a value schema (Confluent's ``Mapping.buildMapping``)."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest

from seaway.connect.api.data import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Time,
    Timestamp,
)
from seaway.connect.api.errors import DataError
from seaway.connect.converters.json_text import dumps
from seaway.connectors.elasticsearch.mapping import mapping_for

TEXT = {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (Schema.BOOLEAN_SCHEMA, {"type": "boolean"}),
        (Schema.BYTES_SCHEMA, {"type": "binary"}),
        (Schema.INT8_SCHEMA, {"type": "byte"}),
        (Schema.INT16_SCHEMA, {"type": "short"}),
        (Schema.INT32_SCHEMA, {"type": "integer"}),
        (Schema.INT64_SCHEMA, {"type": "long"}),
        (Schema.FLOAT32_SCHEMA, {"type": "float"}),
        (Schema.FLOAT64_SCHEMA, {"type": "double"}),
        (Schema.OPTIONAL_STRING_SCHEMA, TEXT),
        (Decimal.schema(2), {"type": "double"}),
        (Date.SCHEMA, {"type": "date"}),
        (Time.SCHEMA, {"type": "date"}),
        (Timestamp.SCHEMA, {"type": "date"}),
        # Debezium's temporal types are plain integers to the mapping
        (SchemaBuilder.int32().name("io.debezium.time.Date").build(), {"type": "integer"}),
        (SchemaBuilder.array(Schema.INT16_SCHEMA).build(), {"type": "short"}),
        (SchemaBuilder.array(SchemaBuilder.array(Date.SCHEMA).build()).build(), {"type": "date"}),
    ],
)
def test_types(schema: Schema, expected: dict[str, Any]) -> None:
    assert mapping_for(schema) == expected


def test_the_anchor_customers_schema() -> None:
    schema = (
        SchemaBuilder.struct().name("dbserver1.inventory.customers.Value")
        .field("id", Schema.INT32_SCHEMA)
        .field("email", Schema.STRING_SCHEMA)
        .field("balance", Decimal.builder(2).optional().build())
        .field("updated_at", Timestamp.builder().optional().build())
        .build()
    )  # fmt: skip
    body = mapping_for(schema)
    assert body == {
        "properties": {
            "id": {"type": "integer"},
            "email": TEXT,
            "balance": {"type": "double"},
            "updated_at": {"type": "date"},
        }
    }
    assert dumps(body) == (
        b'{"properties":{"id":{"type":"integer"},"email":{"type":"text","fields":{"keyword":'
        b'{"type":"keyword","ignore_above":256}}},"balance":{"type":"double"},'
        b'"updated_at":{"type":"date"}}}'
    )


def test_nested_structs_arrays_and_maps() -> None:
    address = SchemaBuilder.struct().field("city", Schema.STRING_SCHEMA).build()
    schema = (
        SchemaBuilder.struct()
        .field("address", address)
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
        .field("history", SchemaBuilder.array(address).optional().build())
        .field("scores", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).build())
        .field("by_id", SchemaBuilder.map(Schema.INT64_SCHEMA, address).build())
        .build()
    )
    city = {"properties": {"city": TEXT}}
    assert mapping_for(schema) == {
        "properties": {
            "address": city,
            "tags": TEXT,
            "history": city,
            # maps are mapped as key/value objects even when written compact
            "scores": {"properties": {"key": TEXT, "value": {"type": "double"}}},
            "by_id": {"properties": {"key": {"type": "long"}, "value": city}},
        }
    }
    assert list(mapping_for(schema)["properties"]) == [
        "address", "tags", "history", "scores", "by_id"
    ]  # fmt: skip


def test_defaults_become_null_values() -> None:
    def field(builder: SchemaBuilder, default: Any) -> Schema:
        return builder.optional().default_value(default).build()

    schema = (
        SchemaBuilder.struct()
        .field("b", field(SchemaBuilder.int8(), -128))
        .field("s", field(SchemaBuilder.int16(), 7))
        .field("i", field(SchemaBuilder.int32(), 2**31 - 1))
        .field("l", field(SchemaBuilder.int64(), -(2**63)))
        .field("f", field(SchemaBuilder.float32(), 0.10000000149011612))
        .field("d", field(SchemaBuilder.float64(), 1e20))
        .field("ok", field(SchemaBuilder.boolean(), False))
        .field("amount", field(Decimal.builder(2), decimal.Decimal("12.50")))
        .field("day", field(Date.builder(), dt.date(1970, 1, 3)))
        .field("at", field(Time.builder(), dt.time(0, 0, 1, 500000)))
        .field("ts", field(Timestamp.builder(), dt.datetime(2026, 1, 2, tzinfo=dt.UTC)))
        .field("text", field(SchemaBuilder.string(), "n/a"))
        .field("raw", field(SchemaBuilder.bytes(), b"\x00"))
        .build()
    )
    properties = mapping_for(schema)["properties"]
    nulls = {name: m.get("null_value") for name, m in properties.items()}
    assert nulls == {
        "b": -128, "s": 7, "i": 2**31 - 1, "l": -(2**63), "f": 0.10000000149011612,
        "d": 1e20, "ok": False, "amount": 12.5,
        "day": 2 * 86_400_000,  # java.util.Date.getTime(): milliseconds, not the day count
        "at": 1500, "ts": 1_767_312_000_000,
        "text": None, "raw": None,  # Elasticsearch takes no null_value for text or binary
    }  # fmt: skip
    assert properties["text"] == TEXT and properties["raw"] == {"type": "binary"}
    # floats print as Java prints them (Float.toString, Double.toString)
    assert dumps(properties["f"]) == b'{"type":"float","null_value":0.1}'
    assert dumps(properties["d"]) == b'{"type":"double","null_value":1.0E20}'
    assert dumps(properties["amount"]) == b'{"type":"double","null_value":12.5}'
    assert list(properties["i"]) == ["type", "null_value"]


def test_struct_and_array_defaults_give_no_null_value() -> None:
    element = SchemaBuilder.int32().optional().default_value(3).build()
    array = SchemaBuilder.array(element).optional().default_value([1]).build()
    assert mapping_for(array) == {"type": "integer", "null_value": 3}


def test_no_schema() -> None:
    with pytest.raises(DataError, match=r"^Cannot infer mapping without schema\.$"):
        mapping_for(None)
