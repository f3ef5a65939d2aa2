"""The driver's metrics endpoint: Prometheus scrapes it, the web console reads it. The
figures are the driver's :class:`~seaway.mirror.metrics.MirrorMetrics`, which the flows fill
from Spark's progress reports (the copy query observes its summaries).

``GET /metrics``  Prometheus' text format (``prometheus_client``), named as the JMX
exporter names MM2's mbeans (lower case: ``kafka_connect_mirror_mirrorsourceconnector_
record_count{source="A",...}``), every attribute a gauge;  ``GET /mbeans``  the mbeans as
JSON (NaN as null);  ``GET /api/history``  an hour of records/s, bytes/s, replication latency
and lag per flow (:data:`HISTORY_TRACKS`, sampled every 5 s; ``?name=``, ``?since=<epoch s>``);
``GET /ui/``  the driver's web
console (:mod:`seaway.mirror.console_views`). Served by Starlette on uvicorn from a daemon
thread.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Final, Self

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.registry import Collector
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from seaway.asgi import AsgiServer
from seaway.console import Console, console_routes, history_route
from seaway.metrics_history import MetricsHistory, Track
from seaway.mirror.metrics import MirrorMetrics

_SOURCE: Final = "kafka_connect_mirror_mirrorsourceconnector_"
_FLOW: Final = ("source", "target")

HISTORY_TRACKS: Final = (
    Track("records_per_s", _SOURCE + "record_count", "rate", by=_FLOW),
    Track("bytes_per_s", _SOURCE + "byte_count", "rate", by=_FLOW),
    Track("replication_latency_ms_max", _SOURCE + "replication_latency_ms_max", by=_FLOW,
          agg="max"),
    Track("replication_lag", _SOURCE + "seaway_replication_lag", by=_FLOW),
)  # fmt: skip
"""Per flow (source and target aliases): records and bytes copied per second, the worst
partition's replication latency over the last window, records not yet copied."""


class MirrorCollector(Collector):
    """A ``prometheus_client`` collector of *registry*'s mbeans: one gauge family per
    attribute, ``<domain>_<type>_<attribute>``, the other key properties as labels."""

    def __init__(self, registry: MirrorMetrics) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        families: dict[str, GaugeMetricFamily] = {}
        for bean in self.registry.mbeans():
            labels = {k: v for k, v in bean.tags if k and v}
            for attribute, value in bean.attributes.items():
                name = re.sub(r"[^a-z0-9_]", "_", f"{bean.domain}_{bean.kind}_{attribute}".lower())
                if name not in families:
                    doc = f"{attribute} of {bean.domain}:type={bean.kind}"
                    families[name] = GaugeMetricFamily(name, doc)
                families[name].add_sample(name, labels, value)
        for name in sorted(families):
            yield families[name]


def exposition(registry: MirrorMetrics) -> bytes:
    """*registry* in Prometheus' text format."""
    return generate_latest(MirrorCollector(registry))


def create_app(
    registry: MirrorMetrics, history: MetricsHistory | None = None, console: Console | None = None
) -> Starlette:
    """The endpoint's ASGI app over *registry* (and its *history*, if kept; the web *console*
    at ``/ui``, if given)."""

    async def metrics(request: Request) -> Response:
        return Response(exposition(registry), media_type=CONTENT_TYPE_PLAIN_0_0_4)

    async def mbeans(request: Request) -> Response:
        snapshot = registry.snapshot()
        return JSONResponse(
            {
                n: {k: v if math.isfinite(v) else None for k, v in a.items()}
                for n, a in snapshot.items()
            }
        )

    routes: list[BaseRoute] = [
        Route("/metrics", metrics),
        Route("/mbeans", mbeans),
    ]
    if history is not None:
        routes.append(history_route(history))
    if console is not None:
        routes.extend(console_routes(console))  # the web console at /ui
    return Starlette(routes=routes)


class MetricsServer(AsgiServer):
    """Serves *registry* (and *console*) over HTTP on *host*:*port* (0: a free port) from a
    daemon thread."""

    def __init__(
        self,
        registry: MirrorMetrics,
        host: str = "127.0.0.1",
        port: int = 0,
        console: Console | None = None,
    ) -> None:
        self.history = MetricsHistory(
            MirrorCollector(registry).collect, HISTORY_TRACKS, name="seaway-mirror-history"
        )
        app = create_app(registry, self.history, console)
        super().__init__(
            app, (host, port), name="seaway-metrics-server", background=(self.history,)
        )
        self.registry = registry

    def start(self, timeout_s: float = 30.0) -> Self:
        try:
            super().start(timeout_s)
        except OSError as error:
            raise OSError(
                f"Cannot serve mirror metrics on {self.host}:{self.port} ({error}); "
                "set seaway.metrics.port to a free port (0 picks one)"
            ) from error
        return self


__all__ = ["HISTORY_TRACKS", "MetricsServer", "MirrorCollector", "create_app", "exposition"]
