"""Flatten: turn nested Structs or maps into one level, joining names with a delimiter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.config import ConfigDef, Importance, Type
from seaway.connect.api.data import Schema, SchemaBuilder, SchemaType, Struct
from seaway.connect.api.data.schema import class_name
from seaway.connect.api.errors import DataError
from seaway.connect.transforms._util import (
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    copy_schema_basics,
    key_value_doc,
    require_map,
    require_struct_or_none,
    schema_cache,
    simple_config,
)

DELIMITER_CONFIG = "delimiter"
_PURPOSE = "flattening"
_KEPT_TYPES = frozenset(
    {
        SchemaType.INT8,
        SchemaType.INT16,
        SchemaType.INT32,
        SchemaType.INT64,
        SchemaType.FLOAT32,
        SchemaType.FLOAT64,
        SchemaType.BOOLEAN,
        SchemaType.STRING,
        SchemaType.BYTES,
        SchemaType.ARRAY,
    }
)

CONFIG_DEF = ConfigDef().define(
    DELIMITER_CONFIG,
    Type.STRING,
    ".",
    importance=Importance.MEDIUM,
    doc="Delimiter to insert between field names from the input record when generating field "
    "names for the output record",
)


class Flatten(KeyOrValueTransformation[R]):
    """Flatten nested Structs (with schema) or maps (schemaless); arrays are left alone.

    A field's name is its path joined by ``delimiter``; a field under an optional Struct
    becomes optional and inherits its parent's default.
    """

    OVERVIEW_DOC = key_value_doc(
        "Flatten a nested data structure, generating names for each field by concatenating the "
        "field names at each level with a configurable delimiter character. Applies to Struct "
        "when schema present, or a Map in the case of schemaless data. Array fields and their "
        "contents are not modified. The default delimiter is '.'.",
        "Flatten",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[Flatten[Any]]]
    Value: ClassVar[type[Flatten[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._delimiter = simple_config(CONFIG_DEF, configs).get_string(DELIMITER_CONFIG) or ""
        self._updated_schema = schema_cache(self._make_updated_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self._delimiter + name

    def apply(self, record: R) -> R:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            flat: dict[str, Any] = {}
            self._flatten_map(require_map(value, _PURPOSE), "", flat)
            return self.new_record(record, None, flat)
        struct = require_struct_or_none(value, _PURPOSE)
        updated_schema = self._updated_schema(schema)
        if struct is None:
            return self.new_record(record, updated_schema, None)
        flat_struct = Struct(updated_schema)
        self._flatten_struct(struct, "", flat_struct)
        return self.new_record(record, updated_schema, flat_struct)

    # ------------------------------------------------------------------ schemaless

    def _flatten_map(self, value: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, item in value.items():
            name = self._name(prefix, key)
            if item is None:
                out[name] = None
                continue
            inferred = SchemaType.for_value(item)
            if inferred is None:
                raise DataError(
                    f"Flatten transformation was passed a value of type {class_name(item)} "
                    "which is not supported by Connect's data API"
                )
            if inferred in _KEPT_TYPES:
                out[name] = item
            elif inferred is SchemaType.MAP:
                self._flatten_map(require_map(item, _PURPOSE), name, out)
            else:
                raise DataError(
                    f"Flatten transformation does not support {class_name(item)} for record "
                    f"without schemas (for field {name})."
                )

    # ------------------------------------------------------------------ with schema

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        self._build_schema(schema, "", builder, schema.is_optional, schema.default_value)
        return builder.build()

    def _build_schema(
        self,
        schema: Schema,
        prefix: str,
        builder: SchemaBuilder,
        optional: bool,
        default_from_parent: Struct | None,
    ) -> None:
        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_optional = optional or field.schema.is_optional
            default = field.schema.default_value
            if default is None and default_from_parent is not None:
                default = default_from_parent.get(field)
            if field.schema.type in _KEPT_TYPES:
                field_builder = copy_schema_basics(field.schema)
                if field_optional:
                    field_builder.optional()
                if default is not None:
                    field_builder.default_value(default)
                builder.field(name, field_builder.build())
            elif field.schema.type is SchemaType.STRUCT:
                self._build_schema(field.schema, name, builder, field_optional, default)
            else:
                raise DataError(
                    f"Flatten transformation does not support {field.schema.type} for record "
                    f"with schemas (for field {name})."
                )

    def _flatten_struct(self, struct: Struct | None, prefix: str, out: Struct) -> None:
        if struct is None:
            return
        for field in struct.schema.fields:
            name = self._name(prefix, field.name)
            if field.schema.type in _KEPT_TYPES:
                out.put(name, struct.get(field))
            elif field.schema.type is SchemaType.STRUCT:
                self._flatten_struct(struct.get(field), name, out)
            else:
                raise DataError(
                    f"Flatten transformation does not support {field.schema.type} for record "
                    f"with schemas (for field {name})."
                )

    def close(self) -> None:
        self._updated_schema = schema_cache(self._make_updated_schema)


class FlattenKey(OnKey, Flatten[R]):
    """``Flatten$Key``: flatten the record key."""


class FlattenValue(OnValue, Flatten[R]):
    """``Flatten$Value``: flatten the record value."""


Flatten.Key = FlattenKey
Flatten.Value = FlattenValue

__all__ = ["Flatten", "FlattenKey", "FlattenValue"]
