"""The console as a Starlette app built from a :class:`~seaway.console.views.Console`'s
providers; a server mounts :func:`console_routes` (``/ui``) beside its own routes.

``GET /ui/``, ``/ui/connectors``, ``/ui/flows``, ``/ui/topics``, ``/ui/groups``: the pages
(those the console has a provider for); ``POST /ui/actions`` (form fields ``connector``,
``action`` = pause | resume | restart | restart-task, ``task``): runs an action, then
redirects back to the connectors page (or answers JSON to ``Accept: application/json``);
``GET /ui/static/console.css`` and ``console.js``: the package's own files.

Providers may block (a cluster's admin client, a broker's event loop): Starlette runs these
plain endpoints on its thread pool. Actions are refused when sent from another site
(``Origin`` or ``Sec-Fetch-Site``), so a page elsewhere cannot pause a connector.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import resources
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route

from seaway.console import pages
from seaway.console.markup import Markup, join, tag
from seaway.console.views import Action, ActionError, Console
from seaway.metrics_history import MetricsHistory

__all__ = ["PATH", "console_app", "console_routes", "history_route"]

log = logging.getLogger(__name__)

PATH: Final = "/ui"
_ACTIONS: Final[tuple[Action, ...]] = ("pause", "resume", "restart", "restart-task")
_STATIC: Final = {"console.css": "text/css", "console.js": "text/javascript"}
_MAX_FORM: Final = 8192
_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def console_routes(console: Console, path: str = PATH) -> list[BaseRoute]:
    """The routes that serve *console* under *path* (``/ui`` answered by a redirect to
    ``/ui/``), to put before a server's own catch-all routes."""

    def to_slash(request: Request) -> Response:
        return RedirectResponse(str(request.url.replace(path=request.url.path + "/")), 307)

    return [Route(path, to_slash), Mount(path, app=console_app(console))]


def history_route(history: MetricsHistory, path: str = "/api/history") -> Route:
    """``GET /api/history``: *history* as JSON (``?name=`` picks series, repeatable;
    ``?since=<epoch s>`` later points only; a bad value answers 400 with the reason), as the
    broker's admin port and the mirror's metrics port serve it."""

    def api_history(request: Request) -> Response:
        params = request.query_params
        try:
            return JSONResponse(history.query(params.getlist("name"), params.get("since")))
        except ValueError as error:
            return PlainTextResponse(f"{error}\n", 400)

    return Route(path, api_history)


