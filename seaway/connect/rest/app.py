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
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.types import Receive, Scope, Send

from seaway.connect.api.errors import AlreadyExistsError, NotFoundError
from seaway.connect.rest.loggers import Loggers, parse_level
from seaway.connect.runtime.distributed.internal_requests import send
from seaway.connect.runtime.errors import BadRequestError, ConnectRestError
from seaway.connect.runtime.herder import Herder, InternalRequest, RequestTargetError
from seaway.connect.runtime.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from seaway.java.numbers import parse_int

__all__ = ["create_app"]

log = logging.getLogger(__name__)

JSON_MEDIA_TYPE = "application/json"

HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
STARTING_MESSAGE = "Worker is still starting up."
# Kafka's RestServer: a request waits this long for the herder (e.g. while it starts).
REQUEST_TIMEOUT_S = 90.0

_STATUS_TEXT = {
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    415: "Unsupported Media Type",
}

# Java types, as Jackson names them in its messages.
_ENTITIES = "org.apache.kafka.connect.runtime.rest.entities"
_CREATE_REQUEST = f"{_ENTITIES}.CreateConnectorRequest"
_INITIAL_STATE = f"{_CREATE_REQUEST}$InitialState"
_OFFSETS = f"{_ENTITIES}.ConnectorOffsets"
_OFFSET = f"{_ENTITIES}.ConnectorOffset"
_OFFSET_LIST = f"java.util.ArrayList<{_OFFSET}>"
_STRING = "java.lang.String"
_STRING_MAP = "java.util.LinkedHashMap<java.lang.String,java.lang.String>"
_OBJECT_MAP = "java.util.LinkedHashMap<java.lang.String,java.lang.Object>"
_MAP = "java.util.LinkedHashMap"
_LIST = "java.util.ArrayList"

_INITIAL_STATES = ("RUNNING", "PAUSED", "STOPPED")
_JAVA_WHITESPACE = "".join(chr(c) for c in range(0x21))  # what String.trim() strips


def create_app(herder: Herder, *, loggers: Loggers | None = None) -> Starlette:
    """The REST API of one worker: *herder* answers, *loggers* backs ``/admin/loggers``."""
    api = _ConnectApi(herder, loggers or Loggers())
    app = Starlette(routes=[Mount("", app=api)])
    app.state.herder = herder
    app.state.loggers = api.loggers
    return app


# --- errors and responses -------------------------------------------------------------------


