"""StringConverter: values as text (Kafka's ``org.apache.kafka.connect.storage.StringConverter``).

Writing uses the value's string form (Java-style for booleans and floats); reading gives
an optional STRING. The encoding is ``converter.encoding`` (UTF-8 by default), overridden
by ``key.serializer.encoding`` / ``value.serializer.encoding`` for keys / values, exactly
as Kafka's StringSerializer reads them. Java charset names are understood (``UTF-16`` is
written big-endian with a byte order mark); unmappable characters become ``?`` and
malformed input U+FFFD, as in Java.

>>> converter = StringConverter()
>>> converter.configure({"converter.encoding": "UTF-16"}, is_key=True)
>>> converter.from_connect_data("t", None, "hi")
b'\\xfe\\xff\\x00h\\x00i'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa

import seaway
from seaway.config import ConfigDef, ConfigException, Importance, Type, Width
from seaway.connect.api.data import Schema, SchemaAndValue
from seaway.connect.api.header import Headers
from seaway.connect.api.storage import (
    CONVERTER_TYPE_CONFIG,
    Converter,
    ConverterType,
    HeaderConverter,
    converter_config_def,
)
from seaway.connect.converters import columns
from seaway.java.objects import to_string
from seaway.java.strings import JavaCharset

ENCODING_CONFIG: Final = "converter.encoding"
ENCODING_DEFAULT: Final = "UTF-8"
ENCODING_DOC: Final = (
    "The name of the Java character set to use for encoding strings as byte arrays."
)

CONFIG_DEF: Final = converter_config_def().define(
    ENCODING_CONFIG,
    Type.STRING,
    ENCODING_DEFAULT,
    importance=Importance.HIGH,
    doc=ENCODING_DOC,
    width=Width.MEDIUM,
    display_name="Encoding",
)


class StringConverter(Converter, HeaderConverter):
    """Converts values to and from strings in a configurable charset."""

    def __init__(self) -> None:
        self._charset = JavaCharset(ENCODING_DEFAULT)

    def version(self) -> str:
        """Seaway's version."""
        return seaway.__version__

    def config(self) -> ConfigDef:
        """``converter.type`` and ``converter.encoding``."""
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Configure; without *is_key*, *configs* must hold ``converter.type``."""
        props = dict(configs)
        if is_key is not None:
            props[CONVERTER_TYPE_CONFIG] = (
                ConverterType.KEY if is_key else ConverterType.VALUE
            ).value
        values = CONFIG_DEF.parse(props)
        key = ConverterType(values[CONVERTER_TYPE_CONFIG]) is ConverterType.KEY
        override = "key.serializer.encoding" if key else "value.serializer.encoding"
        name, encoding = override, props.get(override)
        if not isinstance(encoding, str):
            name, encoding = ENCODING_CONFIG, values[ENCODING_CONFIG]
        try:
            self._charset = JavaCharset(encoding)
        except ValueError as exc:
            raise ConfigException(name, encoding, str(exc)) from exc

    @property
    def encoding(self) -> str:
        """The configured charset name."""
        return self._charset.name

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """The encoded string form of *value*; None stays None."""
        return None if value is None else self._charset.encode(to_string(value))

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """An optional STRING; None stays None."""
        text = None if value is None else self._charset.decode(value)
        return SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, text)

    def _utf8(self) -> bool:
        return self._charset.name.replace("-", "").upper() == "UTF8"

    def from_connect_column(
        self, topic: str, schema: Schema | None, column: pa.Array
    ) -> pa.Array | None:
        """A text column's UTF-8 bytes, zero-copy (UTF-8 only; other charsets per record)."""
        if not self._utf8() or not columns.is_text(column):
            return None
        return columns.binary(column)

    def to_connect_column(
        self, topic: str, column: pa.Array
    ) -> tuple[Schema | None, pa.Array] | None:
        """An optional STRING column (UTF-8 only; invalid bytes go record by record)."""
        text = columns.utf8(column) if self._utf8() else None
        return None if text is None else (Schema.OPTIONAL_STRING_SCHEMA, text)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """A header value, converted like record data."""
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """A header value, converted like record data."""
        return self.to_connect_data(topic, value)


__all__ = ["CONFIG_DEF", "ENCODING_CONFIG", "StringConverter"]
