"""ReplaceField: drop, keep or rename fields of a Struct or map."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from seaway.config import ConfigDef, ConfigException, Importance, LambdaValidator, Type
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
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

EXCLUDE_CONFIG = "exclude"
INCLUDE_CONFIG = "include"
RENAMES_CONFIG = "renames"
_PURPOSE = "field replacement"


def parse_rename_mappings(mappings: Sequence[str]) -> dict[str, str]:
    """``["foo:bar", ...]`` as ``{"foo": "bar", ...}``; ConfigException on a bad pair."""
    renames: dict[str, str] = {}
    for mapping in mappings:
        parts = mapping.split(":")
        # Java's String.split drops trailing empty strings ("a:" is one part).
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        if len(parts) != 2:
            raise ConfigException(
                RENAMES_CONFIG, list(mappings), f"Invalid rename mapping: {mapping}"
            )
        renames[parts[0]] = parts[1]
    return renames


def _check_renames(name: str, value: Any) -> None:
    parse_rename_mappings(value)


CONFIG_DEF = define_replace_null_with_default(
    ConfigDef()
    .define(
        EXCLUDE_CONFIG,
        Type.LIST,
        [],
        importance=Importance.MEDIUM,
        doc="Fields to exclude. This takes precedence over the fields to include.",
    )
    .define(
        INCLUDE_CONFIG,
        Type.LIST,
        [],
        importance=Importance.MEDIUM,
        doc="Fields to include. If specified, only these fields will be used.",
    )
    .define(
        RENAMES_CONFIG,
        Type.LIST,
        [],
        LambdaValidator(
            _check_renames,
            "list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>",
        ),
        Importance.MEDIUM,
        "Field rename mappings.",
    )
)


class ReplaceField(KeyOrValueTransformation[R]):
    """Filter (``exclude``/``include``) or rename (``renames``) fields."""

    OVERVIEW_DOC = key_value_doc("Filter or rename fields.", "ReplaceField")
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[ReplaceField[Any]]]
    Value: ClassVar[type[ReplaceField[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._exclude = set(config.get_list(EXCLUDE_CONFIG) or ())
        self._include = set(config.get_list(INCLUDE_CONFIG) or ())
        self._renames = parse_rename_mappings(config.get_list(RENAMES_CONFIG) or ())
        self._reverse_renames = {new: old for old, new in self._renames.items()}
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        self._updated_schema = schema_cache(self._make_updated_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def _renamed(self, name: str) -> str:
        return self._renames.get(name, name)

    def apply(self, record: R) -> R:
        value = self.operating_value(record)
        if value is None:
            return record
        if self.operating_schema(record) is None:
            updated = {
                self._renamed(name): item
                for name, item in require_map(value, _PURPOSE).items()
                if self._keep(name)
            }
            return self.new_record(record, None, updated)
        struct = require_struct(value, _PURPOSE)
        updated_schema = self._updated_schema(struct.schema)
        updated_struct = Struct(updated_schema)
        for field in updated_schema.fields:
            original = self._reverse_renames.get(field.name, field.name)
            updated_struct.put(
                field, field_value(struct, original, self._replace_null_with_default)
            )
        return self.new_record(record, updated_schema, updated_struct)

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if self._keep(field.name):
                builder.field(self._renamed(field.name), field.schema)
        return builder.build()

    def close(self) -> None:
        self._updated_schema = schema_cache(self._make_updated_schema)


class ReplaceFieldKey(OnKey, ReplaceField[R]):
    """``ReplaceField$Key``: filter or rename fields of the record key."""


class ReplaceFieldValue(OnValue, ReplaceField[R]):
    """``ReplaceField$Value``: filter or rename fields of the record value."""


ReplaceField.Key = ReplaceFieldKey
ReplaceField.Value = ReplaceFieldValue

__all__ = ["ReplaceField", "ReplaceFieldKey", "ReplaceFieldValue", "parse_rename_mappings"]
