"""JSON envelopes of one STRUCT schema as an Arrow struct column, for the batch contract.

The payloads are parsed as NDJSON by pyarrow's JSON reader (C++) against the schema's
*wire* types, what JsonConverter writes (JSON numbers for ints, floats, Date, Time,
Timestamp and NUMERIC decimals), then checked and cast to
:func:`~seaway.connect.api.data.arrow.arrow_type`: the values ``to_connect_data`` and
:func:`~seaway.connect.api.data.arrow.structs_to_table` give record by record. Wherever
the reader takes what Kafka's converter rejects or reads otherwise (a wrapping int, a null
in a required field, a Date out of range, a ``NaN`` literal, a ``-0`` float, a string
decimal, invalid UTF-8 ...), the answer is None and the runtime converts record by record:
slower, never different. BYTES and base64 decimals are read as strings, then decoded
value by value (strict, canonical base64 only); MAP is not read here.
"""

from __future__ import annotations

import binascii
import datetime as dt
from base64 import b64decode
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

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
from seaway.connect.api.data.arrow import arrow_type, structs_to_table
from seaway.connect.converters import columns
from seaway.connect.converters.json_codec import JsonCodec
from seaway.connect.converters.json_config import DecimalFormat

__all__ = ["struct_column"]

_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MS: Final = dt.timedelta(milliseconds=1)
# What the logical types' to_logical accept (Python's datetime range; a time of day).
_RANGES: Final = {
    Timestamp.LOGICAL_NAME: (
        (dt.datetime.min.replace(tzinfo=dt.UTC) - _EPOCH) // _MS,
        (dt.datetime.max.replace(tzinfo=dt.UTC) - _EPOCH) // _MS,
    ),
    Date.LOGICAL_NAME: ((dt.date.min - _EPOCH.date()).days, (dt.date.max - _EPOCH.date()).days),
    Time.LOGICAL_NAME: (0, 24 * 60 * 60 * 1000 - 1),
}
_LOGICAL_WIRE: Final = {
    Timestamp.LOGICAL_NAME: pa.int64(),
    Date.LOGICAL_NAME: pa.int32(),
    Time.LOGICAL_NAME: pa.int32(),
}
_FLOATS: Final = (SchemaType.FLOAT32, SchemaType.FLOAT64)
_NEGATIVE_ZERO: Final = -(2**63)  # the bits of -0.0 as an int64


def struct_column(
    column: pa.Array, prefix: bytes, schema: Schema, codec: JsonCodec
) -> pa.Array | None:
    """The struct column of ``prefix + payload + '}'`` envelopes of STRUCT *schema* (null
    values stay null rows); None where only the per-record path can tell."""
    wire = _wire_type(schema, codec.decimal_format is DecimalFormat.NUMERIC)
    if wire is None or not schema.fields:
        return None
    if not codec.replace_null_with_default and _has_default(schema):
        return None  # a null field with a default: None for Kafka, the default in Arrow
    payloads = columns.strip_frame(column.drop_null(), prefix, b"}")
    if payloads is None or not _one_object_per_line(payloads):
        return None
    structs = _read(payloads, wire)
    probe = _probe_type(schema) if codec.decimal_format is DecimalFormat.NUMERIC else None
    if structs is None or (probe is not None and _read(payloads, probe) is None):
        return None
    converted = _convert(schema, structs)
    return None if converted is None else _spread(converted, column)


def _one_object_per_line(payloads: pa.Array) -> bool:
    """Each payload ``{...}`` in UTF-8 (the reader does not check it). Joined by newlines,
    each then makes at least one row or an error (a newline inside an object is only
    whitespace, or splits it into two invalid halves), so *n* rows are *n* payloads."""
    return columns.framed(payloads, b"{", b"}") and columns.utf8(payloads) is not None


def _read(payloads: pa.Array, wire: pa.DataType) -> pa.StructArray | None:
    """*payloads* read as NDJSON into a struct array of *wire*; None on any error or if a
    payload did not make exactly one row."""
    lines = pa.ListArray.from_arrays(pa.array([0, len(payloads)], pa.int32()), payloads)
    data = pc.binary_join(lines, b"\n")[0].as_buffer()
    longest = pc.max(pc.binary_length(payloads)).as_py()
    try:
        table = pj.read_json(
            pa.BufferReader(data),
            read_options=pj.ReadOptions(block_size=max(1 << 20, longest + 1)),
            parse_options=pj.ParseOptions(
                explicit_schema=pa.schema(list(wire)), unexpected_field_behavior="ignore"
            ),
        )
    except pa.ArrowException:
        return None
    if table.num_rows != len(payloads):
        return None
    return table.to_struct_array().combine_chunks()


def _wire_type(schema: Schema, numeric_decimals: bool) -> pa.DataType | None:
    """The Arrow type the JSON reader reads *schema*'s payloads as; None if it cannot."""
    if schema.name == Decimal.LOGICAL_NAME:
        return arrow_type(schema) if numeric_decimals else pa.string()
    if schema.name in _LOGICAL_WIRE:
        return _LOGICAL_WIRE[schema.name]
    kind = schema.type
    if kind is SchemaType.STRUCT:
        fields = [(f.name, _wire_type(f.schema, numeric_decimals)) for f in schema.fields]
        return None if any(t is None for _, t in fields) else pa.struct(fields)
    if kind is SchemaType.ARRAY:
        element = _wire_type(_element(schema), numeric_decimals)
        return None if element is None else pa.list_(element)
    if kind is SchemaType.BYTES:
        return pa.string()  # base64: a JSON number or boolean there fails the read
    if kind is SchemaType.MAP:
        return None
    return pa.float64() if kind in _FLOATS else arrow_type(schema)


