"""A warmed-up session starts no Python daemon for Seaway's first query: the look-up,
planning and task daemons it needs are already running (a fresh session, in a child
process, so the suite's shared session cannot have warmed them already)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from tests.broker.clients import create_topic, produce

_SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from seaway.spark import spark_session
    from seaway.spark.warmup import warm_up_in_background

    def daemons(pid):
        found = set()
        for child in os.listdir("/proc"):
            if not child.isdigit():
                continue
            try:
                stat = open(f"/proc/{child}/stat").read()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                args = open(f"/proc/{child}/cmdline", "rb").read().split(b"\\0")
            except OSError:
                continue
            if parent == pid and b"-m" in args:
                found.add(" ".join(a.decode() for a in args[args.index(b"-m") + 1:] if a))
        return found

    spark = spark_session("local[2]", config={"spark.ui.enabled": "false"})
    jvm = spark.sparkContext._gateway.proc.pid
    thread = warm_up_in_background(spark, write=sys.argv[4] == "write")
    thread.join(120)
    again = warm_up_in_background(spark)
    warm = daemons(jvm)
    rows = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", sys.argv[1])
        .option("subscribe", sys.argv[2])
        .option("startingOffsets", "earliest")
        .load()
        .count()
    )
    result = {"warm": sorted(warm), "after": sorted(daemons(jvm)), "rows": rows,
              "alive": thread.is_alive(), "again": again is not None}
    with open(sys.argv[3], "w") as out:  # not stdout: the JVM's logs share it
        json.dump(result, out)
    spark.stop()
    """
)


@pytest.mark.parametrize("write", [True, False], ids=["read-and-write", "read-only"])
def test_warm_up_starts_the_daemons_a_first_query_needs(
    bootstrap: str, topic_name: str, tmp_path: Path, write: bool
) -> None:
    """Read-only (the mirror's: its queries end in Spark's ``noop`` sink) starts no daemon
    of a Python writer: a warm-up job left queued while following tasks hold every core
    would otherwise run in the flow's first hand-over."""
    create_topic(bootstrap, topic_name, partitions=2)
    produce(bootstrap, topic_name, [(None, b"v%d" % i) for i in range(100)])
    mode = "write" if write else "read"
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, bootstrap, topic_name, str(tmp_path / "result"), mode],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "result").read_text())
    assert result["rows"] == 100
    assert not result["alive"] and not result["again"]  # finished; once per context
    warm = result["warm"]
    assert any("create_data_source" in d for d in warm), warm
    assert any("plan_data_source_read" in d for d in warm), warm
    writers = [d for d in warm if "write_into_data_source" in d or "commit_data_source" in d]
    assert bool(writers) == write, warm
    assert any(d.startswith("seaway.spark.daemon") for d in warm), warm
    assert result["after"] == warm, "the first query had to start a Python daemon"


def test_the_session_maps_the_class_data_sharing_archive(spark: SparkSession) -> None:
    """The suite's session JVM maps the archive ``make`` (or the suite's start) recorded:
    Spark's classes come from it instead of being loaded and verified from the jars."""
    options = spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
    assert options is not None and "-XX:SharedArchiveFile=" in options, options
    archive = options.split("-XX:SharedArchiveFile=", 1)[1].split()[0]
    jvm = spark.sparkContext._gateway.proc.pid  # type: ignore[union-attr]
    assert archive in Path(f"/proc/{jvm}/maps").read_text(), "the JVM did not map the archive"
