"""ValueToKey: make the record key from fields of the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.config import ConfigDef, Importance, Type
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.errors import DataError
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    NonEmptyListValidator,
    R,
    define_replace_null_with_default,
    field_value,
    require_map,
    require_struct,
    schema_cache,
    simple_config,
)

FIELDS_CONFIG = "fields"
_PURPOSE = "copying fields from value to key"

CONFIG_DEF = define_replace_null_with_default(
    ConfigDef().define(
        FIELDS_CONFIG,
        Type.LIST,
        validator=NonEmptyListValidator(),
        importance=Importance.HIGH,
        doc="Field names on the record value to extract as the record key.",
    )
)


class ValueToKey(Transformation[R]):
    """Replace the key with a Struct (or map) of the value's ``fields``."""

    OVERVIEW_DOC = (
        "Replace the record key with a new key formed from a subset of fields in the record value."
    )
    CONFIG_DEF = CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._fields: list[str] = list(config.get_list(FIELDS_CONFIG) or ())
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        self._key_schema = schema_cache(self._make_key_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        if record.value_schema is None:
            value = require_map(record.value, _PURPOSE)
            key = {name: value.get(name) for name in self._fields}
            return record.new_record(key_schema=None, key=key)
        struct = require_struct(record.value, _PURPOSE)
        key_schema = self._key_schema(struct.schema)
        key_struct = Struct(key_schema)
        for name in self._fields:
            key_struct.put(name, field_value(struct, name, self._replace_null_with_default))
        return record.new_record(
            key_schema=key_schema, key=key_struct, value_schema=struct.schema, value=struct
        )

    def _make_key_schema(self, value_schema: Schema) -> Schema:
        builder = SchemaBuilder.struct()
        for name in self._fields:
            field = value_schema.field(name)
            if field is None:
                raise DataError(f"Field does not exist: {name}")
            builder.field(name, field.schema)
        return builder.build()

    def close(self) -> None:
        self._key_schema = schema_cache(self._make_key_schema)


__all__ = ["ValueToKey"]
