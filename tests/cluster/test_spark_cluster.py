"""Seaway on a real Spark standalone cluster: tasks in executors whose Python has no Seaway
installed (it is shipped with the job), a mirror flow and a Connect source connector side
by side, and a Spark worker killed with -9 mid-stream."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from seaway.spark.shipping import ALIAS
from seaway.spark.standalone import StandaloneCluster
from tests.broker.clients import create_topic, produce
from tests.cluster.helpers import committed_count, committed_values
from tests.connect.test_mirror_connectors import ONE_BROKER
from tests.connect.workers import WorkerProcess, distributed_props, wait_for
from tests.soak import SOAK

ROOT = Path(__file__).resolve().parents[2]

# A cold first run builds the archive of Seaway's libraries and starts every JVM.
pytestmark = pytest.mark.timeout(900)


def test_kafka_read_and_exactly_once_copy_run_in_executors_with_seaway_shipped(
    spark_cluster: StandaloneCluster, cluster_a: Any, driver_env: dict[str, str], tmp_path: Path
) -> None:
    bootstrap = cluster_a.bootstrap_servers
    create_topic(bootstrap, "cluster-src", partitions=4)
    create_topic(bootstrap, "cluster-dst", partitions=4)
    produce(bootstrap, "cluster-src", [(b"k%d" % i, b"v%d" % i) for i in range(5_000)])
    done = subprocess.run(
        [sys.executable, "-m", "tests.cluster.kafka_job", spark_cluster.url, bootstrap,
         "cluster-src", "cluster-dst", str(tmp_path / "checkpoint"), str(tmp_path / "result")],
        cwd=ROOT, env=driver_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads((tmp_path / "result").read_text())
    assert result["read"] == 5_000
    tasks = result["tasks"]
    assert tasks.pop("driver") == 0 and set(tasks) <= {"0", "1"} and sum(tasks.values()) > 0
    for executable, seaway_file in result["workers"]:
        assert executable != sys.executable, "the executors ran the driver's interpreter"
        assert f"/{ALIAS}/seaway/" in seaway_file, seaway_file  # unpacked from the archive
    copied = committed_values(bootstrap, "cluster-dst", partitions=4)
    assert sorted(copied) == sorted(b"v%d" % i for i in range(5_000))  # each exactly once


def test_a_users_own_session_after_import_seaway_spark_ships_seaway_to_executors(
    spark_cluster: StandaloneCluster, cluster_a: Any, driver_env: dict[str, str], tmp_path: Path
) -> None:
    bootstrap = cluster_a.bootstrap_servers
    create_topic(bootstrap, "user-src", partitions=2)
    produce(bootstrap, "user-src", [(b"k%d" % i, b"v%d" % i) for i in range(100)])
    done = subprocess.run(
        [sys.executable, "-m", "tests.cluster.user_job", spark_cluster.url, bootstrap,
         "user-src", str(tmp_path / "result")],
        cwd=ROOT, env=driver_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads((tmp_path / "result").read_text())
    assert result["read"] == 100
    assert all(f"/{ALIAS}/seaway/" in file for file in result["seaway"]), result


def test_a_users_job_reads_and_writes_connectors_in_executors(
    spark_cluster: StandaloneCluster,
    mariadb: Any,
    postgres: Any,
    driver_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """``format("connect")`` on the cluster: the JDBC source's typed rows and the JDBC sink
    run in executors that had Seaway shipped; the FileStream source, bound to one host, is
    refused before it runs."""
    source_db, target_db = f"cluster_src_{tmp_path.name[-6:]}", f"cluster_dst_{tmp_path.name[-6:]}"
    with mariadb.connect() as connection, connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {source_db}")
        cursor.execute(f"CREATE TABLE {source_db}.parts (id INT PRIMARY KEY, name VARCHAR(20))")
        cursor.executemany(f"INSERT INTO {source_db}.parts VALUES (%s, %s)",
                           [(i, f"part {i}") for i in range(1, 401)])  # fmt: skip
        connection.commit()
    postgres.create_database(target_db)
    done = subprocess.run(
        [sys.executable, "-m", "tests.cluster.connect_format_job", spark_cluster.url,
         f"jdbc:mysql://127.0.0.1:{mariadb.port}/{source_db}?user=root",
         postgres.url(target_db), str(tmp_path / "result")],
        cwd=ROOT, env=driver_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads((tmp_path / "result").read_text())
    assert (result["read"], result["ids"]) == (400, sum(range(1, 401)))
    assert all(f"/{ALIAS}/seaway/" in file for file in result["seaway"]), result
    refused = result["file_source_refused"]
    assert "FileStreamSourceConnector cannot run on this worker" in refused, refused
    assert f"spark.master={spark_cluster.url}" in refused
    with postgres.connect(target_db) as connection:
        copied = connection.execute("SELECT count(*), sum(id) FROM parts").fetchone()
    assert tuple(copied) == (400, sum(range(1, 401)))


@pytest.mark.slow
def test_a_spark_worker_killed_mid_stream_loses_and_duplicates_nothing(
    spark_cluster: StandaloneCluster, cluster_a: Any, driver_env: dict[str, str], tmp_path: Path
) -> None:
    bootstrap = cluster_a.bootstrap_servers
    create_topic(bootstrap, "kill-src", partitions=4)
    create_topic(bootstrap, "kill-dst", partitions=4)

    def batch(start: int) -> None:
        produce(bootstrap, "kill-src", [(None, b"r%d" % i) for i in range(start, start + 3_000)])

    batch(0)
    log = (tmp_path / "driver.log").open("wb")
    driver = subprocess.Popen(
        [sys.executable, "-m", "tests.spark.eos_job", bootstrap, "kill-src", "kill-dst",
         str(tmp_path / "checkpoint"), "topic", spark_cluster.url],
        cwd=ROOT, env=driver_env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_for("the copy to begin", lambda: committed_count(bootstrap, "kill-dst", 4) >= 400, 240)
        spark_cluster.kill_worker(0)  # with its executor: its tasks go to the other worker
        batch(3_000)
        wait_for("6,000 records", lambda: committed_count(bootstrap, "kill-dst", 4) >= 6_000, 240)
        if SOAK > 1:  # make soak: the worker comes back and the application uses it again
            spark_cluster.start_worker(0)
            wait_for("the application on both workers", lambda: _app_cores(spark_cluster) == 2, 240)
            batch(6_000)
            wait_for("9,000", lambda: committed_count(bootstrap, "kill-dst", 4) >= 9_000, 240)
        assert driver.poll() is None, (tmp_path / "driver.log").read_text()[-3000:]
    finally:
        driver.kill()
        driver.wait(30)
        log.close()
        if spark_cluster.workers[0] is None:  # the next tests use both workers
            spark_cluster.start_worker(0, wait=False)  # they wait for cores as needed
    values = committed_values(bootstrap, "kill-dst", 4)
    assert sorted(values) == sorted(b"r%d" % i for i in range(9_000 if SOAK > 1 else 6_000))


def _app_cores(cluster: StandaloneCluster) -> int:
    apps = [a for a in cluster.state()["activeapps"] if a["name"] == "eos-job"]
    return sum(a["cores"] for a in apps)


def _record_count(bootstrap: str, topic: str) -> int:
    try:
        return committed_count(bootstrap, topic, 2)
    except Exception:  # the remote topic is not there yet
        return 0


def test_mirror_maker_and_connect_run_side_by_side_on_the_cluster(
    spark_cluster: StandaloneCluster,
    cluster_a: Any,
    cluster_b: Any,
    driver_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """Two applications share the cluster, a core each: ``seaway mirror-maker``'s flow, and
    a Connect worker running MirrorSourceConnector (and refusing a file connector)."""
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    create_topic(a, "mm-orders", partitions=2)
    produce(a, "mm-orders", [(b"k%d" % i, b"order %d" % i) for i in range(2_000)])
    create_topic(a, "connect-orders", partitions=2)
    produce(a, "connect-orders", [(None, b"line %d" % i) for i in range(1_000)])
    config = tmp_path / "mm2.properties"
    config.write_text(
        "\n".join(
            [
                "clusters = A, B",
                f"A.bootstrap.servers = {a}",
                f"B.bootstrap.servers = {b}",
                "A->B.enabled = true",
                "A->B.topics = mm-orders",
                "replication.factor = 1",
                "offset-syncs.topic.replication.factor = 1",
                "checkpoints.topic.replication.factor = 1",
                "heartbeats.topic.replication.factor = 1",
                f"spark.master = {spark_cluster.url}",
                "spark.cores.max = 1",
            ]
        )
        + "\n"
    )
    log = (tmp_path / "mirror-maker.log").open("wb")
    mirror = subprocess.Popen(
        [sys.executable, "-m", "seaway", "mirror-maker", str(config)],
        cwd=ROOT, env=driver_env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    props = distributed_props(
        b, "cluster", **{"spark.master": spark_cluster.url, "spark.cores.max": 1}
    )
    try:
        with WorkerProcess(props, tmp_path / "worker", env=driver_env) as worker:
            _connect_mirror(worker, spark_cluster, a, b, tmp_path)
            wait_for(
                "the flow's records on B", lambda: _record_count(b, "A.mm-orders") >= 2_000, 240
            )
            wait_for(
                "the connector's on B", lambda: _record_count(b, "A.connect-orders") >= 1_000, 240
            )
            apps = [app["name"] for app in spark_cluster.state()["activeapps"]]
            # Their tasks ran in the cluster's executors.
            assert "seaway-mirror-maker" in apps and "seaway-connect" in apps, apps
            produce(a, "mm-orders", [(b"k%d" % i, b"order %d" % i) for i in range(2_000, 2_500)])
            wait_for("the next records on B", lambda: _record_count(b, "A.mm-orders") >= 2_500, 240)
    finally:
        mirror.terminate()
        mirror.wait(60)
        log.close()
    values = committed_values(b, "A.mm-orders", 2)
    assert sorted(values) == sorted(b"order %d" % i for i in range(2_500))
    assert "Shipping Seaway to the Python workers" in (tmp_path / "mirror-maker.log").read_text()
    values = committed_values(b, "A.connect-orders", 2)
    assert sorted(values) == sorted(b"line %d" % i for i in range(1_000))


def _connect_mirror(
    worker: WorkerProcess, spark_cluster: StandaloneCluster, a: str, b: str, tmp_path: Path
) -> None:
    """A file connector is refused on a cluster master; MirrorSourceConnector runs."""
    assert worker.rest is not None
    status, body, _ = worker.rest.call(
        "POST",
        "/connectors",
        {"name": "local-file", "config": {"connector.class": "FileStreamSource",
                                          "file": str(tmp_path / "in.txt"), "topic": "t"}},
    )  # fmt: skip
    assert status == 400, body
    assert "FileStreamSourceConnector cannot run on this worker" in body["message"]
    assert f"spark.master={spark_cluster.url}" in body["message"]
    worker.rest.ok(
        "POST",
        "/connectors",
        {
            "name": "mirror-on-cluster",
            "config": {
                "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
                "source.cluster.alias": "A",
                "target.cluster.alias": "B",
                "source.cluster.bootstrap.servers": a,
                "target.cluster.bootstrap.servers": b,
                "topics": "connect-orders",
                **ONE_BROKER,
            },
        },
    )


def test_seaway_spark_cluster_starts_a_cluster_and_stops_it(tmp_path: Path) -> None:
    command = subprocess.Popen(
        [sys.executable, "-m", "seaway", "spark-cluster", "--workers", "1", "--port", "0",
         "--ui-port", "0", "--dir", str(tmp_path)],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert command.stdout is not None
        line = command.stdout.readline()
        assert line.startswith("Spark standalone cluster at spark://127.0.0.1:"), line
        ui = line.split("web UI ", 1)[1].split(";", 1)[0]
        with urllib.request.urlopen(f"{ui}/json/", timeout=10) as response:
            state = json.loads(response.read())
        assert [w["state"] for w in state["workers"]] == ["ALIVE"]
    finally:
        command.terminate()
        assert command.wait(60) == 0
