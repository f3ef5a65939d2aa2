"""HTTP to Elasticsearch 7-9 and OpenSearch 1-3: the few REST calls the sink makes.

Why plain urllib3 and not a vendor client: Elastic's Python clients 8 and 9 refuse any server
that does not answer with ``X-Elastic-Product: Elasticsearch`` (OpenSearch never does) and send
``compatible-with=<major>`` media types that OpenSearch does not know and that Elasticsearch 8
rejects for 9; opensearch-py checks nothing but is a fork of the 7.x client that no longer
follows Elasticsearch. Both are built on urllib3, which gives what the sink needs (a
thread-safe pool of keep-alive connections per node, timeouts, TLS) without a product check.
The sink speaks the REST API the two families share: typeless ``_bulk`` with
``application/x-ndjson``, ``HEAD``/``PUT /<index>``, ``GET``/``PUT /<index>/_mapping``.

Every call is retried as Confluent's ``RetryUtil`` does: ``max.retries`` more attempts after
any failure of the whole request (connection refused, a timeout, any status that is not 2xx,
429 and 5xx included), waiting a random time below ``retry.backoff.ms * 2^attempt`` in between.
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import random
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar
from urllib.parse import quote, urlsplit

import urllib3

from seaway.connect.api.errors import ConnectError
from seaway.connectors.elasticsearch.settings import SinkSettings, TlsFiles
from seaway.security.tls import TlsSettings

__all__ = ["SearchClient", "SearchError", "ServerInfo", "server_info", "supported"]

log = logging.getLogger(__name__)

T = TypeVar("T")

_MAX_BACKOFF_MS: Final = 24 * 60 * 60 * 1000
_NDJSON: Final = "application/x-ndjson"
_JSON: Final = "application/json"


class SearchError(ConnectError):
    """A request the server did not answer with 2xx (or could not be sent)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ServerInfo:
    """What ``GET /`` says of the server."""

    distribution: str  # "elasticsearch" or "opensearch"
    version: tuple[int, ...]

    @property
    def major(self) -> int:
        return self.version[0] if self.version else 0


def server_info(body: dict[str, Any]) -> ServerInfo:
    """The flavour and version from a ``GET /`` answer (OpenSearch reports
    ``version.distribution``; Elasticsearch does not)."""
    version = body.get("version") or {}
    number = str(version.get("number", "0"))
    parts = tuple(int(p) for p in number.split("-")[0].split(".") if p.isdigit())
    tagline = str(body.get("tagline", ""))
    opensearch = version.get("distribution") == "opensearch" or "OpenSearch" in tagline
    return ServerInfo("opensearch" if opensearch else "elasticsearch", parts)


def supported(info: ServerInfo, url: str) -> ServerInfo:
    """*info* if the sink can write to that server (Elasticsearch 7 or later, OpenSearch),
    else a ConnectError naming it."""
    if info.distribution == "elasticsearch" and info.major < 7:
        raise ConnectError(
            f"Elasticsearch {'.'.join(map(str, info.version))} at {url} is not supported: "
            "the sink needs Elasticsearch 7 or later, or OpenSearch"
        )
    return info


