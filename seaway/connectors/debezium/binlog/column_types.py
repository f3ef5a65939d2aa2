"""Debezium's type mapping for MySQL and MariaDB columns (``BinlogValueConverters``): each
column's Connect schema, and the function that turns a value as PyMySQL (snapshot) or
pymysqlreplication (binlog) returns it into that schema's value.

``time.precision.mode=adaptive_time_microseconds`` (the default) gives Debezium's own temporal
types at the column's precision; ``connect`` gives Kafka's Date/Time/Timestamp. TIMESTAMP is
always ``io.debezium.time.ZonedTimestamp`` text in UTC. DECIMAL follows
``decimal.handling.mode``, BIGINT UNSIGNED ``bigint.unsigned.handling.mode``. TINYINT(1) is
INT16 as in Debezium 3.6 (BOOLEAN only through its ``TinyIntOneToBooleanConverter``).
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable
from typing import Any, Final

from seaway.connect.api.data import Date, Schema, SchemaBuilder, SchemaType, Time, Timestamp
from seaway.connect.api.data import Decimal as ConnectDecimal
from seaway.connectors.debezium.binlog.tables import Column

__all__ = ["Convert", "column_schema", "converter"]

Convert = Callable[[Any], Any]

_EPOCH: Final = dt.datetime(1970, 1, 1)
_EPOCH_DATE: Final = _EPOCH.date()
_INT16: Final = frozenset({"TINYINT", "SMALLINT"})
_INT32: Final = frozenset({"MEDIUMINT", "INT", "INTEGER"})
_TEXT: Final = frozenset({"CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "JSON"})
_BYTES: Final = frozenset({"BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"})


def _named(builder: SchemaBuilder, name: str) -> SchemaBuilder:
    return builder.name(name).version(1)


def _builder(column: Column, decimal_mode: str, time_mode: str, bigint_mode: str) -> SchemaBuilder:
    t = column.type_name
    adaptive = time_mode != "connect"
    if t == "TINYINT" or (t == "SMALLINT" and not column.unsigned):
        return SchemaBuilder.int16()
    if t in ("SMALLINT", "MEDIUMINT") or (t in _INT32 and not column.unsigned):
        return SchemaBuilder.int32()
    if t in _INT32 or (t == "BIGINT" and not (column.unsigned and bigint_mode == "precise")):
        return SchemaBuilder.int64()
    if t == "BIGINT":
        return ConnectDecimal.builder(0).parameter("connect.decimal.precision", "20")
    if t == "FLOAT":
        return SchemaBuilder.float32()
    if t in ("DOUBLE", "REAL"):
        return SchemaBuilder.float64()
    if t in ("DECIMAL", "NUMERIC"):
        if decimal_mode == "double":
            return SchemaBuilder.float64()
        if decimal_mode == "string":
            return SchemaBuilder.string()
        builder = ConnectDecimal.builder(column.scale or 0)
        return builder.parameter("connect.decimal.precision", str(column.length or 10))
    if t == "BIT":
        if (column.length or 1) == 1:
            return SchemaBuilder.boolean()
        bits = SchemaBuilder.bytes().name("io.debezium.data.Bits").version(1)
        return bits.parameter("length", str(column.length))
    if t in ("ENUM", "SET"):
        name = "io.debezium.data.Enum" if t == "ENUM" else "io.debezium.data.EnumSet"
        return _named(SchemaBuilder.string(), name).parameter(
            "allowed", ",".join(column.enum_values)
        )
    if t in _TEXT:
        return SchemaBuilder.string()
    if t in _BYTES or t == "GEOMETRY":
        return SchemaBuilder.bytes()
    if t == "YEAR":
        return _named(SchemaBuilder.int32(), "io.debezium.time.Year")
    if t == "DATE":
        return (
            _named(SchemaBuilder.int32(), "io.debezium.time.Date") if adaptive else Date.builder()
        )
    if t == "TIME":
        return (
            _named(SchemaBuilder.int64(), "io.debezium.time.MicroTime")
            if adaptive
            else Time.builder()
        )
    if t == "DATETIME":
        if not adaptive:
            return Timestamp.builder()
        name = (
            "io.debezium.time.Timestamp"
            if (column.length or 0) <= 3
            else "io.debezium.time.MicroTimestamp"
        )
        return _named(SchemaBuilder.int64(), name)
    if t == "TIMESTAMP":
        return _named(SchemaBuilder.string(), "io.debezium.time.ZonedTimestamp")
    return SchemaBuilder.string()


def column_schema(
    column: Column,
    decimal_mode: str = "precise",
    time_mode: str = "adaptive_time_microseconds",
    bigint_mode: str = "long",
) -> Schema:
    """The Connect schema of *column*'s values (optional when the column is nullable)."""
    builder = _builder(column, decimal_mode, time_mode, bigint_mode)
    if column.optional:
        builder.optional()
    return builder.build()


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes | bytearray) else str(value)


