"""Debezium's temporal types as Parquet date and timestamp columns.

Debezium encodes dates and times as plain integers (or ISO-8601 strings) named after their
meaning; written as is they would become ``BIGINT`` columns in Hive. The HDFS sink writes
the top-level columns of these types as what they mean:

=====================================  ==================  ======================  =========
Debezium type                          Connect type        Parquet/Arrow           Spark SQL
=====================================  ==================  ======================  =========
``io.debezium.time.Date``              INT32 days          ``date32``              DATE
``io.debezium.time.Timestamp``         INT64 ms            ``timestamp[ms, UTC]``  TIMESTAMP
``io.debezium.time.MicroTimestamp``    INT64 µs            ``timestamp[us, UTC]``  TIMESTAMP
``io.debezium.time.NanoTimestamp``     INT64 ns            ``timestamp[us, UTC]``  TIMESTAMP
``io.debezium.time.ZonedTimestamp``    STRING (ISO-8601)   ``timestamp[us, UTC]``  TIMESTAMP
=====================================  ==================  ======================  =========

``Timestamp``/``MicroTimestamp``/``NanoTimestamp`` hold a column without a time zone (MySQL's
``DATETIME``, PostgreSQL's ``timestamp``) as if its wall-clock time were UTC, which is how
Connect's own ``Timestamp`` is written too: a Spark session with
``spark.sql.session.timeZone=UTC`` shows the source's wall-clock time. Nanoseconds are cut to
microseconds (Spark reads no finer timestamps). Times of day (``io.debezium.time.Time``,
``MicroTime``, ``NanoTime``) stay integers: Spark SQL has no TIME type. Nested fields are
left alone: ``ExtractNewRecordState`` makes rows flat.

>>> import pyarrow as pa
>>> from seaway.connect.api.data import SchemaBuilder
>>> schema = SchemaBuilder.struct().field("at", SchemaBuilder.int64()
...     .name("io.debezium.time.Timestamp").optional().build()).build()
>>> table = pa.table({"at": pa.array([1767225600123, None], pa.int64())})
>>> temporal_columns(schema, table).column("at").to_pylist()[0].isoformat()
'2026-01-01T00:00:00.123000+00:00'
"""

from __future__ import annotations

from typing import Final

import pyarrow as pa

from seaway.connect.api import ConnectError, Schema

__all__ = ["DEBEZIUM_TEMPORAL", "temporal_columns"]

DEBEZIUM_TEMPORAL: Final = {
    "io.debezium.time.Date": pa.date32(),
    "io.debezium.time.Timestamp": pa.timestamp("ms", tz="UTC"),
    "io.debezium.time.MicroTimestamp": pa.timestamp("us", tz="UTC"),
    "io.debezium.time.NanoTimestamp": pa.timestamp("us", tz="UTC"),
    "io.debezium.time.ZonedTimestamp": pa.timestamp("us", tz="UTC"),
}
"""The column type of each Debezium temporal type the sink converts."""

_NANOS: Final = pa.timestamp("ns", tz="UTC")


def _convert(name: str, column: pa.ChunkedArray) -> pa.ChunkedArray:
    target = DEBEZIUM_TEMPORAL[name]
    if name == "io.debezium.time.NanoTimestamp":
        return column.cast(_NANOS).cast(target, safe=False)
    if name == "io.debezium.time.ZonedTimestamp":
        try:
            return column.cast(target)
        except pa.ArrowInvalid:  # more than 6 fractional digits
            return column.cast(_NANOS).cast(target, safe=False)
    return column.cast(target)


def temporal_columns(schema: Schema, table: pa.Table) -> pa.Table:
    """*table* (the values of STRUCT *schema*) with its Debezium temporal columns as dates and
    timestamps."""
    for index, field in enumerate(schema.fields):
        name = field.schema.name
        if name not in DEBEZIUM_TEMPORAL:
            continue
        try:
            column = _convert(name, table.column(index))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            raise ConnectError(
                f"Field {field.name} ({name}) is not a valid {name.rsplit('.', 1)[1]}: "
                f"{error}; fix the values upstream, or drop the field with ReplaceField"
            ) from None
        arrow_field = pa.field(field.name, column.type, nullable=field.schema.is_optional)
        table = table.set_column(index, arrow_field, column)
    return table
