"""Connect's data model: schemas, structs, logical types (Kafka's ``connect.data``)."""

from seaway.connect.api.data.builder import SchemaBuilder
from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp
from seaway.connect.api.data.schema import ConnectSchema, Field, Schema, SchemaType
from seaway.connect.api.data.schema_and_value import SchemaAndValue
from seaway.connect.api.data.struct import Struct

__all__ = [
    "ConnectSchema",
    "Date",
    "Decimal",
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SchemaType",
    "Struct",
    "Time",
    "Timestamp",
]
