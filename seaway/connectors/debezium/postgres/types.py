"""Debezium's type mapping for PostgreSQL columns (``PostgresValueConverter``,
``postgresql.adoc``): a column's Connect schema from its type OID and modifier, and the
function from the column's *text* form to that schema's value.

Both the snapshot and the stream go through the text form: pgoutput sends text, and the
snapshot selects ``column::text``, so one parser serves both and a value reads the same
whichever path carried it. The sessions set ``DateStyle=ISO``, ``TimeZone=UTC``,
``IntervalStyle=iso_8601``, ``bytea_output=hex`` and ``extra_float_digits=3`` so that the
text is unambiguous (:data:`SESSION_SETTINGS`).

``time.precision.mode``: ``adaptive`` (the default) picks Debezium's type by the column's
precision (TIME/TIMESTAMP(0-3): milliseconds, (4-6) and unconstrained: microseconds);
``adaptive_time_microseconds`` is the same but TIME is always ``MicroTime``; ``connect``
gives Kafka's Date/Time/Timestamp. TIMESTAMPTZ and TIMETZ are ISO-8601 strings in UTC
(``ZonedTimestamp``/``ZonedTime``) in every mode. Types Seaway does not map (arrays,
geometric, hstore, ...) are carried as their text (STRING).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from seaway.connect.api.data import Date, Schema, SchemaBuilder, Struct, Time, Timestamp
from seaway.connect.api.data import Decimal as ConnectDecimal
from seaway.connect.api.data.logical import to_twos_complement

__all__ = [
    "SESSION_SETTINGS",
    "Column",
    "Convert",
    "column_schema",
    "converter",
    "interval_micros",
    "variable_scale_decimal_schema",
]

Convert = Callable[[str], Any]

SESSION_SETTINGS: Final = (
    "SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET IntervalStyle = 'iso_8601'; "
    "SET bytea_output = 'hex'; SET extra_float_digits = 3"
)

BOOL, BYTEA, CHAR, NAME, INT8, INT2, INT4, TEXT, OID = 16, 17, 18, 19, 20, 21, 23, 25, 26
JSON, XML, FLOAT4, FLOAT8, MONEY, BPCHAR, VARCHAR = 114, 142, 700, 701, 790, 1042, 1043
DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL, TIMETZ = 1082, 1083, 1114, 1184, 1186, 1266
BIT, VARBIT, NUMERIC, UUID, JSONB = 1560, 1562, 1700, 2950, 3802

POSITIVE_INFINITY: Final = 9223372036825200000
NEGATIVE_INFINITY: Final = -9223372036832400000
DAYS_PER_MONTH_AVG: Final = 365.25 / 12.0
_EPOCH: Final = dt.datetime(1970, 1, 1)
_EPOCH_DATE: Final = _EPOCH.date()
_TEXT_TYPES: Final = frozenset({TEXT, VARCHAR, BPCHAR, NAME, CHAR})


@dataclass(frozen=True)
class Column:
    """A column as the connector sees it: name, type OID and modifier (pgoutput's Relation
    message, or ``pg_attribute``), whether it is nullable, and enum labels for enum types."""

    name: str
    type_oid: int
    type_modifier: int = -1
    optional: bool = True
    type_name: str = ""
    enum_values: tuple[str, ...] | None = field(default=None)


def _named(builder: SchemaBuilder, name: str) -> SchemaBuilder:
    return builder.name(name).version(1)


def time_precision(column: Column) -> int:
    """The fractional digits of a TIME/TIMESTAMP column (6 when unconstrained)."""
    modifier = column.type_modifier
    if column.type_oid in (TIME, TIMESTAMP, TIMESTAMPTZ, TIMETZ) and modifier >= 0:
        return modifier
    return 6


def numeric_precision_scale(column: Column) -> tuple[int, int] | None:
    """(precision, scale) of a NUMERIC(p,s), or None when unconstrained."""
    if column.type_modifier < 4:
        return None
    value = column.type_modifier - 4
    return (value >> 16) & 0xFFFF, value & 0xFFFF


def variable_scale_decimal_schema() -> SchemaBuilder:
    """``io.debezium.data.VariableScaleDecimal`` {``scale`` INT32, ``value`` BYTES}."""
    return (
        SchemaBuilder.struct().name("io.debezium.data.VariableScaleDecimal").version(1)
        .doc("Variable scaled decimal")
        .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA)
    )  # fmt: skip


def _builder(column: Column, decimal_mode: str, time_mode: str) -> SchemaBuilder:
    oid = column.type_oid
    if oid == BOOL or (oid == BIT and column.type_modifier in (-1, 1)):
        return SchemaBuilder.boolean()
    if oid in (BIT, VARBIT):
        length = max(column.type_modifier, 0)
        return _named(SchemaBuilder.bytes(), "io.debezium.data.Bits").parameter(
            "length", str(length)
        )
    if oid == INT2:
        return SchemaBuilder.int16()
    if oid == INT4:
        return SchemaBuilder.int32()
    if oid in (INT8, OID):
        return SchemaBuilder.int64()
    if oid == FLOAT4:
        return SchemaBuilder.float32()
    if oid == FLOAT8:
        return SchemaBuilder.float64()
    if oid in (NUMERIC, MONEY):
        if decimal_mode == "double":
            return SchemaBuilder.float64()
        if decimal_mode == "string":
            return SchemaBuilder.string()
        if oid == MONEY:
            return ConnectDecimal.builder(2)
        ps = numeric_precision_scale(column)
        if ps is None:
            return variable_scale_decimal_schema()
        return ConnectDecimal.builder(ps[1]).parameter("connect.decimal.precision", str(ps[0]))
    if oid == BYTEA:
        return SchemaBuilder.bytes()
    if oid in (JSON, JSONB):
        return _named(SchemaBuilder.string(), "io.debezium.data.Json")
    if oid == XML:
        return _named(SchemaBuilder.string(), "io.debezium.data.Xml")
    if oid == UUID:
        return _named(SchemaBuilder.string(), "io.debezium.data.Uuid")
    if column.enum_values is not None:
        return _named(SchemaBuilder.string(), "io.debezium.data.Enum").parameter(
            "allowed", ",".join(column.enum_values)
        )
    if oid == TIMESTAMPTZ:
        return _named(SchemaBuilder.string(), "io.debezium.time.ZonedTimestamp")
    if oid == TIMETZ:
        return _named(SchemaBuilder.string(), "io.debezium.time.ZonedTime")
    if oid == INTERVAL:
        return _named(SchemaBuilder.int64(), "io.debezium.time.MicroDuration")
    if oid == DATE:
        return (
            Date.builder()
            if time_mode == "connect"
            else _named(SchemaBuilder.int32(), "io.debezium.time.Date")
        )
    precision = time_precision(column)
    if oid == TIME:
        if time_mode == "connect":
            return Time.builder()
        if time_mode == "adaptive" and precision <= 3:
            return _named(SchemaBuilder.int32(), "io.debezium.time.Time")
        return _named(SchemaBuilder.int64(), "io.debezium.time.MicroTime")
    if oid == TIMESTAMP:
        if time_mode == "connect":
            return Timestamp.builder()
        if precision <= 3:
            return _named(SchemaBuilder.int64(), "io.debezium.time.Timestamp")
        return _named(SchemaBuilder.int64(), "io.debezium.time.MicroTimestamp")
    return SchemaBuilder.string()


def column_schema(column: Column, decimal_mode: str, time_mode: str) -> Schema:
    """The Connect schema of *column*'s values (optional when the column is nullable)."""
    builder = _builder(column, decimal_mode, time_mode)
    if column.optional:
        builder.optional()
    return builder.build()