class SearchClient:
    """The sink's connection to one cluster: the nodes of ``connection.url`` in turn."""

    def __init__(self, settings: SinkSettings) -> None:
        self.settings = settings
        self.urls = [url.rstrip("/") for url in settings.urls]
        self._next = 0
        self._lock = threading.Lock()
        timeout = urllib3.Timeout(
            connect=settings.connection_timeout_ms / 1000, read=settings.read_timeout_ms / 1000
        )
        options: dict[str, Any] = {
            "num_pools": max(len(self.urls), 1),
            "maxsize": settings.max_in_flight_requests + 1,
            "timeout": timeout,
            "retries": False,  # retried here, as Confluent does (RetryUtil)
            "ssl_context": _ssl_context(settings.tls) if _uses_tls(settings) else None,
        }
        self.pool: urllib3.PoolManager
        if settings.proxy:
            auth = (f"{settings.proxy_username}:{settings.proxy_password or ''}"
                    if settings.proxy_username else None)  # fmt: skip
            headers = urllib3.make_headers(proxy_basic_auth=auth) if auth else None
            self.pool = urllib3.ProxyManager(settings.proxy, proxy_headers=headers, **options)
        else:
            self.pool = urllib3.PoolManager(**options)
        self.headers: dict[str, str] = {"Accept": _JSON, "User-Agent": "seaway-search-sink"}
        if settings.username is not None:
            token = f"{settings.username}:{settings.password or ''}".encode()
            self.headers["Authorization"] = "Basic " + base64.b64encode(token).decode()
        self._info: ServerInfo | None = None

    def close(self) -> None:
        self.pool.clear()

    # --- the calls -------------------------------------------------------------------------

    def info(self) -> ServerInfo:
        """The server's flavour and version (asked once); Elasticsearch before 7 is refused."""
        if self._info is None:
            _, body = self.call("GET", "/", description="get the server's version")
            self._info = supported(server_info(body or {}), self.urls[0])
        return self._info

    def index_exists(self, index: str) -> bool:
        status, _ = self.call(
            "HEAD",
            f"/{quote(index)}",
            ok=(200, 404),
            description=f"check if index '{index}' exists",
        )
        return status == 200

    def create_index(self, index: str) -> None:
        """``PUT /<index>``; an index another task just created is fine."""
        status, body = self.call(
            "PUT", f"/{quote(index)}", ok=(200, 201, 400), description=f"create index '{index}'"
        )
        if status == 400 and _error_type(body) != "resource_already_exists_exception":
            raise SearchError(f"Creating index '{index}' failed: {_reason(body)}", status)

    def create_data_stream(self, name: str) -> None:
        """``PUT /_data_stream/<name>``; one that exists already is fine."""
        status, body = self.call(
            "PUT", f"/_data_stream/{quote(name)}", ok=(200, 201, 400),
            description=f"create data stream '{name}'",
        )  # fmt: skip
        if status == 400 and _error_type(body) != "resource_already_exists_exception":
            raise SearchError(f"Creating data stream '{name}' failed: {_reason(body)}", status)

    def has_mapping(self, index: str) -> bool:
        """Whether *index* has field mappings already (a fresh index has none)."""
        _, body = self.call(
            "GET", f"/{quote(index)}/_mapping", description=f"get mapping for index '{index}'"
        )
        for found in (body or {}).values():
            if (found.get("mappings") or {}).get("properties"):
                return True
        return False

    def put_mapping(self, index: str, mapping: bytes) -> None:
        """``PUT /<index>/_mapping`` with *mapping*, the JSON body."""
        self.call(
            "PUT", f"/{quote(index)}/_mapping", mapping,
            description=f"create mapping for index '{index}'",
        )  # fmt: skip

    def bulk(self, body: bytes) -> dict[str, Any]:
        """``POST /_bulk``: the whole answer when an item failed, else ``{"errors": False}``
        (the items of a successful request are not parsed)."""
        _, answer = self.call(
            "POST", "/_bulk", body, content_type=_NDJSON, parse=_bulk_answer,
            description="execute bulk request",
        )  # fmt: skip
        return answer or {}

    # --- one request, retried --------------------------------------------------------------

    def call(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        ok: tuple[int, ...] = (200, 201),
        content_type: str = _JSON,
        parse: Callable[[bytes], Any] | None = None,
        description: str,
    ) -> tuple[int, Any]:
        """Send a request until a node answers with a status in *ok*, retrying as
        ``max.retries``/``retry.backoff.ms`` allow; ``(status, parsed body)``."""
        return self.retrying(
            description, lambda: self._send(method, path, body, ok, content_type, parse)
        )

    def retrying(self, description: str, attempt: Callable[[], T]) -> T:
        """Run *attempt* up to ``max.retries + 1`` times (Confluent's RetryUtil)."""
        retries = self.settings.max_retries
        for n in range(retries + 1):
            try:
                return attempt()
            except Exception as error:
                if n == retries:
                    raise SearchError(
                        f"Failed to {description} due to '{error}' after {n + 1} attempt(s)",
                        getattr(error, "status", None),
                    ) from error
                wait = _backoff_ms(self.settings.retry_backoff_ms, n)
                log.warning("Failed to %s due to '%s' (attempt %d of %d); retrying in %d ms",
                            description, error, n + 1, retries + 1, wait)  # fmt: skip
                time.sleep(wait / 1000)
        raise AssertionError("unreachable")

    def _send(
        self,
        method: str,
        path: str,
        body: bytes | None,
        ok: tuple[int, ...],
        content_type: str,
        parse: Callable[[bytes], Any] | None,
    ) -> tuple[int, Any]:
        url = self._node() + path
        headers = dict(self.headers)
        if body is not None:
            headers["Content-Type"] = content_type
            if self.settings.compression:
                body = gzip.compress(body, compresslevel=1)
                headers["Content-Encoding"] = "gzip"
        response = self.pool.request(method, url, body=body, headers=headers, preload_content=True)
        data = response.data
        if response.status not in ok:
            reason = _reason(_json(data)) or repr(data[:500])
            raise SearchError(f"{method} {path} answered {response.status}: {reason}",
                              response.status)  # fmt: skip
        if method == "HEAD" or not data:
            return response.status, None
        return response.status, (parse or _json)(data)

    def _node(self) -> str:
        """The nodes of ``connection.url`` in turn."""
        with self._lock:
            url = self.urls[self._next % len(self.urls)]
            self._next += 1
        return url


