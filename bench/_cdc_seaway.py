"""Seaway's side of the CDC benchmark: a distributed Connect worker in this process running
Debezium's MariaDB connector, its connectors created, paused, resumed and watched over REST,
and the worker's CPU and resident memory without the broker's and MariaDB's (both are
children of this process too)."""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from confluent_kafka import TopicPartition

from bench._connect_worker import (
    create_connector,
    failed_parts,
    query_summaries,
    rest,
    worker_logging,
    worker_props,
)
from bench._util import PeakRss, process_tree_cpu_seconds, process_tree_rss, progress
from bench._workload import create_topics, end_offset, new_consumer

CLASS: Final = "io.debezium.connector.mariadb.MariaDbConnector"
#: Seconds between looks at the topic's end offset while timing.
TICK_S: Final = 0.1


def connector_config(
    port: int, bootstrap: str, prefix: str, database: str, overrides: dict[str, str]
) -> dict[str, str]:
    """The connector's config: Debezium's defaults but ``snapshot.mode=no_data``."""
    config: dict[str, Any] = {
        "connector.class": CLASS,
        "database.hostname": "127.0.0.1",
        "database.port": port,
        "database.user": "root",
        "database.server.id": random.randint(1000, 2**31),
        "topic.prefix": prefix,
        "database.include.list": database,
        "snapshot.mode": "no_data",
        "schema.history.internal.kafka.bootstrap.servers": bootstrap,
        "schema.history.internal.kafka.topic": f"{prefix}.history",
        **overrides,
    }
    return {key: str(value) for key, value in config.items()}


def data_topic(prefix: str, database: str, table: str) -> str:
    """Debezium's topic of *table*'s changes."""
    return f"{prefix}.{database}.{table}"


def cpu_without(*excluded: int) -> Callable[[], float]:
    """A reader of this process tree's CPU seconds (the worker: driver, Spark JVM, Python
    workers) less the trees of *excluded* (the broker, MariaDB, a helper subprocess)."""
    me = os.getpid()
    return lambda: process_tree_cpu_seconds(me) - sum(map(process_tree_cpu_seconds, excluded))


