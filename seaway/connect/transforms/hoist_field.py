"""HoistField: wrap the key or value in a single-field Struct or map."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.config import ConfigDef, Importance, Type
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.transforms._util import (
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    key_value_doc,
    schema_cache,
    simple_config,
)

FIELD_CONFIG = "field"

CONFIG_DEF = ConfigDef().define(
    FIELD_CONFIG,
    Type.STRING,
    importance=Importance.MEDIUM,
    doc="Field name for the single field that will be created in the resulting Struct or Map.",
)


class HoistField(KeyOrValueTransformation[R]):
    """Wrap the key or value as the only ``field`` of a Struct (with schema) or a map."""

    OVERVIEW_DOC = key_value_doc(
        "Wrap data using the specified field name in a Struct when schema present, or a Map in "
        "the case of schemaless data.",
        "HoistField",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[HoistField[Any]]]
    Value: ClassVar[type[HoistField[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._field = simple_config(CONFIG_DEF, configs).get_string(FIELD_CONFIG) or ""
        self._updated_schema = schema_cache(self._make_updated_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.new_record(record, None, {self._field: value})
        updated_schema = self._updated_schema(schema)
        return self.new_record(
            record, updated_schema, Struct(updated_schema).put(self._field, value)
        )

    def _make_updated_schema(self, schema: Schema) -> Schema:
        return SchemaBuilder.struct().field(self._field, schema).build()

    def close(self) -> None:
        self._updated_schema = schema_cache(self._make_updated_schema)


class HoistFieldKey(OnKey, HoistField[R]):
    """``HoistField$Key``: wrap the record key."""


class HoistFieldValue(OnValue, HoistField[R]):
    """``HoistField$Value``: wrap the record value."""


HoistField.Key = HoistFieldKey
HoistField.Value = HoistFieldValue

__all__ = ["HoistField", "HoistFieldKey", "HoistFieldValue"]
