"""Record the driver JVM's class data sharing archive ahead of the first session.

``python -m seaway.spark.prepare`` (``make demo`` and ``make test`` run it after installing)
starts a short session, recording: it reads and writes a Python data source and runs a
streaming query over a Python stream source, as Seaway's engines do, and its JVM writes the
classes it loaded into the archive when it exits (``-XX:ArchiveClassesAtExit``). Sessions
started afterwards map them (:func:`seaway.spark.startup.class_data_sharing`); a session
that finds no archive starts this in the background. It does nothing when the archive
exists or another process is recording it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from pyspark.sql.datasource import (
    DataSource,
    DataSourceStreamReader,
    InputPartition,
)
from pyspark.sql.streaming.datasource import ReadLimit
from pyspark.sql.types import StructType

from seaway.spark.startup import (
    RECORDING,
    claimed,
    driver_archive,
    failed,
    spark_home_without_zip,
)

__all__ = ["prepare"]

_RECORD_TIMEOUT_S = 600


class _Ticks(DataSourceStreamReader):
    def initialOffset(self) -> dict[str, int]:
        return {"tick": 0}

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        return {"tick": 2}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[InputPartition]:
        return [InputPartition(tick) for tick in range(start["tick"], end["tick"])]

    def read(self, partition: InputPartition) -> Iterator[tuple[int]]:
        yield (partition.value,)


class _TickSource(DataSource):
    """Two ticks, as a stream: the classes of a Python micro-batch stream get recorded."""

    @classmethod
    def name(cls) -> str:
        return "seaway-prepare-ticks"

    def schema(self) -> str:
        return "tick int"

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return _Ticks()


def _record(archive_file: Path, checkpoint: Path) -> int:
    """Run the recording session; its JVM writes *archive_file* when it exits."""
    from seaway.spark.session import spark_session
    from seaway.spark.warmup import warm_up_in_background

    spark = spark_session(
        "local[2]",
        app_name="seaway-prepare",
        config={
            "spark.driver.extraJavaOptions": f"-XX:ArchiveClassesAtExit={archive_file}",
            "spark.ui.port": "0",
        },
        records_in_jvm=False,
    )
    warm = warm_up_in_background(spark)  # a Python data source read and write
    spark.dataSource.register(_TickSource)
    query = (
        spark.readStream.format(_TickSource.name())
        .load()
        .writeStream.format("noop")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(_RECORD_TIMEOUT_S)
    if warm is not None:
        warm.join(_RECORD_TIMEOUT_S)
    spark.range(100).selectExpr("id % 3 AS k").groupBy("k").count().collect()
    jvm = spark.sparkContext._gateway.proc  # type: ignore[union-attr]
    spark.stop()
    jvm.stdin.close()  # the JVM exits on its stdin's end, writing the archive first
    return int(jvm.wait(_RECORD_TIMEOUT_S))


def prepare() -> Path | None:
    """Record the archive unless it exists or another process is recording it (waiting
    for neither); the archive's path once it exists."""
    if "SPARK_HOME" not in os.environ:  # the home every Seaway session launches with
        home = spark_home_without_zip()
        if home is not None:
            os.environ["SPARK_HOME"] = home
    archive = driver_archive()
    if archive is None or archive.exists():
        return archive
    with claimed(archive) as mine:
        if mine and not archive.exists():  # else recorded meanwhile, or being recorded
            _record_into(archive)
    return archive if archive.exists() else None


def _record_into(archive: Path) -> None:
    """Run the recording session in a process of its own; move its archive into place, or
    leave its error in :func:`seaway.spark.startup.failed`."""
    partial = archive.with_name(f"{archive.name}.{os.getpid()}")
    scratch = archive.with_name(f"{archive.name}.{os.getpid()}.checkpoint")
    try:
        try:
            recorded = subprocess.run(
                [sys.executable, "-m", "seaway.spark.prepare", "--record", str(partial),
                 str(scratch)],
                env={**os.environ, RECORDING: "1"},
                stdin=subprocess.DEVNULL, capture_output=True, timeout=_RECORD_TIMEOUT_S * 2,
            )  # fmt: skip
            ok = recorded.returncode == 0 and partial.exists()
            error = "" if ok else recorded.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            error = f"the recording session took over {_RECORD_TIMEOUT_S * 2} s"
        if error:
            failed(archive).write_text(error[-4000:])
            sys.stderr.write(error[-4000:] + "\n")
        else:
            partial.replace(archive)
            failed(archive).unlink(missing_ok=True)
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m seaway.spark.prepare", description=__doc__)
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    parser.add_argument("--record", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.record:
        return _record(*args.record)
    started = time.monotonic()
    archive = prepare()
    if not args.quiet:
        if archive is None:
            print(
                "Spark's class data sharing archive: not recorded here (no Java or Spark, "
                "another process is recording it, or the recording failed: see above)"
            )
        else:
            took = time.monotonic() - started
            print(f"Spark's class data sharing archive: {archive} ({took:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