_TIME: Final = re.compile(r"(\d+):(\d\d):(\d\d)(?:\.(\d+))?")
_ZONE: Final = re.compile(r"([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?$")
_INTERVAL: Final = re.compile(
    r"P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?)?"
)


def _time_micros(text: str) -> int:
    match = _TIME.match(text)
    if match is None:
        raise ValueError(f"Not a time: {text!r}")
    hours, minutes, seconds, fraction = match.groups()
    micros = int((fraction or "").ljust(6, "0")[:6] or 0)
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1_000_000 + micros


def _date(text: str) -> dt.date:
    return dt.date.fromisoformat(text[:10])


def _timestamp_micros(text: str) -> int:
    """Microseconds since the epoch of a TIMESTAMP's wall clock, read as UTC."""
    days = (_date(text) - _EPOCH_DATE).days
    return days * 86_400_000_000 + _time_micros(text[11:])


def _infinite(convert: Callable[[str], int], scale: int) -> Callable[[str], int]:
    def guarded(text: str) -> int:
        if text == "infinity":
            return POSITIVE_INFINITY
        if text == "-infinity":
            return NEGATIVE_INFINITY
        return convert(text) // scale

    return guarded


def _iso_fraction(micros: int, width: int) -> str:
    """The fraction Java's formatters write: *width* digits (1-9), else only as needed."""
    if 0 < width <= 9:
        return "." + f"{micros:06d}".ljust(9, "0")[:width]
    if micros == 0:
        return ""
    return "." + f"{micros:06d}".rstrip("0")


def _zone_seconds(text: str) -> tuple[str, int]:
    match = _ZONE.search(text)
    if match is None:
        return text, 0
    sign, hours, minutes, seconds = match.groups()
    offset = int(hours) * 3600 + int(minutes or 0) * 60 + int(seconds or 0)
    return text[: match.start()], -offset if sign == "-" else offset


