"""Kafka Connect's REST API as a Starlette app over a :class:`Herder`.

Paths, JSON fields, status codes and error messages follow Kafka's ``RootResource``,
``ConnectorsResource``, ``ConnectorPluginsResource``, ``LoggingResource`` and
``ConnectExceptionMapper`` (Jersey + Jackson), including their quirks:

* every error is ``{"error_code": <int>, "message": <str>}``: unknown path → 404
  ``HTTP 404 Not Found``, wrong method → 405, a body that is not JSON → 415, an ``Accept``
  that excludes JSON → 406, a body Jackson could not map (bad JSON, wrong types, unknown
  fields) → 500, ``NotFoundError`` → 404, ``AlreadyExistsError`` → 409,
  ``ConnectRestError`` → its own status, anything else → 500;
* ``Map<String,String>`` bodies coerce JSON numbers and booleans to their text (``5`` →
  ``"5"``), and a trailing slash or ``HEAD`` works wherever Jersey accepts it;
* path segments are percent-decoded one by one, so connector names may hold ``%2F``.

Routing runs on the event loop; every herder call runs on Starlette's thread pool. A
request that arrives while the worker starts waits until it is ready (up to 90 s, as Kafka's
``RestServer`` request timeout) and then behaves as on a running worker; ``GET /``,
``/health`` (503 until ready) and ``/admin/loggers`` answer at once.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.types import Receive, Scope, Send

from seaway.connect.rest.call import Call, Endpoint
from seaway.connect.rest.console import connect_console
from seaway.connect.rest.forwarding import forward_request
from seaway.connect.rest.loggers import Loggers
from seaway.connect.rest.responses import WebError, error_response
from seaway.connect.rest.routes.actions import ActionRoutes
from seaway.connect.rest.routes.connectors import ConnectorRoutes
from seaway.connect.rest.routes.internal import InternalRoutes
from seaway.connect.rest.routes.offsets import OffsetRoutes
from seaway.connect.rest.routes.plugins import PluginRoutes
from seaway.connect.rest.routes.topics import TopicRoutes
from seaway.connect.rest.routes.worker import WorkerRoutes
from seaway.connect.runtime.errors import ConnectRestError
from seaway.connect.runtime.herder import Herder, RequestTargetError
from seaway.console import console_routes
from seaway.metrics_history import MetricsHistory

__all__ = ["Surface", "create_app"]

log = logging.getLogger(__name__)

# Kafka's RestServer: a request waits this long for the herder (e.g. while it starts).
REQUEST_TIMEOUT_S = 90.0


Surface = Literal["all", "api", "admin"]
"""What an app serves: everything; all but ``/admin/*`` (``admin.listeners`` set); only
``/admin/*`` (an admin listener)."""


def create_app(
    herder: Herder,
    *,
    loggers: Loggers | None = None,
    surface: Surface = "all",
    history: MetricsHistory | None = None,
) -> Starlette:
    """The REST API of one worker: *herder* answers, *loggers* backs ``/admin/loggers``,
    *history* ``/api/history`` and the web console's plots (``/ui``, not on an admin
    surface); *surface* says which of its resources."""
    api = _ConnectApi(herder, loggers or Loggers(), surface, history)
    ui = console_routes(connect_console(herder, history)) if surface != "admin" else []
    app = Starlette(routes=[*ui, Mount("", app=api)])  # the web console at /ui
    app.state.herder = herder
    app.state.loggers = api.loggers
    return app


def _media_types(header: str) -> list[tuple[str, str, float]]:
    out = []
    for item in header.split(","):
        kind, *params = (p.strip() for p in item.split(";"))
        if not kind:
            continue
        main, _, sub = kind.lower().partition("/")
        q = 1.0
        for param in params:
            key, _, val = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(val)
                except ValueError:
                    q = 1.0
        out.append((main, sub or "*", q))
    return out


def _options(allow: str, call: Call) -> Response:
    """Jersey's automatic ``OPTIONS``: 200, the ``Allow`` header, no body."""
    return Response(None, 200, {"Allow": allow})


def _json_compatible(main: str, sub: str) -> bool:
    return main in ("*", "application") and sub in ("*", "json")


@dataclass(frozen=True, slots=True)
class _Route:
    segments: tuple[str, ...]  # literals, or "{param}"
    methods: dict[str, Endpoint]
    consumes_json: bool = True  # @Consumes(application/json) on the resource class
    produces_json: bool = True  # answers JSON (so an Accept without JSON is a 406)

    def match(self, segments: list[str]) -> dict[str, str] | None:
        if len(segments) != len(self.segments):
            return None
        params = {}
        for pattern, segment in zip(self.segments, segments, strict=True):
            if pattern.startswith("{"):
                params[pattern[1:-1]] = segment
            elif pattern != segment:
                return None
        return params


class _ConnectApi(
    WorkerRoutes,
    ConnectorRoutes,
    ActionRoutes,
    OffsetRoutes,
    TopicRoutes,
    PluginRoutes,
    InternalRoutes,
):
    """The routes of the endpoint mixins of :mod:`seaway.connect.rest.routes`, and their
    dispatch; each endpoint is a plain function of one :class:`Call`, run on a thread."""

    def __init__(
        self,
        herder: Herder,
        loggers: Loggers,
        surface: Surface = "all",
        history: MetricsHistory | None = None,
    ) -> None:
        self.herder = herder
        self.loggers = loggers
        self.history = history
        # What answers while the worker starts; every other request waits until it is ready
        # (bounded by REQUEST_TIMEOUT_S), as Kafka's herder queues requests until then.
        self._startup_free: set[Endpoint] = {
            self.server_info, self.health, self.all_loggers, self.logger, self.set_logger,
            self.metrics, self.metrics_history,
        }  # fmt: skip
        c = ("connectors", "{connector}")
        self.routes = [
            _Route((), {"GET": self.server_info}, consumes_json=False),
            _Route(("health",), {"GET": self.health}, consumes_json=False),
            _Route(("metrics",), {"GET": self.metrics}, consumes_json=False, produces_json=False),
            _Route(("api", "history"), {"GET": self.metrics_history}, consumes_json=False),
            _Route(("connectors",), {"GET": self.list_connectors, "POST": self.create}),
            _Route(c, {"GET": self.connector_info, "DELETE": self.delete}),
            _Route(
                (*c, "config"),
                {"GET": self.config, "PUT": self.put_config, "PATCH": self.patch_config},
            ),
            _Route((*c, "status"), {"GET": self.status}),
            _Route((*c, "restart"), {"POST": self.restart}),
            _Route((*c, "pause"), {"PUT": self.pause}),
            _Route((*c, "resume"), {"PUT": self.resume}),
            _Route((*c, "stop"), {"PUT": self.stop}),
            _Route((*c, "tasks"), {"GET": self.tasks, "POST": self.put_task_configs}),
            _Route((*c, "tasks-config"), {"GET": self.tasks_config}),
            _Route((*c, "fence"), {"PUT": self.fence}),
            _Route((*c, "tasks", "{task}", "status"), {"GET": self.task_status}),
            _Route((*c, "tasks", "{task}", "restart"), {"POST": self.restart_task}),
            _Route(
                (*c, "offsets"),
                {"GET": self.offsets, "PATCH": self.alter_offsets, "DELETE": self.reset_offsets},
            ),
            _Route((*c, "topics"), {"GET": self.topics}),
            _Route((*c, "topics", "reset"), {"PUT": self.reset_topics}),
            _Route(("connector-plugins",), {"GET": self.plugins}),
            _Route(("connector-plugins", "{plugin}", "config"), {"GET": self.plugin_config}),
            _Route(("connector-plugins", "{plugin}", "config", "validate"), {"PUT": self.validate}),
            _Route(("admin", "loggers"), {"GET": self.all_loggers}),
            _Route(("admin", "loggers", "{logger}"), {"GET": self.logger, "PUT": self.set_logger}),
        ]
        if surface != "all":
            admin = surface == "admin"
            self.routes = [r for r in self.routes if (r.segments[:1] == ("admin",)) == admin]

    # --- dispatch -----------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope, receive)
            response = await self.dispatch(request)
            await response(scope, receive, send)

    async def dispatch(self, request: Request) -> Response:
        """Route *request* and answer it, errors included."""
        path = request.url.path
        try:
            endpoint, params = self._select(request)
            if endpoint not in self._startup_free and not self.herder.ready():
                await self._until_ready()
            call = Call(
                params=params,
                query=request.query_params,
                body=await request.body(),
                base_url=str(request.base_url),
                headers=request.headers,
            )
            try:
                return await run_in_threadpool(endpoint, call)
            except RequestTargetError as target:
                return await run_in_threadpool(forward_request, request, call, target)
        except Exception as exc:
            return error_response(exc, path)

    async def _until_ready(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REQUEST_TIMEOUT_S
        while not self.herder.ready():
            if loop.time() > deadline:
                raise ConnectRestError(
                    500, "Request timed out. The worker is currently starting up."
                )
            await asyncio.sleep(0.05)

    def _select(self, request: Request) -> tuple[Endpoint, dict[str, str]]:
        raw = request.scope.get("raw_path") or request.url.path.encode()
        text = raw.decode("latin-1")
        if len(text) > 1 and text.endswith("/"):
            text = text[:-1]
        segments = [unquote(s, errors="replace") for s in text.split("/")[1:]]
        if segments == [""]:
            segments = []
        for route in self.routes:
            params = route.match(segments)
            if params is None or any(not v for v in params.values()):
                continue
            method = request.method
            allowed = set(route.methods)
            if "GET" in allowed:
                allowed.add("HEAD")
            if method == "OPTIONS":
                allow = ",".join(sorted(allowed | {"OPTIONS"}))
                return functools.partial(_options, allow), params
            endpoint = route.methods.get("GET" if method == "HEAD" else method)
            if endpoint is None:
                raise WebError(405, {"Allow": ",".join(sorted(allowed | {"OPTIONS"}))})
            content_type = request.headers.get("content-type")
            if route.consumes_json and content_type is not None:
                types = _media_types(content_type)
                if not types or not _json_compatible(*types[0][:2]):
                    raise WebError(415)
            accept = request.headers.get("accept")
            if route.produces_json and accept and accept.strip():
                ranges = _media_types(accept)
                if ranges and not any(_json_compatible(m, s) and q > 0 for m, s, q in ranges):
                    raise WebError(406)
            return endpoint, params
        raise WebError(404)
