"""A real OpenSearch-compatible server and two HTTP proxies for the search sink's tests.

``SearchServer`` runs ``osmem-server`` (the ``osmem-server`` package of the test extra: an
in-memory OpenSearch 3.x emulation, one Go binary) on a free port of 127.0.0.1. It has
neither TLS nor authentication, so ``TlsProxy`` puts both in front of it (HTTPS with the
certificates of tests/broker/certs.py, optionally client certificates and HTTP Basic
authentication), and ``FaultProxy`` makes it unreachable or answer 429/503 on demand, for
the retries. Everything runs on 127.0.0.1 and stops on exit; the proxies' threads are
daemons, and closing a proxy closes its open connections too.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, NamedTuple, Self

from tests.broker.certs import Certs, make_certs

__all__ = ["FaultProxy", "ProxiedRequest", "SearchServer", "TlsProxy", "TlsStores",
           "http_request", "make_stores"]  # fmt: skip

_START_TIMEOUT = 30.0
# Hop-by-hop headers (RFC 9110 7.6.1), not forwarded; Content-Length is set anew.
_HOP = frozenset(
    ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
     "transfer-encoding", "upgrade", "content-length", "host"]
)  # fmt: skip


class SearchServer:
    """``osmem-server --no-ja`` in a temporary folder (its stdout and stderr logs), on
    127.0.0.1: *port* 0 takes a free one at the first start, and a restart keeps it (with no
    data: the server keeps everything in memory). A context manager."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.folder: Path | None = None
        self._paused = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None, "not started"
        return self.process.pid

    def __enter__(self) -> SearchServer:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        try:
            from osmem_server import resolve_binary
        except ImportError:
            raise RuntimeError("osmem-server is missing: pip install -e '.[test]'") from None
        self.folder = Path(tempfile.mkdtemp(prefix="seaway-search-"))
        out, err = self.folder / "stdout.log", self.folder / "stderr.log"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            # stdin's EOF and --parent-pid stop the server when this process dies.
            self.process = subprocess.Popen(
                [resolve_binary(), "--addr", f"127.0.0.1:{self.port}", "--no-ja",
                 "--parent-pid", str(os.getpid())],
                stdin=subprocess.PIPE, stdout=stdout, stderr=stderr,
            )  # fmt: skip
        self._paused = False
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            for line in out.read_text(errors="replace").splitlines():
                try:
                    ready = json.loads(line)
                except ValueError:
                    continue
                if isinstance(ready, dict) and "url" in ready:
                    self.port = urllib.parse.urlsplit(ready["url"]).port or self.port
                    return
            if self.process.poll() is not None:
                raise RuntimeError(f"osmem-server exited with {self.process.returncode}:\n"
                                   f"{err.read_text(errors='replace')}")  # fmt: skip
            time.sleep(0.01)
        raise RuntimeError(f"osmem-server was not ready within {_START_TIMEOUT} s:\n"
                           f"{err.read_text(errors='replace')}")  # fmt: skip

    def stop(self) -> None:
        """Stop the server (stdin's EOF, then SIGTERM, then SIGKILL) and remove its folder."""
        process = self.process
        if process is not None and process.poll() is None:
            self.resume()
            try:
                assert process.stdin is not None
                process.stdin.close()
                process.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
        self._cleanup()

    def kill(self) -> None:
        """``kill -9``: the data is gone; ``start()`` serves again on the same port."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        self._cleanup()

    def pause(self) -> None:
        """SIGSTOP: connections are still accepted (by the kernel), requests go unanswered
        and time out; the data stays."""
        os.kill(self.pid, signal.SIGSTOP)
        self._paused = True

    def resume(self) -> None:
        """SIGCONT: the server answers again, queued requests included."""
        if self._paused and self.process is not None and self.process.poll() is None:
            os.kill(self.pid, signal.SIGCONT)
        self._paused = False

    def _cleanup(self) -> None:
        if self.process is not None and self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        self._paused = False
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def request(self, method: str, path: str, body: Any = None, *,
                headers: dict[str, str] | None = None, timeout: float = 10.0
                ) -> tuple[int, Any]:  # fmt: skip
        """``(status, decoded JSON)`` of one request (the text when not JSON, None when
        empty), whatever the status. A dict or list *body* is sent as JSON, str and bytes
        as they are (as NDJSON unless *headers* say otherwise)."""
        return http_request(method, self.url + path, body, headers=headers, timeout=timeout)

    def bulk(self, *lines: dict[str, Any], path: str = "/_bulk") -> tuple[int, Any]:
        """``POST /_bulk`` with *lines* (actions and sources) as NDJSON."""
        return self.request("POST", path, "".join(json.dumps(line) + "\n" for line in lines))


def http_request(method: str, url: str, body: Any = None, *,
                 headers: dict[str, str] | None = None, timeout: float = 10.0,
                 context: ssl.SSLContext | None = None) -> tuple[int, Any]:  # fmt: skip
    """``(status, decoded JSON)`` of a request with urllib (see ``SearchServer.request``)."""
    if isinstance(body, dict | list):
        data: bytes | None = json.dumps(body).encode()
        kind = "application/json"
    else:
        data = body.encode() if isinstance(body, str) else body
        kind = "application/x-ndjson"
    sent = {"Content-Type": kind} if data is not None else {}
    sent.update(headers or {})
    request = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    if not text:
        return status, None
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text.decode(errors="replace")


class ProxiedRequest(NamedTuple):
    """A request a proxy answered: what it answered, and whether it forwarded it."""

    method: str
    path: str
    status: int
    forwarded: bool
    headers: dict[str, str]


class _Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    block_on_close = False

    def __init__(self, proxy: _Proxy, port: int) -> None:
        self.proxy = proxy
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A failed handshake, a client gone: counted, quietly.
        self.proxy.connection_errors += 1
        self.proxy.last_error = repr(sys.exc_info()[1])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    timeout = 30  # an idle connection's lifetime
    server: _Server

    def setup(self) -> None:
        proxy = self.server.proxy
        self.request.settimeout(self.timeout)
        if proxy.context is not None:  # the handshake here, in the connection's thread
            self.request = proxy.context.wrap_socket(self.request, server_side=True)
        proxy._track(self.request, True)
        super().setup()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.proxy._track(self.request, False)
            self.request.close()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        self.server.proxy._serve(self)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _serve

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def answer(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response_only(status)
        for name, value in headers:
            if name.lower() not in _HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def _error(status: int, kind: str, reason: str) -> bytes:
    error = {"root_cause": [{"type": kind, "reason": reason}], "type": kind, "reason": reason}
    return json.dumps({"error": error, "status": status}).encode()


class _Proxy:
    """A reverse proxy to *backend* on 127.0.0.1 (*port* 0: a free one) that records what it
    answers in ``requests``; a context manager. One backend connection per request."""

    context: ssl.SSLContext | None = None
    scheme = "http"

    def __init__(self, backend: str, port: int = 0, backend_timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(backend)
        self.backend = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.backend_timeout = backend_timeout
        self.requests: list[ProxiedRequest] = []
        self.connection_errors = 0  # connections dropped by an error (a failed handshake...)
        self.last_error = ""
        self.port = port
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        server = _Server(self, self.port)
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True,
                                  name=f"{type(self).__name__}-{self.port}")  # fmt: skip
        self._server, self._thread = server, thread
        thread.start()

    def close(self) -> None:
        """Stop listening and close the open connections."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

    @property
    def accepting(self) -> bool:
        return self._server is not None

    def _track(self, connection: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _record(self, handler: _Handler, status: int, forwarded: bool) -> None:
        seen = ProxiedRequest(handler.command, handler.path, status, forwarded,
                              dict(handler.headers.items()))  # fmt: skip
        with self._lock:
            self.requests.append(seen)

    def _intercept(self, handler: _Handler, body: bytes) -> tuple[int, bytes, list[Any]] | None:
        """An answer instead of the backend's (None: forward)."""
        return None

    def _serve(self, handler: _Handler) -> None:
        body = handler.read_body()
        answer = self._intercept(handler, body)
        if answer is not None:
            status, data, headers = answer
            self._record(handler, status, False)
            handler.answer(status, data, [("Content-Type", "application/json"), *headers])
            return
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP}
        backend = http.client.HTTPConnection(*self.backend, timeout=self.backend_timeout)
        try:
            backend.request(handler.command, handler.path, body or None, headers)
            response = backend.getresponse()
            status, data = response.status, response.read()
            reply = response.getheaders()
        except TimeoutError:
            status, data = 504, _error(504, "gateway_timeout", "the backend did not answer")
            reply = [("Content-Type", "application/json")]
        except (OSError, http.client.HTTPException) as error:
            status, data = 502, _error(502, "bad_gateway", f"the backend: {error}")
            reply = [("Content-Type", "application/json")]
        finally:
            backend.close()
        self._record(handler, status, True)
        if handler.command == "HEAD":  # the backend's Content-Length, no body
            handler.send_response_only(status)
            for name, value in reply:
                if name.lower() not in _HOP or name.lower() == "content-length":
                    handler.send_header(name, value)
            handler.end_headers()
            return
        handler.answer(status, data, reply)


