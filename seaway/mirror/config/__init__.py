"""MirrorMaker 2 configuration: the connectors' configs and the driver's ``mm2.properties``.

* :mod:`~seaway.mirror.config.defs`: Kafka's key names (4.0) and the ConfigDefs
  :data:`MIRROR_SOURCE_CONFIG_DEF`, :data:`MIRROR_CHECKPOINT_CONFIG_DEF`,
  :data:`MIRROR_HEARTBEAT_CONFIG_DEF` and :data:`MIRROR_MAKER_CONFIG_DEF`;
* :mod:`~seaway.mirror.config.connectors`: the typed views :class:`MirrorSourceConfig`,
  :class:`MirrorCheckpointConfig` and :class:`MirrorHeartbeatConfig`, their clients' settings,
  and :func:`librdkafka_config`;
* :mod:`~seaway.mirror.config.mm2`: :class:`MirrorMakerConfig`, a driver-mode
  ``mm2.properties`` read as Kafka's ``MirrorMakerConfig`` does (``clusters``, ``<alias>.*``,
  ``<src>-><tgt>.*``, top-level defaults), from which each herder's worker config and each
  connector's config derive;
* :mod:`~seaway.mirror.config.errors`: :class:`MirrorConfigError`, naming the offending key.
"""

from seaway.mirror.config.connectors import (
    MirrorCheckpointConfig,
    MirrorConnectorConfig,
    MirrorHeartbeatConfig,
    MirrorSourceConfig,
    librdkafka_config,
)
from seaway.mirror.config.defs import (
    BASE_CONNECTOR_CONFIG_DEF,
    CLIENT_CONFIG_DEF,
    CONNECTOR_CLASSES,
    CONNECTOR_CONFIG_DEFS,
    CONNECTOR_CONFIG_NAMES,
    MIRROR_CHECKPOINT_CONFIG_DEF,
    MIRROR_CHECKPOINT_CONNECTOR,
    MIRROR_HEARTBEAT_CONFIG_DEF,
    MIRROR_HEARTBEAT_CONNECTOR,
    MIRROR_MAKER_CONFIG_DEF,
    MIRROR_SOURCE_CONFIG_DEF,
    MIRROR_SOURCE_CONNECTOR,
)
from seaway.mirror.config.errors import MirrorConfigError
from seaway.mirror.config.mm2 import MirrorMakerConfig, SourceAndTarget

__all__ = [
    "BASE_CONNECTOR_CONFIG_DEF",
    "CLIENT_CONFIG_DEF",
    "CONNECTOR_CLASSES",
    "CONNECTOR_CONFIG_DEFS",
    "CONNECTOR_CONFIG_NAMES",
    "MIRROR_CHECKPOINT_CONFIG_DEF",
    "MIRROR_CHECKPOINT_CONNECTOR",
    "MIRROR_HEARTBEAT_CONFIG_DEF",
    "MIRROR_HEARTBEAT_CONNECTOR",
    "MIRROR_MAKER_CONFIG_DEF",
    "MIRROR_SOURCE_CONFIG_DEF",
    "MIRROR_SOURCE_CONNECTOR",
    "MirrorCheckpointConfig",
    "MirrorConfigError",
    "MirrorConnectorConfig",
    "MirrorHeartbeatConfig",
    "MirrorMakerConfig",
    "MirrorSourceConfig",
    "SourceAndTarget",
    "librdkafka_config",
]
