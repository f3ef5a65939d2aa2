"""Fixtures shared by the whole suite: one embedded broker per test run (per xdist worker)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seaway.broker import BrokerThread

# Small delays keep group tests fast; everything else is the broker's defaults.
BROKER_CONFIG = {
    "group.initial.rebalance.delay.ms": 200,
    "num.partitions": 3,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
}


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    """The shared in-process broker, listening on a free port."""
    with BrokerThread(tmp_path_factory.mktemp("broker"), config=BROKER_CONFIG) as b:
        yield b


@pytest.fixture
def bootstrap(broker: BrokerThread) -> str:
    return broker.bootstrap_servers


# Two more brokers as clusters A and B, for the mirror and the Spark cluster tests.
CLUSTER_CONFIG = {"group.initial.rebalance.delay.ms": 200, "num.partitions": 3}


@pytest.fixture(scope="session")
def cluster_a(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("cluster-a"), config=CLUSTER_CONFIG) as b:
        yield b


@pytest.fixture(scope="session")
def cluster_b(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("cluster-b"), config=CLUSTER_CONFIG) as b:
        yield b


def registry_props(bootstrap: str, topic: str) -> dict[str, str]:
    """A schema registry's properties: a free port, its schemas in *topic* of *bootstrap*."""
    return {
        "listeners": "http://127.0.0.1:0",
        "kafkastore.bootstrap.servers": f"PLAINTEXT://{bootstrap}",
        "kafkastore.topic": topic,
        "kafkastore.topic.replication.factor": "1",
    }


@pytest.fixture
def registry(bootstrap: str, topic_name: str) -> Iterator[Any]:
    """A schema registry served over HTTP, its schemas in a topic of the test broker."""
    from seaway.registry.server import RegistryServer

    with RegistryServer(registry_props(bootstrap, f"{topic_name}-schemas")) as server:
        yield server


@pytest.fixture(scope="session")
def mariadb() -> Iterator[Any]:
    """A MariaDB server of this test run (Debian's mariadb-server), root without a password."""
    from tests.databases import MariaDbServer

    with MariaDbServer() as server:
        yield server


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A PostgreSQL server of this test run (Debian's postgresql), trust on loopback."""
    from tests.databases import PostgresServer

    with PostgresServer() as server:
        yield server


@pytest.fixture
def topic_name(request: pytest.FixtureRequest) -> str:
    """A topic name unique to this test."""
    base = re.sub(r"[^a-zA-Z0-9._-]", "-", request.node.name)[:80]
    return f"{base}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One SparkSession (local[2]) for the whole run, with Seaway's data sources registered."""
    from seaway.spark import spark_session

    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    session = spark_session(
        "local[2]",
        app_name="seaway-tests",
        config={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.warehouse.dir": str(warehouse),
            "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
