"""Assembling a worker: stores, herder, Spark and the REST server (Kafka's ``Connect``,
``ConnectStandalone`` and ``ConnectDistributed``).

>>> connect = standalone_worker({"offset.storage.file.filename": "/tmp/o"})  # doctest: +SKIP
>>> connect.start(); connect.rest.url                                        # doctest: +SKIP
'http://127.0.0.1:8083/'
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seaway.config import load_properties
from seaway.connect.rest.server import RestServer
from seaway.connect.runtime.distributed.herder import DistributedHerder
from seaway.connect.runtime.herder import Herder
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.storage import (
    FileOffsetStore,
    MemoryConfigStore,
    MemoryStatusStore,
    TopicConfigStore,
    TopicOffsetStore,
    TopicStatusStore,
)
from seaway.connect.runtime.worker import Worker
from seaway.connect.runtime.worker_config import WorkerConfig
from seaway.connect.runtime.worker_herder import WorkerHerder
from seaway.security.tls import TlsSettings

log = logging.getLogger(__name__)


class Connect:
    """A running worker: its herder and its REST server."""

    def __init__(self, herder: WorkerHerder, listeners: str, advertised: Mapping[str, Any]):
        self.herder = herder
        self.rest = RestServer(herder, listeners=listeners, **advertised)
        if listeners.lower().startswith("https"):  # workers forward to each other over TLS
            herder.rest_client_context = advertised["tls"].client_context()
        self._stopped = threading.Event()

    def start(self, *, await_spark: bool = True) -> None:
        """Bind the REST server (answering 503 on /health until ready), then start; with
        *await_spark*, return once the Spark session is up (else the REST API answers while
        it starts: call :meth:`await_spark`)."""
        self.rest.start()
        self.herder.worker_id = self.rest.worker_id
        self.herder.url = self.rest.advertised_url
        try:
            self.herder.start()
        except BaseException:
            self.rest.stop()
            raise
        if await_spark:
            try:
                self.await_spark()
            except BaseException:
                self.stop()
                raise
        log.info("Kafka Connect (Seaway) started; REST API at %s", self.rest.url)

    def await_spark(self) -> None:
        """Wait until the worker's Spark session is up; raise why it could not start."""
        self.herder.await_spark()

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        try:
            self.herder.stop()
        finally:
            self.rest.stop()


def _advertised(config: WorkerConfig) -> dict[str, Any]:
    return {
        "advertised_host": config.get("rest.advertised.host.name"),
        "advertised_port": config.get("rest.advertised.port"),
        "advertised_listener": config.get("rest.advertised.listener"),
        "extensions": config.get("rest.extension.classes"),
        "tls": TlsSettings.of_worker(config.originals),
        "admin_listeners": config.get("admin.listeners"),
        "admin_tls": TlsSettings.of_worker(config.originals, "admin.listeners.https."),
    }


def _listeners(config: WorkerConfig) -> str:
    return ",".join(config.rest_listeners())


def standalone_worker(props: Mapping[str, Any]) -> Connect:
    """A standalone worker: configs and statuses in memory, offsets in a file."""
    config = WorkerConfig(props, distributed=False)
    plugins = Plugins(config.get("plugin.path"))
    herder = WorkerHerder(
        Worker(config),
        plugins,
        MemoryConfigStore(),
        FileOffsetStore.from_worker_config(config.originals),
        MemoryStatusStore(),
        worker_id="starting",
    )
    return Connect(herder, _listeners(config), _advertised(config))


def distributed_worker(props: Mapping[str, Any]) -> Connect:
    """A distributed worker: configs, offsets and statuses in Kafka topics."""
    config = WorkerConfig(props, distributed=True)
    plugins = Plugins(config.get("plugin.path"))
    offsets = TopicOffsetStore.from_worker_config(config.originals)
    herder = DistributedHerder(
        Worker(config),
        plugins,
        TopicConfigStore.from_worker_config(config.originals),
        offsets,
        TopicStatusStore.from_worker_config(config.originals),
        worker_id="starting",
        offsets_topic=offsets.topic,
    )
    return Connect(herder, _listeners(config), _advertised(config))


def load_connector_file(path: str | Path) -> tuple[dict[str, str], str | None]:
    """A connector config file: ``.properties``, a flat JSON map, or a JSON
    CreateConnectorRequest (``{"name", "config", "initial_state"}``), as ConnectStandalone
    reads them. Returns ``(config, initial_state)``."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        return dict(load_properties(path)), None
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    if isinstance(data.get("config"), dict):
        config = {k: str(v) for k, v in data["config"].items()}
        if data.get("name"):
            config.setdefault("name", str(data["name"]))
        return config, data.get("initial_state")
    return {k: str(v) for k, v in data.items()}, None


def submit_connector_files(herder: Herder, paths: list[str]) -> None:
    """Create (or update) the connectors in *paths*, as ``connect-standalone`` does."""
    for path in paths:
        config, initial_state = load_connector_file(path)
        name = config.get("name", "").strip()
        if not name:
            raise ValueError(f"{path}: the connector config has no 'name'")
        created, _ = herder.put_connector_config(
            name, config, allow_replace=True, initial_state=initial_state
        )
        log.info("%s connector %s from %s", "Created" if created else "Updated", name, path)


__all__ = [
    "Connect",
    "distributed_worker",
    "load_connector_file",
    "standalone_worker",
    "submit_connector_files",
]
