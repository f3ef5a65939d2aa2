"""SimpleHeaderConverter: header values as text, schemas inferred on reading.

Kafka's ``org.apache.kafka.connect.storage.SimpleHeaderConverter``, a worker's default
``header.converter``. Writing prints the value with ``Values.convertToString`` and encodes
the text as UTF-8; reading decodes UTF-8 (malformed bytes become U+FFFD) and parses the
text with ``Values.parseString`` (both in :mod:`seaway.connect.api.data.values`, which lists
the rules). Text that breaks the parser gives BYTES with the raw header, as Kafka's
catch-all does: so does nesting deeper than Python's recursion limit (Kafka's stack
overflow, at a much greater depth), while a number whose exponent overflows Java's
``BigInteger`` (near 10^9), BYTES in Kafka, is a Decimal here.

>>> converter = SimpleHeaderConverter()
>>> converter.to_connect_header("topic", "h", b"[1, 300]")
SchemaAndValue(schema=Schema(ARRAY, value_schema=Schema(INT16)), value=[1, 300])
>>> converter.to_connect_header("topic", "h", b"1.5").schema
Schema(FLOAT32)
>>> converter.to_connect_header("topic", "h", b"[foo]")
SchemaAndValue(schema=Schema(STRING), value='[foo]')
>>> converter.from_connect_header("topic", "h", None, {"a": [True, None], "b": b"hi"})
b'{"a":[true,null],"b":"aGk="}'
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import seaway
from seaway.config import ConfigDef
from seaway.connect.api.data import Schema, SchemaAndValue
from seaway.connect.api.data.values import convert_to_string, parse_string
from seaway.connect.api.storage import HeaderConverter

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------- converter


class SimpleHeaderConverter(HeaderConverter):
    """Header values as UTF-8 text, schemas inferred when read (see the module docstring)."""

    def version(self) -> str:
        """Seaway's version."""
        return seaway.__version__

    def config(self) -> ConfigDef:
        """No settings (``converter.type`` is accepted and ignored, as in Kafka)."""
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """The parsed header; ``null`` and None give ``SchemaAndValue.NULL``.

        Text that breaks the parser (see the module docstring) gives BYTES with the raw
        header, as Kafka's catch-all does.
        """
        if value is None:
            return SchemaAndValue.NULL
        try:
            parsed = parse_string(bytes(value).decode("utf-8", "replace"))
        except Exception:  # Kafka catches any Throwable here
            log.warning(
                "Failed to deserialize value for header '%s' on topic '%s', so using byte array",
                header_key,
                topic,
                exc_info=True,
            )
            return SchemaAndValue(Schema.BYTES_SCHEMA, value)
        return parsed if parsed is not None else SchemaAndValue.NULL

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """*value* as UTF-8 text; None stays None."""
        if value is None:
            return None
        text = convert_to_string(schema, value)
        assert text is not None
        return text.encode("utf-8", "replace")


__all__ = ["SimpleHeaderConverter"]
