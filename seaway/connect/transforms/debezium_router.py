"""Debezium's ``io.debezium.transforms.ByLogicalTableRouter``: shards into one logical table.

The physical tables of one logical table (``db_shard1.orders``, ``db_shard2.orders``) have the
same columns; this transform sends their change events to one topic:

* a record whose topic ``topic.regex`` matches whole goes to ``topic.replacement`` (Java's
  ``Matcher.replaceFirst``: ``$1``, ``${name}``); any other record, or one whose new topic
  would be empty, passes unchanged;
* its key (a Struct, or none) is renamed ``<new topic>.Key`` and, with
  ``key.enforce.uniqueness`` (true), gets a required STRING field ``key.field.name``
  (``__dbz__physicalTableIdentifier``) telling the physical tables apart: the old topic, or
  with ``key.field.regex`` matching it whole, its ``key.field.replacement``;
* a change event's value is renamed ``<new topic>.Envelope`` and its ``before``/``after`` rows
  ``<new topic>.Value``; other values (tombstones, heartbeats, schema changes, transaction
  markers) are kept as they are, under the new topic and key;
* ``schema.name.adjustment.mode`` (``none``) adjusts those names (see
  :mod:`~seaway.connect.transforms.debezium_names`); ``logical.table.cache.size`` (16) bounds
  each of the caches of topics and schemas.

>>> from seaway.connect.api import SinkRecord
>>> router = ByLogicalTableRouter()
>>> router.configure({"topic.regex": "(.*)_shard\\\\d+", "topic.replacement": "$1"})
>>> router.apply(SinkRecord(topic="shop.orders_shard2", kafka_offset=0)).topic
'shop.orders'
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any, Final

from seaway.config import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigException,
    Importance,
    LambdaValidator,
    Type,
)
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms._util import R, require_struct, simple_config
from seaway.connect.transforms.debezium_names import (
    ENVELOPE_SUFFIX,
    KEY_SUFFIX,
    SCHEMA_NAME_ADJUSTMENT_MODES,
    VALUE_SUFFIX,
    SchemaNameAdjuster,
    is_envelope,
)
from seaway.java.lru_cache import LruCache
from seaway.java.regex import JavaReplacement, compile_java_regex

__all__ = ["ByLogicalTableRouter"]

logger = logging.getLogger(__name__)

TOPIC_REGEX: Final = "topic.regex"
TOPIC_REPLACEMENT: Final = "topic.replacement"
KEY_ENFORCE_UNIQUENESS: Final = "key.enforce.uniqueness"
KEY_FIELD_REGEX: Final = "key.field.regex"
KEY_FIELD_NAME: Final = "key.field.name"
KEY_FIELD_REPLACEMENT: Final = "key.field.replacement"
SCHEMA_NAME_ADJUSTMENT_MODE: Final = "schema.name.adjustment.mode"
LOGICAL_TABLE_CACHE_SIZE: Final = "logical.table.cache.size"
_ROWS: Final = ("before", "after")
_PURPOSE: Final = "Updating schema"


def _require_value(name: str, value: Any) -> None:
    if value is None or not str(value).strip():
        raise ConfigException(name, value, "A value is required")


def _check_regex(name: str, value: Any) -> None:
    if value is None or not str(value).strip():
        return
    try:
        compile_java_regex(value)
    except (re.error, TypeError) as exc:
        raise ConfigException(
            name, value, f"A valid Java regular expression is required: {exc}"
        ) from exc


def _check_required_regex(name: str, value: Any) -> None:
    _require_value(name, value)
    _check_regex(name, value)


CONFIG_DEF = (
    ConfigDef()
    .define(TOPIC_REGEX, Type.STRING,
            validator=LambdaValidator(_check_required_regex, "required regex"),
            importance=Importance.LOW,
            doc="The regex used for extracting the name of the logical table from the original "
                "topic name.")
    .define(TOPIC_REPLACEMENT, Type.STRING, validator=LambdaValidator(_require_value, "required"),
            importance=Importance.LOW,
            doc=f"The replacement string used in conjunction with {TOPIC_REGEX}. This will be "
                "used to create the new topic name.")
    .define(KEY_ENFORCE_UNIQUENESS, Type.BOOLEAN, True, importance=Importance.LOW,
            doc="Augment each record's key with a field denoting the source topic. This field "
                "distinguishes records coming from different physical tables which may "
                "otherwise have primary/unique key conflicts. If the source tables are "
                "guaranteed to have globally unique keys then this may be set to false to "
                "disable key rewriting.")
    .define(KEY_FIELD_REGEX, Type.STRING, None, LambdaValidator(_check_regex, "regex"),
            Importance.LOW,
            "The regex used for extracting the physical table identifier from the original "
            "topic name; its match is replaced by key.field.replacement.")
    .define(KEY_FIELD_NAME, Type.STRING, "__dbz__physicalTableIdentifier",
            importance=Importance.LOW,
            doc="Each record's key schema will be augmented with this field name. The purpose "
                "of this field is to distinguish the different physical tables that can now "
                "share a single topic. Make sure not to configure a field name that is at risk "
                "of conflict with existing key schema field names.")
    .define(KEY_FIELD_REPLACEMENT, Type.STRING, None, importance=Importance.LOW,
            doc=f"The replacement string used in conjunction with {KEY_FIELD_REGEX}. This will "
                "be used to create the physical table identifier in the record's key.")
    .define(SCHEMA_NAME_ADJUSTMENT_MODE, Type.STRING, "none",
            CaseInsensitiveValidString.in_(*SCHEMA_NAME_ADJUSTMENT_MODES), Importance.LOW,
            "How the key, envelope and row schema names derived from the new topic are "
            "adjusted for the converter: 'none' keeps them, 'avro' replaces the characters "
            "that cannot be used in an Avro type name with '_', 'avro_unicode' with their "
            "'_uxxxx' code.")
    .define(LOGICAL_TABLE_CACHE_SIZE, Type.INT, 16, importance=Importance.LOW,
            doc="The size used for holding the max entries in LRUCache. The cache will keep the "
                "old/new schema for logical table key and value, also cache the derived key and "
                "topic regex result for improving the source record transformation.")
)  # fmt: skip


class _Rename:
    """A topic regex and its replacement."""

    def __init__(self, regex: str, replacement: str, replacement_key: str) -> None:
        self.pattern = compile_java_regex(regex)
        try:
            self.replacement = JavaReplacement(replacement, self.pattern)
        except ValueError as exc:
            raise ConfigException(replacement_key, replacement, str(exc)) from exc

    def __call__(self, topic: str) -> str | None:
        """The new name of *topic* if the regex matches all of it, else None."""
        if self.pattern.fullmatch(topic) is None:
            return None
        return self.replacement.replace_first(self.pattern, topic)


def _copy_without_name(source: Schema, with_fields: bool = True) -> SchemaBuilder:
    """A STRUCT builder with *source*'s version, doc, parameters, optionality (and fields)."""
    builder = SchemaBuilder.struct()
    if source.version is not None:
        builder.version(source.version)
    if source.doc is not None:
        builder.doc(source.doc)
    if source.parameters:
        builder.parameters(source.parameters)
    if source.is_optional:
        builder.optional()
    for field in source.fields if with_fields else ():
        builder.field(field.name, field.schema)
    return builder


