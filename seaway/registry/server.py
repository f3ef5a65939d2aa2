"""``seaway schema-registry``: the registry's configuration and its HTTP server.

Configuration keys are Confluent's (``schema-registry.properties``): ``listeners``
(default ``http://0.0.0.0:8081``), ``kafkastore.bootstrap.servers``, ``kafkastore.topic``
(``_schemas``), ``kafkastore.topic.replication.factor`` and ``schema.compatibility.level``
(``backward``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final, Self

from seaway.asgi import AsgiServer
from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString
from seaway.registry.app import create_app
from seaway.registry.compatibility import LEVELS
from seaway.registry.store import DEFAULT_TOPIC, SchemaStore

__all__ = ["REGISTRY_CONFIG_DEF", "RegistryServer"]

log = logging.getLogger(__name__)


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


class RegistryServer(AsgiServer):
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
        super().__init__(
            create_app(self.store), _listener(values["listeners"]), name="schema-registry"
        )

    def start(self, timeout_s: float = 60.0) -> Self:
        """Read the schemas topic, then serve."""
        self.store.start()
        try:
            super().start(timeout_s)
        except BaseException:
            self.store.stop()
            raise
        log.info("Schema registry (Seaway) serving at %s", self.url)
        return self

    def stop(self) -> None:
        super().stop()
        self.store.stop()
