"""Cast: change the type of fields, or of the whole key or value, Java-style.

Numbers narrow like Java's primitive casts (``int8`` of 300 is 44, of 1.9 is 1), strings
parse like ``Integer.parseInt``/``Double.parseDouble``/``Boolean.parseBoolean``, and casting
to ``string`` prints like Java (``true``, ``1.0E10``), bytes as base64 and Connect's
Date/Time/Timestamp values in ISO 8601 (UTC). Date, Time and Timestamp cast to numbers via
their physical value (days, milliseconds).

Unlike Kafka, a whole-value cast of a logical type (e.g. Timestamp to ``string``) does not
copy the logical type's name onto the new schema, which would make it invalid.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from seaway.config import ConfigDef, ConfigException, Importance, LambdaValidator, Type
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
from seaway.connect.api.data.values import format_temporal
from seaway.connect.api.errors import DataError
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    copy_schema_basics,
    define_replace_null_with_default,
    field_value,
    key_value_doc,
    require_map,
    require_struct,
    schema_cache,
    simple_config,
)
from seaway.java.numbers import (
    JavaFloat,
    double_to_integer,
    double_to_string,
    float_to_string,
    narrow,
    parse_boolean,
    parse_double,
    parse_int,
    to_float32,
)

logger = logging.getLogger(__name__)

SPEC_CONFIG = "spec"
_PURPOSE = "cast types"
_T = SchemaType
SUPPORTED_CAST_INPUT_TYPES: Final = (
    _T.INT8, _T.INT16, _T.INT32, _T.INT64, _T.FLOAT32, _T.FLOAT64, _T.BOOLEAN, _T.STRING, _T.BYTES,
)  # fmt: skip
SUPPORTED_CAST_OUTPUT_TYPES: Final = SUPPORTED_CAST_INPUT_TYPES[:-1]
_LOGICAL_NAMES: Final = frozenset(
    {Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME, Decimal.LOGICAL_NAME}
)
_WHOLE_VALUE: Final = None
_INT_BITS: Final = {_T.INT8: 8, _T.INT16: 16, _T.INT32: 32, _T.INT64: 64}


def _type_list(types: Sequence[SchemaType]) -> str:
    return "[" + ", ".join(str(t) for t in types) + "]"


def _valid_output_type(schema_type: SchemaType) -> SchemaType:
    if schema_type not in SUPPORTED_CAST_OUTPUT_TYPES:
        raise ConfigException(
            f"Cast transformation does not support casting to {schema_type}; supported types "
            f"are {_type_list(SUPPORTED_CAST_OUTPUT_TYPES)}"
        )
    return schema_type


def _schema_type(name: str) -> SchemaType:
    try:
        return SchemaType[name.strip().upper()]
    except KeyError:
        raise ConfigException(f"Invalid type found in casting spec: {name.strip()}") from None


def parse_field_types(mappings: Sequence[str]) -> dict[str | None, SchemaType]:
    """``["f:int32", ...]`` as ``{"f": INT32}``, or ``["int32"]`` as ``{None: INT32}``."""
    casts: dict[str | None, SchemaType] = {}
    whole_value = False
    for mapping in mappings:
        parts = mapping.split(":")
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        if len(parts) > 2:
            raise ConfigException("renames", list(mappings), f"Invalid rename mapping: {mapping}")
        if len(parts) == 1:
            casts[_WHOLE_VALUE] = _valid_output_type(_schema_type(parts[0]))
            whole_value = True
        else:
            casts[parts[0].strip()] = _valid_output_type(_schema_type(parts[1]))
    if whole_value and len(mappings) > 1:
        raise ConfigException(
            "Cast transformations that specify a type to cast the entire value to may only "
            "specify a single cast in their spec"
        )
    return casts


def _validate_spec(name: str, value: Any) -> None:
    if not value:
        raise ConfigException("Must specify at least one field to cast.")
    parse_field_types(value)


CONFIG_DEF = define_replace_null_with_default(
    ConfigDef().define(
        SPEC_CONFIG,
        Type.LIST,
        validator=LambdaValidator(
            _validate_spec, "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>"
        ),
        importance=Importance.HIGH,
        doc="List of fields and the type to cast them to of the form field1:type,field2:type to "
        "cast fields of Maps or Structs. A single type to cast the entire value. Valid types are "
        "int8, int16, int32, int64, float32, float64, boolean, and string. Note that binary "
        "fields can only be cast to string.",
    )
)

# ---------------------------------------------------------------------- conversions


class _OutOfRange(ValueError):
    """Java's NumberFormatException: the text is not a number of the requested type."""


def _to_int(value: Any, bits: int) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return narrow(value, bits)
    if isinstance(value, float):
        return double_to_integer(value, bits)
    if isinstance(value, decimal.Decimal):
        return narrow(int(value), bits)
    if isinstance(value, str):
        try:
            return parse_int(value, bits)
        except ValueError:
            raise _OutOfRange(value) from None
    raise DataError(f"Unexpected type in Cast transformation: {class_name(value)}")


def _to_float(value: Any, float32: bool) -> float:
    number: float
    if isinstance(value, bool):
        number = 1.0 if value else 0.0
    elif isinstance(value, int | float | decimal.Decimal):
        try:
            number = float(value)
        except OverflowError:
            number = math.copysign(math.inf, value)
    elif isinstance(value, str):
        try:
            number = parse_double(value)
        except ValueError:
            raise _OutOfRange(value) from None
    else:
        raise DataError(f"Unexpected type in Cast transformation: {class_name(value)}")
    return to_float32(number) if float32 else number


