"""``seaway-kafka``: the Python Data Source Spark sees, tying the pieces together."""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from seaway.spark.kafka.batch import KafkaBatchReader
from seaway.spark.kafka.options import KafkaOptionError, parse_sink_options, parse_source_options
from seaway.spark.kafka.schema import spark_schema
from seaway.spark.kafka.stream import KafkaMicroBatchReader
from seaway.spark.kafka.writer import KafkaBatchWriter, KafkaStreamWriter, check_sink_schema

__all__ = ["SOURCE_NAME", "KafkaDataSource"]

SOURCE_NAME = "seaway-kafka"


class KafkaDataSource(DataSource):
    """Kafka for Spark with the options and schema of Spark's own ``kafka`` format.

    >>> df = (spark.readStream.format("seaway-kafka")                      # doctest: +SKIP
    ...       .option("kafka.bootstrap.servers", "localhost:9092")
    ...       .option("subscribe", "orders").load())
    """

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> StructType:
        include = str(self.options.get("includeHeaders", "false")).strip().lower() == "true"
        return spark_schema(include)

    def reader(self, schema: StructType) -> DataSourceReader:
        return KafkaBatchReader(parse_source_options(self.options, streaming=False))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return KafkaMicroBatchReader(parse_source_options(self.options, streaming=True))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        if overwrite:
            raise KafkaOptionError(
                "Save mode Overwrite is not allowed for Kafka: records cannot be replaced. "
                "Allowed save modes are Append and Ignore."
            )
        options = parse_sink_options(self.options)
        check_sink_schema(schema, options)
        return KafkaBatchWriter(options)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        options = parse_sink_options(self.options)
        check_sink_schema(schema, options)
        return KafkaStreamWriter(options)
