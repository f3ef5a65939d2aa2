"""A Seaway Connect worker in this process, driven over its REST API, as the Connect
benchmarks run it: its properties, connectors created and checked for failures, the worker's
log kept aside, and its queries' progress summed up."""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._util import progress

CONVERTERS = {
    "string": "org.apache.kafka.connect.storage.StringConverter",
    "json": "org.apache.kafka.connect.json.JsonConverter",
}

REST_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class QuerySummary:
    """A connector query's micro-batches that read rows (from its recent progress)."""

    name: str
    batches: int
    rows: int
    first_batch_rows: int
    #: ``durationMs.triggerExecution`` of the first batch with rows, and of the rest summed.
    first_batch_seconds: float
    other_batches_seconds: float
    #: The first batch's ``durationMs`` phases that took 100 ms or more, in seconds.
    first_batch_phases: dict[str, float]

    def describe(self) -> str:
        """One line for the report."""
        phases = ", ".join(f"{k} {v:.1f}" for k, v in self.first_batch_phases.items())
        head = (
            f"{self.name}: {self.rows:,} rows in {self.batches} batch(es); the first "
            f"({self.first_batch_rows:,} rows) took {self.first_batch_seconds:.1f} s ({phases})"
        )
        if self.batches == 1 or self.other_batches_seconds <= 0:
            return head
        rate = (self.rows - self.first_batch_rows) / self.other_batches_seconds
        return (
            f"{head}, the other {self.batches - 1} {self.other_batches_seconds:.1f} s "
            f"({rate:,.0f} rows/s)"
        )


def query_summaries(connect: Any) -> list[QuerySummary]:
    """Sum up the worker's active connector queries' progress (a diagnostic; reads the
    worker's SparkSession, so it depends on Seaway internals and never fails the run)."""
    summaries = []
    try:
        queries = connect.herder.worker.spark.streams.active
        for query in queries:
            batches = [p for p in query.recentProgress if p.numInputRows]
            if not batches:
                continue
            first = dict(batches[0].durationMs)
            summaries.append(
                QuerySummary(
                    name=str(query.name),
                    batches=len(batches),
                    rows=sum(p.numInputRows for p in batches),
                    first_batch_rows=batches[0].numInputRows,
                    first_batch_seconds=first.get("triggerExecution", 0) / 1000,
                    other_batches_seconds=sum(
                        p.durationMs.get("triggerExecution", 0) for p in batches[1:]
                    )
                    / 1000,
                    first_batch_phases={
                        k: v / 1000
                        for k, v in sorted(first.items(), key=lambda kv: -kv[1])
                        if v >= 100 and k != "triggerExecution"
                    },
                )
            )
    except Exception as exc:  # diagnostics only
        progress(f"seaway: could not read the queries' progress: {type(exc).__name__}: {exc}")
    return summaries


class ProblemLog(logging.Handler):
    """Keeps worker log records at WARNING and above."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[tuple[str, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not break the benchmark
            message = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            message += f" [{type(record.exc_info[1]).__name__}: {record.exc_info[1]}]"
        self.records.append((record.levelname, record.name, message))


@contextmanager
def worker_logging(path: Path) -> Iterator[ProblemLog]:
    """Python logging to ``path`` (INFO and up) while the worker runs; problems kept aside."""
    root = logging.getLogger()
    file_handler = logging.FileHandler(path, encoding="utf-8")
    file_handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s")
    )
    problems = ProblemLog()
    old_level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(file_handler)
    root.addHandler(problems)
    try:
        yield problems
    finally:
        root.removeHandler(problems)
        root.removeHandler(file_handler)
        root.setLevel(old_level)
        file_handler.close()


def worker_props(args: argparse.Namespace, bootstrap: str, name: str, root: Path) -> dict[str, str]:
    """The distributed worker's properties (internal topics unique to ``name``)."""
    converter = CONVERTERS[args.converter]
    props: dict[str, Any] = {
        "bootstrap.servers": bootstrap,
        "group.id": f"connect-{name}",
        "config.storage.topic": f"{name}-configs",
        "offset.storage.topic": f"{name}-offsets",
        "status.storage.topic": f"{name}-status",
        "config.storage.replication.factor": 1,
        "offset.storage.replication.factor": 1,
        "status.storage.replication.factor": 1,
        "offset.storage.partitions": 3,
        "status.storage.partitions": 1,
        "key.converter": converter,
        "value.converter": converter,
        "offset.flush.interval.ms": 10_000,
        "listeners": "http://127.0.0.1:0",
        "spark.master": args.master,
        "spark.ui.enabled": "false",
        "spark.checkpoint.dir": str(root / "checkpoints"),
        "spark.local.dir": str(root / "spark-local"),
        "spark.sql.warehouse.dir": str(root / "spark-warehouse"),
        **args.worker_overrides,
    }
    return {key: str(value) for key, value in props.items()}


def rest(url: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One REST call: JSON in, ``(status, parsed body)`` out (HTTP errors included)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=REST_TIMEOUT_S) as response:
            payload, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        payload, status = error.read(), error.code
    return status, json.loads(payload) if payload else None


def create_connector(url: str, name: str, config: dict[str, str]) -> None:
    """POST a connector; retry while the worker answers 409 (rebalance in progress)."""
    deadline = time.monotonic() + REST_TIMEOUT_S
    while True:
        status, body = rest(url, "POST", "/connectors", {"name": name, "config": config})
        if status == 201:
            return
        if status != 409 or time.monotonic() > deadline:
            raise RuntimeError(f"POST /connectors {name} -> {status} {body}")
        time.sleep(0.2)


def failed_parts(url: str, names: Sequence[str]) -> list[str]:
    """Connectors or tasks reported FAILED, with the first lines of their traces."""
    failures = []
    for name in names:
        status, body = rest(url, "GET", f"/connectors/{name}/status")
        if status != 200 or not isinstance(body, dict):
            continue
        parts = [("connector", body.get("connector") or {})]
        parts += [(f"task {t.get('id')}", t) for t in body.get("tasks") or []]
        for label, part in parts:
            if part.get("state") == "FAILED":
                failures.append(f"{name} {label} FAILED: {trace_summary(part.get('trace'))}")
    return failures


def trace_summary(trace: Any, limit: int = 3) -> str:
    """The first line of a status trace and its last few ``...Error:``/``Exception:`` lines."""
    lines = [line.strip() for line in str(trace or "").splitlines() if line.strip()]
    if not lines:
        return "(no trace)"
    causes = [line for line in lines[1:] if re.search(r"(Error|Exception)\b.*:", line)]
    return " | ".join(dict.fromkeys([lines[0], *causes[-limit:]]))