def _to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | decimal.Decimal):
        return _to_int(value, 64) != 0
    if isinstance(value, str):
        return parse_boolean(value)
    raise DataError(f"Unexpected type in Cast transformation: {class_name(value)}")


def _to_string(value: Any, schema_type: SchemaType | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        single = schema_type is SchemaType.FLOAT32 or isinstance(value, JavaFloat)
        return float_to_string(value) if single else double_to_string(value)
    if isinstance(value, dt.date | dt.time):
        return format_temporal(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


def _encode_logical(schema: Schema, value: Any) -> Any:
    match schema.name:
        case Date.LOGICAL_NAME:
            return Date.from_logical(schema, value)
        case Time.LOGICAL_NAME:
            return Time.from_logical(schema, value)
        case Timestamp.LOGICAL_NAME:
            return Timestamp.from_logical(schema, value)
    return value


def cast_value(schema: Schema | None, value: Any, target: SchemaType) -> Any:
    """*value* (described by *schema*, or schemaless) cast to *target*."""
    if value is None:
        return None
    inferred = schema.type if schema is not None else SchemaType.for_value(value)
    if inferred is None:
        raise DataError(
            f"Cast transformation was passed a value of type {class_name(value)} which is not "
            "supported by Connect's data API"
        )
    if inferred not in SUPPORTED_CAST_INPUT_TYPES:
        raise DataError(
            f"Cast transformation does not support casting from {inferred}; supported types "
            f"are {_type_list(SUPPORTED_CAST_INPUT_TYPES)}"
        )
    if schema is not None and schema.name is not None and target is not SchemaType.STRING:
        value = _encode_logical(schema, value)
    try:
        if target in _INT_BITS:
            return _to_int(value, _INT_BITS[target])
        if target in (SchemaType.FLOAT32, SchemaType.FLOAT64):
            return _to_float(value, float32=target is SchemaType.FLOAT32)
        if target is SchemaType.BOOLEAN:
            return _to_boolean(value)
        if target is SchemaType.STRING:
            return _to_string(value, inferred)
    except _OutOfRange:
        raise DataError(f"Value ({value}) was out of range for requested data type") from None
    raise DataError(f"{target} is not supported in the Cast transformation.")


# ---------------------------------------------------------------------- the transform


class Cast(KeyOrValueTransformation[R]):
    """Cast fields (``spec=f1:int32,f2:string``) or the whole key or value (``spec=int64``)."""

    OVERVIEW_DOC = key_value_doc(
        "Cast fields or the entire key or value to a specific type, e.g. to force an integer "
        "field to a smaller width. Cast from integers, floats, boolean and string to any other "
        "type, and cast binary to string (base64 encoded).",
        "Cast",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[Cast[Any]]]
    Value: ClassVar[type[Cast[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._casts = parse_field_types(config.get_list(SPEC_CONFIG) or ())
        self._whole_value_type = self._casts.get(_WHOLE_VALUE)
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        self._updated_schema = schema_cache(self._make_updated_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            if self._whole_value_type is not None:
                return self.new_record(
                    record, None, cast_value(None, value, self._whole_value_type)
                )
            updated = dict(require_map(value, _PURPOSE))
            for name, target in self._casts.items():
                assert name is not None
                updated[name] = cast_value(None, updated.get(name), target)
            return self.new_record(record, None, updated)
        updated_schema = self._updated_schema(schema)
        if self._whole_value_type is not None:
            return self.new_record(
                record, updated_schema, cast_value(schema, value, self._whole_value_type)
            )
        struct = require_struct(value, _PURPOSE)
        cast_struct = Struct(updated_schema)
        for field in struct.schema.fields:
            original = field_value(struct, field, self._replace_null_with_default)
            cast_to = self._casts.get(field.name)
            updated_value = (
                original if cast_to is None else cast_value(field.schema, original, cast_to)
            )
            logger.debug("Cast field '%s' from '%s' to '%s'", field.name, original, updated_value)
            cast_struct.put(field.name, updated_value)
        return self.new_record(record, updated_schema, cast_struct)

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder: SchemaBuilder
        if self._whole_value_type is not None:
            builder = SchemaBuilder(self._whole_value_type)
            if schema.name not in _LOGICAL_NAMES:
                copy_schema_basics(schema, builder)
        else:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            for field in schema.fields:
                target = self._casts.get(field.name)
                if target is None:
                    builder.field(field.name, field.schema)
                    continue
                field_builder = SchemaBuilder(target)
                if field.schema.is_optional:
                    field_builder.optional()
                if field.schema.default_value is not None:
                    field_builder.default_value(
                        cast_value(field.schema, field.schema.default_value, target)
                    )
                builder.field(field.name, field_builder.build())
        if schema.is_optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(
                cast_value(schema, schema.default_value, builder.schema_type)
                if self._whole_value_type is not None
                else self._cast_default_struct(schema.default_value, builder.build())
            )
        return builder.build()

    def _cast_default_struct(self, default: Struct, updated_schema: Schema) -> Struct:
        updated = Struct(updated_schema)
        for field in default.schema.fields:
            target = self._casts.get(field.name)
            original = default.get(field)
            updated.put(
                field.name,
                original if target is None else cast_value(field.schema, original, target),
            )
        return updated

    def close(self) -> None:
        self._updated_schema = schema_cache(self._make_updated_schema)


class CastKey(OnKey, Cast[R]):
    """``Cast$Key``: cast the record key or its fields."""


class CastValue(OnValue, Cast[R]):
    """``Cast$Value``: cast the record value or its fields."""


Cast.Key = CastKey
Cast.Value = CastValue

__all__ = ["Cast", "CastKey", "CastValue", "cast_value", "parse_field_types"]
