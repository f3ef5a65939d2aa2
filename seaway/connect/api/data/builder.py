"""SchemaBuilder: a fluent way to build a :class:`~seaway.connect.api.data.Schema`.

>>> schema = (
...     SchemaBuilder.struct().name("com.example.User")
...     .field("id", Schema.INT32_SCHEMA)
...     .field("name", Schema.OPTIONAL_STRING_SCHEMA)
...     .build()
... )
>>> [f.name for f in schema.fields]
['id', 'name']
>>> SchemaBuilder.string().optional().default_value("n/a").build().default_value
'n/a'

Each attribute can be set once; setting it again to a different value raises
:class:`~seaway.connect.api.errors.SchemaBuilderError`, as Kafka's builder does.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any, Self

from seaway.connect.api.data.schema import Field, Schema, SchemaType
from seaway.connect.api.errors import DataError, SchemaBuilderError


class SchemaBuilder:
    """Collects a schema's attributes; :meth:`build` returns the immutable :class:`Schema`."""

    __slots__ = (
        "_default_value",
        "_doc",
        "_fields",
        "_key_schema",
        "_name",
        "_optional",
        "_parameters",
        "_type",
        "_value_schema",
        "_version",
    )

    def __init__(self, type: SchemaType) -> None:
        if type is None:
            raise SchemaBuilderError("type cannot be null")
        self._type = type
        self._optional: bool | None = None
        self._default_value: Any = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] | None = None
        self._fields: dict[str, Field] | None = {} if type is SchemaType.STRUCT else None
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None

    # ------------------------------------------------------------------ factories

    @classmethod
    def of_type(cls, type: SchemaType) -> SchemaBuilder:
        """A builder for any primitive or STRUCT type (Kafka's ``SchemaBuilder.type``)."""
        return cls(type)

    @classmethod
    def int8(cls) -> SchemaBuilder:
        """A builder for INT8."""
        return cls(SchemaType.INT8)

    @classmethod
    def int16(cls) -> SchemaBuilder:
        """A builder for INT16."""
        return cls(SchemaType.INT16)

    @classmethod
    def int32(cls) -> SchemaBuilder:
        """A builder for INT32."""
        return cls(SchemaType.INT32)

    @classmethod
    def int64(cls) -> SchemaBuilder:
        """A builder for INT64."""
        return cls(SchemaType.INT64)

    @classmethod
    def float32(cls) -> SchemaBuilder:
        """A builder for FLOAT32."""
        return cls(SchemaType.FLOAT32)

    @classmethod
    def float64(cls) -> SchemaBuilder:
        """A builder for FLOAT64."""
        return cls(SchemaType.FLOAT64)

    @classmethod
    def boolean(cls) -> SchemaBuilder:
        """A builder for BOOLEAN (Kafka's ``SchemaBuilder.bool()``)."""
        return cls(SchemaType.BOOLEAN)

    bool = boolean

    @classmethod
    def string(cls) -> SchemaBuilder:
        """A builder for STRING."""
        return cls(SchemaType.STRING)

    @classmethod
    def bytes(cls) -> SchemaBuilder:
        """A builder for BYTES."""
        return cls(SchemaType.BYTES)

    @classmethod
    def struct(cls) -> SchemaBuilder:
        """A builder for a STRUCT; add fields with :meth:`field`."""
        return cls(SchemaType.STRUCT)

    @classmethod
    def array(cls, value_schema: Schema) -> SchemaBuilder:
        """A builder for an ARRAY of *value_schema* elements."""
        if value_schema is None:
            raise SchemaBuilderError("valueSchema cannot be null.")
        builder = cls(SchemaType.ARRAY)
        builder._value_schema = value_schema
        return builder

    @classmethod
    def map(cls, key_schema: Schema, value_schema: Schema) -> SchemaBuilder:
        """A builder for a MAP from *key_schema* to *value_schema*."""
        if key_schema is None:
            raise SchemaBuilderError("keySchema cannot be null.")
        if value_schema is None:
            raise SchemaBuilderError("valueSchema cannot be null.")
        builder = cls(SchemaType.MAP)
        builder._key_schema = key_schema
        builder._value_schema = value_schema
        return builder

    # ------------------------------------------------------------------ attributes

    @property
    def schema_type(self) -> SchemaType:
        """The type being built."""
        return self._type

    @property
    def is_optional(self) -> builtins.bool:
        """Whether :meth:`optional` was called."""
        return bool(self._optional)

    def optional(self) -> Self:
        """Allow null values."""
        _check_can_set("optional", self._optional, True)
        self._optional = True
        return self

    def required(self) -> Self:
        """Forbid null values (the default)."""
        _check_can_set("optional", self._optional, False)
        self._optional = False
        return self

    def default_value(self, value: Any) -> Self:
        """Set the default, which must be valid for the schema built so far."""
        _check_can_set("default", self._default_value, value)
        try:
            Schema.validate_value(self.build(), value)
        except DataError as exc:
            raise SchemaBuilderError("Invalid default value") from exc
        self._default_value = value
        return self

    def name(self, name: str) -> Self:
        """Set the schema's name."""
        _check_can_set("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int) -> Self:
        """Set the schema's version."""
        _check_can_set("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str) -> Self:
        """Set the schema's documentation."""
        _check_can_set("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, name: str, value: str) -> Self:
        """Add one string parameter (insertion order is kept)."""
        if self._parameters is None:
            self._parameters = {}
        self._parameters[name] = value
        return self

    def parameters(self, params: Mapping[str, str]) -> Self:
        """Add several parameters; an empty mapping changes nothing."""
        if params:
            if self._parameters is None:
                self._parameters = {}
            self._parameters.update(params)
        return self

    def field(self, name: str, schema: Schema) -> Self:
        """Append a field to a STRUCT."""
        if self._fields is None:
            raise SchemaBuilderError(f"Cannot create fields on type {self._type}")
        if not name:
            raise SchemaBuilderError("fieldName cannot be null.")
        if schema is None:
            raise SchemaBuilderError(f"fieldSchema for field {name} cannot be null.")
        if name in self._fields:
            raise SchemaBuilderError(
                f"Cannot create field because of field name duplication {name}"
            )
        self._fields[name] = Field(name, len(self._fields), schema)
        return self

    # ------------------------------------------------------------------ result

    def build(self) -> Schema:
        """The immutable :class:`Schema`."""
        return Schema(
            self._type,
            optional=bool(self._optional),
            default_value=self._default_value,
            name=self._name,
            version=self._version,
            doc=self._doc,
            parameters=self._parameters,
            fields=None if self._fields is None else tuple(self._fields.values()),
            key_schema=self._key_schema,
            value_schema=self._value_schema,
        )

    schema = build

    def __repr__(self) -> str:
        return f"SchemaBuilder({self.build()!r})"


def _check_can_set(attribute: str, current: Any, value: Any) -> None:
    if current is not None and current != value:
        raise SchemaBuilderError(f"Invalid SchemaBuilder call: {attribute} has already been set.")


__all__ = ["SchemaBuilder"]
