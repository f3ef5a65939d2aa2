"""What a worker's ``GET /api/history`` keeps: an hour of its connectors' throughput and
task counts, sampled every 5 s from the herder's own ``/metrics`` text
(:class:`~seaway.metrics_history.MetricsHistory`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from seaway.metrics_history import MetricsHistory, Track, text_source

__all__ = ["HISTORY_TRACKS", "worker_history"]

_CONNECTOR: Final = ("connector",)

HISTORY_TRACKS: Final = (
    # records/s per connector: a source's written to Kafka, a sink's read from it
    Track("records_per_s", "kafka_connect_source_task_source_record_write_total", "rate",
          by=_CONNECTOR),
    Track("records_per_s", "kafka_connect_sink_task_sink_record_read_total", "rate",
          by=_CONNECTOR),
    Track("running_tasks", "kafka_connect_worker_connector_running_task_count", by=_CONNECTOR),
    Track("failed_tasks", "kafka_connect_worker_connector_failed_task_count", by=_CONNECTOR),
)  # fmt: skip


def worker_history(exposition: Callable[[], bytes | str]) -> MetricsHistory:
    """The history of a worker's metrics, read from *exposition* (its Prometheus text; not
    sampling until started)."""
    return MetricsHistory(text_source(exposition), HISTORY_TRACKS, name="seaway-connect-history")
