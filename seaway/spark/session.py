"""A SparkSession ready for Seaway: Kafka registered, sensible defaults, any master."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from seaway.spark.alias import install_kafka_alias, register
from seaway.spark.errors import SparkKafkaError
from seaway.spark.shipping import shipping_settings
from seaway.spark.startup import class_data_sharing, spark_home_without_zip

__all__ = ["JavaMissing", "activate", "cores", "spark_session", "stop_query"]

DEFAULT_MASTER = "local[*]"


class JavaMissing(SparkKafkaError, RuntimeError):
    """Spark needs a Java runtime (17 or newer)."""


def _check_java() -> None:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return
    if shutil.which("java") is None:
        raise JavaMissing(
            "Spark needs Java 17 or newer and none was found: install it (Debian: "
            "apt-get install openjdk-17-jre-headless) or set JAVA_HOME."
        )


def spark_session(
    master: str | None = None,
    app_name: str = "seaway",
    config: Mapping[str, Any] | None = None,
    *,
    records_in_jvm: bool = True,
) -> SparkSession:
    """Get or create a session with the ``seaway-kafka`` source and the ``kafka`` alias.

    ``master`` may be any Spark master (``local[2]``, ``spark://host:7077``, ``yarn``,
    ``k8s://...``); by default it is what ``spark-submit`` set, else ``local[*]``.
    Seaway's own engines (the mirror, Connect) pass ``records_in_jvm=False``: no record
    crosses the driver JVM, whose work is then scheduling, so it runs C1-compiled code
    only (``-XX:TieredStopAtLevel=1``) and C2's compiler threads take no CPU from the copy.
    """
    _check_java()
    launching = "PYSPARK_GATEWAY_PORT" not in os.environ  # else spark-submit started the JVM
    if launching and "SPARK_HOME" not in os.environ:
        home = spark_home_without_zip()
        if home is not None:
            os.environ["SPARK_HOME"] = home
    config = {str(k): str(v) for k, v in (config or {}).items()}
    builder = SparkSession.builder.appName(app_name)
    # Under spark-submit (which starts Python with PYSPARK_GATEWAY_PORT set) the master is
    # already decided, as it is when the config names one; otherwise default to local mode.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ or "spark.master" in config
    chosen = config.get("spark.master")
    if master or not submitted:
        chosen = master or os.environ.get("MASTER", DEFAULT_MASTER)
        if chosen.startswith("local"):
            # Local mode only talks to itself: bind to loopback (and skip Spark's warning).
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = builder.master(chosen)
    # A cluster's Python workers get Seaway and its libraries shipped with the job, and run
    # a Python of this version; the driver host's own workers (data source planners) find
    # the same libraries unpacked.
    shipped, driver_libraries = shipping_settings(chosen, config)
    if driver_libraries is not None and launching:
        paths = [driver_libraries, os.environ.get("PYTHONPATH")]
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        os.environ.setdefault("PYSPARK_PYTHON", shipped["spark.pyspark.python"])
    # Otherwise Python workers run this interpreter (the one with Seaway installed) unless
    # the deployment says otherwise (PYSPARK_PYTHON).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    defaults = {
        "spark.pyspark.python": os.environ["PYSPARK_PYTHON"],
        # Workers fork from a daemon that imported PySpark and Seaway once (seaway.spark.
        # daemon), instead of compiling PySpark from Spark's zip in each of them.
        "spark.python.daemon.module": "seaway.spark.daemon",
        "spark.sql.shuffle.partitions": "8",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
    }
    settings = {**defaults, **config, **shipped}
    if launching:
        jit = "" if records_in_jvm else "-XX:TieredStopAtLevel=1"
        settings["spark.driver.extraJavaOptions"] = " ".join(
            filter(None, [class_data_sharing(), jit, settings.get("spark.driver.extraJavaOptions")])
        )
    for key, value in settings.items():
        builder = builder.config(key, str(value))
    spark = builder.getOrCreate()
    install_kafka_alias()
    register(spark)
    return spark


def activate(spark: Any) -> None:
    """Make *spark* the active session of the calling thread's JVM side. Spark looks Python
    data sources up in the thread's active session, which a thread other than the one that
    built the session does not have (``DATA_SOURCE_NOT_FOUND`` at ``writeStream.start``):
    call this before starting a query from another thread."""
    spark._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)


def cores(spark: Any) -> int | None:
    """How many tasks *spark* runs at once (its default parallelism); None where unknown."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # no SparkContext here (Spark Connect)
        return None


def stop_query(query: Any, timeout: float = 30.0) -> None:
    """Stop a streaming query between micro-batches: wait (up to *timeout* seconds) for the
    running batch to finish and commit, so a stop never cuts a batch in half."""
    import time

    deadline = time.monotonic() + timeout
    while query.isActive and time.monotonic() < deadline:
        status = query.status
        if not status.get("isTriggerActive", False):
            break
        time.sleep(0.05)
    query.stop()
