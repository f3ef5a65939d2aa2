"""SchemaAndValue: a value together with the schema that describes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from seaway.connect.api.data.schema import Schema


@dataclass(frozen=True, slots=True)
class SchemaAndValue:
    """A (schema, value) pair, as converters return; unpacks like a tuple.

    >>> schema, value = SchemaAndValue(Schema.STRING_SCHEMA, "foo")
    >>> SchemaAndValue.NULL
    SchemaAndValue(schema=None, value=None)
    """

    schema: Schema | None
    value: Any

    NULL: ClassVar[SchemaAndValue]

    def __iter__(self) -> Iterator[Any]:
        yield self.schema
        yield self.value


SchemaAndValue.NULL = SchemaAndValue(None, None)

__all__ = ["SchemaAndValue"]