def _base(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def _read(provider: Callable[[], Any] | None, what: str) -> tuple[Any, str | None]:
    """*provider*'s answer, or None and a message saying why there is none."""
    if provider is None:
        return None, None
    try:
        return provider(), None
    except Exception as error:
        log.warning("The console could not read %s", what, exc_info=True)
        return None, f"Could not read {what}: {error}"


def console_app(console: Console) -> Starlette:
    """The console's pages, actions and static files over *console*'s providers."""
    by_path = {p.path: p for p in pages.pages_of(console)}

    def html(request: Request, page: pages.Page, body: Markup, status: int = 200) -> Response:
        document = pages.layout(console, _base(request), page, body)
        return HTMLResponse(document, status, headers=_HEADERS)

    def render(
        request: Request,
        page: pages.Page,
        what: str,
        build: Callable[[Any], Markup],
        provider: Callable[[], Any] | None,
    ) -> Response:
        data, error = _read(provider, what)
        if error is not None:
            return html(request, page, join([tag("h1", page.title), pages.error_box(error)]), 503)
        return html(request, page, build(data))

    def overview(request: Request) -> Response:
        snapshot, error = _read(console.history, "the metrics history")
        body = pages.overview_body(console, _counts(console), snapshot)
        if error is not None:
            body = join([pages.error_box(error), body])
        return html(request, by_path["/"], body)

    def connectors(request: Request) -> Response:
        return render(
            request,
            by_path["/connectors"],
            "the connectors",
            lambda c: pages.connectors_body(_base(request), c),
            console.connectors,
        )

    def flows(request: Request) -> Response:
        return render(
            request, by_path["/flows"], "the mirror flows", pages.flows_body, console.flows
        )

    def topics(request: Request) -> Response:
        return render(request, by_path["/topics"], "the topics", pages.topics_body, console.topics)

    def groups(request: Request) -> Response:
        return render(
            request, by_path["/groups"], "the consumer groups", pages.groups_body, console.groups
        )

    async def actions(request: Request) -> Response:
        wants_json = "application/json" in request.headers.get("accept", "")
        try:
            if console.act is None:
                raise ActionError(404, "This console has no connector actions.")
            _same_origin(request)
            body = await request.body()
            if len(body) > _MAX_FORM:
                raise ActionError(413, f"An action's form is at most {_MAX_FORM} bytes")
            action, connector, task = _action_form(body.decode("utf-8", "replace"))
            auth = request.headers.get("authorization")
            headers = {"Authorization": auth} if auth else {}
            message = await run_in_threadpool(console.act, action, connector, task, headers)
        except ActionError as error:
            if wants_json:
                return JSONResponse({"error": error.message}, error.status)
            page = by_path.get("/connectors", by_path["/"])
            back = tag("p", tag("a", "Back to the connectors", href=f"{_base(request)}/connectors"))
            return html(
                request,
                page,
                join([tag("h1", "Action refused"), pages.error_box(error.message), back]),
                error.status,
            )
        if wants_json:
            return JSONResponse({"message": message}, 202)
        return RedirectResponse(f"{_base(request)}/connectors", 303)

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        media_type = _STATIC.get(name)
        if media_type is None:
            return Response("Not Found\n", 404, media_type="text/plain")
        data = (resources.files("seaway.console") / "static" / name).read_bytes()
        return Response(
            data,
            media_type=media_type,
            headers={"Cache-Control": "max-age=300", "X-Content-Type-Options": "nosniff"},
        )

    handlers: dict[str, Callable[[Request], Response]] = {
        "/": overview,
        "/connectors": connectors,
        "/flows": flows,
        "/topics": topics,
        "/groups": groups,
    }
    routes: list[BaseRoute] = [Route(path, handlers[path]) for path in by_path]
    routes.append(Route("/actions", actions, methods=["POST"]))
    routes.append(Route("/static/{name}", static))
    return Starlette(routes=routes)


def _counts(console: Console) -> dict[str, object]:
    """The overview's headline figures: the console's summary, and counts of the connectors
    and flows."""
    summary, _ = _read(console.summary, "the summary")
    counts: dict[str, object] = dict(summary or {})
    connectors, _ = _read(console.connectors, "the connectors")
    if connectors is not None:
        counts["Connectors"] = len(connectors)
        counts["Running"] = sum(1 for c in connectors if c.state == "RUNNING")
        counts["Failed tasks"] = sum(1 for c in connectors for t in c.tasks if t.state == "FAILED")
    flows, _ = _read(console.flows, "the mirror flows")
    if flows is not None:
        counts["Flows"] = len(flows)
        counts["Lag (records)"] = int(sum(f.lag or 0 for f in flows))
    return counts


def _same_origin(request: Request) -> None:
    """Refuse an action a page of another site sent."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise ActionError(403, "Actions are accepted from the console's own pages only")
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.headers.get("host"):
        raise ActionError(403, "Actions are accepted from the console's own pages only")


def _action_form(text: str) -> tuple[Action, str, int | None]:
    """``(action, connector, task)`` from an urlencoded form; ActionError naming the field."""
    fields = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
    action = fields.get("action", "")
    if action not in _ACTIONS:
        raise ActionError(400, f"action must be one of {', '.join(_ACTIONS)}, not {action!r}")
    connector = fields.get("connector", "")
    if not connector:
        raise ActionError(400, "connector must name a connector")
    task: int | None = None
    if action == "restart-task":
        try:
            task = int(fields.get("task", ""))
        except ValueError:
            raise ActionError(400, "task must be a task number for restart-task") from None
    return action, connector, task
