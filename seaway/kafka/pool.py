"""Clusters shared by the tasks of one process, and whether the batch client reaches one.

Spark runs a Python worker's tasks one after the other and reuses the worker, so a
cluster's metadata and connections outlive a task, as the record path's pooled
confluent-kafka clients do.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from seaway.kafka.cluster import KafkaCluster

__all__ = ["batch_client_reaches", "shared_cluster"]

_CLUSTERS: dict[tuple[str, str], KafkaCluster] = {}
_LOCK = threading.Lock()


def batch_client_reaches(config: Mapping[str, Any]) -> bool:
    """Whether Seaway's batch client can reach a cluster with this (Kafka-style) client
    config: plaintext only, for now; TLS and SASL clusters use the record path."""
    return str(config.get("security.protocol", "plaintext")).lower() == "plaintext"


def shared_cluster(bootstrap_servers: str, client_id: str) -> KafkaCluster:
    """The process's cluster for ``(bootstrap_servers, client_id)``, made on first use."""
    key = (bootstrap_servers, client_id)
    with _LOCK:
        cluster = _CLUSTERS.get(key)
        if cluster is None:
            cluster = _CLUSTERS[key] = KafkaCluster(bootstrap_servers, client_id=client_id)
        return cluster
