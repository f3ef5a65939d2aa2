"""SetSchemaMetadata: set the name and/or version of the key or value schema."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.connect.api.data import Schema, SchemaType, Struct
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    define_replace_null_with_default,
    field_value,
    require_schema,
    simple_config,
)

logger = logging.getLogger(__name__)

SCHEMA_NAME_CONFIG = "schema.name"
SCHEMA_VERSION_CONFIG = "schema.version"

CONFIG_DEF = define_replace_null_with_default(
    ConfigDef()
    .define(SCHEMA_NAME_CONFIG, Type.STRING, None, None, Importance.HIGH, "Schema name to set.")
    .define(SCHEMA_VERSION_CONFIG, Type.INT, None, None, Importance.HIGH, "Schema version to set.")
)


class SetSchemaMetadata(KeyOrValueTransformation[R]):
    """Replace the schema name and/or version; Struct values are moved to the new schema."""

    OVERVIEW_DOC = (
        "Set the schema name, version or both on the record's key (<code>"
        "org.apache.kafka.connect.transforms.SetSchemaMetadata$Key</code>) or value (<code>"
        "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value</code>) schema."
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[SetSchemaMetadata[Any]]]
    Value: ClassVar[type[SetSchemaMetadata[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._name = config.get_string(SCHEMA_NAME_CONFIG)
        self._version = config.get_int(SCHEMA_VERSION_CONFIG)
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        if self._name is None and self._version is None:
            raise ConfigException("Neither schema name nor version configured")

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        value = self.operating_value(record)
        schema = self.operating_schema(record)
        if value is None and schema is None:
            return record
        schema = require_schema(schema, "updating schema metadata")
        is_map = schema.type is SchemaType.MAP
        is_struct = schema.type is SchemaType.STRUCT
        updated_schema = Schema(
            schema.type,
            optional=schema.is_optional,
            default_value=schema.default_value,
            name=self._name if self._name is not None else schema.name,
            version=self._version if self._version is not None else schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            fields=schema.fields if is_struct else None,
            key_schema=schema.key_schema if is_map else None,
            value_schema=schema.value_schema if is_map or schema.type is SchemaType.ARRAY else None,
        )
        logger.debug(
            "Applying SetSchemaMetadata SMT. Original schema: %s, updated schema: %s",
            schema,
            updated_schema,
        )
        return self.new_record(
            record, updated_schema, self._update_schema_in(value, updated_schema)
        )

    def _update_schema_in(self, value: Any, updated_schema: Schema) -> Any:
        """A Struct copied onto *updated_schema* (same fields); other values unchanged."""
        if not isinstance(value, Struct):
            return value
        updated = Struct(updated_schema)
        for field in updated_schema.fields:
            updated.put(field, field_value(value, field.name, self._replace_null_with_default))
        return updated


class SetSchemaMetadataKey(OnKey, SetSchemaMetadata[R]):
    """``SetSchemaMetadata$Key``: set metadata on the key schema."""


class SetSchemaMetadataValue(OnValue, SetSchemaMetadata[R]):
    """``SetSchemaMetadata$Value``: set metadata on the value schema."""


SetSchemaMetadata.Key = SetSchemaMetadataKey
SetSchemaMetadata.Value = SetSchemaMetadataValue

__all__ = ["SetSchemaMetadata", "SetSchemaMetadataKey", "SetSchemaMetadataValue"]
