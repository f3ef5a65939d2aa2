"""The driver's metrics endpoint: Prometheus scrapes it, the mirror sink reports to it.

A Python data source's streaming ``commit`` does not run in the driver's Python process:
Spark starts a separate Python worker for it (``python_streaming_sink_runner``), so a
module-level registry there is not the driver's. The sink's commit therefore sends each
micro-batch's merged :class:`~seaway.mirror.metrics.PartitionStats` and copied offsets to
this server as JSON (:func:`send_report`), which records them into the driver's
:class:`~seaway.mirror.metrics.MirrorMetrics`.

``GET /metrics``  Prometheus text format;  ``GET /mbeans``  the snapshot as JSON
(NaN as null);  ``POST /report``  a sink report, accepted from loopback addresses only.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import socket
import threading
import urllib.request
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

from seaway.mirror.metrics import METRICS, Key, MirrorMetrics, PartitionStats

log = logging.getLogger(__name__)

REPORT_PATH: Final = "/report"
_MAX_REPORT: Final = 64 << 20


def report_json(
    source: str,
    target: str,
    stats: Mapping[Key, PartitionStats],
    copied: Iterable[tuple[str, int, int]] = (),
) -> bytes:
    """A sink report: the batch's stats per remote topic-partition and copied offsets."""
    return json.dumps(
        {
            "source": source,
            "target": target,
            "stats": [
                {"topic": t, "partition": p, **s.to_dict()} for (t, p), s in sorted(stats.items())
            ],
            "copied": [[t, p, o] for t, p, o in copied],
        }
    ).encode()


def apply_report(registry: MirrorMetrics, payload: bytes) -> None:
    """Record a :func:`report_json` payload into *registry*."""
    report = json.loads(payload)
    source, target = str(report["source"]), str(report["target"])
    stats = {
        (str(s["topic"]), int(s["partition"])): PartitionStats.from_dict(s)
        for s in report.get("stats", [])
    }
    registry.record_source(target, stats, source_alias=source)
    registry.record_copied(
        source, target, [(str(t), int(p), int(o)) for t, p, o in report["copied"]]
    )


def send_report(
    url: str,
    source: str,
    target: str,
    stats: Mapping[Key, PartitionStats],
    copied: Iterable[tuple[str, int, int]] = (),
    timeout: float = 5.0,
) -> bool:
    """POST a report to the driver's server at *url*; metrics never fail the data: a
    failure is logged and ``False`` returned."""
    request = urllib.request.Request(
        url,
        data=report_json(source, target, stats, copied),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return 200 <= response.status < 300
    except OSError as error:
        log.warning("Could not report mirror metrics to %s: %s", url, error)
        return False


def _jsonable(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        registry = self.server.registry
        if self.path.split("?")[0] == "/metrics":
            body = registry.prometheus().encode()
            self._reply(200, body, "text/plain; version=0.0.4; charset=utf-8")
        elif self.path.split("?")[0] == "/mbeans":
            snapshot = {
                name: {k: _jsonable(v) for k, v in attrs.items()}
                for name, attrs in registry.snapshot().items()
            }
            self._reply(200, json.dumps(snapshot, sort_keys=True).encode(), "application/json")
        else:
            self._reply(404, b"GET /metrics or /mbeans\n", "text/plain")

    def do_POST(self) -> None:
        if self.path != REPORT_PATH:
            self._reply(404, b"POST /report\n", "text/plain")
            return
        if not self._from_this_host():
            self._reply(403, b"reports are accepted from this host only\n", "text/plain")
            return
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= _MAX_REPORT:
            self._reply(400, b"a JSON report body is required\n", "text/plain")
            return
        try:
            apply_report(self.server.registry, self.rfile.read(length))
        except (ValueError, KeyError, TypeError) as error:
            self._reply(400, f"bad report: {error}\n".encode(), "text/plain")
            return
        self._reply(204, b"", "text/plain")

    def _from_this_host(self) -> bool:
        client = str(self.client_address[0]).split("%")[0]
        address = ipaddress.ip_address(client)
        mapped = getattr(address, "ipv4_mapped", None)
        return (mapped or address).is_loopback or client == str(self.server.server_address[0])

    def _reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("metrics server: %s", format % args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    registry: MirrorMetrics


class _Server6(_Server):
    address_family = socket.AF_INET6


class MetricsServer:
    """Serves *registry* over HTTP on *host*:*port* (0: a free port) in a daemon thread."""

    def __init__(
        self, registry: MirrorMetrics = METRICS, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> MetricsServer:
        try:
            kind = _Server6 if ":" in self.host else _Server
            server = kind((self.host, self.port), _Handler)
        except OSError as error:
            raise OSError(
                f"Cannot serve mirror metrics on {self.host}:{self.port} ({error}); "
                "set seaway.metrics.port to a free port (0 picks one)"
            ) from error
        server.registry = self.registry
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="seaway-metrics-server",
            daemon=True,
        )
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"

    @property
    def report_url(self) -> str:
        """What the sink's commit POSTs to (put it in the sink spec)."""
        return self.url + REPORT_PATH

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> MetricsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["MetricsServer", "apply_report", "report_json", "send_report"]
