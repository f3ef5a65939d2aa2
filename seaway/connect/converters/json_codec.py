"""Connect schemas and values to and from JSON trees, as Kafka's ``JsonConverter`` does.

A JSON tree is the plain-Python form of :mod:`seaway.connect.converters.json_text`.
Schema JSON keys are written in Kafka's order: ``type``, then ``items`` / ``keys`` +
``values`` / ``fields``, then ``optional``, ``name``, ``version``, ``doc``,
``parameters``, ``default``; a struct field's ``field`` name comes after its schema's keys.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import json
import math
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

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
from seaway.connect.api.data.schema import class_name
from seaway.connect.api.errors import DataError, SchemaBuilderError
from seaway.connect.converters.json_config import DecimalFormat
from seaway.connect.converters.json_text import MISSING, node_type
from seaway.java.lru_cache import LruCache
from seaway.java.numbers import JavaFloat, narrow, to_float32

TYPE_NAMES: Final = {
    SchemaType.BOOLEAN: "boolean",
    SchemaType.INT8: "int8",
    SchemaType.INT16: "int16",
    SchemaType.INT32: "int32",
    SchemaType.INT64: "int64",
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double",
    SchemaType.BYTES: "bytes",
    SchemaType.STRING: "string",
    SchemaType.ARRAY: "array",
    SchemaType.MAP: "map",
    SchemaType.STRUCT: "struct",
}
_TYPES_BY_NAME: Final = {name: t for t, name in TYPE_NAMES.items()}
_INT_BITS: Final = {
    SchemaType.INT8: 8,
    SchemaType.INT16: 16,
    SchemaType.INT32: 32,
    SchemaType.INT64: 64,
}
_NON_FINITE: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_WRITERS_KEPT: Final = 1024


def _int_in(bits: int) -> Callable[[Any], bool]:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return lambda value: type(value) is int and low <= value <= high


_FAST_PRIMITIVES: Final[dict[SchemaType, Callable[[Any], bool]]] = {
    **{t: _int_in(bits) for t, bits in _INT_BITS.items()},
    SchemaType.STRING: lambda value: type(value) is str,
    SchemaType.BOOLEAN: lambda value: value is True or value is False,
    SchemaType.BYTES: lambda value: type(value) is bytes,
    SchemaType.FLOAT64: lambda value: type(value) is float,
}
"""Per primitive type, the test a value passes to be its own JSON node as it is (anything
else goes through the general conversion and its checks)."""


def _is_integral(node: Any) -> bool:
    return isinstance(node, int) and not isinstance(node, bool)


def _is_number(node: Any) -> bool:
    return _is_integral(node) or isinstance(node, decimal.Decimal | float)


def _java_int(node: Any, schema_type: SchemaType) -> int:
    """``intValue()``/``longValue()`` narrowed to the type's width, as Kafka reads ints."""
    if not _is_number(node):
        raise DataError(
            f"Invalid type for {schema_type}: expected a number but found {node_type(node)}"
        )
    return narrow(int(node), _INT_BITS[schema_type])


def _java_double(node: Any, schema_type: SchemaType) -> float:
    if isinstance(node, str) and node in _NON_FINITE:
        return _NON_FINITE[node]  # what Jackson writes for NaN and infinities
    if not _is_number(node):
        raise DataError(
            f"Invalid type for {schema_type}: expected a number but found {node_type(node)}"
        )
    try:
        return float(node)
    except OverflowError:
        return math.inf if node > 0 else -math.inf


