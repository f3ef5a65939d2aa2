"""JsonConverter, byte-for-byte compatible with Kafka's ``connect.json.JsonConverter``.

With ``schemas.enable=true`` (the default) each value is written in an envelope,
``{"schema":...,"payload":...}``; without it the bare JSON value is written and read back
schemaless (integers as INT64, other numbers as FLOAT64, objects as maps).

>>> from seaway.connect.api.data import Schema
>>> converter = JsonConverter()
>>> converter.configure({}, is_key=False)
>>> converter.from_connect_data("lines", Schema.STRING_SCHEMA, "foo")
b'{"schema":{"type":"string","optional":false},"payload":"foo"}'
>>> converter.to_connect_data("lines", b'{"schema":{"type":"int32"},"payload":7}').value
7
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import seaway
from seaway.config import ConfigDef
from seaway.connect.api.data import Schema, SchemaAndValue
from seaway.connect.api.errors import DataError
from seaway.connect.api.header import Headers
from seaway.connect.api.storage import (
    CONVERTER_TYPE_CONFIG,
    Converter,
    ConverterType,
    HeaderConverter,
)
from seaway.connect.converters.json_codec import JsonCodec
from seaway.connect.converters.json_config import CONFIG_DEF, JsonConverterConfig
from seaway.connect.converters.json_text import dumps, loads

ENVELOPE_ERROR: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not '
    "contain additional fields. If you are trying to deserialize plain JSON data, set "
    "schemas.enable=false in your converter configuration."
)


class JsonConverter(Converter, HeaderConverter):
    """Converts Connect data to and from JSON, optionally with an embedded schema.

    Usable before :meth:`configure` with the defaults of a value converter.
    """

    def __init__(self) -> None:
        self._apply(JsonConverterConfig(type=ConverterType.VALUE))

    def _apply(self, config: JsonConverterConfig) -> None:
        self.settings = config
        self.codec = JsonCodec(
            config.decimal_format, config.replace_null_with_default, config.schema_cache_size
        )

    def version(self) -> str:
        """Seaway's version."""
        return seaway.__version__

    def config(self) -> ConfigDef:
        """``converter.type``, ``schemas.enable``, ``schemas.cache.size``, ``decimal.format``,
        ``replace.null.with.default``."""
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        """Configure; without *is_key*, *configs* must hold ``converter.type``."""
        props = dict(configs)
        if is_key is not None:
            props[CONVERTER_TYPE_CONFIG] = (
                ConverterType.KEY if is_key else ConverterType.VALUE
            ).value
        self._apply(JsonConverterConfig.parse(props))

    # ------------------------------------------------------------------ data

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """JSON bytes of *value*; None when both schema and value are None (a tombstone)."""
        if schema is None and value is None:
            return None
        payload = self.codec.to_json(schema, value)
        if self.settings.schemas_enabled:
            node: Any = {"schema": self.codec.schema_to_json(schema), "payload": payload}
        else:
            node = payload
        try:
            return dumps(node)
        except UnicodeEncodeError as exc:
            raise DataError(
                "Converting Kafka Connect data to byte[] failed due to serialization error: "
            ) from exc

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """The schema and value JSON bytes stand for; None gives ``SchemaAndValue.NULL``."""
        if value is None:
            return SchemaAndValue.NULL
        try:
            node = loads(value)
        except (ValueError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataError(
                "Converting byte[] to Kafka Connect data failed due to serialization error: "
            ) from exc
        if not self.settings.schemas_enabled:
            return SchemaAndValue(None, self.codec.to_connect(None, node))
        if not (
            isinstance(node, dict) and len(node) == 2 and "schema" in node and "payload" in node
        ):
            raise DataError(ENVELOPE_ERROR)
        schema = self.codec.schema_from_json(node["schema"])
        return SchemaAndValue(schema, self.codec.to_connect(schema, node["payload"]))

    # ------------------------------------------------------------------ headers

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """A header value, converted like record data."""
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        """A header value, converted like record data."""
        return self.to_connect_data(topic, value)

    # ------------------------------------------------------------------ schemas

    def as_json_schema(self, schema: Schema | None) -> dict[str, Any] | None:
        """The JSON tree of *schema* as written in the envelope (do not mutate it)."""
        return self.codec.schema_to_json(schema)

    def as_connect_schema(self, json_schema: Any) -> Schema | None:
        """The schema a JSON schema tree (parsed JSON) describes."""
        return self.codec.schema_from_json(json_schema)


__all__ = ["JsonConverter"]
