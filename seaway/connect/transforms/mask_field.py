"""MaskField: replace field values with their type's "empty" value or a given replacement."""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.config import ConfigDef, Importance, NonEmptyString, Type
from seaway.connect.api.data import Decimal, Schema, Struct
from seaway.connect.api.data.schema import class_name
from seaway.connect.api.errors import DataError
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    NonEmptyListValidator,
    OnKey,
    OnValue,
    R,
    define_replace_null_with_default,
    field_value,
    key_value_doc,
    require_map,
    require_struct,
    simple_config,
)

FIELDS_CONFIG = "fields"
REPLACEMENT_CONFIG = "replacement"
_PURPOSE = "mask fields"
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

CONFIG_DEF = define_replace_null_with_default(
    ConfigDef()
    .define(
        FIELDS_CONFIG,
        Type.LIST,
        validator=NonEmptyListValidator(),
        importance=Importance.HIGH,
        doc="Names of fields to mask.",
    )
    .define(
        REPLACEMENT_CONFIG,
        Type.STRING,
        None,
        NonEmptyString(),
        Importance.LOW,
        "Custom value replacement, that will be applied to all 'fields' values (numeric or "
        "non-empty string values only).",
    )
)


def _null_equivalent(value: Any, schema: Schema | None) -> Any:
    """The "empty" value of *value*'s type: 0, 0.0, False, "", epoch, [], {}."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, decimal.Decimal):
        if schema is not None and schema.name == Decimal.LOGICAL_NAME:
            return decimal.Decimal(0).scaleb(-Decimal.scale(schema))
        return decimal.Decimal(0)
    if isinstance(value, str):
        return ""
    if isinstance(value, dt.datetime):
        return _EPOCH
    if isinstance(value, dt.date):
        return _EPOCH.date()
    if isinstance(value, dt.time):
        return dt.time(0)
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, Mapping):
        return {}
    raise DataError(f"Cannot mask value of type: {class_name(value)}")


def _not_a_number(replacement: str) -> DataError:
    return DataError(f"Unable to convert {replacement} ({class_name(replacement)}) to number")


def _custom_replacement(value: Any, replacement: str, schema: Schema | None) -> Any:
    """*replacement* converted to *value*'s type (numbers and strings only)."""
    if isinstance(value, str):
        return replacement
    if isinstance(value, int) and not isinstance(value, bool):
        text = replacement.strip()
        if not _INTEGER.fullmatch(text):
            raise _not_a_number(replacement)
        number = int(text)
        if schema is not None:
            try:
                schema.validate(number)
            except DataError as exc:
                raise _not_a_number(replacement) from exc
        return number
    if isinstance(value, float):
        text = replacement.strip()
        if not _NUMBER.fullmatch(text):
            raise _not_a_number(replacement)
        return float(text)
    if isinstance(value, decimal.Decimal):
        if not _NUMBER.fullmatch(replacement):
            raise _not_a_number(replacement)
        amount = decimal.Decimal(replacement)
        if schema is not None and schema.name == Decimal.LOGICAL_NAME:
            amount = amount.quantize(decimal.Decimal(1).scaleb(-Decimal.scale(schema)))
        return amount
    raise DataError(f"Cannot mask value of type {class_name(value)} with custom replacement.")


class MaskField(KeyOrValueTransformation[R]):
    """Mask fields with a valid null value for their type, or with ``replacement``."""

    OVERVIEW_DOC = key_value_doc(
        "Mask specified fields with a valid null value for the field type (i.e. 0, false, "
        "empty string, and so on).<p/>For numeric and string fields, an optional replacement "
        "value can be specified that is converted to the correct type.",
        "MaskField",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[MaskField[Any]]]
    Value: ClassVar[type[MaskField[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._fields = list(dict.fromkeys(config.get_list(FIELDS_CONFIG) or ()))
        self._replacement = config.get_string(REPLACEMENT_CONFIG)
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def _masked(self, value: Any, schema: Schema | None = None) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            return _null_equivalent(value, schema)
        return _custom_replacement(value, self._replacement, schema)

    def apply(self, record: R) -> R:
        value = self.operating_value(record)
        if self.operating_schema(record) is None:
            updated = dict(require_map(value, _PURPOSE))
            for name in self._fields:
                updated[name] = self._masked(updated.get(name))
            return self.new_record(record, None, updated)
        struct = require_struct(value, _PURPOSE)
        masked = Struct(struct.schema)
        for field in struct.schema.fields:
            original = field_value(struct, field, self._replace_null_with_default)
            if field.name in self._fields:
                original = self._masked(original, field.schema)
            masked.put(field, original)
        return self.new_record(record, self.operating_schema(record), masked)


class MaskFieldKey(OnKey, MaskField[R]):
    """``MaskField$Key``: mask fields of the record key."""


class MaskFieldValue(OnValue, MaskField[R]):
    """``MaskField$Value``: mask fields of the record value."""


MaskField.Key = MaskFieldKey
MaskField.Value = MaskFieldValue

__all__ = ["MaskField", "MaskFieldKey", "MaskFieldValue"]
