"""One TCP connection to one Kafka broker: requests out, responses back, in order.

Requests may be pipelined (several sent before their responses are read, as Kafka allows
on one connection); responses come back in the order the requests went out. The API
versions are negotiated once, with ApiVersions v0, which every Kafka answers; on a TLS or
SASL listener the socket is wrapped and the client authenticated first
(:class:`~seaway.kafka.security.ClientSecurity`).
"""

from __future__ import annotations

import itertools
import socket
from collections import deque
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from kio import index

from seaway.kafka.errors import KafkaClientError
from seaway.kafka.security import PLAINTEXT, ClientSecurity
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import decode_response, encode_request

__all__ = ["Connection", "KafkaConnectionError", "Pending", "parse_servers"]

_SIZE_BYTES: Final = 4


load_request_schema = cache(index.load_request_schema)
load_response_schema = cache(index.load_response_schema)


class KafkaConnectionError(KafkaClientError, ConnectionError):
    """The connection to a broker failed or closed; what was in flight may be lost."""


def parse_servers(bootstrap_servers: str) -> list[tuple[str, int]]:
    """``host:port`` pairs of a ``bootstrap.servers`` list; ValueError naming a bad one."""
    servers = []
    for item in bootstrap_servers.split(","):
        item = item.strip()
        if not item:
            continue
        host, _, port = item.rpartition(":")
        if "://" in host:  # PLAINTEXT://host:port, as listeners are written
            host = host.split("://", 1)[1]
        if not host or not port.isdigit():
            raise ValueError(
                f"bootstrap.servers entry {item!r} is not host:port (e.g. localhost:9092)"
            )
        servers.append((host.strip("[]"), int(port)))
    if not servers:
        raise ValueError("bootstrap.servers is empty: give at least one host:port")
    return servers


@dataclass(frozen=True, slots=True)
class Pending:
    """A request sent whose response is still to be read."""

    correlation_id: int
    response_class: type


class Connection:
    """A blocking connection to ``host:port`` with negotiated API versions."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        client_id: str = "seaway",
        timeout_s: float = 30.0,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.host, self.port = host, port
        self.client_id = client_id
        self.timeout_s = timeout_s
        try:
            sock = socket.create_connection((host, port), timeout=timeout_s)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._sock = security.wrap(sock, host)
        except OSError as error:  # ssl.SSLError included
            raise KafkaConnectionError(f"cannot connect to {host}:{port} "
                                       f"({security.protocol}): {error}") from None  # fmt: skip
        self._tls = security.tls
        self._ids = itertools.count(1)
        self._in_flight: deque[Pending] = deque()
        self._early: dict[int, Any] = {}
        self.versions: dict[int, tuple[int, int]] = {}
        body = self.request(load_request_schema(ApiKey.API_VERSIONS, 0)())
        if body.error_code != ErrorCode.none:
            raise KafkaError(body.error_code, f"ApiVersions from {host}:{port}")
        self.versions = {
            int(a.api_key): (int(a.min_version), int(a.max_version)) for a in body.api_keys
        }
        try:
            security.authenticate(self)
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"Connection({self.host}:{self.port})"

    @property
    def closed(self) -> bool:
        fileno: int = self._sock.fileno()
        return fileno < 0

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    def version(self, api_key: int, lowest: int, highest: int) -> int:
        """The highest version of *api_key* in ``[lowest, highest]`` the broker supports."""
        if not self.versions:  # during the ApiVersions exchange itself
            return lowest
        low, high = self.versions.get(api_key, (0, -1))
        chosen = min(high, highest)
        if chosen < max(low, lowest):
            raise KafkaError(
                ErrorCode.unsupported_version,
                f"broker {self.host}:{self.port} supports API {api_key} versions "
                f"{low}-{high}, Seaway's client needs {lowest}-{highest} (Kafka 0.11 or newer)",
            )
        return chosen

    def request_class(self, api_key: int, lowest: int, highest: int) -> type:
        """The kio request entity of the version :meth:`version` picks."""
        return load_request_schema(api_key, self.version(api_key, lowest, highest))

    def send(self, request: Any) -> Pending:
        """Send *request*; read its response later with :meth:`receive`."""
        correlation_id = next(self._ids)
        chunks = encode_request(correlation_id, self.client_id, request)
        try:
            self._send_all(chunks)
        except OSError as error:
            self.close()
            raise KafkaConnectionError(f"send to {self.host}:{self.port} failed: {error}") from None
        pending = Pending(
            correlation_id, load_response_schema(request.__api_key__, request.__version__)
        )
        self._in_flight.append(pending)
        return pending

    def _send_all(self, chunks: list[Any]) -> None:
        views = [memoryview(c).cast("B") for c in chunks if len(c)]
        if self._tls:  # an SSL socket has no sendmsg: the views go one by one
            for view in views:
                self._sock.sendall(view)
            return
        while views:
            sent = self._sock.sendmsg(views)
            while views and sent >= len(views[0]):
                sent -= len(views[0])
                views.pop(0)
            if sent:
                views[0] = views[0][sent:]

    def receive(self, pending: Pending) -> Any:
        """The response to *pending* (responses to requests sent before it are kept)."""
        if pending.correlation_id in self._early:
            return self._early.pop(pending.correlation_id)
        while self._in_flight:
            head = self._in_flight.popleft()
            payload = self._read_frame()
            correlation_id, body = decode_response(head.response_class, payload)
            if correlation_id != head.correlation_id:
                self.close()
                raise KafkaConnectionError(
                    f"{self.host}:{self.port} answered correlation id {correlation_id}, "
                    f"expected {head.correlation_id}"
                )
            if head is pending:
                return body
            self._early[head.correlation_id] = body
        raise KafkaConnectionError(f"no request {pending.correlation_id} in flight")

    def request(self, request: Any) -> Any:
        """Send *request* and wait for its response."""
        return self.receive(self.send(request))

    def _read_exactly(self, n: int) -> bytearray:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        try:
            while got < n:
                count = self._sock.recv_into(view[got:])
                if not count:
                    raise KafkaConnectionError(f"{self.host}:{self.port} closed the connection")
                got += count
        except OSError as error:
            self.close()
            if isinstance(error, KafkaConnectionError):
                raise
            raise KafkaConnectionError(
                f"read from {self.host}:{self.port} failed: {error}"
            ) from None
        return buf

    def _read_frame(self) -> memoryview:
        size = int.from_bytes(self._read_exactly(_SIZE_BYTES), "big", signed=True)
        if size < 0:
            self.close()
            raise KafkaConnectionError(f"{self.host}:{self.port} sent a frame of size {size}")
        return memoryview(self._read_exactly(size)).toreadonly()

    def close(self) -> None:
        self._in_flight.clear()
        self._early.clear()
        try:
            self._sock.close()
        except OSError:
            pass
