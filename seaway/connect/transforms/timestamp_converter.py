"""TimestampConverter: convert timestamps between strings, Unix times and Connect's
Date, Time and Timestamp logical types.

Values go through a UTC instant with millisecond precision, as in Kafka. Schemaless inputs
are recognised by Python type: ``str`` (parsed with ``format``), ``int`` (Unix time in
``unix.precision``), ``datetime.datetime`` (Timestamp), ``datetime.date`` (Date) and
``datetime.time`` (Time).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from seaway.config import ConfigDef, ConfigException, Importance, Type, ValidString
from seaway.connect.api.data import Date, Schema, SchemaBuilder, SchemaType, Struct, Time, Timestamp
from seaway.connect.api.data.schema import class_name
from seaway.connect.api.errors import ConnectError, DataError
from seaway.connect.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    KeyOrValueTransformation,
    OnKey,
    OnValue,
    R,
    copy_schema_basics,
    define_replace_null_with_default,
    field_value,
    key_value_doc,
    require_map,
    require_struct_or_none,
    schema_cache,
    simple_config,
)
from seaway.java.dates import SimpleDateFormat

FIELD_CONFIG = "field"
TARGET_TYPE_CONFIG = "target.type"
FORMAT_CONFIG = "format"
UNIX_PRECISION_CONFIG = "unix.precision"
TYPE_STRING, TYPE_UNIX, TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP = (
    "string", "unix", "Date", "Time", "Timestamp",
)  # fmt: skip
_PRECISION_MILLIS_PER_UNIT: Final = {"seconds": 1000, "milliseconds": 1}
_PRECISION_UNITS_PER_MILLI: Final = {"microseconds": 1000, "nanoseconds": 1_000_000}
_PURPOSE = "converting timestamp formats"
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

CONFIG_DEF = define_replace_null_with_default(
    ConfigDef()
    .define(
        FIELD_CONFIG,
        Type.STRING,
        "",
        importance=Importance.HIGH,
        doc="The field containing the timestamp, or empty if the entire value is a timestamp",
    )
    .define(
        TARGET_TYPE_CONFIG,
        Type.STRING,
        validator=ValidString.in_(TYPE_STRING, TYPE_UNIX, TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP),
        importance=Importance.HIGH,
        doc="The desired timestamp representation: string, unix, Date, Time, or Timestamp",
    )
    .define(
        FORMAT_CONFIG,
        Type.STRING,
        "",
        importance=Importance.MEDIUM,
        doc="A SimpleDateFormat-compatible format for the timestamp. Used to generate the output "
        "when type=string or used to parse the input if the input is a string.",
    )
    .define(
        UNIX_PRECISION_CONFIG,
        Type.STRING,
        "milliseconds",
        ValidString.in_("nanoseconds", "microseconds", "milliseconds", "seconds"),
        Importance.LOW,
        "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or "
        "nanoseconds. Used to generate the output when type=unix or used to parse the input if "
        "the input is a Long.Note: This SMT will cause precision loss during conversions from, "
        "and to, values with sub-millisecond components.",
    )
)

_SCHEMAS: Final = {
    TYPE_STRING: (Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA),
    TYPE_UNIX: (Schema.INT64_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA),
    TYPE_DATE: (Date.SCHEMA, Date.builder().optional().build()),
    TYPE_TIME: (Time.SCHEMA, Time.builder().optional().build()),
    TYPE_TIMESTAMP: (Timestamp.SCHEMA, Timestamp.builder().optional().build()),
}


def _truncate_div(number: int, divisor: int) -> int:
    """Division rounding toward zero, like Java's ``TimeUnit`` conversions."""
    quotient = abs(number) // divisor
    return quotient if number >= 0 else -quotient


def _millis(instant: dt.datetime) -> int:
    return Timestamp.from_logical(Timestamp.SCHEMA, instant)


