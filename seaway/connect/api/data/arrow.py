"""Connect schemas and values as Arrow types and arrays.

The types follow what Parquet files of Confluent's storage connectors hold (through Avro):
INT8/INT16/INT32/INT64 the same widths, FLOAT32/FLOAT64, BOOLEAN, STRING, BYTES as binary,
Decimal as ``decimal128`` (precision from ``connect.decimal.precision``, else 38), Date as
``date32``, Time as ``time32[ms]``, Timestamp as ``timestamp[ms, UTC]``, ARRAY as a list,
MAP as a map, STRUCT as a struct. Optional schemas are nullable fields.

>>> from seaway.connect.api.data import Schema, SchemaBuilder, Struct
>>> schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
>>> arrow_type(schema)
StructType(struct<id: int32 not null>)
>>> structs_to_table(schema, [Struct(schema).put("id", 7)]).to_pylist()
[{'id': 7}]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pyarrow as pa

from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp
from seaway.connect.api.data.schema import Schema, SchemaType
from seaway.connect.api.data.struct import Struct

__all__ = [
    "arrow_schema",
    "arrow_type",
    "arrow_values",
    "connect_value",
    "connect_values",
    "structs_to_table",
]

_PRIMITIVES = {
    SchemaType.INT8: pa.int8(), SchemaType.INT16: pa.int16(), SchemaType.INT32: pa.int32(),
    SchemaType.INT64: pa.int64(), SchemaType.FLOAT32: pa.float32(),
    SchemaType.FLOAT64: pa.float64(), SchemaType.BOOLEAN: pa.bool_(),
    SchemaType.STRING: pa.string(), SchemaType.BYTES: pa.binary(),
}  # fmt: skip


_NESTED = (SchemaType.STRUCT, SchemaType.ARRAY, SchemaType.MAP)


def arrow_type(schema: Schema) -> pa.DataType:
    """The Arrow type of a Connect schema."""
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        precision = int((schema.parameters or {}).get("connect.decimal.precision", "38"))
        return pa.decimal128(min(max(precision, 1), 38), Decimal.scale(schema))
    if name == Date.LOGICAL_NAME:
        return pa.date32()
    if name == Time.LOGICAL_NAME:
        return pa.time32("ms")
    if name == Timestamp.LOGICAL_NAME:
        return pa.timestamp("ms", tz="UTC")
    kind = schema.type
    if kind in _PRIMITIVES:
        return _PRIMITIVES[kind]
    if kind is SchemaType.ARRAY:
        return pa.list_(_field("element", _element(schema.value_schema)))
    if kind is SchemaType.MAP:
        key, value = _element(schema.key_schema), _element(schema.value_schema)
        return pa.map_(arrow_type(key), _field("value", value))
    return pa.struct([_field(f.name, f.schema) for f in schema.fields])


def _element(schema: Schema | None) -> Schema:
    """An ARRAY's or MAP's element schema: SchemaBuilder requires them (not checked here)."""
    return cast(Schema, schema)


def _field(name: str, schema: Schema) -> pa.Field:
    return pa.field(name, arrow_type(schema), nullable=schema.is_optional)


def arrow_schema(schema: Schema) -> pa.Schema:
    """The Arrow schema of a Connect STRUCT schema: one column per field."""
    return pa.schema([_field(f.name, f.schema) for f in schema.fields])


def _python(schema: Schema, value: Any) -> Any:
    """A Connect value as the Python value pyarrow builds *schema*'s Arrow type from."""
    if value is None:
        return schema.default_value
    kind = schema.type
    if kind is SchemaType.STRUCT:
        return {f.name: _python(f.schema, value.get(f.name)) for f in schema.fields}
    if kind is SchemaType.ARRAY:
        element = _element(schema.value_schema)
        return [_python(element, v) for v in value]
    if kind is SchemaType.MAP:
        key, element = _element(schema.key_schema), _element(schema.value_schema)
        return [(_python(key, k), _python(element, v)) for k, v in value.items()]
    return value


def arrow_values(
    schema: Schema, values: Sequence[Any], kind: pa.DataType | None = None
) -> pa.Array:
    """Connect values of *schema* as an Arrow array of its type, or of *kind* (a type of the
    same shape: other widths or units, a struct's fields by name, missing ones null)."""
    return pa.array([_python(schema, v) for v in values], type=kind or arrow_type(schema))


def structs_to_table(schema: Schema, values: Sequence[Struct]) -> pa.Table:
    """Struct values of one STRUCT schema as a table, one column per field."""
    columns = []
    for field in schema.fields:
        items = [_python(field.schema, v.get(field.name)) for v in values]
        columns.append(pa.array(items, type=arrow_type(field.schema)))
    return pa.Table.from_arrays(columns, schema=arrow_schema(schema))


def connect_values(schema: Schema | None, column: pa.Array) -> list[Any]:
    """The Connect values of an Arrow column of *schema*'s type (the reverse of
    :func:`structs_to_table`'s columns): structs as :class:`Struct`, maps as dicts, logical
    types as their Python values; without a schema, the column's Python values."""
    values: list[Any] = column.to_pylist()
    if schema is None or schema.type not in _NESTED:
        return values
    return [_connect(schema, v) for v in values]


def connect_value(schema: Schema, value: Any) -> Any:
    """One value of an Arrow column's ``to_pylist()`` as the Connect value of *schema*."""
    return _connect(schema, value) if schema.type in _NESTED else value


def _connect(schema: Schema, value: Any) -> Any:
    """A value of ``to_pylist()`` as the Connect value of *schema*."""
    if value is None:
        return None
    kind = schema.type
    if kind is SchemaType.STRUCT:
        struct = Struct(schema)
        for f in schema.fields:
            struct.put(f.name, _connect(f.schema, value.get(f.name)))
        return struct
    if kind is SchemaType.ARRAY:
        element = _element(schema.value_schema)
        return [_connect(element, v) for v in value]
    if kind is SchemaType.MAP:
        key, element = _element(schema.key_schema), _element(schema.value_schema)
        return {_connect(key, k): _connect(element, v) for k, v in value}
    return value
