"""Make ``format("kafka")`` mean Seaway's source when Spark's own connector is absent, and
the Python data sources packages declare (``format("connect")``) known to every session.

Spark refuses to register a Python data source under the name ``kafka``
(``DATA_SOURCE_ALREADY_EXISTS``), and without the spark-sql-kafka jar the name fails with
``KAFKA_DATA_SOURCE_NOT_ENABLED``. So the four ``format()`` methods of PySpark's readers
and writers are wrapped: ``kafka`` becomes ``seaway-kafka`` for a session whose JVM has
no ``KafkaSourceProvider`` (and only for such a session). Existing code runs unchanged,
including a batch ``write...save()`` without ``mode("append")``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql.datasource import DataSource
from pyspark.sql.readwriter import DataFrameReader, DataFrameWriter
from pyspark.sql.streaming.readwriter import DataStreamReader, DataStreamWriter

from seaway.config.plugins import SPARK_FORMATS, plugin_classes
from seaway.spark.kafka.source import SOURCE_NAME, KafkaDataSource
from seaway.spark.shipping import check_shipped

log = logging.getLogger(__name__)

__all__ = [
    "install_kafka_alias",
    "jvm_kafka_available",
    "python_formats",
    "register",
    "register_format",
]

_JVM_PROVIDER = "org.apache.spark.sql.kafka010.KafkaSourceProvider"
_jvm_kafka: dict[int, bool] = {}
_registered: set[int] = set()
_formats_registered: set[tuple[int, str]] = set()
MASTER_OPTION = "seaway.spark.master"  # the session's master, for the data source's checks
PARALLELISM_OPTION = "seaway.parallelism"  # the session's default parallelism, for planning


def jvm_kafka_available(spark: SparkSession) -> bool:
    """Whether this session's JVM has Spark's own Kafka connector on its classpath."""
    key = id(spark.sparkContext._jsc)
    if key not in _jvm_kafka:
        try:
            loader = spark._jvm.java.lang.Thread.currentThread().getContextClassLoader()  # type: ignore[union-attr]
            loader.loadClass(_JVM_PROVIDER)
            _jvm_kafka[key] = True
        except Exception:  # Py4J raises its own error type for ClassNotFoundException
            _jvm_kafka[key] = False
    return _jvm_kafka[key]


def register(spark: SparkSession) -> None:
    """Register the ``seaway-kafka`` data source with ``spark`` (once per session)."""
    key = id(spark._jsparkSession)
    if key not in _registered:
        spark.dataSource.register(KafkaDataSource)
        _registered.add(key)


@functools.cache
def python_formats() -> dict[str, type[DataSource]]:
    """The Python data sources packages declare under the entry-point group
    ``seaway.spark_formats`` (Seaway's ``connect``), by name."""
    found = plugin_classes(SPARK_FORMATS).values()
    return {cls.name().lower(): cls for cls in found if issubclass(cls, DataSource)}


def register_format(spark: SparkSession, name: str) -> None:
    """Register the declared Python data source *name* with ``spark`` (once per session)."""
    key = (id(spark._jsparkSession), name)
    if key not in _formats_registered:
        spark.dataSource.register(python_formats()[name])
        _formats_registered.add(key)


def _aliased(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def format(self: Any, source: str) -> Any:
        if isinstance(source, str) and source.lower() in python_formats():
            register_format(self._spark, source.lower())
            check_shipped(self._spark)
            # what a Python data source cannot ask Spark itself: its master and cores
            context = self._spark.sparkContext
            return (
                original(self, source)
                .option(MASTER_OPTION, context.master)
                .option(PARALLELISM_OPTION, str(context.defaultParallelism))
            )
        elif (
            isinstance(source, str)
            and source.lower() == "kafka"
            and not jvm_kafka_available(self._spark)
        ):
            register(self._spark)
            check_shipped(self._spark)  # on the driver, not ModuleNotFoundError in executors
            source = SOURCE_NAME
        result = original(self, source)
        if source == SOURCE_NAME and isinstance(self, DataFrameWriter):
            # Spark's Kafka sink takes the default save mode (records are only ever
            # appended); Python data sources refuse ErrorIfExists, so default to append.
            result.mode("append")
        return result

    format.__seaway_alias__ = True  # type: ignore[attr-defined]
    return format


def install_kafka_alias() -> None:
    """Wrap ``format()`` of PySpark's batch and streaming readers and writers (idempotent)."""
    for cls in (DataFrameReader, DataFrameWriter, DataStreamReader, DataStreamWriter):
        if not getattr(cls.format, "__seaway_alias__", False):
            cls.format = _aliased(cls.format)  # type: ignore[method-assign]
