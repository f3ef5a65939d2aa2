"""Debezium's change event schema names, as its SMTs read and write them.

A data topic's schemas are named after it: the key ``<topic>.Key``, the row ``<topic>.Value``
and the value ``<topic>.Envelope`` (any value schema whose name ends in ``.Envelope`` is a
change event; heartbeats, schema changes and transaction markers are not).

``schema.name.adjustment.mode`` (:class:`SchemaNameAdjuster`) makes such names valid Avro full
names, one UTF-16 code unit at a time as Java does:

* ``none``: names are kept;
* ``avro``: a character outside ``[A-Za-z0-9_.]`` (outside ``[A-Za-z_]`` for the first one)
  becomes ``_``; a leading digit is kept after its ``_``;
* ``avro_unicode``: a character outside ``[A-Za-z0-9.]`` (``[A-Za-z]`` first), ``_`` included,
  becomes ``_u`` and its hex code, padded to 4 digits when it has at most 2.

Two names adjusted to the same one are refused (a :class:`ConnectError`), as Debezium does.

>>> SchemaNameAdjuster("avro").adjust("mysql-server-1.inventory.orders.Key")
'mysql_server_1.inventory.orders.Key'
>>> SchemaNameAdjuster("avro").adjust("1st.orders")
'_1st.orders'
>>> SchemaNameAdjuster("avro_unicode").adjust("my-db.sales_2024")
'my_u002ddb.sales_u005f2024'
"""

from __future__ import annotations

import logging
from typing import Final, TypeGuard

from seaway.connect.api.data import Schema, SchemaType
from seaway.connect.api.errors import ConnectError

__all__ = [
    "ENVELOPE_SUFFIX",
    "KEY_SUFFIX",
    "SCHEMA_NAME_ADJUSTMENT_MODES",
    "VALUE_SUFFIX",
    "SchemaNameAdjuster",
    "is_envelope",
]

logger = logging.getLogger(__name__)

ENVELOPE_SUFFIX: Final = ".Envelope"
KEY_SUFFIX: Final = ".Key"
VALUE_SUFFIX: Final = ".Value"
SCHEMA_NAME_ADJUSTMENT_MODES: Final = ("none", "avro", "avro_unicode")


def is_envelope(schema: Schema | None) -> TypeGuard[Schema]:
    """Whether *schema* is a change event's: a STRUCT named ``<topic>.Envelope``."""
    return (
        schema is not None
        and schema.type is SchemaType.STRUCT
        and (schema.name or "").endswith(ENVELOPE_SUFFIX)
    )


def _is_letter(unit: int) -> bool:
    return 0x61 <= unit <= 0x7A or 0x41 <= unit <= 0x5A


def _is_digit(unit: int) -> bool:
    return 0x30 <= unit <= 0x39


def _utf16_units(text: str) -> list[int]:
    """*text* as Java sees it: UTF-16 code units (a character beyond U+FFFF is two)."""
    data = text.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


class SchemaNameAdjuster:
    """Debezium's ``SchemaNameAdjuster`` of one ``schema.name.adjustment.mode``."""

    def __init__(self, mode: str) -> None:
        self.mode = mode.strip().lower()
        if self.mode not in SCHEMA_NAME_ADJUSTMENT_MODES:
            raise ValueError(f"Unknown schema name adjustment mode: {mode}")
        self._originals: dict[str, str] = {}  # replacement -> the name it replaced first

    def adjust(self, name: str) -> str:
        """*name*, made a valid Avro full name in the ``avro`` modes."""
        if self.mode == "none" or not name:
            return name
        unicode = self.mode == "avro_unicode"
        parts: list[str] = []
        for index, unit in enumerate(_utf16_units(name)):
            valid = _is_letter(unit) or (not unicode and unit == 0x5F)
            if index > 0:
                valid = valid or unit == 0x2E or _is_digit(unit)
            if valid:
                parts.append(chr(unit))
            elif unicode:
                code = format(unit, "x")
                parts.append("_u" + ("00" + code if len(code) <= 2 else code))
            else:
                parts.append("_" + chr(unit) if index == 0 and _is_digit(unit) else "_")
        adjusted = "".join(parts)
        if adjusted != name:
            self._replaced(name, adjusted)
        return adjusted

    def _replaced(self, original: str, replacement: str) -> None:
        first = self._originals.get(replacement)
        if first is None:
            self._originals[replacement] = original
            logger.warning(
                "The Kafka Connect schema name '%s' is not a valid Avro schema name, "
                "so replacing with '%s'", original, replacement,
            )  # fmt: skip
        elif first != original:
            raise ConnectError(
                f"The Kafka Connect schema name '{original}' is not a valid Avro schema name "
                f"and its replacement '{replacement}' conflicts with another different schema "
                f"'{first}'"
            )
