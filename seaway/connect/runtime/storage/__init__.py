"""The runtime's state stores: source offsets, connector configs and statuses.

Each kind has a Protocol and implementations for both modes, as in Kafka Connect:

================  =====================  ==========================  =====================
kind              protocol               standalone                  distributed
================  =====================  ==========================  =====================
source offsets    :class:`OffsetStore`   :class:`FileOffsetStore`    :class:`TopicOffsetStore`
configs           :class:`ConfigStore`   :class:`MemoryConfigStore`  :class:`TopicConfigStore`
statuses          :class:`StatusStore`   :class:`MemoryStatusStore`  :class:`TopicStatusStore`
================  =====================  ==========================  =====================

(:class:`MemoryOffsetStore` too, for tests.) The topic stores share :class:`TopicBackedLog`,
a compacted topic read to its end and then tailed, and write exactly the records a Java
worker writes, so both can share a cluster's internal topics.
"""

from seaway.connect.runtime.storage.configs import (
    ClusterConfigState,
    ConfigStore,
    ConfigUpdateListener,
    MemoryConfigStore,
    RestartRequest,
    SessionKey,
    TargetState,
)
from seaway.connect.runtime.storage.file_offsets import CorruptOffsetFileError, FileOffsetStore
from seaway.connect.runtime.storage.ids import ConnectorTaskId
from seaway.connect.runtime.storage.offsets import (
    MemoryOffsetStore,
    OffsetStore,
    OffsetStoreReader,
)
from seaway.connect.runtime.storage.statuses import (
    ConnectorStatus,
    MemoryStatusStore,
    State,
    StatusStore,
    TaskStatus,
    TopicStatus,
)
from seaway.connect.runtime.storage.topic_configs import TopicConfigStore
from seaway.connect.runtime.storage.topic_log import LogRecord, TopicBackedLog, TopicSpec
from seaway.connect.runtime.storage.topic_offsets import TopicOffsetStore
from seaway.connect.runtime.storage.topic_statuses import TopicStatusStore

__all__ = [
    "ClusterConfigState",
    "ConfigStore",
    "ConfigUpdateListener",
    "ConnectorStatus",
    "ConnectorTaskId",
    "CorruptOffsetFileError",
    "FileOffsetStore",
    "LogRecord",
    "MemoryConfigStore",
    "MemoryOffsetStore",
    "MemoryStatusStore",
    "OffsetStore",
    "OffsetStoreReader",
    "RestartRequest",
    "SessionKey",
    "State",
    "StatusStore",
    "TargetState",
    "TaskStatus",
    "TopicBackedLog",
    "TopicConfigStore",
    "TopicOffsetStore",
    "TopicSpec",
    "TopicStatus",
    "TopicStatusStore",
]
