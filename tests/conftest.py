"""Fixtures shared by the whole suite: one embedded broker per test run (per xdist worker),
clusters A and B per test module, and isolated clusters built per test (tests/embedded.py)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from seaway.broker import BrokerThread
from tests.embedded import (
    BROKER_CONFIG,
    NO_RETENTION_CHECK,
    EmbeddedConnectCluster,
    embedded_kafka,
)

# How `make test` spreads the suite over its two xdist workers. Light tests (no Spark, no
# worker processes) are units of their own, on either worker. The engines (Spark, Connect
# workers, mirrors, databases) run one after the other as one unit: together they keep the
# two cores ~70% busy, and a second engine beside them stretches both (measured: the Connect
# tests took 30-120% longer, the run no shorter). So the engines start with the modules marked
# `waits` (they mostly wait on brokers and polls: 20-50% of the two cores), which overlap the
# light tests on the other worker at little cost. The Spark standalone cluster tests (~4.5
# minutes alone) are a unit of their own, queued second: the other worker runs them first,
# beside those waiting engine tests, then the light tests. Measured on this 2-core machine:
# the suite took 23:23 and 24:15 so, 26:49 with the cluster tests last in the engines unit.
# (xdist's own loadgroup cannot do this under pytest 9.2: it renames node ids through an
# attribute pytest no longer reads.)
_LIGHT_DIRS = ("unit", "broker", "kafka", "cli_admin")
_CLUSTER_DIR = "tests/cluster/"


def _engine_order(item: pytest.Item) -> int:
    if item.get_closest_marker("waits") is not None:
        return 0
    return 1 if item.nodeid.startswith(_CLUSTER_DIR) else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_engine_order)  # stable: within each part, the collection's order


def pytest_sessionstart(session: pytest.Session) -> None:
    """Record the Spark driver's class data sharing archive before any test starts a JVM
    (``make`` records it on install: then this does nothing). Without it every JVM of the
    run would start as Spark does, until a background recording finished."""
    if not hasattr(session.config, "workerinput"):  # once, in xdist's controller
        from seaway.spark.prepare import prepare

        prepare()


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    from xdist.scheduler import LoadScopeScheduling

    class EnginesApart(LoadScopeScheduling):
        """Each light test its own unit; the cluster tests one unit; every other test in
        one unit, "engines"."""

        def _split_scope(self, nodeid: str) -> str:
            parts = nodeid.split("::", 1)[0].split("/")
            if len(parts) > 2 and parts[1] in _LIGHT_DIRS:
                return nodeid
            return "cluster" if nodeid.startswith(_CLUSTER_DIR) else "engines"

    # Units queued in the collection's order (pytest_collection_modifyitems), not by size.
    config.option.loadscopereorder = False
    return EnginesApart(config, log)


@pytest.fixture(autouse=True, scope="module")
def _no_pooled_client_outlives_its_module() -> Iterator[None]:
    """Close the process's shared clients (seaway.kafka.pool) after each module, whose
    brokers stop with it: a pooled client of a stopped broker would go on reconnecting."""
    yield
    from seaway.kafka import pool

    pool.close_all()


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    """The shared in-process broker, listening on a free port."""
    with BrokerThread(tmp_path_factory.mktemp("broker"), config=BROKER_CONFIG) as b:
        yield b


@pytest.fixture
def bootstrap(broker: BrokerThread) -> str:
    return broker.bootstrap_servers


# Two more brokers as clusters A and B, for the mirror and the Spark cluster tests: new ones
# for each test module, so a module never sees the topics and groups another one left.
CLUSTER_CONFIG = {
    "group.initial.rebalance.delay.ms": 200,
    "num.partitions": 3,
    **NO_RETENTION_CHECK,
}


@pytest.fixture(scope="module")
def cluster_a(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("cluster-a"), config=CLUSTER_CONFIG) as b:
        yield b


@pytest.fixture(scope="module")
def cluster_b(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("cluster-b"), config=CLUSTER_CONFIG) as b:
        yield b


@pytest.fixture
def kafka_cluster(tmp_path: Path) -> Iterator[Callable[..., BrokerThread]]:
    """Builds brokers of this test's own (``kafka_cluster(config)``), stopped at its end."""
    made: list[BrokerThread] = []

    def build(config: dict[str, Any] | None = None) -> BrokerThread:
        made.append(embedded_kafka(tmp_path / f"kafka{len(made)}", config))
        return made[-1]

    yield build
    for broker in reversed(made):
        broker.stop()


_CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Remember on the item whether its test body failed, for fixtures' teardown."""
    report = yield
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed
    return report


@pytest.fixture
def connect_cluster(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., EmbeddedConnectCluster]]:
    """Builds and starts Connect clusters of this test's own (``connect_cluster(workers=3,
    **worker_props)``: tests/embedded.py), stopped at its end; when the test failed, each
    worker's log tail is printed (pytest shows it with the failure)."""
    made: list[EmbeddedConnectCluster] = []

    def build(workers: int = 1, **options: Any) -> EmbeddedConnectCluster:
        made.append(EmbeddedConnectCluster(tmp_path / f"connect{len(made)}", workers, **options))
        return made[-1].start()

    yield build
    if request.node.stash.get(_CALL_FAILED, False):
        for cluster in made:
            for i, worker in enumerate(cluster.workers):
                print(f"--- {cluster.folder.name} worker {i} ({worker.log}):\n{worker.tail(80)}")
    for cluster in reversed(made):
        cluster.stop()


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
