"""The JSON documents of a whole Arrow column of record values, on Arrow compute kernels.

Row *i* of :func:`documents_column` is the document :func:`.documents.document` makes for
row *i*'s value (``schema.ignore`` off): each row's text is joined from pieces
(``{"name":`` literals, values cast to text, ``,`` and ``}``) with
``binary_join_element_wise``, lists and maps from their flattened entries joined per row
with ``binary_join``. No Python object is made per value except for BYTES, which are
base64-encoded value by value.

The documents are equal as JSON, not byte for byte: numbers print the way Arrow prints them
(``1e+20``, not Java's ``1.0E20``; integral doubles keep a ``.0``), and a compact map's
entries keep their column order where Java writes a ``HashMap``'s order. Strings, integers
and the structure are identical.

The column is None (the caller goes record by record, which also raises the exact errors)
when it holds what only that path handles: NaN or infinite floats, a null in a required
field without default, a null element whose default the per-record path writes as it is
(Decimal, array, map or struct), Arrow types other than :mod:`seaway.connect.api.data.arrow`
gives, or more text than one string array holds.

>>> import pyarrow as pa
>>> from seaway.connect.api.data import Schema, SchemaBuilder
>>> schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
>>> documents_column(pa.array([{"id": 7}, None]), schema, compact_map_entries=True).to_pylist()
['{"id":7}', None]
"""

from __future__ import annotations

import base64
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from seaway.connect.api.data import Date, Decimal, Schema, SchemaType, Time, Timestamp
from seaway.connect.api.errors import DataError
from seaway.connect.converters.json_text import string_bytes
from seaway.connectors.elasticsearch.documents import (
    MAP_KEY,
    MAP_VALUE,
    document,
    element_schema,
    key_schema,
)

__all__ = ["documents_column"]

_TEXT: Final = pa.string()
_NULL_TEXT: Final = pa.scalar(None, _TEXT)
_COMMON_CONTROL: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_OTHER_CONTROL: Final = {
    chr(code): {"\b": "\\b", "\f": "\\f"}.get(chr(code), f"\\u{code:04X}")
    for code in range(0x20)
    if chr(code) not in _COMMON_CONTROL
}
_INTEGERS: Final = {
    SchemaType.INT8: pa.int8(),
    SchemaType.INT16: pa.int16(),
    SchemaType.INT32: pa.int32(),
    SchemaType.INT64: pa.int64(),
}
_FLOATS: Final = {SchemaType.FLOAT32: pa.float32(), SchemaType.FLOAT64: pa.float64()}
_RESHAPED_DEFAULTS: Final = (SchemaType.ARRAY, SchemaType.MAP, SchemaType.STRUCT)


class _Unsupported(Exception):
    """The column holds something only the per-record path converts."""


def documents_column(
    column: pa.Array, schema: Schema, *, compact_map_entries: bool
) -> pa.Array | None:
    """A string array of each row's JSON document (null rows stay null), or None when the
    column must go record by record."""
    try:
        return _Writer(compact_map_entries).json(column, schema)
    except _Unsupported:
        return None
    except (pa.ArrowCapacityError, pa.ArrowInvalid):  # offsets past a string array's 2 GiB
        return None


def _text(value: str) -> pa.Scalar:
    return pa.scalar(value, _TEXT)


def _join(*pieces: pa.Array | pa.Scalar) -> pa.Array:
    """Row-wise concatenation; a null piece makes the row null."""
    return pc.binary_join_element_wise(*pieces, "")


def _any(mask: pa.Array) -> bool:
    return len(mask) > 0 and pc.any(mask).as_py() is True