class WorkerRss(PeakRss):
    """:class:`PeakRss` of this process tree without the trees of *excluded*."""

    def __init__(self, excluded: Sequence[int], interval_s: float = 1.0) -> None:
        self.excluded = list(excluded)
        super().__init__(os.getpid(), interval_s)

    def _run(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            skip: set[int] = set()
            for pid in self.excluded:
                skip.update(process_tree_rss(pid))
            for pid, (command, rss) in process_tree_rss(self.pid).items():
                if pid not in skip:
                    role = self.role(pid, self.pid, command)
                    self.peak[role] = max(self.peak[role], rss)


class CdcWorker:
    """The worker, started in :meth:`__enter__` (its log in ``root/worker.log``)."""

    def __init__(self, args: argparse.Namespace, bootstrap: str, root: Path) -> None:
        self.args = args
        self.bootstrap = bootstrap
        self.root = root
        self.name = f"bench-cdc-{random.getrandbits(24):06x}"
        self.props = worker_props(args, bootstrap, self.name, root)
        self.connect: Any = None
        self.url = ""
        self.problems: list[tuple[str, str, str]] = []
        self._logging: Any = None

    def __enter__(self) -> CdcWorker:
        from seaway.connect.assembly import distributed_worker

        self._logging = worker_logging(self.root / "worker.log")
        problems = self._logging.__enter__()
        self.problems = problems.records
        started = time.perf_counter()
        self.connect = distributed_worker(self.props)
        self.connect.start()
        if self.connect.herder.worker.warm_up is not None:
            self.connect.herder.worker.warm_up.join(60)
        self.url = self.connect.rest.url
        progress(f"seaway: worker up in {time.perf_counter() - started:.1f} s; REST at {self.url}")
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self.connect is not None:
                self.connect.stop()
        finally:
            self._logging.__exit__(None, None, None)

    def create(self, name: str, config: dict[str, str], topic: str) -> None:
        """Create the connector *name* (its data *topic* first, 1 partition)."""
        create_topics(self.bootstrap, [topic], 1)
        create_connector(self.url, name, config)

    def check(self, name: str) -> None:
        """Raise if the connector or its task failed."""
        if failures := failed_parts(self.url, [name]):
            raise RuntimeError("; ".join(failures))

    def _states(self, name: str) -> list[str]:
        status, body = rest(self.url, "GET", f"/connectors/{name}/status")
        if status != 200 or not isinstance(body, dict):
            return []
        tasks = [str(t.get("state")) for t in body.get("tasks") or []]
        return [str((body.get("connector") or {}).get("state")), *tasks]

    def pause(self, name: str, timeout_s: float = 120.0) -> None:
        """Pause *name* and wait until it and its task say PAUSED (the query has stopped)."""
        status, body = rest(self.url, "PUT", f"/connectors/{name}/pause")
        if status not in (200, 202):
            raise RuntimeError(f"PUT pause -> {status} {body}")
        deadline = time.monotonic() + timeout_s
        while (states := self._states(name)) != ["PAUSED"] * max(2, len(states)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} not paused after {timeout_s:.0f} s: {states}")
            time.sleep(0.2)

    def resume(self, name: str) -> None:
        """Resume *name* (returns at once)."""
        status, body = rest(self.url, "PUT", f"/connectors/{name}/resume")
        if status not in (200, 202):
            raise RuntimeError(f"PUT resume -> {status} {body}")

    def delete(self, name: str) -> None:
        """Delete *name*."""
        rest(self.url, "DELETE", f"/connectors/{name}")

    def batch_phases(self, name: str) -> dict[str, Any]:
        """The mean ``durationMs`` phases of connector *name*'s recent micro-batches that
        carried records (Spark keeps the last 100), and how many batches its query ran (a
        diagnostic: reads the worker's SparkSession, never fails the run)."""
        try:
            for query in self.connect.herder.worker.spark.streams.active:
                if str(query.name) != f"connect-source-{name}":
                    continue
                recent = [p for p in query.recentProgress if p.numInputRows]
                phases: dict[str, float] = {}
                for p in recent:
                    for phase, ms in dict(p.durationMs).items():
                        phases[phase] = phases.get(phase, 0) + ms / len(recent)
                last = query.lastProgress
                ordered = sorted(phases.items(), key=lambda kv: -kv[1])
                return {
                    "batches": (last.batchId + 1) if last is not None else 0,
                    "mean_ms": {phase: round(ms) for phase, ms in ordered},
                }
        except Exception as exc:  # diagnostics only
            progress(f"seaway: could not read the query's progress: {exc}")
        return {}

    def summaries(self) -> list[str]:
        """The active queries' progress, one line each (a diagnostic)."""
        return [summary.describe() for summary in query_summaries(self.connect)]


def wait_for_records(
    bootstrap: str,
    topic: str,
    target: int,
    started: float,
    check: Callable[[], None],
    stall_timeout_s: float,
    label: str,
) -> tuple[float, float | None]:
    """Watch *topic*'s end offset until it reaches *target*; ``(seconds to target, seconds to
    its first growth)`` from *started* (``time.perf_counter()``). *check* runs every few
    seconds (it raises on a failed connector)."""
    consumer = new_consumer(bootstrap)
    try:
        base = end_offset(consumer, topic)
        first: float | None = None
        last, last_change, last_report = base, time.perf_counter(), time.perf_counter()
        while True:
            offset = end_offset(consumer, topic)
            now = time.perf_counter()
            if offset > base and first is None:
                first = now - started
            if offset >= target:
                return now - started, first
            if offset != last:
                last, last_change = offset, now
            elif now - last_change > stall_timeout_s:
                raise TimeoutError(f"{label}: {topic} stalled at {offset:,}/{target:,} records")
            if now - last_report >= 5:
                last_report = now
                rate = (offset - base) / max(1e-9, now - started)
                progress(f"{label}: {offset:,}/{target:,} records ({rate:,.0f}/s)")
                check()
            time.sleep(TICK_S)
    finally:
        consumer.close()


def until_streaming(
    worker: CdcWorker, name: str, db: Any, database: str, topic: str, timeout_s: float
) -> float:
    """Insert sentinel rows (ids -1, -2, ...) every 2 s until one reaches *topic* (the
    connector's snapshot is done and it streams the binlog), then one more and wait for it,
    so that no sentinel arrives later; the seconds that took."""
    started = time.perf_counter()
    consumer = new_consumer(worker.bootstrap)
    sentinel = 0

    def insert() -> int:
        nonlocal sentinel
        sentinel -= 1
        with db.connect(database) as connection, connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO customers VALUES ({sentinel}, 's@example.org', 0, NULL)")
        return sentinel

    def last_key() -> int | None:
        end = end_offset(consumer, topic)
        if not end:
            return None
        consumer.assign([TopicPartition(topic, 0, end - 1)])
        message = consumer.poll(5)
        consumer.unassign()
        key = None if message is None or message.error() is not None else message.key()
        return None if key is None else int(json.loads(key)["payload"]["id"])

    try:
        base = end_offset(consumer, topic)
        while end_offset(consumer, topic) == base:
            if time.perf_counter() - started > timeout_s:
                raise TimeoutError(f"{name} streamed nothing to {topic} in {timeout_s:.0f} s")
            worker.check(name)
            insert()
            time.sleep(2)
        marker = insert()
        while last_key() != marker:
            if time.perf_counter() - started > timeout_s:
                raise TimeoutError(f"{name}: sentinel {marker} not in {topic}")
            time.sleep(0.2)
        return time.perf_counter() - started
    finally:
        consumer.close()


def topic_end(bootstrap: str, topic: str) -> int:
    """*topic*'s end offset (partition 0)."""
    consumer = new_consumer(bootstrap)
    try:
        return end_offset(consumer, topic)
    finally:
        consumer.close()
