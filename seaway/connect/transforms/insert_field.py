"""InsertField: add the record's topic, partition, offset, timestamp or a static value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.connect.api.data import Schema, SchemaBuilder, Struct, Timestamp
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    copy_schema_basics,
    define_replace_null_with_default,
    field_value,
    key_value_doc,
    require_map,
    require_sink_record,
    require_struct,
    schema_cache,
    simple_config,
)

_OPTIONALITY_DOC = (
    "Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it "
    "optional (the default)."
)
_PURPOSE = "field insertion"
_OPTIONAL_TIMESTAMP_SCHEMA = Timestamp.builder().optional().build()

_FIELDS = (
    ("topic.field", "Field name for Kafka topic. " + _OPTIONALITY_DOC),
    ("partition.field", "Field name for Kafka partition. " + _OPTIONALITY_DOC),
    (
        "offset.field",
        "Field name for Kafka offset - only applicable to sink connectors.<br/>" + _OPTIONALITY_DOC,
    ),
    ("timestamp.field", "Field name for record timestamp. " + _OPTIONALITY_DOC),
    ("static.field", "Field name for static data field. " + _OPTIONALITY_DOC),
    ("static.value", "Static field value, if field name configured."),
)
CONFIG_DEF = ConfigDef()
for _name, _doc in _FIELDS:
    CONFIG_DEF.define(_name, Type.STRING, None, importance=Importance.MEDIUM, doc=_doc)
define_replace_null_with_default(CONFIG_DEF)


@dataclass(frozen=True, slots=True)
class InsertionSpec:
    """A field to insert: its name, and whether its schema is optional (``?``, the default)
    or required (``!``)."""

    name: str
    optional: bool

    @staticmethod
    def parse(spec: str | None) -> InsertionSpec | None:
        """The spec for ``name``, ``name?`` or ``name!``; None for None."""
        if spec is None:
            return None
        if spec.endswith("?"):
            return InsertionSpec(spec[:-1], True)
        if spec.endswith("!"):
            return InsertionSpec(spec[:-1], False)
        return InsertionSpec(spec, True)

    def __str__(self) -> str:
        return self.name


class InsertField(KeyOrValueTransformation[R]):
    """Insert fields from record metadata or a static value into a Struct or map."""

    OVERVIEW_DOC = key_value_doc(
        "Insert field(s) using attributes from the record metadata or a configured static value.",
        "InsertField",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[InsertField[Any]]]
    Value: ClassVar[type[InsertField[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._topic = InsertionSpec.parse(config.get_string("topic.field"))
        self._partition = InsertionSpec.parse(config.get_string("partition.field"))
        self._offset = InsertionSpec.parse(config.get_string("offset.field"))
        self._timestamp = InsertionSpec.parse(config.get_string("timestamp.field"))
        self._static = InsertionSpec.parse(config.get_string("static.field"))
        self._static_value = config.get_string("static.value")
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        specs = (self._topic, self._partition, self._offset, self._timestamp, self._static)
        if all(spec is None for spec in specs):
            raise ConfigException("No field insertion configured")
        if self._static is not None and self._static_value is None:
            raise ConfigException(
                "static.value", None, f"No value specified for static field: {self._static}"
            )
        self._updated_schema = schema_cache(self._make_updated_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        if self.operating_value(record) is None:
            return record
        if self.operating_schema(record) is None:
            return self._apply_schemaless(record)
        return self._apply_with_schema(record)

    def _insertions(self, record: R, with_schema: bool) -> list[tuple[str, Any]]:
        values: list[tuple[str, Any]] = []
        if self._topic is not None:
            values.append((self._topic.name, record.topic))
        if self._partition is not None and record.kafka_partition is not None:
            values.append((self._partition.name, record.kafka_partition))
        if self._offset is not None:
            values.append((self._offset.name, require_sink_record(record, _PURPOSE).kafka_offset))
        if self._timestamp is not None and record.timestamp is not None:
            timestamp: Any = record.timestamp
            if with_schema:
                timestamp = Timestamp.to_logical(Timestamp.SCHEMA, record.timestamp)
            values.append((self._timestamp.name, timestamp))
        if self._static is not None and self._static_value is not None:
            values.append((self._static.name, self._static_value))
        return values

    def _apply_schemaless(self, record: R) -> R:
        updated = dict(require_map(self.operating_value(record), _PURPOSE))
        updated.update(self._insertions(record, with_schema=False))
        return self.new_record(record, None, updated)

    def _apply_with_schema(self, record: R) -> R:
        value = require_struct(self.operating_value(record), _PURPOSE)
        updated_schema = self._updated_schema(value.schema)
        updated = Struct(updated_schema)
        for field in value.schema.fields:
            updated.put(field.name, field_value(value, field, self._replace_null_with_default))
        for name, inserted in self._insertions(record, with_schema=True):
            updated.put(name, inserted)
        return self.new_record(record, updated_schema, updated)

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            builder.field(field.name, field.schema)
        optional_or_not = (
            (self._topic, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA),
            (self._partition, Schema.OPTIONAL_INT32_SCHEMA, Schema.INT32_SCHEMA),
            (self._offset, Schema.OPTIONAL_INT64_SCHEMA, Schema.INT64_SCHEMA),
            (self._timestamp, _OPTIONAL_TIMESTAMP_SCHEMA, Timestamp.SCHEMA),
            (self._static, Schema.OPTIONAL_STRING_SCHEMA, Schema.STRING_SCHEMA),
        )
        for spec, optional, required in optional_or_not:
            if spec is not None:
                builder.field(spec.name, optional if spec.optional else required)
        return builder.build()

    def close(self) -> None:
        self._updated_schema = schema_cache(self._make_updated_schema)


class InsertFieldKey(OnKey, InsertField[R]):
    """``InsertField$Key``: insert into the record key."""


class InsertFieldValue(OnValue, InsertField[R]):
    """``InsertField$Value``: insert into the record value."""


InsertField.Key = InsertFieldKey
InsertField.Value = InsertFieldValue

__all__ = ["InsertField", "InsertFieldKey", "InsertFieldValue", "InsertionSpec"]
