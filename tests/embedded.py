"""Isolated embedded clusters for tests, after Kafka's EmbeddedKafkaCluster and
EmbeddedConnectCluster: a test that builds one gets brokers and worker processes of its
own, so it never sees what another test left behind (topics, groups, connectors, offsets).

``EmbeddedConnectCluster`` is a broker of its own plus distributed Connect workers in one
group, each a real ``seaway connect-distributed`` process driving its own Spark application.
The fixtures ``kafka_cluster`` and ``connect_cluster`` (tests/conftest.py) build them and
stop them when the test ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Self

from seaway.broker import BrokerThread
from tests.connect.workers import Rest, WorkerProcess, distributed_props

# Small delays keep group tests fast. The test brokers never check time retention on their
# own: many tests write records stamped years ago (fixed timestamps), which the default
# retention.ms (7 days) deletes whenever the 5-minute check happens to run mid-test, as
# Kafka's would (a topic's earliest offset jumped to its end). Tests of retention start a
# broker with their own check interval. Everything else is the broker's defaults.
NO_RETENTION_CHECK = {"log.retention.check.interval.ms": 86_400_000}  # a day
BROKER_CONFIG = {
    "group.initial.rebalance.delay.ms": 200,
    "num.partitions": 3,
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 500,
    **NO_RETENTION_CHECK,
}


def embedded_kafka(folder: Path, config: Mapping[str, Any] | None = None) -> BrokerThread:
    """A started in-process broker on a free port, its log under *folder*."""
    return BrokerThread(folder, config={**BROKER_CONFIG, **(config or {})}).start()


class EmbeddedConnectCluster:
    """A broker and *workers* Connect worker processes in the group ``connect-<name>``.

    *props* are every worker's extra properties; *per_worker* (one mapping per worker) adds
    to them worker by worker (e.g. a different keystore each). Workers start together.
    """

    def __init__(
        self,
        folder: Path,
        workers: int = 1,
        *,
        name: str = "connect",
        env: Mapping[str, str] | None = None,
        per_worker: Sequence[Mapping[str, Any]] = (),
        broker_config: Mapping[str, Any] | None = None,
        **props: Any,
    ) -> None:
        self.folder = folder
        self.kafka = embedded_kafka(folder / "kafka", broker_config)
        common = distributed_props(self.kafka.bootstrap_servers, name, **props)
        extra = list(per_worker) or [{}] * workers
        assert len(extra) == workers, "per_worker needs one mapping per worker"
        self.workers = [
            WorkerProcess({**common, **more}, folder / f"worker{i}", env=env)
            for i, more in enumerate(extra)
        ]

    @property
    def bootstrap(self) -> str:
        return self.kafka.bootstrap_servers

    @property
    def rest(self) -> Rest:
        """The first worker's REST API (any worker answers for the cluster)."""
        rest = self.workers[0].rest
        assert rest is not None, "the cluster has not started"
        return rest

    def start(self) -> Self:
        """Start every worker at once; return when all of them serve their REST API."""
        self._each(WorkerProcess.start)
        return self

    def stop(self) -> None:
        """Stop the workers together (SIGTERM, SIGKILL after 30 s), then the broker."""
        self._each(lambda w: w.stop(timeout=30), started_only=True)
        self.kafka.stop()

    def _each(self, action: Callable[[WorkerProcess], Any], started_only: bool = False) -> None:
        workers = [w for w in self.workers if w.proc is not None or not started_only]
        with ThreadPoolExecutor(max(1, len(workers))) as pool:
            list(pool.map(action, workers))

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
