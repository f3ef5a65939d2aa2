"""Configuration of :class:`~seaway.connect.converters.JsonConverter` (``JsonConverterConfig``)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import CaseInsensitiveValidString, Importance, Type, Width
from seaway.connect.api.storage import CONVERTER_TYPE_CONFIG, ConverterType, converter_config_def


class DecimalFormat(enum.Enum):
    """How Decimal values are written: base64 of the unscaled bytes, or a JSON number."""

    BASE64 = "BASE64"
    NUMERIC = "NUMERIC"


SCHEMAS_ENABLE_CONFIG: Final = "schemas.enable"
SCHEMAS_ENABLE_DEFAULT: Final = True
SCHEMAS_ENABLE_DOC: Final = "Include schemas within each of the serialized values and keys."

SCHEMAS_CACHE_SIZE_CONFIG: Final = "schemas.cache.size"
SCHEMAS_CACHE_SIZE_DEFAULT: Final = 1000
SCHEMAS_CACHE_SIZE_DOC: Final = (
    "The maximum number of schemas that can be cached in this converter instance."
)

DECIMAL_FORMAT_CONFIG: Final = "decimal.format"
DECIMAL_FORMAT_DEFAULT: Final = DecimalFormat.BASE64.value
DECIMAL_FORMAT_DOC: Final = (
    "Controls which format this converter will serialize decimals in. This value is case "
    "insensitive and can be either 'BASE64' (default) or 'NUMERIC'"
)

REPLACE_NULL_WITH_DEFAULT_CONFIG: Final = "replace.null.with.default"
REPLACE_NULL_WITH_DEFAULT_DEFAULT: Final = True
REPLACE_NULL_WITH_DEFAULT_DOC: Final = (
    "Whether to replace fields that have a default value and that are null to the default "
    "value. When set to true, the default value is used, otherwise null is used."
)

CONFIG_DEF: Final = (
    converter_config_def()
    .define(
        SCHEMAS_ENABLE_CONFIG,
        Type.BOOLEAN,
        SCHEMAS_ENABLE_DEFAULT,
        importance=Importance.HIGH,
        doc=SCHEMAS_ENABLE_DOC,
        group="Schemas",
        order_in_group=0,
        width=Width.MEDIUM,
        display_name="Enable Schemas",
    )
    .define(
        SCHEMAS_CACHE_SIZE_CONFIG,
        Type.INT,
        SCHEMAS_CACHE_SIZE_DEFAULT,
        importance=Importance.HIGH,
        doc=SCHEMAS_CACHE_SIZE_DOC,
        group="Schemas",
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="Schema Cache Size",
    )
    .define(
        DECIMAL_FORMAT_CONFIG,
        Type.STRING,
        DECIMAL_FORMAT_DEFAULT,
        CaseInsensitiveValidString.in_(*(f.value for f in DecimalFormat)),
        importance=Importance.LOW,
        doc=DECIMAL_FORMAT_DOC,
        group="Serialization",
        order_in_group=0,
        width=Width.MEDIUM,
        display_name="Decimal Format",
    )
    .define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        Type.BOOLEAN,
        REPLACE_NULL_WITH_DEFAULT_DEFAULT,
        importance=Importance.LOW,
        doc=REPLACE_NULL_WITH_DEFAULT_DOC,
        group="Serialization",
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="Replace null with default",
    )
)


@dataclass(frozen=True)
class JsonConverterConfig:
    """Parsed JsonConverter settings; :meth:`parse` raises ``ConfigException`` if invalid."""

    type: ConverterType
    schemas_enabled: bool = SCHEMAS_ENABLE_DEFAULT
    schema_cache_size: int = SCHEMAS_CACHE_SIZE_DEFAULT
    decimal_format: DecimalFormat = DecimalFormat.BASE64
    replace_null_with_default: bool = REPLACE_NULL_WITH_DEFAULT_DEFAULT

    @classmethod
    def parse(cls, props: Mapping[str, Any]) -> JsonConverterConfig:
        """Parse converter properties (which must include ``converter.type``)."""
        values = CONFIG_DEF.parse(props)
        return cls(
            type=ConverterType(values[CONVERTER_TYPE_CONFIG]),
            schemas_enabled=values[SCHEMAS_ENABLE_CONFIG],
            schema_cache_size=values[SCHEMAS_CACHE_SIZE_CONFIG],
            decimal_format=DecimalFormat(values[DECIMAL_FORMAT_CONFIG].upper()),
            replace_null_with_default=values[REPLACE_NULL_WITH_DEFAULT_CONFIG],
        )


__all__ = [
    "CONFIG_DEF",
    "DECIMAL_FORMAT_CONFIG",
    "REPLACE_NULL_WITH_DEFAULT_CONFIG",
    "SCHEMAS_CACHE_SIZE_CONFIG",
    "SCHEMAS_ENABLE_CONFIG",
    "DecimalFormat",
    "JsonConverterConfig",
]
