"""``seaway schema-registry``: the registry's configuration and its HTTP server.

Configuration keys are Confluent's (``schema-registry.properties``): ``listeners``
(default ``http://0.0.0.0:8081``), ``kafkastore.bootstrap.servers``, ``kafkastore.topic``
(``_schemas``), ``kafkastore.topic.replication.factor`` and ``schema.compatibility.level``
(``backward``).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any, Final

import uvicorn

from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString
from seaway.registry.app import create_app
from seaway.registry.compatibility import LEVELS
from seaway.registry.store import DEFAULT_TOPIC, SchemaStore

__all__ = ["REGISTRY_CONFIG_DEF", "RegistryServer"]

log = logging.getLogger(__name__)

_STARTUP_S: Final = 60.0


def _config_def() -> ConfigDef:
    d = ConfigDef()
    d.define(
        "listeners",
        Type.STRING,
        "http://0.0.0.0:8081",
        None,
        Importance.HIGH,
        "Where the REST API listens: http://host:port (port 0 picks a free one).",
    )
    d.define(
        "kafkastore.bootstrap.servers",
        Type.STRING,
        None,
        None,
        Importance.HIGH,
        "The Kafka cluster that stores the schemas (host:port list; PLAINTEXT:// "
        "prefixes are accepted).",
    )
    d.define(
        "kafkastore.topic",
        Type.STRING,
        DEFAULT_TOPIC,
        None,
        Importance.HIGH,
        "The compacted topic holding the schemas.",
    )
    d.define(
        "kafkastore.topic.replication.factor",
        Type.INT,
        3,
        None,
        Importance.HIGH,
        "Replication factor of the schemas topic (-1: the broker's default).",
    )
    d.define(
        "schema.compatibility.level",
        Type.STRING,
        "backward",
        CaseInsensitiveValidString([level.lower() for level in LEVELS]),
        Importance.HIGH,
        "The compatibility level of subjects that set none.",
    )
    return d  # fmt: skip


REGISTRY_CONFIG_DEF: Final = _config_def()


def _listener(text: str) -> tuple[str, int]:
    scheme, _, rest = text.strip().partition("://")
    host, _, port = rest.rpartition(":")
    if scheme.lower() != "http" or not port.isdigit():
        raise ConfigException(
            f"listeners={text!r} is not http://host:port (e.g. http://0.0.0.0:8081)"
        )
    return host.strip("[]") or "0.0.0.0", int(port)


def _servers(text: str) -> str:
    return ",".join(s.strip().split("://", 1)[-1] for s in text.split(",") if s.strip())


class RegistryServer:
    """The store and the REST API, served by uvicorn on a background thread."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        values = REGISTRY_CONFIG_DEF.parse({k: str(v) for k, v in props.items()})
        servers = values["kafkastore.bootstrap.servers"]
        if not servers:
            raise ConfigException(
                "kafkastore.bootstrap.servers is required: the Kafka cluster that stores the "
                "schemas (e.g. localhost:9092)"
            )
        self.store = SchemaStore(
            {"bootstrap.servers": _servers(servers)},
            values["kafkastore.topic"],
            replication_factor=values["kafkastore.topic.replication.factor"],
            default_compatibility=str(values["schema.compatibility.level"]).upper(),
        )
        self.host, self.port = _listener(values["listeners"])
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> None:
        """Read the schemas topic, then serve."""
        self.store.start()
        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(create_app(self.store), log_level="warning", lifespan="off")
        server = self._server = uvicorn.Server(config)
        server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="schema-registry", daemon=True
        )
        self._thread.start()
        if not _wait(lambda: server.started, _STARTUP_S):
            raise RuntimeError(f"the schema registry did not start on {self.url}")
        log.info("Schema registry (Seaway) serving at %s", self.url)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.store.stop()

    def __enter__(self) -> RegistryServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _wait(check: Any, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
