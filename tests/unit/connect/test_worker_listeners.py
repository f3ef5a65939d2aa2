"""The worker's REST listeners: Kafka 2.8's deprecated ``rest.port`` and ``rest.host.name``
honoured when ``listeners`` is not set (``RestServer.parseListeners``), with one warning."""

from __future__ import annotations

import logging
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from seaway.connect.assembly import standalone_worker
from seaway.connect.runtime.worker_config import WorkerConfig

LOGGER = "seaway.connect.runtime.worker_config"


@pytest.mark.parametrize(
    ("props", "listeners", "warned"),
    [
        ({}, ["http://:8083"], None),
        ({"rest.port": "8080"}, ["http://:8080"], "set listeners=http://:8080 instead"),
        ({"rest.host.name": "h"}, ["http://h:8083"], "set listeners=http://h:8083 instead"),
        (
            {"rest.host.name": "h", "rest.port": "9"},
            ["http://h:9"],
            "rest.host.name and rest.port",
        ),
        (
            {"rest.port": "8080", "listeners": "http://:9000"},
            ["http://:9000"],
            "rest.port ignored: listeners is set",
        ),
        ({"listeners": "http://a:1,http://b:2"}, ["http://a:1", "http://b:2"], None),
    ],
)
@pytest.mark.parametrize("distributed", [False, True])
def test_rest_listeners(
    caplog: pytest.LogCaptureFixture,
    props: dict[str, str],
    listeners: list[str],
    warned: str | None,
    distributed: bool,
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert WorkerConfig(props, distributed=distributed).rest_listeners() == listeners
    warnings = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    if warned is None:
        assert warnings == []
    else:
        (warning,) = warnings
        assert warned in warning
        assert "listeners" in warning


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_worker_answers_on_rest_port(tmp_path: Path, bootstrap: str) -> None:
    """A worker from a Kafka 2.x file (rest.port, no listeners) serves on rest.port."""
    port = _free_port()
    props = {
        "bootstrap.servers": bootstrap,
        "rest.port": str(port),
        "offset.storage.file.filename": str(tmp_path / "offsets"),
    }
    connect = standalone_worker(props)
    connect.rest.start()
    try:
        assert connect.rest.advertised_url.rstrip("/").endswith(f":{port}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
                status = r.status
        except urllib.error.HTTPError as error:  # 503 while the herder is not started
            status = error.code
        assert status in (200, 503)
    finally:
        connect.rest.stop()
