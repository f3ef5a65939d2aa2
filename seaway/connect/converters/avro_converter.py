"""Confluent's ``AvroConverter``: Connect data as Avro in Confluent's wire format.

A serialized value is a zero magic byte, the schema's registry id as a 4-byte big-endian
integer, then the Avro binary encoding of the datum (fastavro). The schema is registered
under the subject the subject name strategy gives (``TopicNameStrategy``: ``<topic>-key`` /
``<topic>-value``; ``RecordNameStrategy``: the record's full name;
``TopicRecordNameStrategy``: ``<topic>-<record name>``) unless ``auto.register.schemas`` is
false (then it must be there already) or ``use.latest.version`` is true (the subject's latest
schema is used). Reading takes the writer's schema from the registry by id.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa
from fastavro import parse_schema, schemaless_reader, schemaless_writer

import seaway
from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.connect.api.data import Schema, SchemaAndValue
from seaway.connect.api.data.arrow import arrow_type
from seaway.connect.api.errors import DataError
from seaway.connect.api.header import Headers
from seaway.connect.api.storage import Converter
from seaway.connect.converters import columns
from seaway.connect.converters.avro_data import (
    from_connect_schema,
    from_connect_value,
    is_flat,
    to_connect_schema,
    to_connect_value,
)
from seaway.connect.converters.registry_client import RegistryClient

__all__ = ["AvroConverter"]

URL: Final = "schema.registry.url"
AUTO_REGISTER: Final = "auto.register.schemas"
USE_LATEST: Final = "use.latest.version"
_STRATEGIES: Final = "io.confluent.kafka.serializers.subject."
TOPIC_NAME: Final = f"{_STRATEGIES}TopicNameStrategy"
RECORD_NAME: Final = f"{_STRATEGIES}RecordNameStrategy"
TOPIC_RECORD_NAME: Final = f"{_STRATEGIES}TopicRecordNameStrategy"
_MAGIC: Final = 0


def _config_def() -> ConfigDef:
    d = ConfigDef()
    d.define(
        URL,
        Type.STRING,
        None,
        None,
        Importance.HIGH,
        "Comma-separated URLs of the schema registry (http://host:8081).",
    )
    d.define(
        AUTO_REGISTER,
        Type.BOOLEAN,
        True,
        None,
        Importance.MEDIUM,
        "Register a record's schema when it is not registered yet.",
    )
    d.define(
        USE_LATEST,
        Type.BOOLEAN,
        False,
        None,
        Importance.LOW,
        "Write with the subject's latest registered schema instead of the record's.",
    )
    for which in ("key", "value"):
        d.define(
            f"{which}.subject.name.strategy",
            Type.STRING,
            TOPIC_NAME,
            None,
            Importance.MEDIUM,
            f"How the {which} schema's subject is named: TopicNameStrategy, "
            "RecordNameStrategy or TopicRecordNameStrategy.",
        )
    return d  # fmt: skip


CONFIG_DEF: Final = _config_def()


class AvroConverter(Converter):
    """Connect data <-> Avro with a schema registry (Confluent's wire format)."""

    def __init__(self) -> None:
        self.client: RegistryClient | None = None
        self.is_key = False
        self.auto_register = True
        self.use_latest = False
        self.strategy = TOPIC_NAME
        self._avro: dict[int, tuple[Schema, Any, Any]] = {}  # id(schema) -> avro, parsed
        self._ids: dict[tuple[str, int], tuple[Schema, int]] = {}  # (topic, id(schema)) -> id
        self._readers: dict[int, tuple[Schema, Any]] = {}  # schema id -> connect, parsed

    def version(self) -> str:
        return seaway.__version__

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        values = CONFIG_DEF.parse({k: v for k, v in configs.items() if k in CONFIG_DEF})
        if not values[URL]:
            raise ConfigException(
                f'Missing required configuration "{URL}" which has no default value: the '
                "AvroConverter needs a schema registry (e.g. value.converter."
                f"{URL}=http://localhost:8081)"
            )
        self.client = RegistryClient(values[URL])
        self.is_key = is_key
        self.auto_register = values[AUTO_REGISTER]
        self.use_latest = values[USE_LATEST]
        strategy = str(values[f"{'key' if is_key else 'value'}.subject.name.strategy"])
        full = strategy if "." in strategy else _STRATEGIES + strategy
        if full not in (TOPIC_NAME, RECORD_NAME, TOPIC_RECORD_NAME):
            raise ConfigException(
                f"Unknown subject name strategy {strategy}: use TopicNameStrategy, "
                "RecordNameStrategy or TopicRecordNameStrategy"
            )
        self.strategy = full

    def _subject(self, topic: str, avro: Any) -> str:
        if self.strategy == TOPIC_NAME:
            return f"{topic}-{'key' if self.is_key else 'value'}"
        if not isinstance(avro, dict) or avro.get("type") != "record":
            raise DataError(f"{self.strategy} needs a record schema, not {avro}")
        namespace = avro.get("namespace")
        name = f"{namespace}.{avro['name']}" if namespace else str(avro["name"])
        return name if self.strategy == RECORD_NAME else f"{topic}-{name}"

    def _writer(self, schema: Schema) -> tuple[Any, Any]:
        cached = self._avro.get(id(schema))
        if cached is None or cached[0] is not schema:
            avro = from_connect_schema(schema)
            cached = self._avro[id(schema)] = (schema, avro, parse_schema(avro))
        return cached[1], cached[2]

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if value is None:
            return None
        if schema is None:
            raise DataError("The AvroConverter needs a schema: the record has none")
        header, parsed = self._write_with(topic, schema)
        out = io.BytesIO()
        out.write(header)
        try:
            schemaless_writer(out, parsed, from_connect_value(schema, value))
        except (ValueError, TypeError, KeyError) as error:
            raise DataError(f"Failed to serialize Avro data for topic {topic}: {error}") from None
        return out.getvalue()

    def _write_with(self, topic: str, schema: Schema) -> tuple[bytes, Any]:
        """The wire header (magic byte, schema id) and parsed writer schema of *schema*
        on *topic*, registered or looked up as configured."""
        assert self.client is not None, "configure() first"
        avro, parsed = self._writer(schema)
        if self.use_latest:
            schema_id, latest = self.client.latest(self._subject(topic, avro))
            parsed = parse_schema(latest)
        else:
            known = self._ids.get((topic, id(schema)))
            if known is None or known[0] is not schema:
                subject = self._subject(topic, avro)
                found = (self.client.register(subject, avro) if self.auto_register
                         else self.client.lookup(subject, avro))  # fmt: skip
                known = self._ids[(topic, id(schema))] = (schema, found)
            schema_id = known[1]
        return bytes([_MAGIC]) + schema_id.to_bytes(4, "big"), parsed

    def from_connect_column(
        self, topic: str, schema: Schema | None, column: pa.Array
    ) -> pa.Array | None:
        """A struct column of a flat STRUCT schema (:func:`~seaway.connect.converters.
        avro_data.is_flat`) as Avro values, byte for byte :meth:`from_connect_data`'s: the
        rows go to fastavro as they are, no Struct built; None for anything else or an
        error (the record path then raises it for its record)."""
        if schema is None or not is_flat(schema) or not pa.types.is_struct(column.type):
            return None
        header, parsed = self._write_with(topic, schema)
        out: list[bytes | None] = []
        buffer = io.BytesIO()
        try:
            for row in column.to_pylist():
                if row is None:
                    out.append(None)
                    continue
                buffer.seek(0)
                buffer.truncate()
                buffer.write(header)
                schemaless_writer(buffer, parsed, row)
                out.append(buffer.getvalue())
        except (ValueError, TypeError, KeyError):
            return None
        return pa.array(out, pa.binary())

    def to_connect_data(
        self, topic: str, value: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue.NULL
        assert self.client is not None, "configure() first"
        if len(value) < 5 or value[0] != _MAGIC:
            raise DataError(
                f"Failed to deserialize data for topic {topic} to Avro: Unknown magic byte!"
            )
        schema_id = int.from_bytes(value[1:5], "big")
        schema, parsed = self._reader(schema_id)
        try:
            datum = schemaless_reader(io.BytesIO(value[5:]), parsed, None)
        except (ValueError, TypeError, EOFError, IndexError) as error:
            raise DataError(
                f"Failed to deserialize data for topic {topic} to Avro (schema id "
                f"{schema_id}): {error}"
            ) from None
        return SchemaAndValue(schema, to_connect_value(schema, datum))

    def _reader(self, schema_id: int) -> tuple[Schema, Any]:
        """The Connect schema and parsed Avro schema of the registry's *schema_id*."""
        assert self.client is not None, "configure() first"
        if schema_id not in self._readers:
            writer = self.client.schema(schema_id)
            self._readers[schema_id] = (to_connect_schema(writer), parse_schema(writer))
        return self._readers[schema_id]

    def to_connect_column(
        self, topic: str, column: pa.Array
    ) -> tuple[Schema | None, pa.Array] | None:
        """Avro values of one flat STRUCT schema (one schema id) as a struct column, the
        values :meth:`to_connect_data` gives; None for anything else, or a value it cannot
        read (the record path then raises it for its record)."""
        if not columns.is_bytes(column) or column.null_count == len(column):
            return None
        values = column.to_pylist()
        header = next(v for v in values if v is not None)[:5]
        if len(header) < 5 or header[0] != _MAGIC:
            return None
        schema, parsed = self._reader(int.from_bytes(header[1:5], "big"))
        if not is_flat(schema):
            return None
        rows: list[Any] = []
        try:
            for value in values:
                if value is None:
                    rows.append(None)
                    continue
                if value[:5] != header:  # another schema: record by record
                    return None
                rows.append(schemaless_reader(io.BytesIO(value[5:]), parsed, None))
            return schema, pa.array(rows, type=arrow_type(schema))
        except (ValueError, TypeError, EOFError, IndexError, pa.ArrowException):
            return None
