"""The worker properties that place the state stores, with Kafka's names and defaults.

Standalone workers keep offsets in ``offset.storage.file.filename``; distributed workers keep
configs, offsets and statuses in three compacted topics. Properties under each topic's
prefix (``offset.storage.min.insync.replicas``, ...) become topic configs, as in Kafka's
``DistributedConfig.*TopicSettings``.

>>> spec = internal_topic_spec({"offset.storage.topic": "connect-offsets"}, OFFSETS)
>>> spec.name, spec.partitions, spec.replication_factor
('connect-offsets', 25, 3)
>>> client_id_base({"group.id": "connect-cluster"})
'connect-cluster-'
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import ConfigException
from seaway.connect.runtime.storage.topic_log import TopicSpec
from seaway.kafka.java_config import to_librdkafka

log = logging.getLogger(__name__)

__all__ = [
    "CONFIGS",
    "OFFSETS",
    "OFFSET_STORAGE_FILE_FILENAME_CONFIG",
    "STATUSES",
    "InternalTopic",
    "client_config",
    "client_id_base",
    "internal_topic_spec",
]

BOOTSTRAP_SERVERS_CONFIG: Final = "bootstrap.servers"
BOOTSTRAP_SERVERS_DEFAULT: Final = "localhost:9092"
OFFSET_STORAGE_FILE_FILENAME_CONFIG: Final = "offset.storage.file.filename"

CONFIG_TOPIC_CONFIG: Final = "config.storage.topic"
CONFIG_STORAGE_REPLICATION_FACTOR_CONFIG: Final = "config.storage.replication.factor"
OFFSET_STORAGE_TOPIC_CONFIG: Final = "offset.storage.topic"
OFFSET_STORAGE_PARTITIONS_CONFIG: Final = "offset.storage.partitions"
OFFSET_STORAGE_REPLICATION_FACTOR_CONFIG: Final = "offset.storage.replication.factor"
STATUS_STORAGE_TOPIC_CONFIG: Final = "status.storage.topic"
STATUS_STORAGE_PARTITIONS_CONFIG: Final = "status.storage.partitions"
STATUS_STORAGE_REPLICATION_FACTOR_CONFIG: Final = "status.storage.replication.factor"
REPLICATION_FACTOR_DEFAULT: Final = 3


@dataclass(frozen=True, slots=True)
class InternalTopic:
    """One of the three internal topics: its property prefix, defaults and messages."""

    prefix: str
    partitions: int
    purpose: str
    client_suffix: str
    missing: str


CONFIGS: Final = InternalTopic(
    "config.storage.", 1, "connector configurations", "configs",
    "Must specify topic for connector configuration.",
)  # fmt: skip
OFFSETS: Final = InternalTopic(
    "offset.storage.", 25, "source connector offsets", "offsets",
    "Offset storage topic must be specified",
)  # fmt: skip
STATUSES: Final = InternalTopic(
    "status.storage.", 5, "connector and task statuses", "statuses",
    "Must specify topic for connector status.",
)  # fmt: skip

_OWN_SUFFIXES = ("topic", "partitions", "replication.factor")


def internal_topic_spec(props: Mapping[str, Any], kind: InternalTopic) -> TopicSpec:
    """The topic *kind* lives in, from ``<prefix>topic``, ``partitions``, ``replication.factor``
    and any other ``<prefix>*`` topic settings (``cleanup.policy`` is always compact)."""
    worker_config = kind.prefix + "topic"
    name = str(props.get(worker_config) or "").strip()
    if not name:
        raise ConfigException(kind.missing)
    partitions = kind.partitions
    if kind is not CONFIGS:
        partitions = int(props.get(kind.prefix + "partitions", kind.partitions))
    elif kind.prefix + "partitions" in props:
        log.warning(
            "Ignoring '%spartitions', since config topic partitions is always 1", kind.prefix
        )
    settings = {
        key.removeprefix(kind.prefix): str(value)
        for key, value in props.items()
        if key.startswith(kind.prefix) and key.removeprefix(kind.prefix) not in _OWN_SUFFIXES
    }
    if settings.pop("cleanup.policy", None) is not None:
        log.warning("Ignoring '%scleanup.policy', since compaction is always used", kind.prefix)
    return TopicSpec(
        name,
        partitions=partitions,
        replication_factor=int(
            props.get(kind.prefix + "replication.factor", REPLICATION_FACTOR_DEFAULT)
        ),
        config=settings,
        worker_config=worker_config,
        purpose=kind.purpose,
    )


def client_id_base(props: Mapping[str, Any]) -> str:
    """Kafka's ``ConnectUtils.clientIdBase``: ``<group.id or "connect">[-<client.id>]-``."""
    base = str(props.get("group.id") or "connect")
    client_id = str(props.get("client.id") or "").strip()
    return f"{base}-{client_id}-" if client_id else f"{base}-"


# Worker ssl.* settings that only the REST server reads.
_REST_ONLY = frozenset({"ssl.client.auth"})


def client_config(props: Mapping[str, Any]) -> dict[str, Any]:
    """The librdkafka settings the stores' clients share: ``bootstrap.servers`` and the
    worker's security settings (``security.protocol``, ``sasl.*``, ``ssl.*``, as Java
    clients take them), as Kafka's worker gives its internal clients."""
    servers = props.get(BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP_SERVERS_DEFAULT)
    if isinstance(servers, (list, tuple)):
        servers = ",".join(str(s) for s in servers)
    security = {k: v for k, v in props.items() if k == "security.protocol"
                or (k.startswith(("sasl.", "ssl.")) and k not in _REST_ONLY)}  # fmt: skip
    return to_librdkafka({BOOTSTRAP_SERVERS_CONFIG: str(servers), **security})
