"""A schema registry served over HTTP, its schemas in a topic of the test broker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from seaway.registry.server import RegistryServer


def registry_props(bootstrap: str, topic: str) -> dict[str, str]:
    return {
        "listeners": "http://127.0.0.1:0",
        "kafkastore.bootstrap.servers": f"PLAINTEXT://{bootstrap}",
        "kafkastore.topic": topic,
        "kafkastore.topic.replication.factor": "1",
    }


@pytest.fixture
def registry(bootstrap: str, topic_name: str) -> Iterator[RegistryServer]:
    with RegistryServer(registry_props(bootstrap, f"{topic_name}-schemas")) as server:
        yield server
