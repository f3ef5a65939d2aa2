"""MirrorMaker 2's connectors for a Connect cluster (``POST /connectors``).

``org.apache.kafka.connect.mirror.MirrorSourceConnector``, ``MirrorCheckpointConnector``
and ``MirrorHeartbeatConnector`` take Kafka's connector configs (``source.cluster.alias``,
``target.cluster.alias``, ``source.cluster.bootstrap.servers``,
``target.cluster.bootstrap.servers``, ``topics``, ...; :mod:`seaway.mirror.config`) and run
the mirror flows of driver mode: each is a
:class:`~seaway.connect.api.flow.FlowConnector` whose task configs are Kafka's (for the REST
API) while one flow does the work of all its tasks:

* :class:`MirrorSourceConnector`: a :class:`~seaway.mirror.source_flow.MirrorSourceFlow`,
  one Spark query on the worker's SparkSession;
* :class:`MirrorCheckpointConnector`: a
  :class:`~seaway.mirror.checkpoint_flow.MirrorCheckpointFlow` in its own thread;
* :class:`MirrorHeartbeatConnector`: a
  :class:`~seaway.mirror.heartbeat_flow.MirrorHeartbeatFlow` in its own thread.

:data:`PLUGINS` maps each accepted ``connector.class`` (Kafka's class name, its simple name
and the simple name without ``Connector``) to the class; :data:`CLASS_NAMES` gives Kafka's.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from seaway.connect.api import Connector
from seaway.connectors.mirror.base import MirrorConnector
from seaway.connectors.mirror.checkpoint import MirrorCheckpointConnector, MirrorCheckpointTask
from seaway.connectors.mirror.heartbeat import MirrorHeartbeatConnector, MirrorHeartbeatTask
from seaway.connectors.mirror.source import MirrorSourceConnector, MirrorSourceTask
from seaway.mirror.config import (
    MIRROR_CHECKPOINT_CONNECTOR,
    MIRROR_HEARTBEAT_CONNECTOR,
    MIRROR_SOURCE_CONNECTOR,
)

CLASS_NAMES: Final[MappingProxyType[type[Connector], str]] = MappingProxyType(
    {
        MirrorSourceConnector: MIRROR_SOURCE_CONNECTOR,
        MirrorCheckpointConnector: MIRROR_CHECKPOINT_CONNECTOR,
        MirrorHeartbeatConnector: MIRROR_HEARTBEAT_CONNECTOR,
    }
)
"""Kafka's class name of each mirror connector."""


def _aliases(kafka_class_name: str) -> list[str]:
    simple = kafka_class_name.rsplit(".", 1)[-1]
    return [kafka_class_name, simple, simple.removesuffix("Connector")]


PLUGINS: Final[MappingProxyType[str, type[Connector]]] = MappingProxyType(
    {alias: cls for cls, name in CLASS_NAMES.items() for alias in _aliases(name)}
)
"""Every accepted ``connector.class`` name of a mirror connector."""

__all__ = [
    "CLASS_NAMES",
    "PLUGINS",
    "MirrorCheckpointConnector",
    "MirrorCheckpointTask",
    "MirrorConnector",
    "MirrorHeartbeatConnector",
    "MirrorHeartbeatTask",
    "MirrorSourceConnector",
    "MirrorSourceTask",
]