def _decode_base64(node: Any) -> bytes:
    if isinstance(node, bytes | bytearray):
        return bytes(node)
    if not isinstance(node, str):
        raise DataError(f"Invalid type for BYTES: expected base64 text but found {node_type(node)}")
    try:
        return base64.b64decode(node, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise DataError("Invalid bytes field") from exc


def _hashable(key: Any) -> Any:
    """Map keys read from JSON: arrays become tuples; objects cannot be keys."""
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    try:
        hash(key)
    except TypeError:
        raise DataError(f"Map key {key} cannot be used as a Python dict key") from None
    return key


def _cache_key(node: Any) -> str:
    return json.dumps(node, sort_keys=True, default=lambda d: {"$decimal": str(d)})


T = TypeVar("T")


def per_schema(
    cache: dict[int, tuple[Any, T]], schema: Any, compute: Callable[[], T], kept: int = 256
) -> T:
    """*compute()* for *schema*, once per schema object (by identity: an equal schema of
    another object computes again); *cache* holds at most *kept* entries."""
    cached = cache.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    if len(cache) >= kept:
        cache.clear()
    value = compute()
    cache[id(schema)] = (schema, value)
    return value


class JsonCodec:
    """Converts between Connect data and JSON trees with one converter's settings."""

    def __init__(
        self,
        decimal_format: DecimalFormat = DecimalFormat.BASE64,
        replace_null_with_default: bool = True,
        cache_size: int = 1000,
    ) -> None:
        self.decimal_format = decimal_format
        self.replace_null_with_default = replace_null_with_default
        self.from_connect_schema_cache: LruCache[Schema, dict[str, Any]] = LruCache(cache_size)
        self._writers: dict[int, tuple[Schema, Callable[[Any], Any]]] = {}
        self.to_connect_schema_cache: LruCache[Any, Schema] = LruCache(cache_size)

    # ------------------------------------------------------------------ schemas

    def schema_to_json(self, schema: Schema | None) -> dict[str, Any] | None:
        """The JSON form of *schema* (None for no schema); do not mutate the result."""
        if schema is None:
            return None
        return self.from_connect_schema_cache.get_or_compute(
            schema, lambda: self._schema_to_json_uncached(schema)
        )

    def _schema_to_json_uncached(self, schema: Schema) -> dict[str, Any]:
        node: dict[str, Any] = {"type": TYPE_NAMES[schema.type]}
        if schema.type is SchemaType.ARRAY:
            node["items"] = self.schema_to_json(schema.value_schema)
        elif schema.type is SchemaType.MAP:
            node["keys"] = self.schema_to_json(schema.key_schema)
            node["values"] = self.schema_to_json(schema.value_schema)
        elif schema.type is SchemaType.STRUCT:
            node["fields"] = [
                {**self._nested_schema_to_json(field.schema), "field": field.name}
                for field in schema.fields
            ]
        node["optional"] = schema.is_optional
        if schema.name is not None:
            node["name"] = schema.name
        if schema.version is not None:
            node["version"] = schema.version
        if schema.doc is not None:
            node["doc"] = schema.doc
        if schema.parameters is not None:
            node["parameters"] = dict(schema.parameters)
        if schema.default_value is not None:
            node["default"] = self.to_json(schema, schema.default_value)
        return node

    def schema_from_json(self, node: Any) -> Schema | None:
        """The schema a JSON schema tree describes (None for JSON null)."""
        if node is None:
            return None
        return self.to_connect_schema_cache.get_or_compute(
            _cache_key(node), lambda: self._schema_from_json_uncached(node)
        )

    def _nested_schema_to_json(self, schema: Schema) -> dict[str, Any]:
        node = self.schema_to_json(schema)
        assert node is not None
        return node

    def _schema_from_json_uncached(self, node: Any) -> Schema:
        type_name = node.get("type") if isinstance(node, dict) else None
        if not isinstance(type_name, str):
            raise DataError("Schema must contain 'type' field")
        schema_type = _TYPES_BY_NAME.get(type_name)
        if schema_type is SchemaType.ARRAY:
            items = node.get("items")
            if items is None:
                raise DataError("Array schema did not specify the element type")
            builder = SchemaBuilder.array(self._nested_schema(items))
        elif schema_type is SchemaType.MAP:
            if "keys" not in node:
                raise DataError("Map schema did not specify the key type")
            if "values" not in node:
                raise DataError("Map schema did not specify the value type")
            keys = self.schema_from_json(node["keys"])
            values = self.schema_from_json(node["values"])
            if keys is None:
                raise SchemaBuilderError("keySchema cannot be null.")
            if values is None:
                raise SchemaBuilderError("valueSchema cannot be null.")
            builder = SchemaBuilder.map(keys, values)
        elif schema_type is SchemaType.STRUCT:
            builder = SchemaBuilder.struct()
            fields = node.get("fields")
            if not isinstance(fields, list):
                raise DataError('Struct schema\'s "fields" argument is not an array.')
            for field in fields:
                name = field.get("field") if isinstance(field, dict) else None
                if not isinstance(name, str):
                    raise DataError("Struct schema's field name not specified properly")
                builder.field(name, self._nested_schema(field))
        elif schema_type is not None:
            builder = SchemaBuilder(schema_type)
        else:
            raise DataError(f"Unknown schema type: {type_name}")

        if node.get("optional") is True:
            builder.optional()
        else:
            builder.required()
        if isinstance(node.get("name"), str):
            builder.name(node["name"])
        if _is_integral(node.get("version")):
            builder.version(narrow(node["version"], 32))
        if isinstance(node.get("doc"), str):
            builder.doc(node["doc"])
        params = node.get("parameters")
        if isinstance(params, dict):
            for param, value in params.items():
                if not isinstance(value, str):
                    raise DataError("Schema parameters must have string values.")
                builder.parameter(param, value)
        if "default" in node:
            builder.default_value(self.to_connect(builder.build(), node["default"]))
        return builder.build()

    def _nested_schema(self, node: Any) -> Schema:
        schema = self.schema_from_json(node)
        assert schema is not None  # only called with JSON objects
        return schema

    # ------------------------------------------------------------------ values to JSON

    def to_json(self, schema: Schema | None, value: Any) -> Any:
        """The JSON tree of *value* (Kafka's ``convertToJson``)."""
        if schema is not None:
            return self.writer(schema)(value)
        if value is None:
            return None
        schema_type = SchemaType.for_value(value)
        if schema_type is None:
            raise DataError(f"Python {class_name(value)} does not have corresponding schema type.")
        return _TO_JSON[schema_type](self, schema, schema_type, value)

    def writer(self, schema: Schema) -> Callable[[Any], Any]:
        """:meth:`to_json` for the values of *schema*, compiled once per schema object: the
        dispatch on its type, logical name and fields happens once, and each value takes
        the shortest path for its expected type (any other value takes the general one,
        with its checks and errors)."""
        return per_schema(self._writers, schema, lambda: self._null_safe(schema), _WRITERS_KEPT)

    def _null_safe(self, schema: Schema) -> Callable[[Any], Any]:
        typed = self._compile(schema)

        def write(value: Any) -> Any:
            return self._null_to_json(schema) if value is None else typed(value)

        return write

    def _null_to_json(self, schema: Schema) -> Any:
        if schema.default_value is not None and self.replace_null_with_default:
            return self.to_json(schema, schema.default_value)
        if schema.is_optional:
            return None
        raise DataError(
            "Conversion error: null value for field that is required and has no default value"
        )

    def _compile(self, schema: Schema) -> Callable[[Any], Any]:
        """The writer of *schema*'s non-null values."""
        t = schema.type
        logical = _LOGICAL_TO_JSON.get(schema.name) if schema.name is not None else None
        if logical is not None:
            return lambda value: logical(self, schema, value)
        general = _TO_JSON[t]
        if t is SchemaType.STRUCT:
            fields = [(f.name, self.writer(f.schema)) for f in schema.fields]

            def struct(value: Any) -> Any:
                if type(value) is Struct and value.schema is schema:
                    return {name: write(v) for (name, write), v in
                            zip(fields, value.field_values(), strict=True)}  # fmt: skip
                return general(self, schema, t, value)

            return struct
        if t is SchemaType.ARRAY and schema.value_schema is not None:
            element = self.writer(schema.value_schema)
            return lambda value: (
                [element(v) for v in value] if type(value) is list
                else general(self, schema, t, value)
            )  # fmt: skip
        fast = _FAST_PRIMITIVES.get(t)
        if fast is not None:
            return lambda value: value if fast(value) else general(self, schema, t, value)
        if t is SchemaType.FLOAT32:
            return lambda value: (
                JavaFloat(value) if type(value) is float else general(self, schema, t, value)
            )
        return lambda value: general(self, schema, t, value)

    def _primitive_to_json(self, schema: Schema | None, t: SchemaType, value: Any) -> Any:
        if t in _INT_BITS:
            if not _is_integral(value):
                raise _invalid_type(schema, value)
            if narrow(value, _INT_BITS[t]) != value:
                raise DataError(f"Invalid value for {t}: {value} is out of range")
            return value
        if t is SchemaType.FLOAT32 or t is SchemaType.FLOAT64:
            if not isinstance(value, float):
                raise _invalid_type(schema, value)
            return JavaFloat(value) if t is SchemaType.FLOAT32 else value
        expected = {SchemaType.BOOLEAN: bool, SchemaType.STRING: str}.get(t, bytes | bytearray)
        if not isinstance(value, expected):
            raise _invalid_type(schema, value)
        return value

    def _array_to_json(self, schema: Schema | None, t: SchemaType, value: Any) -> list[Any]:
        if not isinstance(value, list | tuple):
            raise _invalid_type(schema, value)
        element_schema = None if schema is None else schema.value_schema
        return [self.to_json(element_schema, element) for element in value]

    def _map_to_json(self, schema: Schema | None, t: SchemaType, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise _invalid_type(schema, value)
        key_schema = None if schema is None else schema.key_schema
        value_schema = None if schema is None else schema.value_schema
        if schema is None:
            object_mode = all(isinstance(k, str) for k in value)
        else:
            object_mode = key_schema is not None and key_schema.type is SchemaType.STRING
        if object_mode:
            result: dict[str, Any] = {}
            for k, v in value.items():
                json_key = self.to_json(key_schema, k)
                result["null" if json_key is None else str(json_key)] = self.to_json(
                    value_schema, v
                )
            return result
        return [
            [self.to_json(key_schema, k), self.to_json(value_schema, v)] for k, v in value.items()
        ]

    def _struct_to_json(self, schema: Schema | None, t: SchemaType, value: Any) -> dict[str, Any]:
        if not isinstance(value, Struct):
            raise _invalid_type(schema, value)
        if schema is None or value.schema != schema:
            raise DataError("Mismatching schema.")
        return {
            field.name: self.to_json(field.schema, value.get_without_default(field.name))
            for field in schema.fields
        }

    def _decimal_to_json(self, schema: Schema, value: Any) -> Any:
        if not isinstance(value, decimal.Decimal):
            raise DataError(
                f"Invalid type for Decimal, expected decimal.Decimal but was {class_name(value)}"
            )
        if self.decimal_format is DecimalFormat.NUMERIC:
            return value
        return Decimal.from_logical(schema, value)

    # ------------------------------------------------------------------ JSON to values

    def to_connect(self, schema: Schema | None, node: Any) -> Any:
        """The Connect value of JSON tree *node* (Kafka's ``convertToConnect``)."""
        if schema is not None:
            if node is None or node is MISSING:
                if schema.default_value is not None and self.replace_null_with_default:
                    return schema.default_value
                if schema.is_optional:
                    return None
                raise DataError(f"Invalid null value for required {schema.type} field")
            if schema.name is not None:
                logical = _LOGICAL_TO_CONNECT.get(schema.name)
                if logical is not None:
                    return logical(schema, node)
            schema_type = schema.type
        else:
            if node is None or node is MISSING:
                return None
            schema_type = _infer_type(node)
        return _TO_CONNECT[schema_type](self, schema, schema_type, node)

    def _primitive_to_connect(self, schema: Schema | None, t: SchemaType, node: Any) -> Any:
        if t in _INT_BITS:
            return _java_int(node, t)
        if t is SchemaType.FLOAT64:
            return _java_double(node, t)
        if t is SchemaType.FLOAT32:
            return to_float32(_java_double(node, t))
        if t is SchemaType.BYTES:
            return _decode_base64(node)
        expected = bool if t is SchemaType.BOOLEAN else str
        if not isinstance(node, expected):
            raise DataError(f"Invalid type for {t}: found {node_type(node)}")
        return node

    def _array_to_connect(self, schema: Schema | None, t: SchemaType, node: Any) -> list[Any]:
        if not isinstance(node, list):
            raise DataError(f"Arrays should be encoded as JSON arrays, but found {node_type(node)}")
        element_schema = None if schema is None else schema.value_schema
        return [self.to_connect(element_schema, element) for element in node]

    def _map_to_connect(self, schema: Schema | None, t: SchemaType, node: Any) -> dict[Any, Any]:
        key_schema = None if schema is None else schema.key_schema
        value_schema = None if schema is None else schema.value_schema
        if schema is None or (key_schema is not None and key_schema.type is SchemaType.STRING):
            if not isinstance(node, dict):
                raise DataError(
                    "Maps with string fields should be encoded as JSON objects, but found "
                    + node_type(node)
                )
            return {k: self.to_connect(value_schema, v) for k, v in node.items()}
        if not isinstance(node, list):
            raise DataError(
                "Maps with non-string fields should be encoded as JSON array of tuples, but found "
                + node_type(node)
            )
        result: dict[Any, Any] = {}
        for entry in node:
            if not isinstance(entry, list):
                raise DataError(
                    "Found invalid map entry instead of array tuple: " + node_type(entry)
                )
            if len(entry) != 2:
                raise DataError(
                    f"Found invalid map entry, expected length 2 but found :{len(entry)}"
                )
            key = _hashable(self.to_connect(key_schema, entry[0]))
            result[key] = self.to_connect(value_schema, entry[1])
        return result

    def _struct_to_connect(self, schema: Schema | None, t: SchemaType, node: Any) -> Struct:
        if not isinstance(node, dict):
            raise DataError(
                f"Structs should be encoded as JSON objects, but found {node_type(node)}"
            )
        assert schema is not None  # schemaless JSON objects are maps
        # to_connect gives each field a value of its schema (or fails), as Kafka's does.
        return Struct.of_values(
            schema, [self.to_connect(f.schema, node.get(f.name)) for f in schema.fields]
        )


def _invalid_type(schema: Schema | None, value: Any) -> DataError:
    type_text = "unknown schema" if schema is None else str(schema.type)
    return DataError(f"Invalid type for {type_text}: {class_name(value)}")


def _infer_type(node: Any) -> SchemaType:
    if isinstance(node, bool):
        return SchemaType.BOOLEAN
    if _is_integral(node):
        return SchemaType.INT64
    if isinstance(node, decimal.Decimal | float):
        return SchemaType.FLOAT64
    if isinstance(node, str):
        return SchemaType.STRING
    if isinstance(node, list):
        return SchemaType.ARRAY
    if isinstance(node, dict):
        return SchemaType.MAP
    raise DataError(f"Unknown schema type: {node_type(node)}")


def _decimal_to_connect(schema: Schema, node: Any) -> decimal.Decimal:
    if _is_number(node):
        return decimal.Decimal(node)
    if isinstance(node, str | bytes | bytearray):
        try:
            return Decimal.to_logical(schema, _decode_base64(node))
        except DataError as exc:
            raise DataError("Invalid bytes for Decimal field") from exc
    raise DataError(
        "Invalid type for Decimal, underlying representation should be numeric or bytes but was "
        + node_type(node)
    )


def _int32_logical_to_connect(logical: type[Date] | type[Time]) -> Callable[[Schema, Any], Any]:
    def convert(schema: Schema, node: Any) -> Any:
        if not _is_integral(node) or narrow(node, 32) != node:
            raise DataError(
                f"Invalid type for {logical.__name__}, underlying representation should be "
                f"integer but was {node_type(node)}"
            )
        return logical.to_logical(schema, node)

    return convert


def _timestamp_to_connect(schema: Schema, node: Any) -> Any:
    if not _is_integral(node):
        raise DataError(
            "Invalid type for Timestamp, underlying representation should be integral but was "
            + node_type(node)
        )
    return Timestamp.to_logical(schema, narrow(node, 64))


_Converter = Callable[[JsonCodec, Schema | None, SchemaType, Any], Any]
_TO_JSON: Final[dict[SchemaType, _Converter]] = {
    **{t: JsonCodec._primitive_to_json for t in SchemaType if t.is_primitive},
    SchemaType.ARRAY: JsonCodec._array_to_json,
    SchemaType.MAP: JsonCodec._map_to_json,
    SchemaType.STRUCT: JsonCodec._struct_to_json,
}
_TO_CONNECT: Final[dict[SchemaType, _Converter]] = {
    **{t: JsonCodec._primitive_to_connect for t in SchemaType if t.is_primitive},
    SchemaType.ARRAY: JsonCodec._array_to_connect,
    SchemaType.MAP: JsonCodec._map_to_connect,
    SchemaType.STRUCT: JsonCodec._struct_to_connect,
}
_LOGICAL_TO_JSON: Final[dict[str, Callable[[JsonCodec, Schema, Any], Any]]] = {
    Decimal.LOGICAL_NAME: JsonCodec._decimal_to_json,
    Date.LOGICAL_NAME: lambda codec, schema, value: Date.from_logical(schema, value),
    Time.LOGICAL_NAME: lambda codec, schema, value: Time.from_logical(schema, value),
    Timestamp.LOGICAL_NAME: lambda codec, schema, value: Timestamp.from_logical(schema, value),
}
_LOGICAL_TO_CONNECT: Final[dict[str, Callable[[Schema, Any], Any]]] = {
    Decimal.LOGICAL_NAME: _decimal_to_connect,
    Date.LOGICAL_NAME: _int32_logical_to_connect(Date),
    Time.LOGICAL_NAME: _int32_logical_to_connect(Time),
    Timestamp.LOGICAL_NAME: _timestamp_to_connect,
}

__all__ = ["TYPE_NAMES", "JsonCodec", "per_schema"]
