"""The worker's REST server: uvicorn on a background thread (Kafka's ``RestServer``).

``listeners`` is Kafka's comma-separated list of ``protocol://host:port`` (default
``http://:8083``; an empty host binds every interface, port 0 an ephemeral port). The
*advertised* URL is what other workers and the worker id (``host:port``) use; it follows
``rest.advertised.listener``, ``rest.advertised.host.name`` and ``rest.advertised.port``.

>>> parse_listener("http://:8083")
Listener(protocol='http', host='', port=8083)
>>> worker_id("http://connect-1:8083/")
'connect-1:8083'
"""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.types import Receive, Scope, Send

from seaway.asgi import AsgiServer, Background
from seaway.config import ConfigException
from seaway.connect.api.errors import ConnectError
from seaway.connect.rest.app import Surface, create_app
from seaway.connect.rest.basic_auth import (
    BASIC_AUTH_EXTENSION,
    BasicAuthMiddleware,
    credentials_from_environment,
)
from seaway.connect.rest.history import worker_history
from seaway.connect.rest.loggers import Loggers
from seaway.connect.runtime.herder import Herder
from seaway.security.tls import TlsSettings

__all__ = [
    "DEFAULT_LISTENERS",
    "Listener",
    "RestServer",
    "advertised_url",
    "parse_listener",
    "parse_listeners",
    "worker_id",
]

log = logging.getLogger(__name__)

DEFAULT_LISTENERS = "http://:8083"

# RestServer.LISTENER_PATTERN
_LISTENER_PATTERN = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)")


@dataclass(frozen=True, slots=True)
class Listener:
    """One entry of ``listeners``; an empty *host* means every interface."""

    protocol: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.protocol}://{host}:{self.port}"


def parse_listener(listener: str) -> Listener:
    """Parse ``protocol://host:port`` as Kafka does; ConfigException when malformed."""
    match = _LISTENER_PATTERN.fullmatch(listener)
    if match is None:
        raise ConfigException("Listener doesn't have the right format (protocol://hostname:port).")
    protocol = match.group(1).lower()
    if protocol not in ("http", "https"):
        raise ConfigException('Listener protocol must be either "http" or "https".')
    port = int(match.group(3))
    if not 0 <= port <= 65535:
        raise ConfigException(f"Invalid port {port} in listener {listener}")
    return Listener(protocol, match.group(2), port)


def parse_listeners(listeners: str | Sequence[str]) -> list[Listener]:
    """Parse Kafka's ``listeners`` (a comma-separated string or a list)."""
    if isinstance(listeners, str):
        items = [] if not listeners.strip() else [s.strip() for s in listeners.split(",")]
    else:
        items = [s.strip() for s in listeners]
    if not items:
        raise ConfigException(
            "Invalid value for listeners, at least one URL is expected, ex: "
            "http://localhost:8080,https://localhost:8443."
        )
    if any(not item for item in items):
        raise ConfigException("Empty URL found when parsing listeners list.")
    return [parse_listener(item) for item in items]


def _url(scheme: str, host: str, port: int) -> str:
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}/"


