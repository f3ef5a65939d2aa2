"""The converter of a DataFrame's typed ``key`` or ``value`` column written to a sink connector.

A row's ``value`` may be a struct (or any Spark type) rather than a converter's bytes: its
Connect schema is the Spark type's (:func:`~seaway.connect.spark_format.columns.
connect_schema`), handed over in the converter's ``schema`` setting as JsonConverter's schema
JSON, and the values need no decoding: a whole column goes to a batch task as it is, cast to
the schema's Arrow type; one row's value becomes the Connect value (a ``Struct``...).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa

from seaway.connect.api import Converter, Headers, Schema, SchemaAndValue
from seaway.connect.api.data.arrow import arrow_type, connect_value
from seaway.connect.api.errors import DataError

__all__ = ["SCHEMA_CONFIG", "TypedColumnConverter", "converter_configs"]

SCHEMA_CONFIG: Final = "schema"


def converter_configs(schema: Schema) -> dict[str, str]:
    """The settings that make a :class:`TypedColumnConverter` of *schema*."""
    from seaway.connect.converters.json_converter import JsonConverter

    return {SCHEMA_CONFIG: json.dumps(JsonConverter().as_json_schema(schema))}


class TypedColumnConverter(Converter):
    """Typed values in, the same values out as Connect data (sinks only)."""

    schema: Schema

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        from seaway.connect.converters.json_converter import JsonConverter

        schema = JsonConverter().as_connect_schema(json.loads(str(configs[SCHEMA_CONFIG])))
        assert schema is not None
        self.schema = schema

    def to_connect_data(
        self, topic: str, value: Any, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(self.schema, None)
        return SchemaAndValue(self.schema, connect_value(self.schema, value))

    def to_connect_column(self, topic: str, column: pa.Array) -> tuple[Schema | None, pa.Array]:
        return self.schema, column.cast(arrow_type(self.schema), safe=False)

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        raise DataError("a DataFrame's typed column is only written to sinks, never read back")
