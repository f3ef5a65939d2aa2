"""ExtractNewRecordState's ``drop.fields.*``: drop the row fields a header names.

``drop.fields.header.name`` names a header (the first of that name counts) whose value lists
field names; those fields are removed from the unwrapped row, and with
``drop.fields.from.key`` (false) from the key too, as ``ReplaceField``'s ``exclude`` removes
them (a null field with a default gets the default; the new struct schema is required):

* ``drop.fields.keep.schema.compatible`` (true): only the listed fields whose schema is
  optional are dropped, so readers of the full schema can still read the rows;
* false: every listed field is dropped, optional or not.

A record without the header, or whose header is null or an empty list, is kept as it is.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

from seaway.config import Config, ConfigDef, Importance, Type
from seaway.connect.api.data import Schema, SchemaType
from seaway.connect.api.errors import DataError
from seaway.connect.transforms._util import R, null_safe_class_name
from seaway.connect.transforms.replace_field import (
    EXCLUDE_CONFIG,
    ReplaceField,
    ReplaceFieldKey,
    ReplaceFieldValue,
)

__all__ = [
    "DROP_FIELDS_FROM_KEY",
    "DROP_FIELDS_HEADER",
    "DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE",
    "FieldDropper",
    "define_drop_fields",
]

DROP_FIELDS_HEADER: Final = "drop.fields.header.name"
DROP_FIELDS_FROM_KEY: Final = "drop.fields.from.key"
DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE: Final = "drop.fields.keep.schema.compatible"
_DELEGATES_KEPT: Final = 64


def define_drop_fields(config_def: ConfigDef) -> ConfigDef:
    """Add the three ``drop.fields.*`` keys to *config_def*."""
    return (
        config_def
        .define(DROP_FIELDS_HEADER, Type.STRING, None, importance=Importance.LOW,
                doc="Specifies the name of a header that contains a list of fields to be "
                    "removed from the event value.")
        .define(DROP_FIELDS_FROM_KEY, Type.BOOLEAN, False, importance=Importance.LOW,
                doc="Specifies whether to apply the drop fields behavior to the event key as "
                    "well as the value. Default behavior is to only remove fields from the "
                    "event value, not the key.")
        .define(DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE, Type.BOOLEAN, True,
                importance=Importance.LOW,
                doc="Controls the output event's schema compatibility when using the drop "
                    "fields feature. `true`: only the listed fields whose schema is optional "
                    "are removed, `false`: the listed fields are removed from the key/value "
                    "schemas, regardless of optionality.")
    )  # fmt: skip


class FieldDropper:
    """Drops the fields the ``drop.fields.header.name`` header lists from records."""

    def __init__(self, header: str, from_key: bool, keep_schema_compatible: bool) -> None:
        self.header = header
        self.from_key = from_key
        self.keep_schema_compatible = keep_schema_compatible
        self._delegates: dict[tuple[type[ReplaceField[Any]], str], ReplaceField[Any]] = {}

    @classmethod
    def from_config(cls, config: Config) -> FieldDropper | None:
        """The dropper *config* asks for; None without a (non-blank) header name."""
        header = config.get_string(DROP_FIELDS_HEADER)
        if header is None or not header.strip():
            return None
        return cls(
            header,
            bool(config.get_boolean(DROP_FIELDS_FROM_KEY)),
            bool(config.get_boolean(DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE)),
        )

    def apply(self, record: R, spared: Collection[str] = ()) -> R:
        """*record* without the listed fields; the value keeps those named in *spared*."""
        names = self._listed(record)
        if not names:
            return record
        if self.from_key and record.key is not None:
            record = self._drop(ReplaceFieldKey, record, record.key_schema, names)
        kept = [name for name in names if name not in spared]
        return self._drop(ReplaceFieldValue, record, record.value_schema, kept)

    def _listed(self, record: R) -> list[str]:
        header = next((h for h in record.headers if h.key == self.header), None)
        if header is None or header.value is None:
            return []
        if not isinstance(header.value, list | tuple):
            raise DataError(
                f"Header {self.header} must hold a list of the names of the fields to drop, "
                f"found: {null_safe_class_name(header.value)}"
            )
        return [str(name) for name in header.value]

    def _droppable(self, schema: Schema | None, names: list[str]) -> list[str]:
        if not self.keep_schema_compatible:
            return names
        if schema is None or schema.type is not SchemaType.STRUCT:
            return []  # nothing is known to be optional
        wanted = set(names)
        return [f.name for f in schema.fields if f.schema.is_optional and f.name in wanted]

    def _drop(
        self, side: type[ReplaceField[Any]], record: R, schema: Schema | None, names: list[str]
    ) -> R:
        dropped = self._droppable(schema, names)
        if not dropped:
            return record
        out: R = self._delegate(side, ",".join(dropped)).apply(record)
        return out

    def _delegate(self, side: type[ReplaceField[Any]], exclude: str) -> ReplaceField[Any]:
        """A ReplaceField excluding *exclude*, kept for the records that list the same."""
        found = self._delegates.get((side, exclude))
        if found is None:
            if len(self._delegates) >= _DELEGATES_KEPT:
                self._delegates.clear()
            found = self._delegates[(side, exclude)] = side()
            found.configure({EXCLUDE_CONFIG: exclude})
        return found
