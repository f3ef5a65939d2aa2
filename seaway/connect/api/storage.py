"""Converters: between Connect data and the bytes stored in Kafka (``connect.storage``).

A worker (or connector) names one converter for keys, one for values and a header
converter; each is configured with the ``key.converter.*`` / ``value.converter.*`` /
``header.converter.*`` properties, prefix removed.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa

from seaway.config import ConfigDef, Importance, Type, ValidString
from seaway.connect.api.data import Schema, SchemaAndValue
from seaway.connect.api.header import Headers


class ConverterType(enum.Enum):
    """What a converter is used for; the value is the ``converter.type`` config value."""

    KEY = "key"
    VALUE = "value"
    HEADER = "header"


CONVERTER_TYPE_CONFIG: Final = "converter.type"
CONVERTER_TYPE_DOC: Final = "How this converter will be used."


def converter_config_def() -> ConfigDef:
    """A new ConfigDef holding ``converter.type`` (Kafka's ``ConverterConfig.newConfigDef``)."""
    return ConfigDef().define(
        CONVERTER_TYPE_CONFIG,
        Type.STRING,
        validator=ValidString.in_(*(t.value for t in ConverterType)),
        importance=Importance.LOW,
        doc=CONVERTER_TYPE_DOC,
    )


class Converter(ABC):
    """Converts record keys or values between Connect data and bytes."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Configure for keys (*is_key*) or values."""

    @abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialize *value* described by *schema*; None stays None (a tombstone)."""

    @abstractmethod
    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialize bytes read from *topic* into a schema and value."""

    def from_connect_column(
        self, topic: str, schema: Schema | None, column: pa.Array
    ) -> pa.Array | None:
        """Serialize a whole column of values of *schema* at once (the batch contract),
        byte for byte what :meth:`from_connect_data` gives for each; a ``binary`` array, or
        None when this converter cannot (the runtime then converts record by record)."""
        return None

    def to_connect_column(
        self, topic: str, column: pa.Array
    ) -> tuple[Schema | None, pa.Array] | None:
        """Deserialize a whole ``binary`` column read from *topic*: its schema and values,
        as :meth:`to_connect_data` would give them; None when this converter cannot."""
        return None

    def config(self) -> ConfigDef:
        """The converter's configuration keys."""
        return ConfigDef()

    def close(self) -> None:  # noqa: B027 - an optional hook
        """Release resources."""


class HeaderConverter(ABC):
    """Converts header values between Connect data and bytes."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure; *configs* holds ``converter.type=header``."""

    @abstractmethod
    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """Deserialize one header value."""

    @abstractmethod
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """Serialize one header value."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The converter's configuration keys."""

    def close(self) -> None:  # noqa: B027 - an optional hook
        """Release resources."""


__all__ = [
    "CONVERTER_TYPE_CONFIG",
    "Converter",
    "ConverterType",
    "HeaderConverter",
    "converter_config_def",
]
