"""Spark's Python daemon for Seaway's sessions (``spark.python.daemon.module``).

Spark starts its Python workers from a daemon per worker module (``pyspark.worker``, the
data source planners, the streaming sink runner ...), one after the other, and puts its
own ``pyspark.zip`` first on their ``PYTHONPATH``. Python cannot cache bytecode inside a
zip, so every daemon compiled PySpark anew (0.9 s of a 2-core machine each, seven of them
before a mirror's first record). This daemon imports PySpark from the installed package
instead (the same version: the zip ships inside the pyspark wheel), loads what its workers
will need — the worker module Spark names, pyarrow, and Seaway's data sources — once, and
then runs PySpark's own daemon, whose forked workers start with all of it in memory.

Where PySpark is only on the zip (a cluster whose workers have no PySpark installed), the
zip stays and nothing else changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

_SPARK_ZIPS = ("pyspark.zip", "-src.zip")
_PRELOAD = (
    "pyarrow",
    "seaway.spark.kafka.source",
    "seaway.mirror.copy.source",
    "seaway.connect.runtime.queries.source",
    "seaway.connect.runtime.queries.sink",
)


def installed_pyspark_first() -> None:
    """Drop Spark's zips from ``sys.path`` when PySpark is installed beside them."""
    kept = [p for p in sys.path if not p.endswith(_SPARK_ZIPS)]
    if len(kept) == len(sys.path):
        return
    saved, sys.path[:] = list(sys.path), kept
    importlib.invalidate_caches()
    if importlib.util.find_spec("pyspark") is None or importlib.util.find_spec("py4j") is None:
        sys.path[:] = saved


def preload(worker_module: str | None) -> None:
    """Import the worker module and what Seaway's workers use, so forks start warm."""
    for name in (worker_module or "pyspark.worker", *_PRELOAD):
        try:
            importlib.import_module(name)
        except ImportError:  # an optional part missing here: its worker imports it, or fails
            pass


def main() -> None:
    installed_pyspark_first()
    preload(sys.argv[1] if len(sys.argv) > 1 and sys.argv[1].startswith("pyspark") else None)
    from pyspark import daemon

    daemon.manager()


if __name__ == "__main__":
    main()