def advertised_url(
    listeners: str | Sequence[str] = DEFAULT_LISTENERS,
    *,
    bound_ports: Sequence[int] | None = None,
    advertised_host: str | None = None,
    advertised_port: int | None = None,
    advertised_listener: str | None = None,
) -> str:
    """The URL this worker gives out (``RestServer.advertisedUrl``), e.g. ``http://h:8083/``.

    The protocol is *advertised_listener*, else http when some listener uses it, else https.
    The host is *advertised_host*, else that listener's host, else this machine's host
    name. The port is *advertised_port*, else the listener's port, else (port 0) the port it
    was bound to: *bound_ports* holds the bound port of each listener, in order.
    """
    parsed = parse_listeners(listeners)
    if advertised_listener:
        protocol = advertised_listener.lower()
    else:
        raw = listeners if isinstance(listeners, str) else ",".join(listeners)
        raw = raw.lower()
        protocol = "https" if "http://" not in raw and "https://" in raw else "http"
    index = next((i for i, lst in enumerate(parsed) if lst.protocol == protocol), None)
    chosen = parsed[index] if index is not None else None

    if advertised_host:
        host = advertised_host
    elif chosen is not None and chosen.host:
        host = chosen.host
    elif parsed[0].host:
        host = parsed[0].host
    else:
        host = socket.gethostname()

    def bound(i: int) -> int:
        return bound_ports[i] if bound_ports is not None and i < len(bound_ports) else 0

    if advertised_port is not None:
        port = advertised_port
    elif chosen is not None and index is not None:
        port = chosen.port or bound(index)
    else:
        port = parsed[0].port or bound(0)
    return _url(protocol, host, port)


def worker_id(url: str) -> str:
    """``host:port`` of an advertised URL: the worker id statuses carry."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{parts.port if parts.port is not None else -1}"


class _NoHerderYet:
    """The ASGI app until a herder is attached: every request gets Connect's 404."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b'{"error_code":404,"message":"HTTP 404 Not Found"}'
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 404, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _Switch:
    """An ASGI app that forwards to whichever app is current."""

    def __init__(self) -> None:
        self.app: Any = _NoHerderYet()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def _server(
    app: _Switch,
    listeners: Sequence[Listener],
    tls: TlsSettings | None,
    key: str,
    served: dict[str, Any],
    background: Sequence[Background] = (),
) -> AsgiServer:
    """The HTTP server of *listeners* (the setting *key*): http, or https with *tls*."""
    protocols = {listener.protocol for listener in listeners}
    if len(protocols) > 1:
        raise ConfigException(
            f"Invalid value {','.join(map(str, listeners))} for configuration {key}: Seaway "
            "serves http or https listeners, not both at once"
        )
    ssl_context = (
        (tls or TlsSettings({})).server_context(prefix=f"{key}.https.")
        if protocols == {"https"}
        else None
    )
    return AsgiServer(
        app,
        *((listener.host, listener.port) for listener in listeners),
        ssl_context=ssl_context,
        name=f"seaway-rest-{key}",
        background=background,
        **served,
    )