class TimestampConverter(KeyOrValueTransformation[R]):
    """Convert ``field`` (or the whole key or value) to ``target.type``."""

    OVERVIEW_DOC = key_value_doc(
        "Convert timestamps between different formats such as Unix epoch, strings, and Connect "
        "Date/Timestamp types.Applies to individual fields or to the entire value.",
        "TimestampConverter",
    )
    CONFIG_DEF = CONFIG_DEF
    Key: ClassVar[type[TimestampConverter[Any]]]
    Value: ClassVar[type[TimestampConverter[Any]]]

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self._field = config.get_string(FIELD_CONFIG) or ""
        self._type = config.get_string(TARGET_TYPE_CONFIG) or ""
        pattern = config.get_string(FORMAT_CONFIG) or ""
        self._precision = config.get_string(UNIX_PRECISION_CONFIG) or "milliseconds"
        self._replace_null_with_default = bool(config.get_boolean(REPLACE_NULL_WITH_DEFAULT_CONFIG))
        if self._type == TYPE_STRING and not pattern.strip():
            raise ConfigException(
                "TimestampConverter requires format option to be specified when using string "
                "timestamps"
            )
        self._format: SimpleDateFormat | None = None
        if pattern.strip():
            try:
                self._format = SimpleDateFormat(pattern)
            except ValueError as exc:
                raise ConfigException(
                    "TimestampConverter requires a SimpleDateFormat-compatible pattern for "
                    f"string timestamps: {pattern}"
                ) from exc
        self._updated_schema = schema_cache(self._make_updated_schema)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    # ------------------------------------------------------------------ translation

    def _to_raw(self, kind: str, value: Any) -> dt.datetime:
        """*value* of timestamp type *kind* as a UTC instant."""
        if kind == TYPE_STRING:
            if not isinstance(value, str):
                raise DataError(
                    f"Expected string timestamp to be a String, but found {class_name(value)}"
                )
            assert self._format is not None
            try:
                return self._format.parse(value)
            except (ValueError, OverflowError) as exc:
                raise DataError(
                    f"Could not parse timestamp: value ({value}) does not match pattern "
                    f"({self._format.pattern})"
                ) from exc
        if kind == TYPE_UNIX:
            if not isinstance(value, int) or isinstance(value, bool):
                raise DataError(
                    f"Expected Unix timestamp to be a Long, but found {class_name(value)}"
                )
            if self._precision in _PRECISION_MILLIS_PER_UNIT:
                millis = value * _PRECISION_MILLIS_PER_UNIT[self._precision]
            else:
                millis = _truncate_div(value, _PRECISION_UNITS_PER_MILLI[self._precision])
            return Timestamp.to_logical(Timestamp.SCHEMA, millis)
        if kind == TYPE_DATE:
            if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
                raise DataError(
                    f"Expected Date to be a datetime.date, but found {class_name(value)}"
                )
            return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
        if kind == TYPE_TIME:
            if not isinstance(value, dt.time):
                raise DataError(
                    f"Expected Time to be a datetime.time, but found {class_name(value)}"
                )
            return _EPOCH + dt.timedelta(milliseconds=Time.from_logical(Time.SCHEMA, value))
        if not isinstance(value, dt.datetime):
            raise DataError(
                f"Expected Timestamp to be a datetime.datetime, but found {class_name(value)}"
            )
        return Timestamp.to_logical(Timestamp.SCHEMA, _millis(value))

    def _to_type(self, instant: dt.datetime) -> Any:
        """The UTC *instant* as the target type."""
        if self._type == TYPE_STRING:
            assert self._format is not None
            return self._format.format(instant)
        if self._type == TYPE_UNIX:
            millis = _millis(instant)
            if self._precision in _PRECISION_MILLIS_PER_UNIT:
                return _truncate_div(millis, _PRECISION_MILLIS_PER_UNIT[self._precision])
            return millis * _PRECISION_UNITS_PER_MILLI[self._precision]
        if self._type == TYPE_DATE:
            return instant.date()
        if self._type == TYPE_TIME:
            return instant.time().replace(microsecond=instant.microsecond // 1000 * 1000)
        return instant

    @staticmethod
    def _type_of_schema(schema: Schema) -> str:
        if schema.name == Timestamp.LOGICAL_NAME:
            return TYPE_TIMESTAMP
        if schema.name == Date.LOGICAL_NAME:
            return TYPE_DATE
        if schema.name == Time.LOGICAL_NAME:
            return TYPE_TIME
        if schema.type is SchemaType.STRING:
            return TYPE_STRING
        if schema.type is SchemaType.INT64:
            return TYPE_UNIX
        raise ConnectError(f"Schema {schema} does not correspond to a known timestamp type format")

    @staticmethod
    def _infer_type(value: Any) -> str:
        if isinstance(value, dt.datetime):
            return TYPE_TIMESTAMP
        if isinstance(value, dt.date):
            return TYPE_DATE
        if isinstance(value, dt.time):
            return TYPE_TIME
        if isinstance(value, int) and not isinstance(value, bool):
            return TYPE_UNIX
        if isinstance(value, str):
            return TYPE_STRING
        raise DataError(
            f"TimestampConverter does not support {class_name(value)} objects as timestamps"
        )

    def _convert(self, value: Any, kind: str | None = None) -> Any:
        if value is None:
            return None
        return self._to_type(self._to_raw(kind or self._infer_type(value), value))

    # ------------------------------------------------------------------ records

    def apply(self, record: R) -> R:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            if value is None or not self._field:
                return self.new_record(record, None, self._convert(value))
            updated = dict(require_map(value, _PURPOSE))
            updated[self._field] = self._convert(updated.get(self._field))
            return self.new_record(record, None, updated)
        if not self._field:
            updated_schema = _SCHEMAS[self._type][int(schema.is_optional)]
            converted = self._convert(value, self._type_of_schema(schema))
            return self.new_record(record, updated_schema, converted)
        struct = require_struct_or_none(value, _PURPOSE)
        updated_schema = self._updated_schema(schema)
        return self.new_record(record, updated_schema, self._convert_struct(struct, updated_schema))

    def _convert_struct(self, value: Struct | None, updated_schema: Schema) -> Struct | None:
        if value is None:
            return None
        updated = Struct(updated_schema)
        for field in value.schema.fields:
            item = field_value(value, field, self._replace_null_with_default)
            if field.name == self._field:
                item = self._convert(item, self._type_of_schema(field.schema))
            updated.put(field.name, item)
        return updated

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if field.name == self._field:
                builder.field(field.name, _SCHEMAS[self._type][int(field.schema.is_optional)])
            else:
                builder.field(field.name, field.schema)
        if schema.is_optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(self._convert_struct(schema.default_value, builder.build()))
        return builder.build()

    def close(self) -> None:
        self._updated_schema = schema_cache(self._make_updated_schema)


class TimestampConverterKey(OnKey, TimestampConverter[R]):
    """``TimestampConverter$Key``: convert the record key or one of its fields."""


class TimestampConverterValue(OnValue, TimestampConverter[R]):
    """``TimestampConverter$Value``: convert the record value or one of its fields."""


TimestampConverter.Key = TimestampConverterKey
TimestampConverter.Value = TimestampConverterValue

__all__ = ["TimestampConverter", "TimestampConverterKey", "TimestampConverterValue"]
