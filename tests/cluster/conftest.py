"""A Spark standalone cluster (master + two 1-core workers from the pyspark wheel), shared
by the cluster tests of a run; their brokers are ``cluster_a`` and ``cluster_b``
(tests/conftest.py). Drivers run as their own processes: the suite's shared session is
local, and a process has one SparkContext."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from seaway.spark.standalone import StandaloneCluster


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster(tmp_path_factory.mktemp("spark-cluster"), workers=2, cores=1)
    with cluster:
        yield cluster


@pytest.fixture
def driver_env() -> dict[str, str]:
    """The environment of a driver process: none of the suite's own Spark choices (its
    local session set PYSPARK_PYTHON to this interpreter, which has Seaway installed)."""
    dropped = {"PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH"}
    return {k: v for k, v in os.environ.items() if k not in dropped}
