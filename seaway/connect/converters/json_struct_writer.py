"""An Arrow struct column of one STRUCT schema as JSON, for the batch contract (the reverse
of :mod:`~seaway.connect.converters.json_structs`).

Each value's text is built field by field with Arrow's compute kernels: integers, Date,
Time and Timestamp as their numbers, booleans, strings as JSON string literals (``"`` and
``\\`` escaped), BYTES and base64 decimals encoded value by value, nulls as ``null``; the
fields joined in the schema's order inside the envelope's frame. Byte for byte what
``from_connect_data`` writes record by record, or None wherever that is not sure (floats,
which Java prints its own way; numeric decimals; nested structs, arrays and maps; control
characters; a null where the record path writes a default or fails; null records): the
runtime then converts record by record.
"""

from __future__ import annotations

from base64 import b64encode
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from seaway.connect.api.data import Date, Decimal, Schema, SchemaType, Time, Timestamp
from seaway.connect.api.data.arrow import arrow_type
from seaway.connect.api.data.logical import to_twos_complement
from seaway.connect.converters.json_config import DecimalFormat
from seaway.connect.converters.json_text import string_bytes

__all__ = ["struct_envelopes"]

_NUMBERS: Final = frozenset((SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64))
_LOGICAL_NUMBERS: Final = {
    Date.LOGICAL_NAME: pa.int32(),
    Time.LOGICAL_NAME: pa.int32(),
    Timestamp.LOGICAL_NAME: pa.int64(),
}
_CONTROL: Final = r"[\x00-\x1f]"  # written as \n-style or \u00XX escapes: left to the records
_NULL: Final = pa.scalar(b"null", pa.binary())


def struct_envelopes(
    column: pa.Array,
    schema: Schema,
    prefix: bytes,
    suffix: bytes,
    decimal_format: DecimalFormat,
    replace_null_with_default: bool,
) -> pa.Array | None:
    """``prefix + payload + suffix`` of every value of a struct *column* of STRUCT
    *schema*, as a ``binary`` array; None where the per-record path must decide."""
    if column.null_count or not schema.fields or not column.type.equals(arrow_type(schema)):
        return None
    pieces: list[pa.Array | pa.Scalar] = []
    for i, field in enumerate(schema.fields):
        values = column.field(field.name)
        nulls = values.null_count
        if nulls and not _null_written(field.schema, replace_null_with_default):
            return None  # the record path writes the default or fails
        text = _text(field.schema, values, decimal_format)
        if text is None:
            return None
        opening = (prefix + b"{" if i == 0 else b",") + string_bytes(field.name) + b":"
        pieces += [pa.scalar(opening, pa.binary()), text.fill_null(_NULL) if nulls else text]
    pieces.append(pa.scalar(b"}" + suffix, pa.binary()))
    return pc.binary_join_element_wise(*pieces, b"")


def _null_written(schema: Schema, replace_null_with_default: bool) -> bool:
    """Whether the record path writes a null of *schema* as ``null``."""
    return schema.is_optional and (schema.default_value is None or not replace_null_with_default)


def _text(schema: Schema, values: pa.Array, decimal_format: DecimalFormat) -> pa.Array | None:
    """The JSON text of each value of one field (null for a null), as ``binary``."""
    name, kind = schema.name, schema.type
    if name == Decimal.LOGICAL_NAME:
        return _base64_decimals(values) if decimal_format is DecimalFormat.BASE64 else None
    if name in _LOGICAL_NUMBERS:
        return values.cast(_LOGICAL_NUMBERS[name]).cast(pa.string()).cast(pa.binary())
    if name is not None:
        return None  # a named schema: another converter's logical type, a named struct
    if kind in _NUMBERS:
        return values.cast(pa.string()).cast(pa.binary())
    if kind is SchemaType.BOOLEAN:
        return pc.if_else(values, b"true", b"false").cast(pa.binary())
    if kind is SchemaType.STRING:
        return _string_literals(values)
    if kind is SchemaType.BYTES:
        return _quoted([None if v is None else b64encode(v) for v in values.to_pylist()])
    return None  # floats, structs, arrays, maps


def _string_literals(values: pa.Array) -> pa.Array | None:
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return None
    if len(values) and pc.any(pc.match_substring_regex(values, _CONTROL)).as_py():
        return None
    escaped = pc.replace_substring(pc.replace_substring(values, "\\", "\\\\"), '"', '\\"')
    quote = pa.scalar(b'"', pa.binary())
    return pc.binary_join_element_wise(quote, escaped.cast(pa.binary()), quote, b"")


def _base64_decimals(values: pa.Array) -> pa.Array | None:
    """Each decimal's unscaled two's-complement bytes (BigInteger.toByteArray) in base64."""
    if not pa.types.is_decimal128(values.type):
        return None
    data = values.buffers()[1]
    assert data is not None
    words = memoryview(data)[values.offset * 16 : (values.offset + len(values)) * 16]
    valid = values.is_valid().to_pylist()
    encoded = [
        b64encode(to_twos_complement(int.from_bytes(words[i * 16 : i * 16 + 16], "little",
                                                    signed=True)))
        if present else None
        for i, present in enumerate(valid)
    ]  # fmt: skip
    return _quoted(encoded)


def _quoted(texts: list[bytes | None]) -> pa.Array:
    quote = pa.scalar(b'"', pa.binary())
    return pc.binary_join_element_wise(quote, pa.array(texts, pa.binary()), quote, b"")
