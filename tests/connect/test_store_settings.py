"""Worker properties → stores, and every store against its protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.runtime.storage import (
    ConfigStore,
    FileOffsetStore,
    MemoryConfigStore,
    MemoryOffsetStore,
    MemoryStatusStore,
    OffsetStore,
    StatusStore,
    TopicConfigStore,
    TopicOffsetStore,
    TopicStatusStore,
)
from seaway.connect.runtime.storage.settings import (
    CONFIGS,
    OFFSETS,
    STATUSES,
    client_config,
    client_id_base,
    internal_topic_spec,
)

PROPS = {
    "bootstrap.servers": "broker:9092",
    "group.id": "connect-cluster",
    "config.storage.topic": "connect-configs",
    "config.storage.partitions": "7",
    "offset.storage.topic": "connect-offsets",
    "offset.storage.partitions": "10",
    "offset.storage.replication.factor": "1",
    "offset.storage.min.insync.replicas": "1",
    "offset.storage.cleanup.policy": "delete",
    "status.storage.topic": "connect-status",
}


def test_kafka_defaults_and_topic_settings() -> None:
    offsets = internal_topic_spec(PROPS, OFFSETS)
    assert (offsets.name, offsets.partitions, offsets.replication_factor) == (
        "connect-offsets",
        10,
        1,
    )
    assert offsets.config == {"min.insync.replicas": "1"}  # cleanup.policy is always compact
    assert offsets.new_topic().config == {"min.insync.replicas": "1", "cleanup.policy": "compact"}
    assert offsets.worker_config == "offset.storage.topic"
    configs = internal_topic_spec(PROPS, CONFIGS)
    assert (configs.partitions, configs.replication_factor) == (1, 3)
    statuses = internal_topic_spec(PROPS, STATUSES)
    assert (statuses.partitions, statuses.replication_factor) == (5, 3)


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (CONFIGS, "Must specify topic for connector configuration."),
        (OFFSETS, "Offset storage topic must be specified"),
        (STATUSES, "Must specify topic for connector status."),
    ],
)
def test_topics_are_required(kind: Any, message: str) -> None:
    with pytest.raises(ConfigException, match=message):
        internal_topic_spec({"bootstrap.servers": "b:9092"}, kind)


def test_client_settings() -> None:
    assert client_id_base(PROPS) == "connect-cluster-"
    assert client_id_base({"client.id": "w1"}) == "connect-w1-"
    assert client_config(PROPS) == {"bootstrap.servers": "broker:9092"}
    assert client_config({}) == {"bootstrap.servers": "localhost:9092"}
    store = TopicOffsetStore.from_worker_config(PROPS, {"security.protocol": "SSL"})
    assert store.topic == "connect-offsets"
    assert store.topic_log.client_id == "connect-cluster-offsets"
    assert store.topic_log.client_config["security.protocol"] == "SSL"


def test_every_store_follows_its_protocol(tmp_path: Path) -> None:
    offsets = [
        MemoryOffsetStore(),
        FileOffsetStore(tmp_path / "offsets"),
        TopicOffsetStore.from_worker_config(PROPS),
    ]
    configs = [MemoryConfigStore(), TopicConfigStore.from_worker_config(PROPS)]
    statuses = [MemoryStatusStore(), TopicStatusStore.from_worker_config(PROPS)]
    assert all(isinstance(store, OffsetStore) for store in offsets)
    assert all(isinstance(store, ConfigStore) for store in configs)
    assert all(isinstance(store, StatusStore) for store in statuses)