class _WebError(Exception):
    """A JAX-RS ``WebApplicationException``: message ``HTTP <status> <reason>``."""

    def __init__(self, status: int, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(f"HTTP {status} {_STATUS_TEXT[status]}")
        self.status = status
        self.headers = dict(headers or {})


class _MappingError(Exception):
    """Jackson could not map the request body: answered 500 with Jackson's words."""

    def __init__(self, message: str, chain: tuple[tuple[str, str | int], ...] = ()) -> None:
        if chain:
            refs = "->".join(
                f"{owner}[{key}]" if isinstance(key, int) else f'{owner}["{key}"]'
                for owner, key in chain
            )
            message = f"{message} (through reference chain: {refs})"
        super().__init__(message)


def _dumps(entity: Any) -> bytes:
    text = json.dumps(entity, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "backslashreplace")  # a lone surrogate stays a JSON escape


def _json(entity: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    return Response(_dumps(entity), status, dict(headers or {}), JSON_MEDIA_TYPE)


def _empty(status: int) -> Response:
    return Response(None, status)


def _error(status: int, message: str | None, error_code: int | None = None) -> Response:
    code = status if error_code is None else error_code
    return _json({"error_code": code, "message": message}, status)


def _error_response(exc: BaseException, path: str) -> Response:
    """``ConnectExceptionMapper``: the status and body for *exc*."""
    if isinstance(exc, ConnectRestError):
        log.debug("REST call to %s failed", path, exc_info=exc)
        return _error(exc.status, exc.message, exc.error_code)
    if isinstance(exc, NotFoundError):
        log.debug("REST call to %s failed", path, exc_info=exc)
        return _error(404, str(exc))
    if isinstance(exc, AlreadyExistsError):
        log.debug("REST call to %s failed", path, exc_info=exc)
        return _error(409, str(exc))
    if isinstance(exc, _WebError):
        response = _error(exc.status, str(exc))
        response.headers.update(exc.headers)
        return response
    if isinstance(exc, _MappingError):
        log.error("Uncaught exception in REST call to %s: %s", path, exc)
        return _error(500, str(exc))
    log.error("Uncaught exception in REST call to %s", path, exc_info=exc)
    return _error(500, str(exc) or None)


# --- JSON bodies, read as Jackson reads them ------------------------------------------------


class _JsonInt(str):
    """A JSON integer, kept as written until the target type is known."""


class _JsonFloat(str):
    """A JSON floating-point number, kept as written."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


_DECODER = json.JSONDecoder(
    parse_int=_JsonInt, parse_float=_JsonFloat, parse_constant=_reject_constant
)
_NO_CONTENT = "No content to map due to end-of-input"


def _read_json(body: bytes) -> Any:
    """The body's first JSON value (trailing content is ignored, as Jackson does); None if
    the body is empty or ``null``."""
    try:
        text = body.decode(json.detect_encoding(body))
    except UnicodeDecodeError as exc:
        raise _MappingError(f"Invalid UTF-8 in request body: {exc}") from None
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        return None
    try:
        value, _ = _DECODER.raw_decode(text, start)
    except ValueError as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            exc_msg, where = exc.msg, f"; line: {exc.lineno}, column: {exc.colno}"
        else:
            exc_msg = str(exc)
        message = f"Unexpected JSON input: {exc_msg}\n at [Source: REST request{where}]"
        raise _MappingError(message) from None
    return value


def _token(value: Any) -> tuple[str, str]:
    """How Jackson names the JSON token of *value*: (shape, token)."""
    if value is None:
        return "Null", "VALUE_NULL"
    if isinstance(value, bool):
        return "Boolean", "VALUE_TRUE" if value else "VALUE_FALSE"
    if isinstance(value, _JsonInt):
        return "Integer", "VALUE_NUMBER_INT"
    if isinstance(value, _JsonFloat):
        return "Floating-point", "VALUE_NUMBER_FLOAT"
    if isinstance(value, str):
        return "String", "VALUE_STRING"
    if isinstance(value, list):
        return "Array", "START_ARRAY"
    return "Object", "START_OBJECT"


def _mismatch(java_type: str, value: Any, chain: tuple[tuple[str, str | int], ...] = ()) -> Any:
    shape, token = _token(value)
    raise _MappingError(
        f"Cannot deserialize value of type `{java_type}` from {shape} value "
        f"(token `JsonToken.{token}`)",
        chain,
    )


def _unrecognized(java_class: str, field: str, known: tuple[str, ...]) -> Any:
    if len(known) == 1:
        props = f'one known property: "{known[0]}"'
    else:
        props = f"{len(known)} known properties: " + ", ".join(f'"{k}"' for k in known)
    raise _MappingError(
        f'Unrecognized field "{field}" (class {java_class}), not marked as ignorable ({props}])',
        ((java_class, field),),
    )


def _string(value: Any, chain: tuple[tuple[str, str | int], ...]) -> str | None:
    """A Java ``String``: scalars coerce to their JSON text, null stays null."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # _JsonInt and _JsonFloat included: their text as written
        return str(value)
    return _mismatch(_STRING, value, chain)


def _string_map(
    value: Any, chain: tuple[tuple[str, str | int], ...] = (), *, nulls: bool = False
) -> dict[str, Any]:
    """A ``Map<String,String>`` body; null values only when *nulls* (else a 500)."""
    if not isinstance(value, dict):
        return _mismatch(_STRING_MAP, value, chain)
    out: dict[str, Any] = {}
    for key, item in value.items():
        where = (*chain, (_MAP, key))
        text = _string(item, where)
        if text is None and not nulls:
            raise _MappingError(f"Cannot map `null` into type `{_STRING}`", where)
        out[key] = text
    return out


def _plain(value: Any) -> Any:
    """A JSON value as a ``Map<String,?>`` holds it: numbers become int or float."""
    if isinstance(value, _JsonInt):
        return int(value)
    if isinstance(value, _JsonFloat):
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _object_map(value: Any, chain: tuple[tuple[str, str | int], ...]) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return _mismatch(_OBJECT_MAP, value, chain)
    return _plain(value)


def _required(body: bytes) -> Any:
    value = _read_json(body)
    if value is None:
        raise _MappingError(_NO_CONTENT)
    return value


def _create_request(body: bytes) -> tuple[str | None, dict[str, str] | None, str | None]:
    """``CreateConnectorRequest``: (name, config, initial_state)."""
    value = _required(body)
    if not isinstance(value, dict):
        return _mismatch(_CREATE_REQUEST, value)
    name = config = state = None
    for field, item in value.items():
        chain = ((_CREATE_REQUEST, field),)
        if field == "name":
            name = _string(item, chain)
        elif field == "config":
            config = None if item is None else _string_map(item, chain)
        elif field == "initial_state":
            state = _initial_state(item, chain)
        else:
            _unrecognized(_CREATE_REQUEST, field, ("name", "config", "initial_state"))
    return name, config, state


def _initial_state(value: Any, chain: tuple[tuple[str, str | int], ...]) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict | list):
        return _mismatch(_INITIAL_STATE, value, chain)
    text = (_string(value, chain) or "").upper()
    if text not in _INITIAL_STATES:
        raise _MappingError(
            f"Cannot construct instance of `{_INITIAL_STATE}`, problem: No enum constant "
            f"{_INITIAL_STATE.replace('$', '.')}.{text}",
            chain,
        )
    return text


def _connector_offsets(body: bytes) -> list[dict[str, Any]] | None:
    """``ConnectorOffsets.offsets``: ``[{"partition": ..., "offset": ...}]`` or None."""
    value = _required(body)
    if not isinstance(value, dict):
        return _mismatch(_OFFSETS, value)
    offsets = None
    for field, item in value.items():
        if field != "offsets":
            _unrecognized(_OFFSETS, field, ("offsets",))
        chain: tuple[tuple[str, str | int], ...] = ((_OFFSETS, field),)
        if item is None:
            offsets = None
            continue
        if not isinstance(item, list):
            _mismatch(_OFFSET_LIST, item, chain)
        offsets = [_connector_offset(entry, (*chain, (_LIST, i))) for i, entry in enumerate(item)]
    return offsets


def _connector_offset(value: Any, chain: tuple[tuple[str, str | int], ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        return _mismatch(_OFFSET, value, chain)
    out: dict[str, Any] = {"partition": None, "offset": None}
    for field, item in value.items():
        if field not in out:
            _unrecognized(_OFFSET, field, ("partition", "offset"))
        out[field] = _object_map(item, (*chain, (_OFFSET, field)))
    return out


# --- query parameters and paths -------------------------------------------------------------


def _query_first(query: QueryParams, name: str) -> str | None:
    values = query.getlist(name)
    return values[0] if values else None


def _query_bool(query: QueryParams, name: str, default: bool) -> bool:
    """A boolean query parameter as Jersey reads it: ``true`` in any case, else false."""
    value = _query_first(query, name)
    if value is None or not value.strip():
        return default
    return value.lower() == "true"


def _java_int(text: str) -> int:
    """A path ``Integer``; a 404 when Java's ``Integer.valueOf`` would fail."""
    try:
        return parse_int(text)
    except ValueError:
        raise _WebError(404) from None


_LOCATION_SAFE = "/!$&'()*+,;=:@-._~"


def _location(base_url: str, name: str) -> str:
    """``UriBuilder.fromUri("/connectors").path(name)``, made absolute as Jersey makes it."""
    parts = re.split(r"(%[0-9A-Fa-f]{2})", name)
    path = "".join(p if i % 2 else quote(p, safe=_LOCATION_SAFE) for i, p in enumerate(parts))
    return f"{base_url.rstrip('/')}/connectors/{path}"


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


NO_LEADER_MESSAGE = (
    "Cannot complete request momentarily due to no known leader URL, likely because a "
    "rebalance was underway."
)
CONFLICT_MESSAGE = (
    "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
)


def _forward(request: Request, call: _Call, target: RequestTargetError) -> Response:
    """Send a request another worker must serve to it (Kafka's HerderRequestHandler): the
    first hop adds ``forward=true``, the second ``forward=false``, and a worker that got
    ``forward=false`` answers 409 instead of forwarding again."""
    if target.url is None:
        raise ConnectRestError(409, NO_LEADER_MESSAGE) from target
    forward = _query_first(call.query, "forward")
    if forward is not None and forward.lower() != "true":
        raise ConnectRestError(409, CONFLICT_MESSAGE) from target
    params = [(k, v) for k, v in call.query.multi_items() if k != "forward"]
    params.append(("forward", "false" if forward is not None else "true"))
    raw_path = (request.scope.get("raw_path") or request.url.path.encode()).decode("latin-1")
    url = target.url.rstrip("/") + raw_path + "?" + urlencode(params)
    headers = {}
    if "authorization" in request.headers:
        headers["Authorization"] = request.headers["authorization"]
    log.debug("Forwarding %s %s to %s", request.method, raw_path, url)
    context = getattr(request.app.state.herder, "rest_client_context", None)
    reply = send(request.method, url, call.body or None, headers, context=context)
    response = Response(reply.body or None, reply.status)
    if reply.content_type and reply.body:
        response.headers["Content-Type"] = reply.content_type
    return response


def _options(allow: str, call: _Call) -> Response:
    """Jersey's automatic ``OPTIONS``: 200, the ``Allow`` header, no body."""
    return Response(None, 200, {"Allow": allow})


def _json_compatible(main: str, sub: str) -> bool:
    return main in ("*", "application") and sub in ("*", "json")


# --- routes ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Call:
    """What an endpoint sees of its request."""

    params: dict[str, str]
    query: QueryParams
    body: bytes
    base_url: str
    headers: Mapping[str, str]


Endpoint = Callable[[_Call], Response]


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


class _ConnectApi:
    """The endpoints; each is a plain function of one :class:`_Call`, run on a thread."""

    def __init__(self, herder: Herder, loggers: Loggers) -> None:
        self.herder = herder
        self.loggers = loggers
        # What answers while the worker starts; every other request waits until it is ready
        # (bounded by REQUEST_TIMEOUT_S), as Kafka's herder queues requests until then.
        self._startup_free: set[Endpoint] = {
            self.server_info, self.health, self.all_loggers, self.logger, self.set_logger,
            self.metrics,
        }  # fmt: skip
        c = ("connectors", "{connector}")
        self.routes = [
            _Route((), {"GET": self.server_info}, consumes_json=False),
            _Route(("health",), {"GET": self.health}, consumes_json=False),
            _Route(("metrics",), {"GET": self.metrics}, consumes_json=False, produces_json=False),
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
            call = _Call(
                params=params,
                query=request.query_params,
                body=await request.body(),
                base_url=str(request.base_url),
                headers=request.headers,
            )
            try:
                return await run_in_threadpool(endpoint, call)
            except RequestTargetError as target:
                return await run_in_threadpool(_forward, request, call, target)
        except Exception as exc:
            return _error_response(exc, path)

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
                raise _WebError(405, {"Allow": ",".join(sorted(allowed | {"OPTIONS"}))})
            content_type = request.headers.get("content-type")
            if route.consumes_json and content_type is not None:
                types = _media_types(content_type)
                if not types or not _json_compatible(*types[0][:2]):
                    raise _WebError(415)
            accept = request.headers.get("accept")
            if route.produces_json and accept and accept.strip():
                ranges = _media_types(accept)
                if ranges and not any(_json_compatible(m, s) and q > 0 for m, s, q in ranges):
                    raise _WebError(406)
            return endpoint, params
        raise _WebError(404)

    # --- internal requests between workers ---------------------------------------------------

    def put_task_configs(self, call: _Call) -> Response:
        configs = _required(call.body)
        if not isinstance(configs, list):
            _mismatch(f"java.util.ArrayList<{_STRING_MAP}>", configs)
        maps = [_string_map(c, ((_LIST, i),)) for i, c in enumerate(configs)]
        request = InternalRequest(dict(call.headers), call.body)
        self.herder.put_task_configs(call.params["connector"], maps, request)
        return _empty(204)

    def fence(self, call: _Call) -> Response:
        request = InternalRequest(dict(call.headers), call.body)
        self.herder.fence_zombies(call.params["connector"], request)
        return _empty(204)

    # --- root -------------------------------------------------------------------------------

    def server_info(self, call: _Call) -> Response:
        return _json(self.herder.server_info())

    def metrics(self, call: _Call) -> Response:
        """Kafka Connect's metrics for Prometheus (a Seaway endpoint: Kafka's workers
        export JMX, which the Prometheus JMX exporter turns into these names)."""
        return Response(self.herder.metrics_exposition(), 200, media_type=METRICS_CONTENT_TYPE)

    def health(self, call: _Call) -> Response:
        if self.herder.ready():
            return _json({"status": "healthy", "message": HEALTHY_MESSAGE})
        return _json({"status": "starting", "message": STARTING_MESSAGE}, 503)

    # --- connectors -------------------------------------------------------------------------

    def list_connectors(self, call: _Call) -> Response:
        if "expand" not in call.query:
            return _json(self.herder.connectors())
        expansions = call.query.getlist("expand")
        out: dict[str, dict[str, Any]] = {}
        for connector in self.herder.connectors():
            try:
                expanded: dict[str, Any] = {}
                for expansion in expansions:
                    if expansion == "status":
                        expanded["status"] = self.herder.connector_status(connector)
                    elif expansion == "info":
                        expanded["info"] = self.herder.connector_info(connector)
                    else:
                        log.info("Ignoring unknown expansion type %s", expansion)
                out[connector] = expanded
            except NotFoundError:
                # Deleted while the list was built: leave it out.
                log.debug("Unable to get connector info for %s on this worker", connector)
        return _json(out)

    def create(self, call: _Call) -> Response:
        name, config, initial_state = _create_request(call.body)
        name = (name or "").strip(_JAVA_WHITESPACE)  # String.trim()
        if config is None:
            raise _MappingError("Missing required creator property 'config'")
        config = self._check_name(name, config)
        _, info = self.herder.put_connector_config(
            name, config, allow_replace=False, initial_state=initial_state
        )
        return _json(info, 201, {"Location": _location(call.base_url, name)})

    def connector_info(self, call: _Call) -> Response:
        return _json(self.herder.connector_info(call.params["connector"]))

    def config(self, call: _Call) -> Response:
        return _json(self.herder.connector_config(call.params["connector"]))

    def put_config(self, call: _Call) -> Response:
        name = call.params["connector"]
        config = self._check_name(name, _string_map(_required(call.body)))
        created, info = self.herder.put_connector_config(name, config, allow_replace=True)
        if created:
            return _json(info, 201, {"Location": _location(call.base_url, name)})
        return _json(info)

    def patch_config(self, call: _Call) -> Response:
        patch = _string_map(_required(call.body), nulls=True)
        return _json(self.herder.patch_connector_config(call.params["connector"], patch))

    def delete(self, call: _Call) -> Response:
        self.herder.delete_connector(call.params["connector"])
        return _empty(204)

    def status(self, call: _Call) -> Response:
        return _json(self.herder.connector_status(call.params["connector"]))

    def restart(self, call: _Call) -> Response:
        include_tasks = _query_bool(call.query, "includeTasks", False)
        only_failed = _query_bool(call.query, "onlyFailed", False)
        state = self.herder.restart_connector(
            call.params["connector"], include_tasks=include_tasks, only_failed=only_failed
        )
        if not include_tasks and not only_failed:
            return _empty(204)
        return _empty(202) if state is None else _json(state, 202)

    def pause(self, call: _Call) -> Response:
        self.herder.pause_connector(call.params["connector"])
        return _empty(202)

    def resume(self, call: _Call) -> Response:
        self.herder.resume_connector(call.params["connector"])
        return _empty(202)

    def stop(self, call: _Call) -> Response:
        self.herder.stop_connector(call.params["connector"])
        return _empty(204)

    def tasks(self, call: _Call) -> Response:
        return _json(self.herder.task_infos(call.params["connector"]))

    def tasks_config(self, call: _Call) -> Response:
        log.warning(
            "The 'GET /connectors/{connector}/tasks-config' endpoint is deprecated and will be "
            "removed in the next major release. Please use the 'GET /connectors/{connector}/tasks' "
            "endpoint instead."
        )
        infos = self.herder.task_infos(call.params["connector"])
        return _json({f"{i['id']['connector']}-{i['id']['task']}": i["config"] for i in infos})

    def task_status(self, call: _Call) -> Response:
        task = _java_int(call.params["task"])
        return _json(self.herder.task_status(call.params["connector"], task))

    def restart_task(self, call: _Call) -> Response:
        task = _java_int(call.params["task"])
        self.herder.restart_task(call.params["connector"], task)
        return _empty(204)

    def offsets(self, call: _Call) -> Response:
        return _json(self.herder.connector_offsets(call.params["connector"]))

    def alter_offsets(self, call: _Call) -> Response:
        offsets = _connector_offsets(call.body)
        if not offsets:
            raise BadRequestError(
                "Partitions / offsets need to be provided for an alter offsets request"
            )
        message = self.herder.alter_connector_offsets(call.params["connector"], offsets)
        return _json({"message": message})

    def reset_offsets(self, call: _Call) -> Response:
        return _json({"message": self.herder.reset_connector_offsets(call.params["connector"])})

    def topics(self, call: _Call) -> Response:
        enabled, _ = self.herder.topic_tracking
        if not enabled:
            raise ConnectRestError(403, "Topic tracking is disabled.")
        name = call.params["connector"]
        return _json({name: {"topics": self.herder.connector_active_topics(name)}})

    def reset_topics(self, call: _Call) -> Response:
        enabled, allow_reset = self.herder.topic_tracking
        if not enabled:
            raise ConnectRestError(403, "Topic tracking is disabled.")
        if not allow_reset:
            raise ConnectRestError(403, "Topic tracking reset is disabled.")
        self.herder.reset_connector_active_topics(call.params["connector"])
        return _empty(202)

    @staticmethod
    def _check_name(name: str, config: dict[str, str]) -> dict[str, str]:
        """``checkAndPutConnectorConfigName``: a 400 on mismatch, else fill ``name`` in."""
        included = config.get("name")
        if included is None:
            config["name"] = name
        elif included != name:
            raise BadRequestError(
                f"Connector name configuration ({included}) doesn't match connector name in "
                f"the URL ({name})"
            )
        return config

    # --- plugins ----------------------------------------------------------------------------

    def plugins(self, call: _Call) -> Response:
        connectors_only = _query_bool(call.query, "connectorsOnly", True)
        return _json(self.herder.connector_plugins(connectors_only))

    def plugin_config(self, call: _Call) -> Response:
        return _json(self.herder.plugin_config(call.params["plugin"]))

    def validate(self, call: _Call) -> Response:
        config = _string_map(_required(call.body))
        return _json(self.herder.validate_connector_config(config, call.params["plugin"]))

    # --- loggers ----------------------------------------------------------------------------

    def all_loggers(self, call: _Call) -> Response:
        return _json(self.loggers.all_levels())

    def logger(self, call: _Call) -> Response:
        name = call.params["logger"]
        level = self.loggers.level(name)
        if level is None:
            raise NotFoundError(f"Logger {name} not found.")
        return _json(level)

    def set_logger(self, call: _Call) -> Response:
        namespace = call.params["logger"]
        level = _string_map(_required(call.body), nulls=True).get("level")
        if level is None:
            raise BadRequestError("Desired 'level' parameter was not specified in request.")
        if parse_level(level) is None:
            raise NotFoundError(f"invalid log level '{level}'.")
        scope = _query_first(call.query, "scope") or "worker"
        if scope.lower() == "cluster":
            # Without a cluster-wide channel, the change applies to this worker only.
            self.loggers.set_level(namespace, level)
            return _empty(204)
        if scope.lower() != "worker":
            log.warning(
                "Received invalid scope '%s' in request to adjust logging level; "
                "will default to worker",
                scope,
            )
        return _json(self.loggers.set_level(namespace, level))
