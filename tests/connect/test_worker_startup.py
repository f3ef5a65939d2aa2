"""A worker's REST API answers while its Spark session starts; a Spark that cannot start
stops the worker with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.broker import BrokerThread
from tests.connect.workers import WorkerProcess, distributed_props

pytestmark = pytest.mark.waits


def test_a_spark_that_cannot_start_stops_the_worker_with_the_reason(tmp_path: Path) -> None:
    with BrokerThread(tmp_path / "kafka") as broker:
        props = distributed_props(broker.bootstrap_servers, "nospark", **{
            "spark.master": "nowhere://spark-master:7077"})  # fmt: skip
        worker = WorkerProcess(props, tmp_path / "worker").start()
        try:
            assert worker.rest is not None
            status, info = worker.rest.get("/")  # the REST API answers meanwhile
            assert status == 200 and info["kafka_cluster_id"]
            assert worker.proc is not None
            assert worker.proc.wait(180) == 1
        finally:
            worker.kill()
        log = worker.log.read_text(errors="replace")
        assert "ERROR Stopping due to error: Spark did not start" in log
        assert "nowhere://spark-master:7077" in log
