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

They are ``seaway.connectors`` entry points under Kafka's class names (``pyproject.toml``).
"""

from __future__ import annotations

from seaway.connectors.mirror.base import MirrorConnector
from seaway.connectors.mirror.checkpoint import MirrorCheckpointConnector, MirrorCheckpointTask
from seaway.connectors.mirror.heartbeat import MirrorHeartbeatConnector, MirrorHeartbeatTask
from seaway.connectors.mirror.source import MirrorSourceConnector, MirrorSourceTask

__all__ = [
    "MirrorCheckpointConnector",
    "MirrorCheckpointTask",
    "MirrorConnector",
    "MirrorHeartbeatConnector",
    "MirrorHeartbeatTask",
    "MirrorSourceConnector",
    "MirrorSourceTask",
]
