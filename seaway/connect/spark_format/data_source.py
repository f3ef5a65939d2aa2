"""``format("connect")``: any Seaway connector as a Spark data source and sink.

This module stays light (what it needs is imported when Spark asks for it): Spark imports it
in every Python process that looks up or plans a Python data source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSource

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

    from seaway.connect.spark_format.columns import RowColumns
    from seaway.connect.spark_format.reader import ConnectBatchReader, ConnectStreamReader
    from seaway.connect.spark_format.writer import ConnectBatchWriter, ConnectStreamWriter

__all__ = ["ConnectDataSource"]


class ConnectDataSource(DataSource):
    """``spark.readStream.format("connect").option("connector.class", ...)`` for a source
    connector, ``df.writeStream.format("connect")`` for a sink connector; the options are
    the connector's configuration, as in a Connect ``POST /connectors``."""

    @classmethod
    def name(cls) -> str:
        return "connect"

    def _source(self) -> tuple[Any, Any, int]:
        """The source connector the options name, checked, and its rows' columns (a bad
        option fails ``load()``, before any query starts)."""
        from seaway.connect.spark_format.columns import RowColumns
        from seaway.connect.spark_format.connector import FormatConnector
        from seaway.connect.spark_format.reader import min_partitions, source_spec

        connector = FormatConnector.of(self.options, "source")
        columns = RowColumns.of(connector.config, connector.schemas)
        return source_spec(connector, self.options), columns, min_partitions(self.options)

    def schema(self) -> StructType:
        columns: RowColumns = self._source()[1]
        return columns.spark_schema()

    def streamReader(self, schema: StructType) -> ConnectStreamReader:
        from seaway.connect.spark_format.reader import ConnectStreamReader

        return ConnectStreamReader(*self._source())

    def reader(self, schema: StructType) -> ConnectBatchReader:
        from seaway.connect.spark_format.reader import ConnectBatchReader

        return ConnectBatchReader(*self._source())

    def _sink(self, schema: StructType) -> Any:
        from seaway.connect.spark_format.connector import FormatConnector
        from seaway.connect.spark_format.writer import sink_spec

        return sink_spec(FormatConnector.of(self.options, "sink"), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> ConnectStreamWriter:
        from seaway.connect.spark_format.writer import ConnectStreamWriter

        return ConnectStreamWriter(self._sink(schema))

    def writer(self, schema: StructType, overwrite: bool) -> ConnectBatchWriter:
        from seaway.connect.spark_format.writer import ConnectBatchWriter

        return ConnectBatchWriter(self._sink(schema))