def _zoned_timestamp(width: int) -> Convert:
    def convert(text: str) -> str:
        if text in ("infinity", "-infinity"):
            return text
        local, offset = _zone_seconds(text)
        micros = _timestamp_micros(local) - offset * 1_000_000
        seconds, fraction = divmod(micros, 1_000_000)
        when = _EPOCH + dt.timedelta(seconds=seconds)
        return when.strftime("%Y-%m-%dT%H:%M:%S") + _iso_fraction(fraction, width) + "Z"

    return convert


def _zoned_time(width: int) -> Convert:
    def convert(text: str) -> str:
        local, offset = _zone_seconds(text)
        micros = (_time_micros(local) - offset * 1_000_000) % 86_400_000_000
        seconds, fraction = divmod(micros, 1_000_000)
        hours, rest = divmod(seconds, 3600)
        clock = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
        return clock + _iso_fraction(fraction, width) + "Z"

    return convert


def interval_micros(text: str) -> int:
    """An ISO-8601 interval (``IntervalStyle=iso_8601``) as ``MicroDuration`` microseconds,
    months counted as 365.25/12 days like Debezium."""
    match = _INTERVAL.fullmatch(text)
    if match is None:
        raise ValueError(f"Not an ISO-8601 interval: {text!r}")
    years, months, days, hours, minutes = (int(g or 0) for g in match.groups()[:5])
    seconds = float(match.group(6) or 0)
    whole_days = (years * 12 + months) * DAYS_PER_MONTH_AVG + days
    total = (((whole_days * 24 + hours) * 60) + minutes) * 60 + seconds
    return int(total * 1e6)


def _bits(text: str) -> bytes:
    """A bit string as Debezium's ``Bits``: the value as little-endian bytes."""
    value = int(text, 2) if text else 0
    return value.to_bytes(max(1, (len(text) + 7) // 8), "little")


def _bytea(text: str) -> bytes:
    return bytes.fromhex(text[2:]) if text.startswith("\\x") else text.encode()


def _variable_scale(schema: Schema) -> Convert:
    def convert(text: str) -> Struct:
        value = decimal.Decimal(text)
        exponent = value.as_tuple().exponent
        scale = -int(exponent) if isinstance(exponent, int) else 0
        unscaled = int(value.scaleb(scale))
        return Struct(schema).put("scale", scale).put("value", to_twos_complement(unscaled))

    return convert


def _money(text: str) -> decimal.Decimal:
    cleaned = re.sub(r"[^0-9.\-]", "", text.replace("(", "-"))
    return decimal.Decimal(cleaned).quantize(decimal.Decimal("0.01"))


def converter(column: Column, schema: Schema) -> Convert:
    """The function from *column*'s text form to a value of *schema* (never given None:
    the caller keeps nulls)."""
    oid = column.type_oid
    name = schema.name
    if oid == BOOL:
        return lambda t: t == "t"
    if oid == BIT and name != "io.debezium.data.Bits":
        return lambda t: t == "1"
    if oid in (BIT, VARBIT):
        return _bits
    if oid in (INT2, INT4, INT8, OID):
        return int
    if oid in (FLOAT4, FLOAT8):
        return float
    if oid in (NUMERIC, MONEY):
        parse: Convert = _money if oid == MONEY else decimal.Decimal
        if name == ConnectDecimal.LOGICAL_NAME:
            exponent = decimal.Decimal(1).scaleb(-ConnectDecimal.scale(schema))
            return lambda t: parse(t).quantize(exponent)
        if name == "io.debezium.data.VariableScaleDecimal":
            return _variable_scale(schema)
        if schema.type.name == "FLOAT64":
            return lambda t: float(parse(t))
        return lambda t: format(parse(t), "f")
    if oid == BYTEA:
        return _bytea
    if oid == TIMESTAMPTZ:
        return _zoned_timestamp(time_precision(column))
    if oid == TIMETZ:
        return _zoned_time(0)  # ZonedTime: ISO_OFFSET_TIME, digits only as needed
    if oid == INTERVAL:
        return interval_micros
    if oid == DATE:
        if name == Date.LOGICAL_NAME:
            return _date
        return lambda t: (_date(t) - _EPOCH_DATE).days
    if oid == TIME:
        if name == Time.LOGICAL_NAME:
            return lambda t: (_EPOCH + dt.timedelta(microseconds=_time_micros(t))).time()
        if name == "io.debezium.time.Time":
            return lambda t: _time_micros(t) // 1000
        return _time_micros
    if oid == TIMESTAMP:
        if name == Timestamp.LOGICAL_NAME:
            return lambda t: _EPOCH + dt.timedelta(microseconds=_timestamp_micros(t))
        if name == "io.debezium.time.Timestamp":
            return _infinite(_timestamp_micros, 1000)
        return _infinite(_timestamp_micros, 1)
    return str


def base64_of(value: bytes) -> str:
    """How JsonConverter writes BYTES (for tests and logs)."""
    return base64.b64encode(value).decode()
