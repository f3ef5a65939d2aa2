"""Record headers with Connect schemas (Kafka's ``ConnectHeader``/``ConnectHeaders``).

>>> headers = Headers().add_string("trace", "a").add_int("attempt", 1).add_string("trace", "b")
>>> headers.last_with_name("trace").value
'b'
>>> [h.value for h in headers.all_with_name("trace")]
['a', 'b']
>>> len(headers.remove("trace"))
1
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

from seaway.connect.api.data import Date, Decimal, Schema, SchemaType, Struct, Time, Timestamp
from seaway.connect.api.errors import DataError


@dataclass(frozen=True, slots=True)
class Header:
    """One header: a key plus a value described by an optional schema."""

    key: str
    schema: Schema | None
    value: Any

    def __post_init__(self) -> None:
        if self.key is None:
            raise DataError("Header key cannot be null")

    def with_value(self, schema: Schema | None, value: Any) -> Header:
        """A header with the same key and a new schema and value (Kafka's ``with``)."""
        return Header(self.key, schema, value)

    def rename(self, key: str) -> Header:
        """A header with the same schema and value under *key*."""
        return Header(key, self.schema, self.value)


HeaderTransform = Callable[[Header], Header | None]
"""Maps a header to its replacement, or to None to remove it."""


class Headers:
    """An ordered, mutable list of :class:`Header`; a key may occur several times.

    Mutators return ``self`` so calls chain. Iterating yields headers in order.
    """

    __slots__ = ("_headers",)

    def __init__(self, headers: Iterable[Header] | None = None) -> None:
        self._headers: list[Header] = []
        for header in headers or ():
            if not isinstance(header, Header):
                raise DataError(f"Not a Header: {header!r}")
            self._headers.append(header)

    # ------------------------------------------------------------------ adding

    def add(self, header: Header | str, value: Any = None, schema: Schema | None = None) -> Self:
        """Append a :class:`Header`, or build one from *key*, *value* and *schema*.

        The value is checked against the schema (when there is one).
        """
        if isinstance(header, Header):
            if value is not None or schema is not None:
                raise TypeError("add(header) takes no value or schema")
            self._headers.append(header)
            return self
        if header is None:
            raise DataError("Unable to add a null header.")
        _check_schema_matches(schema, value)
        self._headers.append(Header(header, schema, value))
        return self

    def _add_unchecked(self, key: str, value: Any, schema: Schema | None) -> Self:
        self._headers.append(Header(key, schema, value))
        return self

    def add_string(self, key: str, value: str | None) -> Self:
        """Append a STRING header (optional schema when *value* is None)."""
        schema = Schema.STRING_SCHEMA if value is not None else Schema.OPTIONAL_STRING_SCHEMA
        return self.add(key, value, schema)

    def add_bytes(self, key: str, value: bytes | None) -> Self:
        """Append a BYTES header (optional schema when *value* is None)."""
        schema = Schema.BYTES_SCHEMA if value is not None else Schema.OPTIONAL_BYTES_SCHEMA
        return self.add(key, value, schema)

    def add_boolean(self, key: str, value: bool) -> Self:
        """Append a BOOLEAN header."""
        return self.add(key, value, Schema.BOOLEAN_SCHEMA)

    def add_byte(self, key: str, value: int) -> Self:
        """Append an INT8 header."""
        return self.add(key, value, Schema.INT8_SCHEMA)

    def add_short(self, key: str, value: int) -> Self:
        """Append an INT16 header."""
        return self.add(key, value, Schema.INT16_SCHEMA)

    def add_int(self, key: str, value: int) -> Self:
        """Append an INT32 header."""
        return self.add(key, value, Schema.INT32_SCHEMA)

    def add_long(self, key: str, value: int) -> Self:
        """Append an INT64 header."""
        return self.add(key, value, Schema.INT64_SCHEMA)

    def add_float(self, key: str, value: float) -> Self:
        """Append a FLOAT32 header."""
        return self.add(key, value, Schema.FLOAT32_SCHEMA)

    def add_double(self, key: str, value: float) -> Self:
        """Append a FLOAT64 header."""
        return self.add(key, value, Schema.FLOAT64_SCHEMA)

    def add_list(self, key: str, value: Sequence[Any] | None, schema: Schema) -> Self:
        """Append an ARRAY header."""
        if value is None:
            return self._add_unchecked(key, None, None)
        _check_schema_type(schema, SchemaType.ARRAY)
        return self._add_unchecked(key, value, schema)

    def add_map(self, key: str, value: Mapping[Any, Any] | None, schema: Schema) -> Self:
        """Append a MAP header."""
        if value is None:
            return self._add_unchecked(key, None, None)
        _check_schema_type(schema, SchemaType.MAP)
        return self._add_unchecked(key, value, schema)

    def add_struct(self, key: str, value: Struct | None) -> Self:
        """Append a STRUCT header with the struct's own schema."""
        if value is None:
            return self._add_unchecked(key, None, None)
        return self._add_unchecked(key, value, value.schema)

    def add_decimal(self, key: str, value: decimal.Decimal | None) -> Self:
        """Append a Decimal header whose scale is the value's."""
        if value is None:
            return self._add_unchecked(key, None, None)
        exponent = value.as_tuple().exponent
        schema = Decimal.schema(-exponent if isinstance(exponent, int) else 0)
        Decimal.from_logical(schema, value)
        return self._add_unchecked(key, value, schema)

    def add_date(self, key: str, value: dt.date | None) -> Self:
        """Append a Date header."""
        if value is not None:
            Date.from_logical(Date.SCHEMA, value)
        return self._add_unchecked(key, value, Date.SCHEMA)

    def add_time(self, key: str, value: dt.time | None) -> Self:
        """Append a Time header."""
        if value is not None:
            Time.from_logical(Time.SCHEMA, value)
        return self._add_unchecked(key, value, Time.SCHEMA)

    def add_timestamp(self, key: str, value: dt.datetime | None) -> Self:
        """Append a Timestamp header."""
        if value is not None:
            Timestamp.from_logical(Timestamp.SCHEMA, value)
        return self._add_unchecked(key, value, Timestamp.SCHEMA)

    # ------------------------------------------------------------------ reading

    def last_with_name(self, key: str) -> Header | None:
        """The last header called *key*, or None."""
        for header in reversed(self._headers):
            if header.key == key:
                return header
        return None

    def all_with_name(self, key: str) -> Iterator[Header]:
        """Every header called *key*, in order."""
        return (h for h in list(self._headers) if h.key == key)

    def __iter__(self) -> Iterator[Header]:
        return iter(list(self._headers))

    def __len__(self) -> int:
        return len(self._headers)

    def is_empty(self) -> bool:
        """True when there are no headers."""
        return not self._headers

    # ------------------------------------------------------------------ changing

    def remove(self, key: str) -> Self:
        """Remove every header called *key*."""
        self._headers = [h for h in self._headers if h.key != key]
        return self

    def retain_latest(self, key: str | None = None) -> Self:
        """Keep only the last header of *key* (or of every key when None)."""
        seen: set[str] = set()
        kept: list[Header] = []
        for header in reversed(self._headers):
            if (key is None or header.key == key) and header.key in seen:
                continue
            seen.add(header.key)
            kept.append(header)
        kept.reverse()
        self._headers = kept
        return self

    def apply(self, transform: HeaderTransform, key: str | None = None) -> Self:
        """Replace each header (each called *key*, if given) by ``transform(header)``.

        A None result removes the header.
        """
        updated: list[Header] = []
        for header in self._headers:
            if key is not None and header.key != key:
                updated.append(header)
                continue
            replacement = transform(header)
            if replacement is not None:
                updated.append(replacement)
        self._headers = updated
        return self

    def clear(self) -> Self:
        """Remove every header."""
        self._headers.clear()
        return self

    def duplicate(self) -> Headers:
        """A shallow copy: a new list of the same (immutable) headers."""
        return Headers(self._headers)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Headers):
            return NotImplemented
        return self._headers == other._headers

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ConnectHeaders(headers={self._headers!r})"


def _check_schema_type(schema: Schema, schema_type: SchemaType) -> None:
    if schema.type is not schema_type:
        raise DataError(f"Expecting {schema_type} but instead found {schema.type}")


def _check_schema_matches(schema: Schema | None, value: Any) -> None:
    if schema is None:
        return
    if value is None and not schema.is_optional:
        raise DataError(f"A null value requires an optional schema but was {schema}")
    try:
        schema.validate(value)
    except DataError as exc:
        raise DataError(f"The value {value} is not compatible with the schema {schema}") from exc


__all__ = ["Header", "HeaderTransform", "Headers"]
