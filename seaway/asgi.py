"""Serve an ASGI app (Starlette) with uvicorn from a daemon thread.

Connect's REST API, the schema registry and the mirror's metrics endpoint are served this
way. An address is ``(host, port)``: an empty host binds every interface (IPv4 and IPv6),
port 0 a free port, known from :attr:`AsgiServer.ports` once :meth:`AsgiServer.start` has
returned. An :class:`ssl.SSLContext` (e.g. ``seaway.security.tls.TlsSettings.server_context()``)
makes every address HTTPS.

>>> from starlette.responses import PlainTextResponse
>>> with AsgiServer(PlainTextResponse("hi"), ("127.0.0.1", 0)) as server:  # doctest: +SKIP
...     urllib.request.urlopen(server.url).read()
b'hi'
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from typing import Any, Final, Protocol, Self

import uvicorn

__all__ = ["AsgiServer", "Background", "bind"]

log = logging.getLogger(__name__)

_LOOPBACK: Final = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on *host*:*port* (an empty host: every interface, IPv4 and
    IPv6); OSError when the address is taken or unknown."""
    if not host:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("", port), family=socket.AF_INET6, dualstack_ipv6=True)
        return socket.create_server(("", port))
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    return socket.create_server(address[:2], family=family)


class Background(Protocol):
    """Work that runs while a server serves (e.g. a metrics history's sampling)."""

    def start(self) -> Any: ...

    def stop(self) -> None: ...


class AsgiServer:
    """Serves *app* on *addresses* from a daemon thread named *name*; :meth:`stop` lets
    requests in flight finish for up to *shutdown_timeout_s* seconds. Each of *background*
    is started once the server accepts connections and stopped before it closes."""

    def __init__(
        self,
        app: Any,
        *addresses: tuple[str, int],
        ssl_context: ssl.SSLContext | None = None,
        name: str = "seaway-http",
        access_log: bool = False,
        shutdown_timeout_s: int = 5,
        background: Sequence[Background] = (),
    ) -> None:
        if not addresses:
            raise ValueError("AsgiServer needs an address to serve on")
        self.app = app
        self.addresses = list(addresses)
        self.ssl_context = ssl_context
        self.name = name
        self._access_log = access_log
        self._shutdown_timeout_s = shutdown_timeout_s
        self._ports = [port for _, port in addresses]
        self._sockets: list[socket.socket] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._background = tuple(background)

    def start(self, timeout_s: float = 30.0) -> Self:
        """Bind every address and serve; returns once the server accepts connections.
        Raises the bind's OSError, or RuntimeError when uvicorn does not start."""
        if self._thread is not None:
            raise RuntimeError(f"{self.name} already started")
        try:
            for host, port in self.addresses:
                self._sockets.append(bind(host, port))
        except BaseException:
            self._close_sockets()
            raise
        self._ports = [sock.getsockname()[1] for sock in self._sockets]
        config = uvicorn.Config(
            self.app,
            log_config=None,
            log_level="warning",
            access_log=self._access_log,
            lifespan="off",
            server_header=False,
            timeout_graceful_shutdown=self._shutdown_timeout_s,
        )
        if self.ssl_context is not None:  # uvicorn keeps a loaded config's context as it is
            config.load()
            config.ssl = self.ssl_context
        server = self._server = uvicorn.Server(config)
        thread = self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not start on {self.url}")
            time.sleep(0.01)
        for work in self._background:
            work.start()
        return self

    def _run(self) -> None:
        assert self._server is not None
        try:
            self._server.run(sockets=list(self._sockets))
        except BaseException:  # SystemExit included: uvicorn exits when start-up fails
            log.exception("%s failed", self.name)

    def stop(self) -> None:
        """Stop accepting, let requests in flight finish, release the ports and join."""
        for work in self._background:
            work.stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(self._shutdown_timeout_s + 5)
        self._close_sockets()
        self._server = self._thread = None

    def _close_sockets(self) -> None:
        for sock in self._sockets:
            sock.close()
        self._sockets = []

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def ports(self) -> list[int]:
        """Each address's bound port (the configured ports before :meth:`start`)."""
        return list(self._ports)

    @property
    def port(self) -> int:
        """The first address's port."""
        return self._ports[0]

    @property
    def host(self) -> str:
        """The first address's host, as configured."""
        return self.addresses[0][0]

    @property
    def url(self) -> str:
        """Where this process reaches the first address (loopback for a wildcard host),
        e.g. ``http://127.0.0.1:8081``."""
        host = _LOOPBACK.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"{'https' if self.ssl_context else 'http'}://{host}:{self.port}"
