"""The broker's admin HTTP server (``admin.listener``, off unless set): its metrics for
Prometheus and the history the web console plots.

``GET /metrics``  Prometheus' text format (:mod:`seaway.broker.metrics`);
``GET /api/history``  the :class:`~seaway.metrics_history.MetricsHistory` of
:data:`~seaway.broker.metrics.HISTORY_TRACKS` and the groups' lag as JSON
(``?name=bytes_in_per_s&name=...`` picks series, ``?since=<epoch s>`` later points only);
``GET /ui/``  the web console (:mod:`seaway.broker.console_views`).

Starlette on uvicorn from a daemon thread (:class:`seaway.asgi.AsgiServer`), as the mirror's
metrics endpoint. Endpoints are added to ``routes`` in :func:`create_app`: the web console
mounts there.
"""

from __future__ import annotations

from itertools import chain
from typing import Self

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from seaway.asgi import AsgiServer
from seaway.broker.console_views import LAG_TRACK, broker_console, lag_source
from seaway.broker.metrics import CONTENT_TYPE, HISTORY_TRACKS, BrokerMetrics
from seaway.console import console_routes, history_route
from seaway.metrics_history import MetricsHistory

__all__ = ["AdminServer", "create_app"]


def create_app(metrics: BrokerMetrics, history: MetricsHistory) -> Starlette:
    """The admin API over a broker's *metrics* and their *history*."""

    # Plain functions: Starlette runs them on its thread pool, as a scrape waits for the
    # broker's event loop to copy its state.
    def prometheus(request: Request) -> Response:
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)

    routes: list[BaseRoute] = [
        Route("/metrics", prometheus),
        history_route(history),
        *console_routes(broker_console(metrics, history)),  # the web console at /ui
    ]
    return Starlette(routes=routes)


class AdminServer(AsgiServer):
    """Serves the admin API of a broker's *metrics* on *host*:*port* (0: a free port) and
    samples their history every *interval_s* seconds while it runs."""

    def __init__(
        self, metrics: BrokerMetrics, host: str, port: int, *, interval_s: float = 5.0
    ) -> None:
        self.history = MetricsHistory(
            lambda: chain(metrics.registry.collect(), lag_source(metrics)),
            (*HISTORY_TRACKS, LAG_TRACK), interval_s=interval_s, name="seaway-broker-history",
        )  # fmt: skip
        super().__init__(
            create_app(metrics, self.history), (host, port), name="seaway-admin",
            background=(self.history,),
        )  # fmt: skip

    def start(self, timeout_s: float = 30.0) -> Self:
        try:
            super().start(timeout_s)
        except OSError as error:
            raise RuntimeError(
                f"Cannot serve the admin API on {self.host}:{self.port} ({error}): set "
                "admin.listener to a free address, e.g. http://127.0.0.1:0"
            ) from error
        return self
