"""What a source connector's rows hold: their Spark schema, and each record's key and value as
a converter's bytes or as typed columns.

A key or value is typed when the connector knows its records' schemas before reading any
(:meth:`~seaway.connect.api.SourceConnector.record_schemas`: a file's lines, one table's
columns), no converter is named for it and no transformation may change the schema; else it
is what the converter (``key.converter``/``value.converter``, JsonConverter by default, as in
Connect) makes of it.

Connect types become Spark's: INT8..INT64 byte/short/int/long, FLOAT32/64 float/double,
BOOLEAN, STRING, BYTES binary, Decimal decimal (precision from ``connect.decimal.precision``,
else 38), Date date, Time time, Timestamp timestamp, ARRAY array, MAP map, STRUCT struct.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_type
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    TimeType,
)

from seaway.connect.api import RecordSchemas, Schema, SchemaBuilder, SchemaType
from seaway.connect.api.data.arrow import arrow_values
from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp

__all__ = ["RowColumns", "connect_schema", "spark_type"]

_PRIMITIVES: Final = {
    SchemaType.INT8: ByteType(), SchemaType.INT16: ShortType(), SchemaType.INT32: IntegerType(),
    SchemaType.INT64: LongType(), SchemaType.FLOAT32: FloatType(),
    SchemaType.FLOAT64: DoubleType(), SchemaType.BOOLEAN: BooleanType(),
    SchemaType.STRING: StringType(), SchemaType.BYTES: BinaryType(),
}  # fmt: skip
_HEADERS: Final = ArrayType(
    StructType([StructField("key", StringType()), StructField("value", BinaryType())])
)


def spark_type(schema: Schema) -> DataType:
    """The Spark type of a Connect schema."""
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        precision = int((schema.parameters or {}).get("connect.decimal.precision", "38"))
        return DecimalType(min(max(precision, 1), 38), Decimal.scale(schema))
    if name == Date.LOGICAL_NAME:
        return DateType()
    if name == Time.LOGICAL_NAME:
        return TimeType()
    if name == Timestamp.LOGICAL_NAME:
        return TimestampType()
    kind = schema.type
    if kind in _PRIMITIVES:
        return _PRIMITIVES[kind]
    if kind is SchemaType.ARRAY:
        element = schema.value_schema
        assert element is not None
        return ArrayType(spark_type(element), element.is_optional)
    if kind is SchemaType.MAP:
        key, value = schema.key_schema, schema.value_schema
        assert key is not None and value is not None
        return MapType(spark_type(key), spark_type(value), value.is_optional)
    return StructType(
        [StructField(f.name, spark_type(f.schema), f.schema.is_optional) for f in schema.fields]
    )


def connect_schema(kind: DataType, optional: bool = True) -> Schema:
    """The Connect schema of a Spark type (the inverse of :func:`spark_type`)."""
    if isinstance(kind, DecimalType):
        builder = Decimal.builder(kind.scale).parameter(
            "connect.decimal.precision", str(kind.precision)
        )
    elif isinstance(kind, DateType):
        builder = Date.builder()
    elif isinstance(kind, TimeType):
        builder = Time.builder()
    elif isinstance(kind, TimestampType | TimestampNTZType):
        builder = Timestamp.builder()
    elif isinstance(kind, ArrayType):
        builder = SchemaBuilder.array(connect_schema(kind.elementType, kind.containsNull))
    elif isinstance(kind, MapType):
        key = connect_schema(kind.keyType, False)
        builder = SchemaBuilder.map(key, connect_schema(kind.valueType, kind.valueContainsNull))
    elif isinstance(kind, StructType):
        builder = SchemaBuilder.struct()
        for field in kind.fields:
            builder.field(field.name, connect_schema(field.dataType, field.nullable))
    else:
        found = [t for t, spark in _PRIMITIVES.items() if spark == kind]
        if not found:
            raise ValueError(f"{kind.simpleString()} has no Connect type")
        builder = SchemaBuilder.of_type(found[0])
    return (builder.optional() if optional else builder).build()


@dataclass(frozen=True)
class RowColumns:
    """The rows' key and value columns: typed by a schema, or converter bytes (None)."""

    key: Schema | None = None
    value: Schema | None = None

    @classmethod
    def of(cls, config: dict[str, str], schemas: RecordSchemas | None) -> RowColumns:
        """Typed where the connector knows the schema, no converter is named and no
        transformation is configured."""
        if schemas is None or config.get("transforms", "").strip():
            return cls()
        key = None if config.get("key.converter") else schemas.key
        value = None if config.get("value.converter") else schemas.value
        return cls(key, value)

    def spark_schema(self) -> StructType:
        """``topic, partition, offset, key, value, headers, timestamp``."""
        key = BinaryType() if self.key is None else spark_type(self.key)
        value = BinaryType() if self.value is None else spark_type(self.value)
        return StructType(
            [
                StructField("topic", StringType()),
                StructField("partition", StringType()),
                StructField("offset", StringType()),
                StructField("key", key),
                StructField("value", value),
                StructField("headers", _HEADERS),
                StructField("timestamp", TimestampType()),
            ]
        )

    @cached_property
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema Spark takes the rows in (timestamps in UTC)."""
        fields = self.spark_schema().fields
        return pa.schema(
            [pa.field(f.name, to_arrow_type(f.dataType, timezone="UTC")) for f in fields]
        )

    def typed(self, which: str, values: Sequence[Any]) -> pa.Array:
        """Connect values of the key or the value as the column's Arrow type."""
        schema = self.key if which == "key" else self.value
        assert schema is not None
        return arrow_values(schema, values, self.arrow_schema.field(which).type)

    def conformed(self, which: str, column: pa.Array) -> pa.Array:
        """A batch's Arrow column of Connect values as the column's type (a struct's fields
        matched by name: a field the schema gained since the query started is left out)."""
        kind = self.arrow_schema.field(which).type
        try:
            return column.cast(kind)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return pa.array(column.to_pylist(), type=kind)
