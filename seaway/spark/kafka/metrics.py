"""Consumer lag of a Kafka source, from Spark's streaming progress.

Spark's JVM Kafka source reports ``minOffsetsBehindLatest``, ``maxOffsetsBehindLatest`` and
``avgOffsetsBehindLatest`` as source metrics. A Python source cannot add source metrics,
but the progress of every batch carries the source's ``latestOffset`` (what the source saw
in Kafka) and ``endOffset`` (where the batch ended), per partition; the lag is their
difference. :func:`offsets_behind_latest` computes the same three figures from a
progress entry, and :class:`KafkaLagListener` keeps them for every running query.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from pyspark.sql.streaming import StreamingQueryListener

log = logging.getLogger(__name__)

__all__ = ["KafkaLagListener", "offsets_behind_latest"]


def _offsets(value: Any) -> dict[tuple[str, str], int]:
    if value is None:
        return {}
    if isinstance(value, str):
        value = json.loads(value)
    return {(t, p): int(o) for t, parts in value.items() for p, o in parts.items()}


def offsets_behind_latest(source: Mapping[str, Any]) -> dict[str, Any] | None:
    """Lag figures of one ``progress["sources"][i]`` entry, as Spark's Kafka source names them.

    Returns None when the source reported no latest offset (not a Kafka source).
    """
    latest = _offsets(source.get("latestOffset"))
    end = _offsets(source.get("endOffset"))
    if not latest:
        return None
    lag = {f"{t}-{p}": max(0, o - end.get((t, p), o)) for (t, p), o in sorted(latest.items())}
    values = list(lag.values())
    return {
        "minOffsetsBehindLatest": min(values),
        "maxOffsetsBehindLatest": max(values),
        "avgOffsetsBehindLatest": sum(values) / len(values),
        "offsetsBehindLatest": lag,
    }


class KafkaLagListener(StreamingQueryListener):
    """Keeps the latest lag of every query's Kafka sources (``spark.streams.addListener``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.lag: dict[str, list[dict[str, Any]]] = {}

    def onQueryStarted(self, event: Any) -> None:
        pass

    def onQueryProgress(self, event: Any) -> None:
        progress = json.loads(event.progress.json)
        figures = [
            f for f in (offsets_behind_latest(s) for s in progress["sources"]) if f is not None
        ]
        if figures:
            with self._lock:
                self.lag[progress["id"]] = figures
            log.info(
                "Query %s: max %d offsets behind latest",
                progress["id"],
                max(f["maxOffsetsBehindLatest"] for f in figures),
            )

    def onQueryIdle(self, event: Any) -> None:
        pass

    def onQueryTerminated(self, event: Any) -> None:
        with self._lock:
            self.lag.pop(str(event.id), None)