class _Writer:
    """JSON texts of columns for one ``compact.map.entries``: each method returns a string
    array as long as its input, null exactly where the input is null."""

    def __init__(self, compact_map_entries: bool) -> None:
        self.compact = compact_map_entries

    def json(self, column: pa.Array, schema: Schema) -> pa.Array:
        """The JSON text of each value of *column*."""
        name, kind = schema.name, schema.type
        if name == Decimal.LOGICAL_NAME:
            return _decimals(column)
        if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
            return _temporals(column, name, _INTEGERS[kind])
        if kind in _INTEGERS:
            return _integers(column, _INTEGERS[kind])
        if kind in _FLOATS:
            return _floats(column, _FLOATS[kind])
        if kind is SchemaType.BOOLEAN:
            return _booleans(column)
        if kind is SchemaType.STRING:
            return _strings(column)
        if kind is SchemaType.BYTES:
            return _bytes(column)
        if kind is SchemaType.ARRAY:
            return self._array(column, schema)
        if kind is SchemaType.MAP:
            return self._map(column, schema)
        return self._struct(column, schema)

    # ------------------------------------------------------------------ nulls

    def _member(self, values: pa.Array, schema: Schema, replacement: str | None) -> pa.Array:
        """Texts of a field's or element's *values*, nulls written as *replacement*."""
        text = self.json(values, schema)
        if replacement is None or not values.null_count:
            return text
        return pc.fill_null(text, _text(replacement))

    def _field_null(self, schema: Schema) -> str | None:
        """What a null field is written as: its default, ``null``, or None (required)."""
        if schema.default_value is None:
            return "null" if schema.is_optional else None
        try:
            default = document(
                schema, schema.default_value, compact_map_entries=self.compact, schema_ignore=False
            )
        except DataError as exc:
            raise _Unsupported from exc
        return default.decode("utf-8")

    def _element_null(self, schema: Schema) -> str | None:
        """What a null array element or map value is written as. Its default is taken as
        it is, not reshaped: only primitives other than Decimal come out as they would."""
        if schema.default_value is not None and (
            schema.name == Decimal.LOGICAL_NAME or schema.type in _RESHAPED_DEFAULTS
        ):
            raise _Unsupported
        return self._field_null(schema)

    # ------------------------------------------------------------------ containers

    def _elements(self, values: pa.Array, schema: Schema) -> pa.Array:
        """Texts of all elements (flattened), a null taking its element replacement."""
        replacement = self._element_null(schema)
        if replacement is None and values.null_count:
            raise _Unsupported  # "null value for field that is required ..." per record
        return self._member(values, schema, replacement)

    def _array(self, column: pa.Array, schema: Schema) -> pa.Array:
        if not (pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
            raise _Unsupported
        items = self._elements(column.flatten(), element_schema(schema))
        return _wrap("[", _join_lists(column, items), "]")

    def _map(self, column: pa.Array, schema: Schema) -> pa.Array:
        if not pa.types.is_map(column.type):
            raise _Unsupported
        map_type = column.type
        lists = column.cast(pa.list_(pa.struct([map_type.key_field, map_type.item_field])))
        entries = lists.flatten()
        keys_schema, values_schema = key_schema(schema), element_schema(schema)
        keys = self.json(entries.field(0), keys_schema)  # Arrow map keys are never null
        values = self._elements(entries.field(1), values_schema)
        if self.compact and keys_schema.type is SchemaType.STRING:
            return _wrap("{", _join_lists(lists, _join(keys, _text(":"), values)), "}")
        entry = _join(_text(f'{{"{MAP_KEY}":'), keys, _text(f',"{MAP_VALUE}":'), values, _text("}"))
        return _wrap("[", _join_lists(lists, entry), "]")

    def _struct(self, column: pa.Array, schema: Schema) -> pa.Array:
        if not pa.types.is_struct(column.type):
            raise _Unsupported
        children = column.flatten()  # with the struct's nulls
        valid = column.is_valid()
        pieces: list[pa.Array | pa.Scalar] = []
        for position, field in enumerate(schema.fields):
            index = column.type.get_field_index(field.name)
            if index < 0:
                raise _Unsupported
            values = children[index]
            replacement = self._field_null(field.schema)
            if replacement is None and _any(pc.and_(values.is_null(), valid)):
                raise _Unsupported  # "null value for field that is required ..." per record
            label = ("{" if position == 0 else ",") + string_bytes(field.name).decode() + ":"
            pieces += [_text(label), self._member(values, field.schema, replacement)]
        if not pieces:
            return pc.if_else(valid, _text("{}"), _NULL_TEXT)
        joined = _join(*pieces, _text("}"))
        return pc.if_else(valid, joined, _NULL_TEXT) if column.null_count else joined


# ---------------------------------------------------------------------- primitives


def _integers(column: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    if column.type != arrow_type:
        raise _Unsupported
    return column.cast(_TEXT)


def _temporals(column: pa.Array, name: str | None, physical: pa.DataType) -> pa.Array:
    """Date as days, Time as milliseconds of the day, Timestamp as epoch milliseconds."""
    kind = column.type
    if name == Date.LOGICAL_NAME:
        fits = pa.types.is_date32(kind)
    elif name == Time.LOGICAL_NAME:
        fits = kind == pa.time32("ms")
    else:
        fits = pa.types.is_timestamp(kind) and kind.unit == "ms"
    if not fits and kind != physical:
        raise _Unsupported
    return column.view(physical).cast(_TEXT)  # the same bits: days or milliseconds


def _floats(column: pa.Array, arrow_type: pa.DataType) -> pa.Array:
    """Finite floats as Arrow prints them, ``.0`` added to integral ones (Jackson writes
    doubles with a fraction, which dynamic mappings read as floating point)."""
    if column.type != arrow_type:
        raise _Unsupported
    if _any(pc.invert(pc.is_finite(column))):
        raise _Unsupported  # Jackson's quoted "NaN" and "Infinity"
    text = column.cast(_TEXT)
    integral = pc.equal(pc.floor(column), column)
    if not _any(integral):
        return text
    # an integral value prints as digits ("100", "-0") or with an exponent ("1e+20")
    bare = pc.and_(integral, pc.invert(pc.match_substring(text, "e")))
    return pc.if_else(bare, _join(text, _text(".0")), text)


def _decimals(column: pa.Array) -> pa.Array:
    """Decimals as the nearest double (through their exact text: Arrow's own decimal to
    double cast is not correctly rounded)."""
    if not pa.types.is_decimal(column.type):
        raise _Unsupported
    return _floats(column.cast(_TEXT).cast(pa.float64()), pa.float64())


def _booleans(column: pa.Array) -> pa.Array:
    if not pa.types.is_boolean(column.type):
        raise _Unsupported
    return pc.if_else(column, _text("true"), _text("false"))


def json_strings(column: pa.Array) -> pa.Array | None:
    """A string column as JSON string literals, escaped as Jackson escapes them (None for
    another type)."""
    try:
        return _strings(column)
    except _Unsupported:
        return None


def _strings(column: pa.Array) -> pa.Array:
    """JSON string literals, escaped as Jackson escapes them."""
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise _Unsupported
    text = column.cast(_TEXT)
    data = _utf8_bytes(text)
    if _has_control(data) or _has_byte(data, b'"') or _has_byte(data, b"\\"):
        text = _escape(text)
    return _wrap('"', text, '"')


def _utf8_bytes(text: pa.Array) -> pa.Array:
    """All of *text*'s UTF-8 bytes (those under nulls too) as one ``uint8`` array, uncopied:
    byte checks over it are one pass, not one per value."""
    buffers = text.buffers()
    if not len(text) or buffers[2] is None:
        return pa.array([], pa.uint8())
    offsets = pa.Array.from_buffers(
        pa.int32(), len(text) + 1, [None, buffers[1]], offset=text.offset
    )
    start, end = offsets[0].as_py(), offsets[-1].as_py()
    return pa.Array.from_buffers(pa.uint8(), end - start, [None, buffers[2]], offset=start)


def _has_control(data: pa.Array) -> bool:
    """Whether a byte is a control character (below 0x20)."""
    return len(data) > 0 and pc.min(data).as_py() < 0x20


def _has_byte(data: pa.Array, byte: bytes) -> bool:
    return _any(pc.equal(data, pa.scalar(byte[0], pa.uint8())))


def _escape(text: pa.Array) -> pa.Array:
    """Backslashes and quotes escaped, control characters as ``\\n`` or ``\\u001F``."""
    text = pc.replace_substring(text, "\\", "\\\\")
    text = pc.replace_substring(text, '"', '\\"')
    if not _has_control(_utf8_bytes(text)):
        return text
    for char, escaped in _COMMON_CONTROL.items():
        text = pc.replace_substring(text, char, escaped)
    if not _has_control(_utf8_bytes(text)):
        return text
    for char, escaped in _OTHER_CONTROL.items():
        text = pc.replace_substring(text, char, escaped)
    return text


def _bytes(column: pa.Array) -> pa.Array:
    """Base64 in quotes; Arrow has no base64 kernel, so this goes value by value."""
    if not (pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type)):
        raise _Unsupported
    encoded = [
        None if value is None else '"' + base64.b64encode(value).decode("ascii") + '"'
        for value in column.to_pylist()
    ]
    return pa.array(encoded, _TEXT)


# ---------------------------------------------------------------------- helpers


def _wrap(head: str, text: pa.Array, tail: str) -> pa.Array:
    return _join(_text(head), text, _text(tail))


def _join_lists(lists: pa.Array, items: pa.Array) -> pa.Array:
    """Per row of *lists*, its items' texts (*items* is ``lists.flatten()``'s) joined by
    commas; null rows stay null."""
    lengths = pc.fill_null(pc.list_value_length(lists), 0).cast(pa.int64())
    offsets = pa.concat_arrays([pa.array([0], pa.int64()), pc.cumulative_sum(lengths)])
    rows = pa.LargeListArray.from_arrays(offsets, items, mask=lists.is_null())
    return pc.binary_join(rows, _text(","))
