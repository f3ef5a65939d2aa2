"""Connect schemas: the type enum, struct fields and the immutable :class:`Schema`.

A :class:`Schema` describes a key or value (Kafka's ``ConnectSchema``). Build one with
:class:`~seaway.connect.api.data.SchemaBuilder` or use a predefined constant such as
``Schema.STRING_SCHEMA``. :meth:`Schema.validate_value` checks a Python value against a
schema; these are the Python classes each type accepts:

=================  ==============================================================
type               Python value
=================  ==============================================================
INT8 .. INT64      ``int`` (not ``bool``) within the type's range
FLOAT32, FLOAT64   ``float``
BOOLEAN            ``bool``
STRING             ``str``
BYTES              ``bytes`` or ``bytearray``
ARRAY              ``list`` or ``tuple``
MAP                any ``Mapping``
STRUCT             :class:`~seaway.connect.api.data.Struct` with an equal schema
Decimal            ``decimal.Decimal``
Date               ``datetime.date``
Time               ``datetime.time``
Timestamp          ``datetime.datetime``
=================  ==============================================================

>>> Schema.INT32_SCHEMA.validate(7)
>>> Schema.INT32_SCHEMA.validate("7")
Traceback (most recent call last):
...
seaway.connect.api.errors.DataError: Invalid Python object for schema with type INT32: class str \
for value
"""

from __future__ import annotations

import datetime
import decimal
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from seaway.connect.api.errors import DataError


