"""A record value as the JSON document Confluent's sink indexes (``DataConverter``).

The value and its schema are first reshaped for Elasticsearch (``preProcessSchema`` and
``preProcessValue``): Decimals become doubles, maps with string keys stay maps (JSON
objects) with ``compact.map.entries`` and otherwise become arrays of ``{"key", "value"}``
structs, and a null takes its schema's default (or fails when required). Kafka's
JsonConverter with ``schemas.enable=false`` then writes the result, so Date, Time and
Timestamp are numbers (days, milliseconds of the day, epoch milliseconds) and bytes base64.
With ``schema.ignore`` (or no schema) the value is written as it is.

This is the per-record reference; :mod:`.document_columns` makes the same documents for
whole Arrow columns.

>>> from seaway.connect.api.data import Schema, SchemaBuilder, Struct
>>> schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build()
>>> document(schema, Struct(schema).put("id", 7), compact_map_entries=True, schema_ignore=False)
b'{"id":7}'
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Final

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
from seaway.connect.api.errors import DataError
from seaway.connect.converters import JsonConverter
from seaway.java.hash_map import hash_map_order, string_hash

__all__ = ["MAP_KEY", "MAP_VALUE", "NULL_REQUIRED", "document", "element_schema", "key_schema"]

MAP_KEY: Final = "key"
MAP_VALUE: Final = "value"
NULL_REQUIRED: Final = "null value for field that is required and has no default value"
_UNCHANGED_LOGICAL: Final = (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME)


def _json_converter() -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, is_key=False)
    return converter


_JSON: Final = _json_converter()


def document(
    schema: Schema | None, value: Any, *, compact_map_entries: bool, schema_ignore: bool
) -> bytes:
    """The JSON document of a record's non-null *value* (``getPayload``).

    Raises :class:`DataError` for values the schema cannot take (a null in a required
    field without default: "null value for field that is required and has no default
    value") and ``ValueError`` for a null value, which ``behavior.on.null.values`` handles
    before any document is made.
    """
    if value is None:
        raise ValueError("a null value (a tombstone) has no document")
    if not schema_ignore and schema is not None:
        new_schema = _reshaped_schema(schema, compact_map_entries)
        value = _PREPROCESSORS[compact_map_entries].value(value, schema, new_schema)
        schema = new_schema
    payload = _JSON.from_connect_data("", schema, value)
    assert payload is not None  # only None for a null value without schema
    return payload


@functools.lru_cache(maxsize=256)
def _reshaped_schema(schema: Schema, compact_map_entries: bool) -> Schema:
    """``preProcessSchema``, once per schema (records of a topic share theirs)."""
    return _PREPROCESSORS[compact_map_entries].schema(schema)


class _Preprocessor:
    """``DataConverter.preProcessSchema``/``preProcessValue`` for one ``compact.map.entries``."""

    def __init__(self, compact_map_entries: bool) -> None:
        self.compact = compact_map_entries

    def _compacts(self, schema: Schema) -> bool:
        """Whether maps of *schema* stay maps: string keys and ``compact.map.entries``."""
        key = schema.key_schema
        return self.compact and key is not None and key.type is SchemaType.STRING

    # ------------------------------------------------------------------ schemas

    def schema(self, schema: Schema) -> Schema:
        """The schema the reshaped value is written with."""
        if schema.name == Decimal.LOGICAL_NAME:
            return self._basics(schema, SchemaBuilder.float64())
        if schema.name in _UNCHANGED_LOGICAL:
            return schema
        if schema.type is SchemaType.ARRAY:
            return self._basics(schema, SchemaBuilder.array(self.schema(element_schema(schema))))
        if schema.type is SchemaType.MAP:
            return self._map_schema(schema)
        if schema.type is SchemaType.STRUCT:
            builder = SchemaBuilder.struct()
            if schema.name is not None:
                builder.name(schema.name)
            for field in schema.fields:
                builder.field(field.name, self.schema(field.schema))
            return self._basics(schema, builder)
        return schema

    def _map_schema(self, schema: Schema) -> Schema:
        key, value = key_schema(schema), element_schema(schema)
        new_key, new_value = self.schema(key), self.schema(value)
        if self._compacts(schema):
            return self._basics(schema, SchemaBuilder.map(new_key, new_value))
        entry = (
            SchemaBuilder.struct()
            .name(f"{key.name or key.type}-{value.name or value.type}")
            .field(MAP_KEY, new_key)
            .field(MAP_VALUE, new_value)
            .build()
        )
        return self._basics(schema, SchemaBuilder.array(entry))

    def _basics(self, source: Schema, target: SchemaBuilder) -> Schema:
        """*target* built with *source*'s optionality and (reshaped) default, but a struct's
        default is dropped (``copySchemaBasics``)."""
        if source.is_optional:
            target.optional()
        default = source.default_value
        if default is not None and source.type is not SchemaType.STRUCT:
            target.default_value(self.value(default, source, target.build()))
        return target.build()

    # ------------------------------------------------------------------ values

    def value(self, value: Any, schema: Schema | None, new_schema: Schema) -> Any:
        """*value* of *schema* reshaped for *new_schema*."""
        if schema is None:
            return value
        if value is None:
            return _null_value(schema)
        if schema.name == Decimal.LOGICAL_NAME:
            return float(value)
        if schema.name in _UNCHANGED_LOGICAL:
            return value
        if schema.type is SchemaType.ARRAY:
            element, new_element = element_schema(schema), element_schema(new_schema)
            return [self.value(item, element, new_element) for item in value]
        if schema.type is SchemaType.MAP:
            return self._map_value(value, schema, new_schema)
        if schema.type is SchemaType.STRUCT:
            return self._struct_value(value, schema, new_schema)
        return value

    def _map_value(self, value: Mapping[Any, Any], schema: Schema, new_schema: Schema) -> Any:
        key, inner = key_schema(schema), element_schema(schema)
        if self._compacts(schema):
            new_key, new_inner = key_schema(new_schema), element_schema(new_schema)
            entries = {
                self.value(k, key, new_key): self.value(v, inner, new_inner)
                for k, v in value.items()
            }
            # a java.util.HashMap: JsonConverter writes its entries in its iteration order
            return dict(hash_map_order(entries.items(), string_hash))
        entry_schema = element_schema(new_schema)
        key_field, value_field = entry_schema.field(MAP_KEY), entry_schema.field(MAP_VALUE)
        assert key_field is not None and value_field is not None
        return [
            Struct(entry_schema)
            .put(MAP_KEY, self.value(k, key, key_field.schema))
            .put(MAP_VALUE, self.value(v, inner, value_field.schema))
            for k, v in value.items()
        ]

    def _struct_value(self, value: Struct, schema: Schema, new_schema: Schema) -> Struct:
        result = Struct(new_schema)
        for field in schema.fields:
            new_field = new_schema.field(field.name)
            assert new_field is not None
            result.put(field.name, self.value(value.get(field), field.schema, new_field.schema))
        return result


_PREPROCESSORS: Final = {flag: _Preprocessor(flag) for flag in (False, True)}


def _null_value(schema: Schema) -> Any:
    """A null's replacement: the schema's default as it is (not reshaped), else None."""
    if schema.default_value is not None:
        return schema.default_value
    if schema.is_optional:
        return None
    raise DataError(NULL_REQUIRED)


def element_schema(schema: Schema) -> Schema:
    """An ARRAY's element or a MAP's value schema (builders require them)."""
    inner = schema.value_schema
    assert inner is not None
    return inner


def key_schema(schema: Schema) -> Schema:
    """A MAP's key schema (builders require it)."""
    key = schema.key_schema
    assert key is not None
    return key
