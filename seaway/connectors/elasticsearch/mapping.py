"""The explicit mapping Confluent's sink puts on a new index (``Mapping.buildMapping``).

``mapping_for(schema)`` is the body of ``PUT /<index>/_mapping`` made from a record's value
schema. Primitives map to their Elasticsearch type (strings to ``text`` with a ``keyword``
sub-field), Kafka's logical types to ``date`` and ``double``, structs and maps to
``properties`` and arrays to their element's mapping. A default becomes ``null_value``,
except for ``text`` and ``binary``, which Elasticsearch does not allow one for.

Floats are :class:`~seaway.java.numbers.JavaFloat`; write the body with
:func:`seaway.connect.converters.json_text.dumps` to print numbers as Java does.

>>> from seaway.connect.api.data import Schema, SchemaBuilder
>>> mapping_for(SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build())
{'properties': {'id': {'type': 'long'}}}
"""

from __future__ import annotations

from typing import Any, Final

from seaway.connect.api.data import Date, Decimal, Schema, SchemaType, Time, Timestamp
from seaway.connect.api.errors import DataError
from seaway.java.numbers import JavaFloat

__all__ = ["mapping_for"]

KEYWORD_IGNORE_ABOVE: Final = 256
_MILLIS_PER_DAY: Final = 86_400_000

_TYPES: Final = {
    SchemaType.BOOLEAN: "boolean",
    SchemaType.INT8: "byte",
    SchemaType.INT16: "short",
    SchemaType.INT32: "integer",
    SchemaType.INT64: "long",
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double",
    SchemaType.STRING: "text",
    SchemaType.BYTES: "binary",
}
_TEMPORAL: Final = (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME)


def mapping_for(schema: Schema | None) -> dict[str, Any]:
    """The mapping body for values of *schema* (``{"properties": ...}`` for a struct)."""
    if schema is None:
        raise DataError("Cannot infer mapping without schema.")
    if schema.name in _TEMPORAL:
        return _primitive("date", _epoch_millis(schema))
    if schema.name == Decimal.LOGICAL_NAME:
        default = schema.default_value
        return _primitive("double", None if default is None else float(default))
    kind = schema.type
    if kind is SchemaType.ARRAY:
        return mapping_for(schema.value_schema)
    if kind is SchemaType.MAP:
        key = mapping_for(schema.key_schema)
        return {"properties": {"key": key, "value": mapping_for(schema.value_schema)}}
    if kind is SchemaType.STRUCT:
        return {"properties": {f.name: mapping_for(f.schema) for f in schema.fields}}
    return _primitive(_TYPES[kind], _null_value(kind, schema.default_value))


def _primitive(es_type: str, null_value: Any) -> dict[str, Any]:
    """``{"type": ...}``, the keyword sub-field of ``text``, then ``null_value`` if any."""
    mapping: dict[str, Any] = {"type": es_type}
    if es_type == "text":
        keyword = {"type": "keyword", "ignore_above": KEYWORD_IGNORE_ABOVE}
        mapping["fields"] = {"keyword": keyword}
    if null_value is not None:
        mapping["null_value"] = null_value
    return mapping


def _null_value(kind: SchemaType, default: Any) -> Any:
    """A primitive default as ``null_value``; none for strings and bytes."""
    if default is None or kind in (SchemaType.STRING, SchemaType.BYTES):
        return None
    if kind is SchemaType.FLOAT32:
        return JavaFloat(default)
    return default


def _epoch_millis(schema: Schema) -> int | None:
    """A Date/Time/Timestamp default as ``java.util.Date.getTime()``: milliseconds since the
    epoch (a Date's midnight, a Time's instant on 1970-01-01), not what documents hold."""
    default = schema.default_value
    if default is None:
        return None
    if schema.name == Date.LOGICAL_NAME:
        return Date.from_logical(schema, default) * _MILLIS_PER_DAY
    if schema.name == Time.LOGICAL_NAME:
        return Time.from_logical(schema, default)
    return Timestamp.from_logical(schema, default)