@dataclass(frozen=True)
class TlsStores:
    """The test certificates as Kafka-style stores (PKCS12 ones with ``password``)."""

    certs: Certs
    truststore_p12: Path  # the CA alone
    keystore_p12: Path  # the client's key and certificate ("alice")
    keystore_pem: Path  # the same as one PEM file (ssl.keystore.type=PEM)
    password: str = "changeit"

    def ssl_config(self, store_type: str = "PEM", *, client: bool = False,
                   prefix: str = "elastic.https.") -> dict[str, str]:  # fmt: skip
        """``<prefix>ssl.truststore.*`` (and with *client*, ``ssl.keystore.*``) settings that
        trust the proxy (and present the client certificate), as PEM or PKCS12 stores."""
        pem = store_type.upper() == "PEM"
        truststore = self.certs.ca if pem else self.truststore_p12
        config = {"ssl.truststore.type": "PEM" if pem else "PKCS12",
                  "ssl.truststore.location": str(truststore)}  # fmt: skip
        if not pem:
            config["ssl.truststore.password"] = self.password
        if client:
            config["ssl.keystore.type"] = "PEM" if pem else "PKCS12"
            config["ssl.keystore.location"] = str(self.keystore_pem if pem else self.keystore_p12)
            if not pem:
                config["ssl.keystore.password"] = self.password
        return {prefix + key: value for key, value in config.items()}

    def client_context(self, client: bool = False) -> ssl.SSLContext:
        """A Python client's context trusting the CA (with the client certificate)."""
        context = ssl.create_default_context(cafile=str(self.certs.ca))
        if client:
            context.load_cert_chain(self.certs.client_cert, self.certs.client_key)
        return context