def _copy_struct(schema: Schema, struct: Struct) -> Struct:
    """*struct*'s values (as set, not defaulted) in a Struct of *schema*."""
    copy = Struct(schema)
    for field in struct.schema.fields:
        copy.put(field.name, struct.get_without_default(field))
    return copy


class ByLogicalTableRouter(Transformation[R]):
    """See the module docstring."""

    OVERVIEW_DOC = (
        "Route the change events of several physical tables of one logical table (shards) to "
        "one topic, adding a field to the key that tells the physical tables apart."
    )
    CONFIG_DEF = CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._topic = _Rename(
            str(config.get_string(TOPIC_REGEX)),
            str(config.get_string(TOPIC_REPLACEMENT)),
            TOPIC_REPLACEMENT,
        )
        self._key_field: _Rename | None = None
        key_regex = (config.get_string(KEY_FIELD_REGEX) or "").strip()
        if key_regex:
            replacement = config.get_string(KEY_FIELD_REPLACEMENT) or ""
            if not replacement.strip():
                raise ConfigException(
                    KEY_FIELD_REPLACEMENT, replacement,
                    f"{KEY_FIELD_REPLACEMENT} must be non-empty if {KEY_FIELD_REGEX} is set.",
                )  # fmt: skip
            self._key_field = _Rename(key_regex, replacement, KEY_FIELD_REPLACEMENT)
        self._key_field_name = str(config.get_string(KEY_FIELD_NAME))
        self._unique_keys = bool(config.get_boolean(KEY_ENFORCE_UNIQUENESS))
        self._names = SchemaNameAdjuster(str(config.get_string(SCHEMA_NAME_ADJUSTMENT_MODE)))
        size = int(config.get_int(LOGICAL_TABLE_CACHE_SIZE) or 0)
        self._topics: LruCache[str, str] = LruCache(size)
        self._identifiers: LruCache[str, str] = LruCache(size)
        self._key_schemas: LruCache[tuple[Schema, str], Schema] = LruCache(size)
        self._envelopes: LruCache[tuple[Schema, str], Schema] = LruCache(size)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> R:
        new_topic = self._new_topic(record.topic)
        if new_topic is None:
            return record
        if not new_topic:
            logger.warning(
                "Routing regex returned an empty topic name, propagating original record"
            )
            return record
        logger.debug("Applying topic name transformation from %s to %s", record.topic, new_topic)
        key_schema, key = None, None
        if record.key is not None:  # no key: a table without a primary key
            old_key = require_struct(record.key, _PURPOSE)
            key_schema = self._key_schema(old_key.schema, new_topic)
            key = self._key(key_schema, old_key, record.topic)
        if record.value is None or not is_envelope(record.value_schema):
            return record.new_record(topic=new_topic, key_schema=key_schema, key=key)
        envelope = require_struct(record.value, _PURPOSE)
        envelope_schema = self._envelope_schema(envelope.schema, new_topic)
        return record.new_record(
            topic=new_topic, key_schema=key_schema, key=key, value_schema=envelope_schema,
            value=self._envelope(envelope_schema, envelope),
        )  # fmt: skip

    def _new_topic(self, topic: str) -> str | None:
        cached = self._topics.get(topic)
        if cached is not None:
            return cached
        new_topic = self._topic(topic)
        return None if new_topic is None else self._topics.put(topic, new_topic)

    def _identifier(self, topic: str) -> str:
        """The physical table's identifier: the old topic, or its key.field.replacement."""
        if self._key_field is None:
            return topic
        cached = self._identifiers.get(topic)
        if cached is not None:
            return cached
        identifier = self._key_field(topic)
        return topic if identifier is None else self._identifiers.put(topic, identifier)

    def _key_schema(self, old: Schema, new_topic: str) -> Schema:
        cached = self._key_schemas.get((old, new_topic))
        if cached is not None:
            return cached
        builder = _copy_without_name(old).name(self._names.adjust(new_topic + KEY_SUFFIX))
        if self._unique_keys:
            builder.field(self._key_field_name, Schema.STRING_SCHEMA)
        return self._key_schemas.put((old, new_topic), builder.build())

    def _key(self, schema: Schema, old: Struct, old_topic: str) -> Struct:
        key = _copy_struct(schema, old)
        if self._unique_keys:
            key.put(self._key_field_name, self._identifier(old_topic))
        return key

    def _envelope_schema(self, old: Schema, new_topic: str) -> Schema:
        cached = self._envelopes.get((old, new_topic))
        if cached is not None:
            return cached
        before = old.field("before")
        row = None
        if before is not None:
            row_builder = _copy_without_name(before.schema)
            row = row_builder.name(self._names.adjust(new_topic + VALUE_SUFFIX)).build()
        builder = _copy_without_name(old, with_fields=False)
        for field in old.fields:
            schema = row if row is not None and field.name in _ROWS else field.schema
            builder.field(field.name, schema)
        builder.name(self._names.adjust(new_topic + ENVELOPE_SUFFIX))
        return self._envelopes.put((old, new_topic), builder.build())

    def _envelope(self, schema: Schema, old: Struct) -> Struct:
        envelope = Struct(schema)
        for field in old.schema.fields:
            value = old.get(field)
            if field.name in _ROWS and value is not None:
                row_field = schema.field(field.name)
                assert row_field is not None
                value = _copy_struct(row_field.schema, require_struct(value, _PURPOSE))
            envelope.put(field.name, value)
        return envelope

    def close(self) -> None:
        pass