def _backoff_ms(base_ms: int, attempt: int) -> int:
    """Uniformly random below ``base_ms * 2^attempt``, at most a day (RetryUtil)."""
    bound = min(base_ms << min(attempt, 40), _MAX_BACKOFF_MS)
    return random.randint(0, max(bound, 1) - 1) if bound > 0 else 0


def _json(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _bulk_answer(data: bytes) -> dict[str, Any]:
    """A bulk answer, parsed only when an item failed: Elasticsearch and OpenSearch both write
    ``errors`` before ``items``, so the head says whether the items need reading."""
    head = data[:200].replace(b" ", b"")
    if b'"errors":false' in head.split(b'"items"', 1)[0]:
        return {"errors": False}
    return dict(json.loads(data))


def _error_type(body: Any) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    return str(error.get("type", "")) if isinstance(error, dict) else ""


def _reason(body: Any) -> str:
    """The server's error of an answer: ``<type>: <reason>``."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return f"{error.get('type', 'error')}: {error.get('reason', '')}"
    return "" if error is None else str(error)


def _uses_tls(settings: SinkSettings) -> bool:
    return settings.tls is not None or any(urlsplit(url).scheme == "https" for url in settings.urls)


def _ssl_context(files: TlsFiles | None) -> ssl.SSLContext:
    """A client context from Kafka-style truststore/keystore settings (PEM or PKCS12)."""
    if files is None:
        return ssl.create_default_context()
    values = {
        "ssl.truststore.location": files.truststore_location,
        "ssl.truststore.password": files.truststore_password,
        "ssl.truststore.type": files.truststore_type,
        "ssl.keystore.location": files.keystore_location,
        "ssl.keystore.password": files.keystore_password,
        "ssl.keystore.type": files.keystore_type,
        "ssl.key.password": files.key_password,
    }
    context = TlsSettings({k: v for k, v in values.items() if v}).client_context()
    if files.trust_all:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif not files.verify_hostname:
        context.check_hostname = False
    versions = [_TLS_VERSIONS[p] for p in files.enabled_protocols if p in _TLS_VERSIONS]
    if versions:
        context.minimum_version = min(versions)
        context.maximum_version = max(versions)
    return context


_TLS_VERSIONS: Final = {
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
    "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}