def make_stores(folder: Path, password: str = "changeit") -> TlsStores:
    """tests/broker/certs.py's certificates in *folder*, plus PKCS12 stores and a PEM
    keystore of the client certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import (
        BestAvailableEncryption,
        load_pem_private_key,
        pkcs12,
    )

    certs = make_certs(folder)
    ca = x509.load_pem_x509_certificate(certs.ca.read_bytes())
    key = load_pem_private_key(certs.client_key.read_bytes(), None)
    cert = x509.load_pem_x509_certificate(certs.client_cert.read_bytes())
    encryption = BestAvailableEncryption(password.encode())
    truststore, keystore = folder / "truststore.p12", folder / "keystore.p12"
    truststore.write_bytes(pkcs12.serialize_key_and_certificates(
        b"ca", None, None, [ca], encryption))  # fmt: skip
    keystore.write_bytes(pkcs12.serialize_key_and_certificates(
        b"alice", key, cert, [ca], encryption))  # fmt: skip
    keystore_pem = folder / "keystore.pem"
    keystore_pem.write_bytes(certs.client_key.read_bytes() + certs.client_cert.read_bytes())
    return TlsStores(certs, truststore, keystore, keystore_pem, password)


class TlsProxy(_Proxy):
    """HTTPS (and, with *users*, HTTP Basic authentication) in front of *backend*: the
    server certificate is for localhost and 127.0.0.1, signed by the test CA (``stores``);
    *client_auth* requires a client certificate the CA signed. Unauthenticated requests get
    Elasticsearch's 401 with ``WWW-Authenticate: Basic``. *tls* False: authentication only,
    over plain HTTP."""

    def __init__(self, backend: str, *, users: dict[str, str] | None = None,
                 client_auth: bool = False, tls: bool = True, port: int = 0,
                 backend_timeout: float = 30.0) -> None:  # fmt: skip
        super().__init__(backend, port, backend_timeout)
        self.users = users
        self._folder = Path(tempfile.mkdtemp(prefix="seaway-tls-proxy-"))
        self.stores = make_stores(self._folder)
        if tls:
            self.scheme = "https"
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(self.stores.certs.server)
            if client_auth:
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(self.stores.certs.ca)
            self.context = context

    def close(self) -> None:
        super().close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def _intercept(self, handler: _Handler, body: bytes) -> tuple[int, bytes, list[Any]] | None:
        if self.users is None:
            return None
        scheme, _, encoded = handler.headers.get("Authorization", "").partition(" ")
        user = None
        if scheme.lower() == "basic":
            try:
                user, _, password = base64.b64decode(encoded).decode().partition(":")
            except ValueError:
                user = password = ""
            if self.users.get(user) == password:
                return None
        reason = (
            f"unable to authenticate user [{user}] for REST request [{handler.path}]"
            if user is not None
            else f"missing authentication credentials for REST request [{handler.path}]"
        )
        challenge = 'Basic realm="security" charset="UTF-8"'
        return 401, _error(401, "security_exception", reason), [("WWW-Authenticate", challenge)]


class FaultProxy(_Proxy):
    """Plain HTTP in front of *backend*, with faults switched on at run time: ``refuse``
    (connection refused for a while) and ``fail_next`` (error answers, not forwarded)."""

    def __init__(self, backend: str, *, port: int = 0, backend_timeout: float = 30.0) -> None:
        super().__init__(backend, port, backend_timeout)
        self._failures: list[tuple[int, bytes]] = []
        self._timer: threading.Timer | None = None

    def fail_next(self, n: int = 1, status: int = 503, body: Any = None) -> None:
        """Answer the next *n* requests with *status* and *body* (JSON if not bytes or str;
        by default Elasticsearch's error for the status) without forwarding them."""
        if body is None:
            kind = "es_rejected_execution_exception" if status == 429 else "fault_injected"
            data = _error(status, kind, f"injected by FaultProxy: {status}")
        elif isinstance(body, bytes | str):
            data = body.encode() if isinstance(body, str) else body
        else:
            data = json.dumps(body).encode()
        with self._lock:
            self._failures.extend([(status, data)] * n)

    def refuse(self, seconds: float) -> None:
        """Stop listening now (and close open connections): connections are refused, until
        the proxy listens again on the same port *seconds* later. Returns at once."""
        if self._timer is not None:
            self._timer.cancel()
        super().close()
        self._timer = threading.Timer(seconds, self._listen_again)
        self._timer.daemon = True
        self._timer.start()

    def wait_accepting(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.accepting:
            if time.monotonic() > deadline:
                raise TimeoutError(f"not listening again within {timeout} s")
            time.sleep(0.01)

    def _listen_again(self) -> None:
        with self._lock:  # not when closed or refused again meanwhile
            if self._timer is threading.current_thread():
                self._timer = None
                self.start()

    def close(self) -> None:
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        super().close()

    def _intercept(self, handler: _Handler, body: bytes) -> tuple[int, bytes, list[Any]] | None:
        with self._lock:
            if not self._failures:
                return None
            status, data = self._failures.pop(0)
        return status, data, []
