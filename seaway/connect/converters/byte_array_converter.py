"""ByteArrayConverter: bytes unchanged (Kafka's ``connect.converters.ByteArrayConverter``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa

import seaway
from seaway.config import ConfigDef
from seaway.connect.api.data import Schema, SchemaAndValue, SchemaType
from seaway.connect.api.data.schema import class_name
from seaway.connect.api.errors import DataError
from seaway.connect.api.header import Headers
from seaway.connect.api.storage import Converter, HeaderConverter, converter_config_def
from seaway.connect.converters import columns

CONFIG_DEF: Final = converter_config_def()


class ByteArrayConverter(Converter, HeaderConverter):
    """Passes BYTES values through; reading gives an optional BYTES schema."""

    def version(self) -> str:
        """Seaway's version."""
        return seaway.__version__

    def config(self) -> ConfigDef:
        """Only ``converter.type``."""
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Nothing to configure."""

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """*value* itself; the schema, if any, must be BYTES."""
        if schema is not None and schema.type is not SchemaType.BYTES:
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type}")
        if value is not None and not isinstance(value, bytes | bytearray | memoryview):
            raise DataError(
                f"ByteArrayConverter is not compatible with objects of type {class_name(value)}"
            )
        return None if value is None else bytes(value)

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """An optional BYTES value."""
        return SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, value)

    def from_connect_column(
        self, topic: str, schema: Schema | None, column: pa.Array
    ) -> pa.Array | None:
        """A ``binary`` column as it is (BYTES schema or none)."""
        if schema is not None and schema.type is not SchemaType.BYTES:
            return None
        return columns.binary(column) if columns.is_bytes(column) else None

    def to_connect_column(
        self, topic: str, column: pa.Array
    ) -> tuple[Schema | None, pa.Array] | None:
        """An optional BYTES column, as it is."""
        return (Schema.OPTIONAL_BYTES_SCHEMA, column) if columns.is_bytes(column) else None

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """A header value, converted like record data."""
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """A header value, converted like record data."""
        return self.to_connect_data(topic, value)


__all__ = ["ByteArrayConverter"]
