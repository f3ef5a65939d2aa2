"""Start a session's Python workers before its first query needs them.

A query over Python data sources waits for Spark to start, one after the other, a Python
daemon and worker for each step: looking a source up (``create_data_source``), planning
its partitions (``plan_data_source_read``), running its tasks (``pyspark.worker``) and
setting up a Python sink (``write_into_data_source``), each importing PySpark, pyarrow
and Seaway (~0.5 s apiece on a 2-core machine). Spark keeps daemons and reuses workers
for the life of the session, so one tiny read and write of a Seaway source, run in the
background as soon as the session exists, leaves all of them warm: a connector POSTed to
a running worker then waits only for its own streaming runner (first record 1.4-1.8 s
after the POST here, 3.1 s without).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence

from pyspark.sql import SparkSession
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceWriter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

# What the planners and tasks of Seaway's queries import: loaded by the warm-up's workers.
from seaway.spark.daemon import preload

log = logging.getLogger(__name__)

__all__ = ["NAME", "warm_up_in_background"]

NAME = "seaway-warmup"
_STARTED: set[int] = set()
_LOCK = threading.Lock()


class _Reader(DataSourceReader):
    def partitions(self) -> Sequence[InputPartition]:
        preload(None)
        return [InputPartition(0)]

    def read(self, partition: InputPartition) -> Iterator[tuple[int]]:
        yield (1,)


class _Writer(DataSourceWriter):
    def write(self, iterator: Iterator[object]) -> WriterCommitMessage:
        for _ in iterator:
            pass
        return WriterCommitMessage()


class WarmUpSource(DataSource):
    """Reads one row, writes nothing; its lookup, planning and tasks import what
    Seaway's workers import."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> StructType | str:
        preload(None)
        return "one int"

    def reader(self, schema: StructType) -> DataSourceReader:
        return _Reader()

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        preload(None)
        return _Writer()


def _run(spark: SparkSession, write: bool) -> None:
    try:
        spark.read.format(NAME).load().collect()
        if write:
            spark.createDataFrame([(1,)], "one int").write.format(NAME).mode("append").save()
    except Exception as error:  # only a head start is lost; the queries start workers anyway
        log.debug("Warming up the Python workers failed: %s", error)


def warm_up_in_background(spark: SparkSession, *, write: bool = True) -> threading.Thread | None:
    """Warm the session's Python workers in a daemon thread (once per SparkContext); with
    *write* False only those of a read, for a session whose queries have no Python sink."""
    key = id(spark.sparkContext)
    with _LOCK:
        if key in _STARTED:
            return None
        _STARTED.add(key)
    spark.dataSource.register(WarmUpSource)
    thread = threading.Thread(
        target=_run, args=(spark, write), name="seaway-spark-warmup", daemon=True
    )
    thread.start()
    return thread
