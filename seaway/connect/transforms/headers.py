"""Header transforms: InsertHeader, DropHeaders and HeaderFrom (KIP-145)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.config import (
    ConfigDef,
    ConfigException,
    Importance,
    NonNullValidator,
    Type,
    ValidString,
)
from seaway.connect.api.data import Schema, SchemaAndValue, SchemaBuilder, Struct
from seaway.connect.api.data.values import parse_string
from seaway.connect.api.errors import DataError
from seaway.connect.api.header import Headers
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    NonEmptyListValidator,
    OnKey,
    OnValue,
    R,
    copy_schema_basics,
    define_replace_null_with_default,
    field_value,
    require_map,
    require_struct,
    schema_cache,
    simple_config,
)

HEADER_CONFIG = "header"
VALUE_LITERAL_CONFIG = "value.literal"
HEADERS_CONFIG = "headers"
FIELDS_CONFIG = "fields"
OPERATION_CONFIG = "operation"
MOVE_OPERATION = "move"
COPY_OPERATION = "copy"

INSERT_HEADER_CONFIG_DEF = (
    ConfigDef()
    .define(
        HEADER_CONFIG,
        Type.STRING,
        validator=NonNullValidator(),
        importance=Importance.HIGH,
        doc="The name of the header.",
    )
    .define(
        VALUE_LITERAL_CONFIG,
        Type.STRING,
        validator=NonNullValidator(),
        importance=Importance.HIGH,
        doc="The literal value that is to be set as the header value on all records.",
    )
)

DROP_HEADERS_CONFIG_DEF = ConfigDef().define(
    HEADERS_CONFIG,
    Type.LIST,
    validator=NonEmptyListValidator(),
    importance=Importance.HIGH,
    doc="The name of the headers to be removed.",
)

HEADER_FROM_CONFIG_DEF = define_replace_null_with_default(
    ConfigDef()
    .define(
        FIELDS_CONFIG,
        Type.LIST,
        validator=NonEmptyListValidator(),
        importance=Importance.HIGH,
        doc="Field names in the record whose values are to be copied or moved to headers.",
    )
    .define(
        HEADERS_CONFIG,
        Type.LIST,
        validator=NonEmptyListValidator(),
        importance=Importance.HIGH,
        doc="Header names, in the same order as the field names listed in the fields "
        "configuration property.",
    )
    .define(
        OPERATION_CONFIG,
        Type.STRING,
        validator=ValidString.in_(MOVE_OPERATION, COPY_OPERATION),
        importance=Importance.HIGH,
        doc="Either <code>move</code> if the fields are to be moved to the headers (removed "
        "from the key/value), or <code>copy</code> if the fields are to be copied to the "
        "headers (retained in the key/value).",
    )
)


class InsertHeader(Transformation[R]):
    """Add header ``header`` with ``value.literal`` (typed like Kafka's ``Values.parseString``)
    to every record."""

    OVERVIEW_DOC = "Add a header to each record."
    CONFIG_DEF = INSERT_HEADER_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(INSERT_HEADER_CONFIG_DEF, configs)
        self._header = config.get_string(HEADER_CONFIG) or ""
        self._literal = parse_string(config.get_string(VALUE_LITERAL_CONFIG)) or SchemaAndValue.NULL

    def config(self) -> ConfigDef:
        return INSERT_HEADER_CONFIG_DEF

    def apply(self, record: R) -> R:
        headers = record.headers.duplicate()
        headers.add(self._header, self._literal.value, self._literal.schema)
        return record.new_record(headers=headers)


class DropHeaders(Transformation[R]):
    """Remove every header whose key is in ``headers``."""

    OVERVIEW_DOC = "Removes one or more headers from each record."
    CONFIG_DEF = DROP_HEADERS_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(DROP_HEADERS_CONFIG_DEF, configs)
        self._headers = frozenset(config.get_list(HEADERS_CONFIG) or ())

    def config(self) -> ConfigDef:
        return DROP_HEADERS_CONFIG_DEF

    def apply(self, record: R) -> R:
        kept = Headers(h for h in record.headers if h.key not in self._headers)
        return record.new_record(headers=kept)


class HeaderFrom(KeyOrValueTransformation[R]):
    """Copy or move fields of the key or value into headers (``fields`` → ``headers``)."""

    OVERVIEW_DOC = (
        "Moves or copies fields in the key/value of a record into that record's headers. "
        "Corresponding elements of <code>fields</code> and <code>headers</code> together "
        "identify a field and the header it should be moved or copied to. Use the concrete "
        "transformation type designed for the record key (<code>"
        "org.apache.kafka.connect.transforms.HeaderFrom$Key</code>) or value (<code>"
        "org.apache.kafka.connect.transforms.HeaderFrom$Value</code>)."
    )
    CONFIG_DEF = HEADER_FROM_CONFIG_DEF
    Key: ClassVar[type[HeaderFrom[Any]]]
    Value: ClassVar[type[HeaderFrom[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(HEADER_FROM_CONFIG_DEF, configs)
        self._fields: list[str] = list(config.get_list(FIELDS_CONFIG) or ())
        self._headers: list[str] = list(config.get_list(HEADERS_CONFIG) or ())
        if len(self._fields) != len(self._headers):
            raise ConfigException(
                f"'{FIELDS_CONFIG}' config must have the same number of elements as "
                f"'{HEADERS_CONFIG}' config."
            )
        self._move = config.get_string(OPERATION_CONFIG) == MOVE_OPERATION
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        self._moved_schema = schema_cache(self._make_moved_schema)

    def config(self) -> ConfigDef:
        return HEADER_FROM_CONFIG_DEF

    @property
    def _purpose(self) -> str:
        return "header " + (MOVE_OPERATION if self._move else COPY_OPERATION)

    def apply(self, record: R) -> R:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        headers = record.headers.duplicate()
        if schema is None:
            original = require_map(value, self._purpose)
            updated = dict(original)
            for name, header in zip(self._fields, self._headers, strict=True):
                if self._move:
                    updated.pop(name, None)
                headers.add(header, original.get(name), None)
            return self.new_record(record, None, updated, headers)
        struct = require_struct(value, self._purpose)
        updated_schema, updated_struct = schema, struct
        if self._move:
            updated_schema = self._moved_schema(schema)
            updated_struct = Struct(updated_schema)
            for field in updated_schema.fields:
                updated_struct.put(
                    field, field_value(struct, field.name, self._replace_null_with_default)
                )
        for name, header in zip(self._fields, self._headers, strict=True):
            source = schema.field(name)
            if source is None:
                raise DataError(f"{name} is not a valid field name")
            headers.add(
                header, field_value(struct, name, self._replace_null_with_default), source.schema
            )
        return self.new_record(record, updated_schema, updated_struct, headers)

    def _make_moved_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if field.name not in self._fields:
                builder.field(field.name, field.schema)
        return builder.build()

    def close(self) -> None:
        self._moved_schema = schema_cache(self._make_moved_schema)


class HeaderFromKey(OnKey, HeaderFrom[R]):
    """``HeaderFrom$Key``: copy or move fields of the record key."""


class HeaderFromValue(OnValue, HeaderFrom[R]):
    """``HeaderFrom$Value``: copy or move fields of the record value."""


HeaderFrom.Key = HeaderFromKey
HeaderFrom.Value = HeaderFromValue

__all__ = ["DropHeaders", "HeaderFrom", "HeaderFromKey", "HeaderFromValue", "InsertHeader"]
