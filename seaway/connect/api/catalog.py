"""Tables over the files a sink writes: the engine's catalog as a connector sees it.

A connector whose files should be queryable as tables (the HDFS sink's
``hive.integration``) asks its context for :meth:`ConnectorContext.table_catalog
<seaway.connect.api.ConnectorContext.table_catalog>`; the runtime answers with Spark's
catalog (the Hive metastore when the worker's Spark session has one), or None.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

import pyarrow as pa

__all__ = ["TableCatalog"]


class TableCatalog(ABC):
    """Creates and evolves external Parquet tables and registers their partitions."""

    @abstractmethod
    def ensure_table(
        self, database: str, table: str, location: str, schema: pa.Schema,
        partition_columns: Sequence[str],
    ) -> None:  # fmt: skip
        """Create ``database.table`` over *location* (Parquet files, partitioned by string
        columns *partition_columns*) if it is missing; add the columns of *schema* it lacks.
        Columns are never dropped or retyped."""

    @abstractmethod
    def add_partitions(
        self, database: str, table: str, partitions: Sequence[Mapping[str, str]]
    ) -> None:
        """Register *partitions* (column -> value) of the table, skipping known ones."""