class SchemaType(enum.Enum):
    """The type of a :class:`Schema` (Kafka's ``Schema.Type``); ``str()`` gives ``INT32``."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    def __str__(self) -> str:
        return self.name

    @property
    def is_primitive(self) -> bool:
        """True for every type but ARRAY, MAP and STRUCT."""
        return self not in (SchemaType.ARRAY, SchemaType.MAP, SchemaType.STRUCT)

    @staticmethod
    def for_value(value: Any) -> SchemaType | None:
        """The type schemaless *value* is treated as (Kafka's ``ConnectSchema.schemaType``).

        ``int`` maps to INT64 and ``float`` to FLOAT64; logical types have no schemaless
        type, so ``decimal.Decimal`` and the ``datetime`` classes give None.
        """
        for classes, schema_type in _SCHEMALESS_TYPES:
            if isinstance(value, classes):
                return schema_type
        if isinstance(value, _struct_class()):
            return SchemaType.STRUCT
        return None


_SCHEMALESS_TYPES: tuple[tuple[type | tuple[type, ...], SchemaType], ...] = (
    (bool, SchemaType.BOOLEAN),  # before int: bool is an int
    (int, SchemaType.INT64),
    (float, SchemaType.FLOAT64),
    (str, SchemaType.STRING),
    ((bytes, bytearray), SchemaType.BYTES),
    ((list, tuple), SchemaType.ARRAY),
    (Mapping, SchemaType.MAP),
)

_INT_RANGES: dict[SchemaType, tuple[int, int]] = {
    SchemaType.INT8: (-(2**7), 2**7 - 1),
    SchemaType.INT16: (-(2**15), 2**15 - 1),
    SchemaType.INT32: (-(2**31), 2**31 - 1),
    SchemaType.INT64: (-(2**63), 2**63 - 1),
}

_TYPE_CLASSES: dict[SchemaType, tuple[type[Any], ...]] = {
    SchemaType.INT8: (int,),
    SchemaType.INT16: (int,),
    SchemaType.INT32: (int,),
    SchemaType.INT64: (int,),
    SchemaType.FLOAT32: (float,),
    SchemaType.FLOAT64: (float,),
    SchemaType.BOOLEAN: (bool,),
    SchemaType.STRING: (str,),
    SchemaType.BYTES: (bytes, bytearray),
    SchemaType.ARRAY: (list, tuple),
    SchemaType.MAP: (Mapping,),
}

# Logical types accept their own Python class instead of the physical type's.
_LOGICAL_TYPE_CLASSES: dict[str, tuple[type[Any], ...]] = {
    "org.apache.kafka.connect.data.Decimal": (decimal.Decimal,),
    "org.apache.kafka.connect.data.Date": (datetime.date,),
    "org.apache.kafka.connect.data.Time": (datetime.time,),
    "org.apache.kafka.connect.data.Timestamp": (datetime.datetime,),
}


def _struct_class() -> type[Any]:
    # Struct validates its values against Schema, so it imports this module.
    from seaway.connect.api.data.struct import Struct

    return Struct


def class_name(value: Any) -> str:
    """``class str`` / ``class pkg.mod.Cls``: how messages name a value's class."""
    cls = type(value)
    module = "" if cls.__module__ == "builtins" else cls.__module__ + "."
    return f"class {module}{cls.__qualname__}"


@dataclass(frozen=True, slots=True)
class Field:
    """A named, positioned field of a STRUCT schema."""

    name: str
    index: int
    schema: Schema

    def __str__(self) -> str:
        return f"Field{{name={self.name}, index={self.index}, schema={self.schema}}}"


class Schema:
    """An immutable schema (Kafka's ``ConnectSchema``; ``ConnectSchema`` is an alias).

    Attributes are read-only properties. ``fields``/``field()`` are only valid on STRUCT,
    ``key_schema`` on MAP and ``value_schema`` on ARRAY and MAP; elsewhere they raise
    :class:`DataError` like Kafka does.
    """

    Type: ClassVar[type[SchemaType]] = SchemaType

    INT8_SCHEMA: ClassVar[Schema]
    INT16_SCHEMA: ClassVar[Schema]
    INT32_SCHEMA: ClassVar[Schema]
    INT64_SCHEMA: ClassVar[Schema]
    FLOAT32_SCHEMA: ClassVar[Schema]
    FLOAT64_SCHEMA: ClassVar[Schema]
    BOOLEAN_SCHEMA: ClassVar[Schema]
    STRING_SCHEMA: ClassVar[Schema]
    BYTES_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT8_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT16_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT32_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT64_SCHEMA: ClassVar[Schema]
    OPTIONAL_FLOAT32_SCHEMA: ClassVar[Schema]
    OPTIONAL_FLOAT64_SCHEMA: ClassVar[Schema]
    OPTIONAL_BOOLEAN_SCHEMA: ClassVar[Schema]
    OPTIONAL_STRING_SCHEMA: ClassVar[Schema]
    OPTIONAL_BYTES_SCHEMA: ClassVar[Schema]

    __slots__ = (
        "_default_value",
        "_doc",
        "_fields",
        "_fields_by_name",
        "_hash",
        "_key_schema",
        "_name",
        "_optional",
        "_parameters",
        "_type",
        "_value_schema",
        "_version",
    )

    def __init__(
        self,
        type: SchemaType,
        optional: bool = False,
        default_value: Any = None,
        name: str | None = None,
        version: int | None = None,
        doc: str | None = None,
        parameters: Mapping[str, str] | None = None,
        fields: tuple[Field, ...] | list[Field] | None = None,
        key_schema: Schema | None = None,
        value_schema: Schema | None = None,
    ) -> None:
        if not isinstance(type, SchemaType):
            raise TypeError(f"schema type must be a SchemaType, got {type!r}")
        self._type = type
        self._optional = bool(optional)
        self._default_value = default_value
        self._name = name
        self._version = version
        self._doc = doc
        self._parameters = None if parameters is None else dict(parameters)
        if type is SchemaType.STRUCT:
            self._fields: tuple[Field, ...] | None = tuple(fields or ())
            self._fields_by_name: dict[str, Field] | None = {f.name: f for f in self._fields}
        else:
            self._fields = None
            self._fields_by_name = None
        self._key_schema = key_schema
        self._value_schema = value_schema
        self._hash: int | None = None

    # ------------------------------------------------------------------ attributes

    @property
    def type(self) -> SchemaType:
        """The physical type."""
        return self._type

    @property
    def is_optional(self) -> bool:
        """Whether null (None) is a valid value."""
        return self._optional

    @property
    def default_value(self) -> Any:
        """The value used in place of null, or None."""
        return self._default_value

    @property
    def name(self) -> str | None:
        """Optional name, e.g. a record name or a logical type's name."""
        return self._name

    @property
    def version(self) -> int | None:
        """Optional version of the named schema."""
        return self._version

    @property
    def doc(self) -> str | None:
        """Optional documentation."""
        return self._doc

    @property
    def parameters(self) -> Mapping[str, str] | None:
        """Optional string parameters (e.g. a Decimal's ``scale``), read-only."""
        return None if self._parameters is None else MappingProxyType(self._parameters)

    @property
    def fields(self) -> tuple[Field, ...]:
        """The fields of a STRUCT, in order."""
        if self._fields is None:
            raise DataError("Cannot list fields on non-struct type")
        return self._fields

    def field(self, name: str) -> Field | None:
        """The STRUCT field called *name*, or None."""
        if self._fields_by_name is None:
            raise DataError("Cannot look up fields on non-struct type")
        return self._fields_by_name.get(name)

    @property
    def key_schema(self) -> Schema | None:
        """The key schema of a MAP."""
        if self._type is not SchemaType.MAP:
            raise DataError("Cannot look up key schema on non-map type")
        return self._key_schema

    @property
    def value_schema(self) -> Schema | None:
        """The element schema of an ARRAY or the value schema of a MAP."""
        if self._type is not SchemaType.MAP and self._type is not SchemaType.ARRAY:
            raise DataError("Cannot look up value schema on non-array and non-map type")
        return self._value_schema

    # ------------------------------------------------------------------ validation

    @staticmethod
    def validate_value(schema: Schema, value: Any, field: str | None = None) -> None:
        """Raise :class:`DataError` unless *value* is valid for *schema*.

        *field* names the struct field being checked, for the message.
        """
        _validate(schema, value, "value" if field is None else f'field: "{field}"')

    def validate(self, value: Any) -> None:
        """Raise :class:`DataError` unless *value* is valid for this schema."""
        _validate(self, value, "value")

    # ------------------------------------------------------------------ identity

    def _key(self) -> tuple[Any, ...]:
        return (
            self._type,
            self._optional,
            self._name,
            self._version,
            self._doc,
            self._parameters,
            self._fields,
            self._key_schema,
            self._value_schema,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Schema:
            return NotImplemented
        return self._key() == other._key() and _same(self._default_value, other._default_value)

    def __hash__(self) -> int:
        if self._hash is None:
            params = None if self._parameters is None else frozenset(self._parameters.items())
            key = (self._type, self._optional, self._name, self._version, self._doc)
            self._hash = hash((*key, params, self._fields, self._key_schema, self._value_schema))
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            Schema,
            (
                self._type,
                self._optional,
                self._default_value,
                self._name,
                self._version,
                self._doc,
                self._parameters,
                self._fields,
                self._key_schema,
                self._value_schema,
            ),
        )

    def __str__(self) -> str:
        if self._name is not None:
            return f"Schema{{{self._name}:{self._type}}}"
        return f"Schema{{{self._type}}}"

    def __repr__(self) -> str:
        parts = [str(self._type)]
        if self._optional:
            parts.append("optional")
        for label in ("name", "version", "doc", "default_value"):
            value = getattr(self, label)
            if value is not None:
                parts.append(f"{label}={value!r}")
        if self._parameters:
            parts.append(f"parameters={self._parameters!r}")
        if self._fields is not None:
            parts.append(
                "fields=[" + ", ".join(f"{f.name}: {f.schema!r}" for f in self._fields) + "]"
            )
        if self._key_schema is not None:
            parts.append(f"key_schema={self._key_schema!r}")
        if self._value_schema is not None:
            parts.append(f"value_schema={self._value_schema!r}")
        return f"Schema({', '.join(parts)})"


ConnectSchema = Schema
"""Kafka's name for the concrete schema class; the same class as :class:`Schema`."""


def _same(a: Any, b: Any) -> bool:
    """Default-value equality that tells ``True`` from ``1`` and ``1.5`` from ``1.50``."""
    if type(a) is not type(b) or a != b:
        return False
    return not isinstance(a, decimal.Decimal) or a.as_tuple() == b.as_tuple()


def _validate(schema: Schema, value: Any, location: str) -> None:
    if value is None:
        if not schema.is_optional:
            raise DataError(
                f"Invalid value: null used for required {location}, schema type: {schema.type}"
            )
        return
    schema_type = schema.type
    expected = _LOGICAL_TYPE_CLASSES.get(schema.name or "")
    if expected is None:
        expected = _TYPE_CLASSES.get(schema_type) or (_struct_class(),)
    if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
        named = f' "{schema.name}"' if schema.name is not None else ""
        raise DataError(
            f"Invalid Python object for schema{named} with type {schema_type}: "
            f"{class_name(value)} for {location}"
        )
    bounds = _INT_RANGES.get(schema_type) if isinstance(value, int) else None
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        named = f' "{schema.name}"' if schema.name is not None else ""
        raise DataError(
            f"Invalid value {value} for schema{named} with type {schema_type}: "
            f"out of range [{bounds[0]}, {bounds[1]}] for {location}"
        )
    if schema_type is SchemaType.STRUCT:
        if value.schema != schema:
            raise DataError("Struct schemas do not match.")
        value.validate()
    elif schema_type is SchemaType.ARRAY:
        entry_location = "element of array " + location
        element_schema = _require_schema(schema.value_schema, entry_location)
        for entry in value:
            _validate(element_schema, entry, entry_location)
    elif schema_type is SchemaType.MAP:
        key_location, value_location = "key of map " + location, "value of map " + location
        key_schema = _require_schema(schema.key_schema, key_location)
        value_schema = _require_schema(schema.value_schema, value_location)
        for key, entry in value.items():
            _validate(key_schema, key, key_location)
            _validate(value_schema, entry, value_location)


def _require_schema(schema: Schema | None, location: str) -> Schema:
    if schema is None:
        raise DataError(f"No schema defined for {location}")
    return schema


def _predefined(schema_type: SchemaType, optional: bool) -> Schema:
    return Schema(schema_type, optional=optional)


for _type in (
    SchemaType.INT8,
    SchemaType.INT16,
    SchemaType.INT32,
    SchemaType.INT64,
    SchemaType.FLOAT32,
    SchemaType.FLOAT64,
    SchemaType.BOOLEAN,
    SchemaType.STRING,
    SchemaType.BYTES,
):
    setattr(Schema, f"{_type.name}_SCHEMA", _predefined(_type, False))
    setattr(Schema, f"OPTIONAL_{_type.name}_SCHEMA", _predefined(_type, True))
del _type

__all__ = ["ConnectSchema", "Field", "Schema", "SchemaType", "class_name"]
