"""Spark's catalog as a connector's :class:`~seaway.connect.api.TableCatalog`: external
Parquet tables created, evolved and given partitions with Spark SQL DDL on the worker's
session (its Hive metastore, with ``spark.sql.catalogImplementation=hive``)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from seaway.connect.api import ConnectError, TableCatalog

__all__ = ["SparkTableCatalog", "spark_type"]


def _name(identifier: str) -> str:
    return "`" + identifier.replace("`", "``") + "`"


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def spark_type(arrow: pa.DataType) -> str:
    """The Spark SQL type of an Arrow type, as DDL."""
    simple = {
        pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INT", pa.int64(): "BIGINT",
        pa.float32(): "FLOAT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN",
        pa.string(): "STRING", pa.large_string(): "STRING", pa.binary(): "BINARY",
        pa.date32(): "DATE",
    }  # fmt: skip
    if arrow in simple:
        return simple[arrow]
    if pa.types.is_decimal(arrow):
        return f"DECIMAL({arrow.precision},{arrow.scale})"
    if pa.types.is_timestamp(arrow):
        return "TIMESTAMP"
    if pa.types.is_list(arrow):
        return f"ARRAY<{spark_type(arrow.value_type)}>"
    if pa.types.is_map(arrow):
        return f"MAP<{spark_type(arrow.key_type)}, {spark_type(arrow.item_type)}>"
    if pa.types.is_struct(arrow):
        fields = ", ".join(f"{_name(f.name)}: {spark_type(f.type)}" for f in arrow)
        return f"STRUCT<{fields}>"
    raise ConnectError(f"Spark SQL has no column type for {arrow}: leave the field out")


class SparkTableCatalog(TableCatalog):
    """Tables in the catalog of a Spark session (one DDL statement at a time)."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self._lock = threading.Lock()

    def ensure_table(
        self, database: str, table: str, location: str, schema: pa.Schema,
        partition_columns: Sequence[str],
    ) -> None:  # fmt: skip
        full = f"{_name(database)}.{_name(table)}"
        with self._lock:
            self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {_name(database)}")
            if not self.spark.catalog.tableExists(f"{database}.{table}"):
                columns = [f"{_name(f.name)} {spark_type(f.type)}" for f in schema]
                columns += [f"{_name(p)} STRING" for p in partition_columns]
                partitioned = ", ".join(_name(p) for p in partition_columns)
                self.spark.sql(
                    f"CREATE TABLE IF NOT EXISTS {full} ({', '.join(columns)}) USING parquet "
                    + (f"PARTITIONED BY ({partitioned}) " if partitioned else "")
                    + f"LOCATION {_literal(location)}"
                )
                return
            known = {f.name.lower() for f in self.spark.table(full).schema.fields}
            missing = [f for f in schema if f.name.lower() not in known]
            if missing:
                added = ", ".join(f"{_name(f.name)} {spark_type(f.type)}" for f in missing)
                self.spark.sql(f"ALTER TABLE {full} ADD COLUMNS ({added})")

    def add_partitions(
        self, database: str, table: str, partitions: Sequence[Mapping[str, str]]
    ) -> None:
        full = f"{_name(database)}.{_name(table)}"
        specs = [
            "PARTITION (" + ", ".join(f"{_name(k)} = {_literal(v)}" for k, v in p.items()) + ")"
            for p in partitions
        ]
        if specs:
            with self._lock:
                self.spark.sql(f"ALTER TABLE {full} ADD IF NOT EXISTS {' '.join(specs)}")