def _probe_type(schema: Schema) -> pa.DataType | None:
    """Only the paths to Decimal fields, as JSON numbers: a string there (the reader takes
    ``"1.5"`` as a decimal, Kafka as base64) fails this read."""
    if schema.name == Decimal.LOGICAL_NAME:
        return pa.float64()
    if schema.type is SchemaType.ARRAY:
        element = _probe_type(_element(schema))
        return None if element is None else pa.list_(element)
    if schema.type is SchemaType.STRUCT:
        fields = [(f.name, t) for f in schema.fields if (t := _probe_type(f.schema)) is not None]
        return pa.struct(fields) if fields else None
    return None


def _has_default(schema: Schema) -> bool:
    if schema.default_value is not None:
        return True
    if schema.type is SchemaType.STRUCT:
        return any(_has_default(f.schema) for f in schema.fields)
    return schema.type is SchemaType.ARRAY and _has_default(_element(schema))


def _element(schema: Schema) -> Schema:
    element = schema.value_schema
    assert element is not None  # SchemaBuilder.array requires it
    return element


def _convert(schema: Schema, wire: pa.Array) -> pa.Array | None:
    """*wire* values as *schema*'s Arrow type; None if one is not what Kafka reads."""
    bounds = _RANGES.get(schema.name or "")
    if bounds is not None:
        return wire.cast(arrow_type(schema)) if _within(wire, *bounds) else None
    if schema.type is SchemaType.STRUCT:
        return _struct(schema, wire)
    if schema.type is SchemaType.ARRAY:
        return _list(schema, wire)
    if schema.type in _FLOATS:
        return wire.cast(arrow_type(schema)) if _plain_floats(wire) else None
    if schema.type is SchemaType.BYTES and pa.types.is_string(wire.type):
        return _from_base64(schema, wire)
    return wire  # ints, booleans, strings and numeric decimals are read as they are


def _from_base64(schema: Schema, wire: pa.Array) -> pa.Array | None:
    """BYTES or Decimal values written as base64 text, decoded; None if one is not
    canonical base64 (Jackson's decoder may read it otherwise) or a decimal's unscaled
    value is empty (Java's BigInteger refuses it) or beyond the Arrow type's precision."""
    try:
        data = [None if v is None else b64decode(v, validate=True) for v in wire.to_pylist()]
    except (binascii.Error, ValueError):
        return None
    if schema.name != Decimal.LOGICAL_NAME:
        return pa.array(data, pa.binary())
    target = arrow_type(schema)
    limit = 10**target.precision
    words = bytearray()
    for value in data:
        unscaled = 0
        if value is not None:
            if not value:
                return None
            unscaled = int.from_bytes(value, "big", signed=True)
            if not -limit < unscaled < limit:
                return None
        words += unscaled.to_bytes(16, "little", signed=True)  # decimal128's layout
    validity = wire.is_valid().buffers()[1] if wire.null_count else None
    return pa.Array.from_buffers(target, len(wire), [validity, pa.py_buffer(bytes(words))])


def _struct(schema: Schema, wire: pa.StructArray) -> pa.Array | None:
    present = wire.is_valid()
    children = []
    for field in schema.fields:
        child = _convert(field.schema, wire.field(field.name))
        child = None if child is None else _fill(field.schema, child, present)
        if child is None:
            return None
        children.append(child)
    target = arrow_type(schema)
    fields = [target.field(i) for i in range(target.num_fields)]
    return pa.StructArray.from_arrays(children, fields=fields, mask=wire.is_null())


def _list(schema: Schema, wire: pa.ListArray) -> pa.Array | None:
    element = _element(schema)
    values = _convert(element, wire.values)
    values = None if values is None else _fill(element, values, None)
    if values is None:
        return None
    return pa.ListArray.from_arrays(
        wire.offsets, values, type=arrow_type(schema), mask=wire.is_null()
    )


def _fill(schema: Schema, values: pa.Array, present: pa.Array | None) -> pa.Array | None:
    """Kafka's rule for a null or missing value where the parent is *present* (None: all
    are): the default, else null if optional; None (Kafka's DataError) if required."""
    missing = values.is_null() if present is None else pc.and_(values.is_null(), present)
    if not pc.any(missing).as_py():
        return values
    if schema.default_value is not None:
        return pc.if_else(missing, _default(schema), values)
    return values if schema.is_optional else None


def _default(schema: Schema) -> pa.Scalar:
    """*schema*'s default as an Arrow scalar, built as structs_to_table builds values."""
    holder = SchemaBuilder.struct().field("default", schema).build()
    return structs_to_table(holder, [Struct(holder)]).column(0)[0]


def _within(values: pa.Array, low: int, high: int) -> bool:
    extremes = pc.min_max(values)
    least, most = extremes["min"].as_py(), extremes["max"].as_py()
    return least is None or (low <= least and most <= high)


def _plain_floats(values: pa.Array) -> bool:
    """No ``NaN``/``Infinity`` literal (Kafka rejects them) and no ``-0``, which Kafka
    reads as 0.0 when it is an integer."""
    return not (
        pc.any(pc.invert(pc.is_finite(values))).as_py()
        or pc.any(pc.equal(values.view(pa.int64()), _NEGATIVE_ZERO)).as_py()
    )


def _spread(structs: pa.Array, column: pa.Array) -> pa.Array:
    """*structs* (one per non-null value of *column*) with *column*'s nulls as null rows."""
    if not column.null_count:
        return structs
    present = column.is_valid()
    rows = pc.subtract(pc.cumulative_sum(present.cast(pa.int64())), 1)
    return structs.take(pc.if_else(present, rows, pa.scalar(None, pa.int64())))
