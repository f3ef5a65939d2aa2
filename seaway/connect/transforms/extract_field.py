"""ExtractField: replace the key or value by one of its fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.config import ConfigDef, Importance, Type
from seaway.connect.api.errors import DataError
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    define_replace_null_with_default,
    key_value_doc,
    require_map_or_none,
    require_struct_or_none,
    simple_config,
)
from seaway.connect.transforms.field_path import (
    FieldSyntaxVersion,
    SingleFieldPath,
    append_field_syntax_version,
)

FIELD_CONFIG = "field"
_PURPOSE = "field extraction"

CONFIG_DEF = append_field_syntax_version(
    define_replace_null_with_default(
        ConfigDef().define(
            FIELD_CONFIG, Type.STRING, importance=Importance.MEDIUM, doc="Field name to extract."
        )
    )
)


class ExtractField(KeyOrValueTransformation[R]):
    """Extract ``field`` from a Struct (the new schema is the field's) or a map.

    Null keys or values pass through (with the field's schema when there is a schema).
    """

    OVERVIEW_DOC = key_value_doc(
        "Extract the specified field from a Struct when schema present, or a Map in the case "
        "of schemaless data. Any null values are passed through unmodified.",
        "ExtractField",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[ExtractField[Any]]]
    Value: ClassVar[type[ExtractField[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._original_path = config.get_string(FIELD_CONFIG) or ""
        self._path = SingleFieldPath(self._original_path, FieldSyntaxVersion.from_config(config))
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        schema = self.operating_schema(record)
        if schema is None:
            value = require_map_or_none(self.operating_value(record), _PURPOSE)
            return self.new_record(record, None, self._path.value_from_map(value))
        struct = require_struct_or_none(self.operating_value(record), _PURPOSE)
        field = self._path.field_from(schema)
        if field is None:
            raise DataError(f"Unknown field: {self._original_path}")
        extracted = self._path.value_from_struct(struct, self._replace_null_with_default)
        return self.new_record(record, field.schema, extracted)


class ExtractFieldKey(OnKey, ExtractField[R]):
    """``ExtractField$Key``: replace the key by one of its fields."""


class ExtractFieldValue(OnValue, ExtractField[R]):
    """``ExtractField$Value``: replace the value by one of its fields."""


ExtractField.Key = ExtractFieldKey
ExtractField.Value = ExtractFieldValue

__all__ = ["ExtractField", "ExtractFieldKey", "ExtractFieldValue"]