class RestServer:
    """Serves :func:`~seaway.connect.rest.app.create_app` on *listeners* from a thread.

    *herder* may be None at first and attached later with :meth:`attach` (the herder may
    need :attr:`worker_id`, known only once the ports are bound); until then every request
    is answered 404. *advertised_url*, when given, replaces the computed one.
    """

    def __init__(
        self,
        herder: Herder | None,
        listeners: str | Sequence[str] = DEFAULT_LISTENERS,
        advertised_url: str | None = None,
        *,
        advertised_host: str | None = None,
        advertised_port: int | None = None,
        advertised_listener: str | None = None,
        loggers: Loggers | None = None,
        access_log: bool = False,
        graceful_shutdown_timeout: int = 60,
        extensions: Sequence[str] = (),
        tls: TlsSettings | None = None,
        admin_listeners: str | Sequence[str] | None = None,
        admin_tls: TlsSettings | None = None,
    ) -> None:
        self._credentials: dict[str, str] | None = None
        for extension in extensions:
            if extension != BASIC_AUTH_EXTENSION:
                raise ConfigException(
                    f"Invalid value {extension} for configuration rest.extension.classes: "
                    f"the REST extension Seaway has is {BASIC_AUTH_EXTENSION}"
                )
            self._credentials = credentials_from_environment()
        self._listeners_config = listeners
        self.listeners = parse_listeners(listeners)
        self._advertised_url = advertised_url
        self._advertised = (advertised_host, advertised_port, advertised_listener)
        self._loggers = loggers or Loggers()
        served = {"access_log": access_log, "shutdown_timeout_s": graceful_shutdown_timeout}
        self._switch = _Switch()
        self.herder: Herder | None = None
        # /api/history: sampled while the main listeners serve, from whichever herder is attached
        self.history = worker_history(self._metrics_text)
        self._http = _server(
            self._switch, self.listeners, tls, "listeners", served, background=(self.history,)
        )
        # admin.listeners: unset, /admin/* on the main listeners; empty, nowhere; else only
        # on these, outside the REST extensions (as in Kafka: basic auth does not guard them).
        self.admin_listeners: list[Listener] | None = None
        self._admin_switch = _Switch()
        self._admin_http: AsgiServer | None = None
        if admin_listeners is not None:
            items = [admin_listeners] if isinstance(admin_listeners, str) else admin_listeners
            self.admin_listeners = [parse_listener(i.strip()) for i in items if i.strip()]
            if self.admin_listeners:
                self._admin_http = _server(self._admin_switch, self.admin_listeners, admin_tls,
                                           "admin.listeners", served)  # fmt: skip
        if herder is not None:
            self.attach(herder)

    def attach(self, herder: Herder) -> None:
        """Serve the REST API of *herder* from now on."""
        self.herder = herder
        surface: Surface = "all" if self.admin_listeners is None else "api"
        app: Any = create_app(herder, loggers=self._loggers, surface=surface, history=self.history)
        if self._credentials is not None:
            app = BasicAuthMiddleware(app, self._credentials)
        self._switch.app = app
        self._admin_switch.app = create_app(herder, loggers=self._loggers, surface="admin")

    def _metrics_text(self) -> bytes:
        return self.herder.metrics_exposition() if self.herder is not None else b""

    # --- lifecycle -----------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> None:
        """Bind every listener and serve; returns once the server accepts connections."""
        log.info("Starting REST server")
        try:
            self._http.start(timeout)
            if self._admin_http is not None:
                self._admin_http.start(timeout)
        except (OSError, RuntimeError) as exc:
            self._http.stop()
            raise ConnectError(f"Unable to initialize REST server: {exc}") from exc
        log.info("REST server listening at %s, advertising URL %s", self.url, self.advertised_url)
        if self.admin_url is not None:
            log.info("Admin REST endpoints (/admin/*) at %s", self.admin_url)

    def stop(self) -> None:
        """Stop accepting, let requests in flight finish, and release the ports."""
        log.info("Stopping REST server")
        if self._admin_http is not None:
            self._admin_http.stop()
        self._http.stop()
        log.info("REST server stopped")

    def __enter__(self) -> RestServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- addresses -------------------------------------------------------------------------

    @property
    def ports(self) -> list[int]:
        """The bound port of each listener (the configured ports before :meth:`start`)."""
        return self._http.ports

    @property
    def port(self) -> int:
        """The bound port of the first listener."""
        return self.ports[0]

    @property
    def url(self) -> str:
        """Where this process reaches the first listener (loopback when it binds every
        interface), e.g. ``http://localhost:8083/``."""
        first = self.listeners[0]
        return _url(first.protocol, first.host or "localhost", self.port)

    @property
    def admin_url(self) -> str | None:
        """Where this process reaches the first admin listener (None without one)."""
        if self._admin_http is None or not self.admin_listeners:
            return None
        first = self.admin_listeners[0]
        return _url(first.protocol, first.host or "localhost", self._admin_http.ports[0])

    @property
    def advertised_url(self) -> str:
        """The URL given to other workers (see :func:`advertised_url`)."""
        if self._advertised_url:
            return self._advertised_url
        host_name, port, listener = self._advertised
        return advertised_url(
            self._listeners_config,
            bound_ports=self.ports,
            advertised_host=host_name,
            advertised_port=port,
            advertised_listener=listener,
        )

    @property
    def worker_id(self) -> str:
        """``host:port`` of :attr:`advertised_url`."""
        return worker_id(self.advertised_url)
