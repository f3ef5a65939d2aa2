"""What a task counts while it runs one batch on an executor, sent back to its worker.

Tasks run in Spark tasks, far from the worker that serves ``/metrics``. Each task counts
its batch in a :class:`TaskMetrics` and puts it, as JSON, on the summary row Spark sees; the
query observes those values (``observe()``) and the worker adds them up per task into
Kafka Connect's ``source-task-metrics``, ``sink-task-metrics`` and ``task-error-metrics``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["TaskMetrics"]


@dataclass
class TaskMetrics:
    """One task's counts over one batch."""

    task: int = 0
    records_in: int = 0  # source: polled from the task; sink: read from Kafka
    records_out: int = 0  # source: written to Kafka; sink: passed to put()
    batch_ms: float = 0.0  # source: reading and writing the batch; sink: the longest put()
    partitions: int = 0  # sink: topic-partitions the task was given
    record_failures: int = 0  # failed attempts (a retried operation counts each)
    record_errors: int = 0  # records that ended in an error
    records_skipped: int = 0  # dropped under errors.tolerance=all
    retries: int = 0
    errors_logged: int = 0
    dlq_requests: int = 0
    dlq_failures: int = 0
    last_error_ms: int = 0  # epoch ms of the last error, 0 when none

    def failed(self) -> None:
        """A processing attempt failed."""
        self.record_failures += 1
        self.last_error_ms = int(time.time() * 1000)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> TaskMetrics:
        raw: dict[str, Any] = json.loads(text)
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in names})