def _micros(value: dt.timedelta | dt.time) -> int:
    """Microseconds of a TIME value (a timedelta, or a time of day)."""
    if isinstance(value, dt.timedelta):
        return (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond


def _epoch_micros(value: dt.datetime) -> int:
    delta = value.replace(tzinfo=None) - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _zoned(fsp: int) -> Convert:
    def convert(value: dt.datetime) -> str:
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        if fsp:
            text += "." + f"{value.microsecond:06d}"[:fsp]
        return text + "Z"

    return convert


def _set_value(allowed: tuple[str, ...]) -> Convert:
    def convert(value: Any) -> str:
        if isinstance(value, set | frozenset):
            return ",".join(v for v in allowed if v in value)
        return _text(value)

    return convert


def _bits(value: Any) -> bytes:
    number = value if isinstance(value, int) else int.from_bytes(value, "big")
    if isinstance(value, str):
        number = int(value, 2)
    return number.to_bytes(max(1, (number.bit_length() + 7) // 8), "little")


def _not_zero_date(convert: Convert) -> Convert:
    """Zero dates (``0000-00-00``) arrive as None or a string: they become null."""

    def guarded(value: Any) -> Any:
        if isinstance(value, str | bytes):
            return None
        return convert(value)

    return guarded


def converter(column: Column, schema: Schema) -> Convert:
    """The function from a driver's value of *column* to a value of *schema* (never given
    None: the caller keeps nulls)."""
    t = column.type_name
    name = schema.name
    if name == ConnectDecimal.LOGICAL_NAME:
        exponent = decimal.Decimal(1).scaleb(-ConnectDecimal.scale(schema))
        return lambda v: decimal.Decimal(v).quantize(exponent)
    if t == "BIGINT" and column.unsigned:
        return lambda v: v - (1 << 64) if v >= 1 << 63 else v
    if t in ("DECIMAL", "NUMERIC"):
        return (
            float
            if schema.type is SchemaType.FLOAT64
            else lambda v: format(decimal.Decimal(v), "f")
        )
    if t == "BIT":
        return bool if schema.type is SchemaType.BOOLEAN else _bits
    if t == "SET":
        return _set_value(column.enum_values)
    if t in _TEXT or t == "ENUM":
        return _text
    if t in _BYTES or t == "GEOMETRY":
        return lambda v: v.encode() if isinstance(v, str) else bytes(v)
    if t == "DATE":
        if name == Date.LOGICAL_NAME:
            return _not_zero_date(lambda v: v)
        return _not_zero_date(lambda v: (v - _EPOCH_DATE).days)
    if t == "TIME":
        if name == Time.LOGICAL_NAME:
            return lambda v: (_EPOCH + dt.timedelta(microseconds=_micros(v))).time()
        return _micros
    if t == "DATETIME":
        if name == Timestamp.LOGICAL_NAME:
            return _not_zero_date(lambda v: v)
        if name == "io.debezium.time.Timestamp":
            return _not_zero_date(lambda v: _epoch_micros(v) // 1000)
        return _not_zero_date(_epoch_micros)
    if t == "TIMESTAMP":
        return _not_zero_date(_zoned(column.length or 0))
    if t in ("FLOAT", "DOUBLE", "REAL"):
        return float
    return lambda v: v
