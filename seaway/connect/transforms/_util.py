"""Helpers shared by the built-in transforms (Kafka's ``transforms.util``); private."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from seaway.config import Config, ConfigDef, ConfigException, Importance, Type, Validator
from seaway.connect.api.data import Field, Schema, SchemaBuilder, SchemaType, Struct
from seaway.connect.api.errors import DataError
from seaway.connect.api.header import Headers
from seaway.connect.api.records import ConnectRecord, SinkRecord
from seaway.connect.api.transforms import Transformation
from seaway.java.lru_cache import LruCache
from seaway.java.regex import compile_java_regex

R = TypeVar("R", bound=ConnectRecord)

REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
REPLACE_NULL_WITH_DEFAULT_DOC = (
    "Whether to replace fields that have a default value and that are null to the default "
    "value. When set to true, the default value is used, otherwise null is used."
)


def define_replace_null_with_default(config_def: ConfigDef) -> ConfigDef:
    """Add the common ``replace.null.with.default`` key (BOOLEAN, default true)."""
    return config_def.define(
        REPLACE_NULL_WITH_DEFAULT_CONFIG,
        Type.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        doc=REPLACE_NULL_WITH_DEFAULT_DOC,
    )


def simple_config(config_def: ConfigDef, configs: Mapping[str, Any]) -> Config:
    """Parse a transform's properties (Kafka's ``SimpleConfig``)."""
    return Config(config_def, configs)


# ------------------------------------------------------------------ requirements


def null_safe_class_name(value: Any) -> str:
    """A value's class name for messages: ``str``, ``seaway.connect.api.data.struct.Struct``."""
    if value is None:
        return "null"
    cls = type(value)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    """*schema*, or DataError when there is none."""
    if schema is None:
        raise DataError(f"Schema required for [{purpose}]")
    return schema


def require_map(value: Any, purpose: str) -> Mapping[str, Any]:
    """*value* when it is a Mapping, else DataError (schemaless data must be a map)."""
    if not isinstance(value, Mapping):
        raise DataError(
            f"Only Map objects supported in absence of schema for [{purpose}], "
            f"found: {null_safe_class_name(value)}"
        )
    return value


def require_map_or_none(value: Any, purpose: str) -> Mapping[str, Any] | None:
    """Like :func:`require_map` but lets None through."""
    return None if value is None else require_map(value, purpose)


def require_struct(value: Any, purpose: str) -> Struct:
    """*value* when it is a Struct, else DataError."""
    if not isinstance(value, Struct):
        raise DataError(
            f"Only Struct objects supported for [{purpose}], found: {null_safe_class_name(value)}"
        )
    return value


def require_struct_or_none(value: Any, purpose: str) -> Struct | None:
    """Like :func:`require_struct` but lets None through."""
    return None if value is None else require_struct(value, purpose)


def require_sink_record(record: ConnectRecord, purpose: str) -> SinkRecord:
    """*record* when it is a SinkRecord, else DataError."""
    if not isinstance(record, SinkRecord):
        raise DataError(
            f"Only SinkRecord supported for [{purpose}], found: {null_safe_class_name(record)}"
        )
    return record


def field_value(value: Struct, field: Field | str, replace_null_with_default: bool) -> Any:
    """A struct field, with its schema default in place of None unless told otherwise."""
    if replace_null_with_default:
        return value.get(field)
    return value.get_without_default(field)


# ------------------------------------------------------------------ schemas


def copy_schema_basics(source: Schema, builder: SchemaBuilder | None = None) -> SchemaBuilder:
    """A builder with *source*'s name, version, doc and parameters (Kafka's ``SchemaUtil``).

    Without *builder*, one of *source*'s type is made (an ARRAY keeps its element schema).
    """
    if builder is None:
        if source.type is SchemaType.ARRAY:
            element = source.value_schema
            assert element is not None
            builder = SchemaBuilder.array(element)
        elif source.type is SchemaType.MAP:
            key, value = source.key_schema, source.value_schema
            assert key is not None and value is not None
            builder = SchemaBuilder.map(key, value)
        else:
            builder = SchemaBuilder(source.type)
    if source.name is not None:
        builder.name(source.name)
    if source.version is not None:
        builder.version(source.version)
    if source.doc is not None:
        builder.doc(source.doc)
    if source.parameters:
        builder.parameters(source.parameters)
    return builder


