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
import re
from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

import seaway
from seaway.config import ConfigDef
from seaway.connect.api.data import Schema, SchemaAndValue, SchemaType
from seaway.connect.api.data.logical import Decimal
from seaway.connect.api.errors import DataError
from seaway.connect.api.header import Headers
from seaway.connect.api.storage import (
    CONVERTER_TYPE_CONFIG,
    Converter,
    ConverterType,
    HeaderConverter,
)
from seaway.connect.converters import columns, json_structs
from seaway.connect.converters.json_codec import JsonCodec, per_schema
from seaway.connect.converters.json_config import CONFIG_DEF, DecimalFormat, JsonConverterConfig
from seaway.connect.converters.json_struct_writer import struct_envelopes
from seaway.connect.converters.json_text import (
    dumps,
    dumps_plain,
    loads,
    loads_whole,
    string_bytes,
)

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
        self._prefixes: dict[int, tuple[Schema | None, bytes]] = {}
        self._plain_trees: dict[int, tuple[Schema | None, bool]] = {}
        self._envelopes: dict[bytes, Schema] = {}
        self._structs: dict[bytes, Schema] = {}  # envelope prefixes of struct schemas
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
        if type(value) is str and schema is not None and _plain_string(schema):
            # The common case (a line, a text field) without building a JSON tree.
            try:
                literal = string_bytes(value)
            except UnicodeEncodeError as exc:
                raise DataError(
                    "Converting Kafka Connect data to byte[] failed due to serialization error: "
                ) from exc
            if not self.settings.schemas_enabled:
                return literal
            return self._envelope_prefix(schema) + literal + b"}"
        payload = self.codec.to_json(schema, value)
        write = dumps_plain if self._plain_tree(schema) else dumps
        try:
            if self.settings.schemas_enabled:  # the envelope's schema part, once per schema
                return self._envelope_prefix(schema) + write(payload) + b"}"
            return write(payload)
        except UnicodeEncodeError as exc:
            raise DataError(
                "Converting Kafka Connect data to byte[] failed due to serialization error: "
            ) from exc

    def from_connect_column(
        self, topic: str, schema: Schema | None, column: pa.Array
    ) -> pa.Array | None:
        """A text column of a STRING schema as JSON string literals, or a struct column of
        a STRUCT schema as JSON objects (:mod:`~seaway.connect.converters.json_struct_writer`),
        in the schema envelope with ``schemas.enable``: byte for byte
        :meth:`from_connect_data`'s, or None (the runtime goes record by record)."""
        if schema is None or schema.type not in (SchemaType.STRING, SchemaType.STRUCT):
            return None
        prefix = self._envelope_prefix(schema) if self.settings.schemas_enabled else b""
        suffix = b"}" if prefix else b""
        if schema.type is SchemaType.STRUCT:
            codec = self.codec
            return struct_envelopes(column, schema, prefix, suffix, codec.decimal_format,
                                    codec.replace_null_with_default)  # fmt: skip
        return columns.json_literals(column, prefix, suffix)

    def to_connect_column(
        self, topic: str, column: pa.Array
    ) -> tuple[Schema | None, pa.Array] | None:
        """Plain JSON string literals (in a STRING schema envelope with ``schemas.enable``)
        as a text column, or envelopes of one STRUCT schema as a struct column
        (:mod:`~seaway.connect.converters.json_structs`); None for anything else (it goes
        record by record)."""
        if column.null_count == len(column):  # no value at all: SchemaAndValue.NULL each
            return None, pa.nulls(len(column), pa.string())
        if not self.settings.schemas_enabled:
            text = columns.strip_json_literals(column, b"", b"")
            return None if text is None else (None, text)
        for schema in (Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA):
            text = columns.strip_json_literals(column, self._envelope_prefix(schema), b"}")
            if text is not None:
                return schema, text
        return self._struct_column(topic, column)

    def _struct_column(self, topic: str, column: pa.Array) -> tuple[Schema, pa.Array] | None:
        """Envelopes of the first value's STRUCT schema, each with the exact bytes this
        converter writes for it, as a struct column."""
        if not columns.is_bytes(column):
            return None
        first = column[pc.index(column.is_valid(), True).as_py()].as_py()
        try:
            schema = self.to_connect_data(topic, first).schema
        except DataError:
            return None  # the per-record path raises it
        if schema is None or schema.type is not SchemaType.STRUCT:
            return None
        prefix = self._envelope_prefix(schema)
        structs = json_structs.struct_column(column, prefix, schema, self.codec)
        return None if structs is None else (schema, structs)

    def _plain_tree(self, schema: Schema | None) -> bool:
        """Whether the JSON trees of *schema*'s values hold no number Java prints its own way
        (floats, numeric decimals), so :func:`dumps_plain` writes them; once per schema."""
        if schema is None:
            return False
        return per_schema(self._plain_trees, schema, lambda: self._without_java_numbers(schema))

    def _without_java_numbers(self, schema: Schema | None) -> bool:
        if schema is None:
            return True
        if schema.type in (SchemaType.FLOAT32, SchemaType.FLOAT64):
            return False
        if schema.name == Decimal.LOGICAL_NAME:
            return self.codec.decimal_format is not DecimalFormat.NUMERIC
        if schema.type is SchemaType.STRUCT:
            return all(self._without_java_numbers(f.schema) for f in schema.fields)
        if schema.type is SchemaType.ARRAY:
            return self._without_java_numbers(schema.value_schema)
        if schema.type is SchemaType.MAP:
            return self._without_java_numbers(schema.key_schema) and self._without_java_numbers(
                schema.value_schema
            )
        return True

    def _envelope_prefix(self, schema: Schema | None) -> bytes:
        """``{"schema":<schema>,"payload":`` for *schema*, computed once per schema object."""
        return per_schema(
            self._prefixes,
            schema,
            lambda: b'{"schema":' + dumps(self.codec.schema_to_json(schema)) + b',"payload":',
        )

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """The schema and value JSON bytes stand for; None gives ``SchemaAndValue.NULL``."""
        if value is None:
            return SchemaAndValue.NULL
        if self.settings.schemas_enabled:
            fast = self._string_envelope(value)
            if fast is None:
                fast = self._struct_envelope(value)
            if fast is not None:
                return fast
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
        result = SchemaAndValue(schema, self.codec.to_connect(schema, node["payload"]))
        if schema is not None and _plain_string(schema) and isinstance(result.value, str):
            self._learn_envelope(schema)
        elif schema is not None and schema.type is SchemaType.STRUCT and len(self._structs) < 16:
            self._structs.setdefault(self._envelope_prefix(schema), schema)
        return result

    def _struct_envelope(self, value: bytes) -> SchemaAndValue | None:
        """``{"schema":<a struct schema seen before>,"payload":...}``: the schema's bytes are
        the ones this converter writes for it, so only the payload is parsed (Connect's
        records of one table or topic carry the same schema, byte for byte)."""
        for prefix, schema in self._structs.items():
            if value.startswith(prefix) and value.endswith(b"}"):
                try:
                    node = loads_whole(value[len(prefix) : -1].decode("utf-8"))
                except ValueError:
                    return None  # the whole parse decides (and names the error)
                return SchemaAndValue(schema, self.codec.to_connect(schema, node))
        return None

    def _learn_envelope(self, schema: Schema) -> None:
        """Remember the exact bytes before a string payload written with *schema*."""
        if len(self._envelopes) < 16:
            prefix = self._envelope_prefix(schema) + b'"'
            self._envelopes.setdefault(prefix, schema)

    def _string_envelope(self, value: bytes) -> SchemaAndValue | None:
        """``{"schema":<known string schema>,"payload":"<plain text>"}`` without a JSON
        parse: only when the payload has no escapes, quotes or control characters."""
        for prefix, schema in self._envelopes.items():
            if value.startswith(prefix) and value.endswith(b'"}'):
                middle = value[len(prefix) : -2]
                if _NOT_PLAIN.search(middle) is not None:
                    return None
                try:
                    return SchemaAndValue(schema, middle.decode("utf-8"))
                except UnicodeDecodeError:
                    return None
        return None

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


_NOT_PLAIN: Final = re.compile(rb'[\x00-\x1f"\\]')


def _plain_string(schema: Schema) -> bool:
    return schema.type is SchemaType.STRING


__all__ = ["JsonConverter"]
