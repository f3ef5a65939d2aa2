"""Struct: a value of a STRUCT schema, validated as fields are set.

>>> from seaway.connect.api.data import SchemaBuilder
>>> schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
>>> Struct(schema).put("id", 1)
Struct{id=1}
>>> Struct(schema).put("id", "one")
Traceback (most recent call last):
...
seaway.connect.api.errors.DataError: Invalid Python object for schema with type INT32: class str \
for field: "id"
"""

from __future__ import annotations

from typing import Any, Self

from seaway.connect.api.data.schema import Field, Schema, SchemaType
from seaway.connect.api.errors import DataError


class Struct:
    """Field values of one STRUCT schema (Kafka's ``Struct``); mutable, so not hashable."""

    __slots__ = ("_schema", "_values")

    def __init__(self, schema: Schema) -> None:
        if schema.type is not SchemaType.STRUCT:
            raise DataError(f"Not a struct schema: {schema}")
        self._schema = schema
        self._values: list[Any] = [None] * len(schema.fields)

    @classmethod
    def of_values(cls, schema: Schema, values: list[Any]) -> Struct:
        """A Struct holding *values* in field order, taken as they are.

        For code that made each value from its field's schema (converters reading a format
        that carries the types, connectors converting typed columns): it skips the per-field
        validation of :meth:`put`, which would only repeat what that code ensured.
        """
        if len(values) != len(schema.fields):
            raise DataError(f"{len(values)} values for the {len(schema.fields)} fields of {schema}")
        struct = cls.__new__(cls)
        struct._schema = schema
        struct._values = values
        return struct

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its schema and values (the polled records of a source task travel to
        Spark's executors this way): a third of the size and time of the slots' state."""
        return (Struct.of_values, (self._schema, self._values))

    @property
    def schema(self) -> Schema:
        """The STRUCT schema this value belongs to."""
        return self._schema

    def get(self, field: str | Field) -> Any:
        """The field's value, or its schema's default when the value is None."""
        resolved = self._lookup(field)
        value = self._values[resolved.index]
        if value is None:
            return resolved.schema.default_value
        return value

    def get_without_default(self, field: str | Field) -> Any:
        """The field's value as set (None if unset), ignoring defaults."""
        return self._values[self._lookup(field).index]

    def field_values(self) -> list[Any]:
        """The values as set (None if unset, no defaults), in field order."""
        return self._values

    def put(self, field: str | Field, value: Any) -> Self:
        """Set a field after validating *value* against its schema; returns ``self``."""
        if field is None:
            raise DataError("field cannot be null.")
        resolved = self._lookup(field)
        Schema.validate_value(resolved.schema, value, resolved.name)
        self._values[resolved.index] = value
        return self

    def __getitem__(self, field: str) -> Any:
        return self.get(field)

    def __setitem__(self, field: str, value: Any) -> None:
        self.put(field, value)

    def validate(self) -> None:
        """Raise :class:`DataError` if a required field without a default is unset."""
        for field in self._schema.fields:
            value = self._values[field.index]
            if value is None and (
                field.schema.is_optional or field.schema.default_value is not None
            ):
                continue
            Schema.validate_value(field.schema, value, field.name)

    def _lookup(self, field: str | Field) -> Field:
        if isinstance(field, Field):
            return field
        resolved = self._schema.field(field)
        if resolved is None:
            raise DataError(f"{field} is not a valid field name")
        return resolved

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return NotImplemented
        return self._schema == other._schema and self._values == other._values

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        parts = [
            f"{field.name}={value}"
            for field, value in zip(self._schema.fields, self._values, strict=True)
            if value is not None
        ]
        return "Struct{" + ",".join(parts) + "}"

    __repr__ = __str__


__all__ = ["Struct"]