class SchemaCache:
    """Memoises a schema-to-schema function for the 16 most recently used schemas
    (picklable: a pickled cache starts empty)."""

    SIZE: ClassVar[int] = 16

    def __init__(self, build: Callable[[Schema], Schema]) -> None:
        self._build = build
        self._entries: LruCache[Schema, Schema] = LruCache(self.SIZE)

    def __call__(self, schema: Schema) -> Schema:
        found = self._entries.get(schema)
        return found if found is not None else self._entries.put(schema, self._build(schema))

    def __getstate__(self) -> dict[str, Any]:
        return {"build": self._build}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["build"])  # type: ignore[misc]


def schema_cache(build: Callable[[Schema], Schema]) -> SchemaCache:
    """A :class:`SchemaCache` of *build*."""
    return SchemaCache(build)


# ------------------------------------------------------------------ validators


class NonEmptyListValidator(Validator):
    """A list with at least one element."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if not value:
            raise ConfigException(name, value, "Empty list")

    def __str__(self) -> str:
        return "non-empty list"


class RegexValidator(Validator):
    """A string that compiles as a (Java-style) regular expression."""

    def ensure_valid(self, name: str, value: Any) -> None:
        try:
            compile_java_regex(value)
        except Exception as exc:
            raise ConfigException(name, value, f"Invalid regex: {exc}") from exc

    def __str__(self) -> str:
        return "valid regex"


# ------------------------------------------------------------------ key or value


class KeyOrValueTransformation(Transformation[R]):
    """A transform with ``$Key`` and ``$Value`` variants; subclasses pick the side."""

    @abstractmethod
    def operating_schema(self, record: R) -> Schema | None:
        """The key or value schema."""

    @abstractmethod
    def operating_value(self, record: R) -> Any:
        """The key or the value."""

    @abstractmethod
    def new_record(
        self, record: R, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> R:
        """A copy of *record* with the key or value (and its schema) replaced, and with
        *headers* if given (else a copy of the record's)."""


class OnKey:
    """Mixin: operate on the record key."""

    def operating_schema(self, record: ConnectRecord) -> Schema | None:
        return record.key_schema

    def operating_value(self, record: ConnectRecord) -> Any:
        return record.key

    def new_record(
        self, record: Any, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> Any:
        return record.new_record(key_schema=schema, key=value, headers=headers)


class OnValue:
    """Mixin: operate on the record value."""

    def operating_schema(self, record: ConnectRecord) -> Schema | None:
        return record.value_schema

    def operating_value(self, record: ConnectRecord) -> Any:
        return record.value

    def new_record(
        self, record: Any, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> Any:
        return record.new_record(value_schema=schema, value=value, headers=headers)


def key_value_doc(base: str, family: str) -> str:
    """Kafka's overview sentence pointing at the ``$Key`` and ``$Value`` classes."""
    prefix = f"org.apache.kafka.connect.transforms.{family}"
    return (
        f"{base}<p/>Use the concrete transformation type designed for the record key "
        f"(<code>{prefix}$Key</code>) or value (<code>{prefix}$Value</code>)."
    )


__all__ = [
    "REPLACE_NULL_WITH_DEFAULT_CONFIG",
    "KeyOrValueTransformation",
    "NonEmptyListValidator",
    "OnKey",
    "OnValue",
    "RegexValidator",
    "SchemaCache",
    "copy_schema_basics",
    "define_replace_null_with_default",
    "field_value",
    "key_value_doc",
    "null_safe_class_name",
    "require_map",
    "require_map_or_none",
    "require_schema",
    "require_sink_record",
    "require_struct",
    "require_struct_or_none",
    "schema_cache",
    "simple_config",
]
