"""Schemas as the registry takes them: parsed and validated with fastavro, in canonical form.

Two registrations of the same schema, however they are spelled (field order inside a
type's JSON object, whitespace, ``doc``), get the same id: they are compared in Avro's
Parsing Canonical Form. What the registry stores and returns is the schema as compact JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastavro.schema import SchemaParseException, parse_schema, to_parsing_canonical_form

from seaway.errors import SeawayError

__all__ = ["InvalidSchema", "ParsedSchema", "canonical", "parse"]


class InvalidSchema(SeawayError, ValueError):
    """The text is not a valid Avro schema (the message says why)."""


@dataclass(frozen=True)
class ParsedSchema:
    """A schema as registered: its JSON, compact text and canonical form."""

    json: Any
    text: str
    canonical: str


def parse(text: str, schema_type: str = "AVRO") -> ParsedSchema:
    """Parse and validate an Avro schema; InvalidSchema with the reason when it is not."""
    if schema_type.upper() != "AVRO":
        raise InvalidSchema(f"Unsupported schema type {schema_type}: this registry holds AVRO")
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as error:
        raise InvalidSchema(f"Invalid schema {text!r}: not JSON ({error})") from None
    try:
        parsed = parse_schema(value, _write_hint=False)
    except (SchemaParseException, ValueError, TypeError, KeyError) as error:
        raise InvalidSchema(f"Invalid schema {text}: {error}") from None
    return ParsedSchema(
        value, json.dumps(value, separators=(",", ":")), to_parsing_canonical_form(parsed)
    )


def canonical(text: str) -> str:
    """The Parsing Canonical Form of a stored schema (its text when it no longer parses)."""
    try:
        return parse(text).canonical
    except InvalidSchema:
        return text
