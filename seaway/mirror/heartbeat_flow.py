"""One MirrorHeartbeat flow A -> B: a liveness record into B's ``heartbeats`` topic.

What MirrorHeartbeatConnector/MirrorHeartbeatTask do, on the driver (no Spark): create the
heartbeats topic the replication policy names (``heartbeats``; 1 partition, compacted,
``heartbeats.topic.replication.factor``) on the **target** B, then, every
``emit.heartbeats.interval.seconds`` (default 1), write a
:class:`~seaway.mirror.formats.Heartbeat` ``(A, B, now in epoch ms)`` to its partition 0.
``emit.heartbeats.enabled=false`` (or a negative interval) turns the flow off; as in Kafka
the connector's ``enabled`` does not.

Downstream, any MirrorSource flow B -> C replicates ``heartbeats`` as ``B.heartbeats``, so a
:class:`~seaway.mirror.client.MirrorClient` on C sees B (and A, through ``B.A.heartbeats``
when C also gets A's) upstream: ``upstream_clusters()`` and ``replication_hops()``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from seaway.kafka import clients
from seaway.kafka.admin import ensure_topic
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.config import MirrorConfigError, MirrorHeartbeatConfig, librdkafka_config
from seaway.mirror.config.defs import (
    BOOTSTRAP_SERVERS,
    HEARTBEATS_TOPIC_REPLICATION_FACTOR,
    TARGET_CLUSTER_PREFIX,
)
from seaway.mirror.formats import Heartbeat
from seaway.mirror.policy import ReplicationPolicy, replication_policy

log = logging.getLogger(__name__)


@dataclass
class HeartbeatSettings:
    """The settings of one heartbeat flow (MirrorHeartbeatConfig's, parsed)."""

    source_alias: str
    target_alias: str
    target_client: dict[str, str]  # librdkafka settings incl. bootstrap.servers
    policy: ReplicationPolicy
    interval_s: float | None = 1.0  # None: emit.heartbeats.enabled=false
    replication_factor: int = 3

    @property
    def heartbeats_topic(self) -> str:
        return self.policy.heartbeats_topic()

    @property
    def enabled(self) -> bool:
        """Whether heartbeats are emitted at all (enabled, interval not negative)."""
        return self.interval_s is not None and self.interval_s >= 0


def heartbeat_settings(config: MirrorHeartbeatConfig) -> HeartbeatSettings:
    """A heartbeat flow's settings from its MirrorHeartbeatConnector config.

    Raises :class:`MirrorConfigError` naming ``target.cluster.bootstrap.servers`` when the
    target cluster has no bootstrap servers and heartbeats are on.
    """
    props = {k: str(v) for k, v in config.originals.items()}
    interval = config.emit_heartbeats_interval()
    target_client = librdkafka_config(config.target_producer_config())
    if interval is not None and interval >= 0 and not target_client.get(BOOTSTRAP_SERVERS):
        key = TARGET_CLUSTER_PREFIX + BOOTSTRAP_SERVERS
        error = MirrorConfigError(
            f'Missing required configuration "{key}": heartbeats are written to the target '
            f"cluster {config.target_cluster_alias}"
        )
        error.name = key
        raise error
    return HeartbeatSettings(
        source_alias=config.source_cluster_alias,
        target_alias=config.target_cluster_alias,
        target_client=target_client,
        policy=replication_policy(props),
        interval_s=None if interval is None else float(interval),
        replication_factor=int(config.get(HEARTBEATS_TOPIC_REPLICATION_FACTOR)),
    )


class MirrorHeartbeatFlow:
    """Emits the heartbeats of one flow A -> B into B (call :meth:`emit` every interval)."""

    def __init__(self, settings: HeartbeatSettings) -> None:
        self.settings = settings
        self._producer: Any = None

    @property
    def name(self) -> str:
        return f"{self.settings.source_alias}->{self.settings.target_alias}"

    def start(self) -> None:
        """Create the heartbeats topic on the target if missing; nothing when disabled."""
        s = self.settings
        if not s.enabled:
            log.info("Heartbeats of %s are disabled (emit.heartbeats.enabled)", self.name)
            return
        try:
            ensure_topic(
                s.target_client, s.heartbeats_topic, 1, s.replication_factor,
                {"cleanup.policy": "compact"},
            )  # fmt: skip
        except Exception as error:
            raise RuntimeError(
                f"Could not create the heartbeats topic {s.heartbeats_topic} on "
                f"{s.target_client.get(BOOTSTRAP_SERVERS)}: {error}. Check "
                f"{HEARTBEATS_TOPIC_REPLICATION_FACTOR} (now {s.replication_factor}): it may "
                "not exceed the target cluster's broker count."
            ) from error
        self._producer = clients.producer(s.target_client, {"acks": "all"})

    def emit(self, now_ms: int | None = None) -> Heartbeat | None:
        """Write one heartbeat (timestamp *now_ms*, default now) and wait for it; returns it,
        or None when heartbeats are disabled."""
        if self._producer is None:
            if self.settings.enabled:
                raise RuntimeError(f"Heartbeat flow {self.name} is not started")
            return None
        s = self.settings
        beat = Heartbeat(s.source_alias, s.target_alias, now_ms or int(time.time() * 1000))
        self._producer.produce(
            s.heartbeats_topic, key=beat.record_key(), value=beat.record_value(), partition=0
        )
        if self._producer.flush(REQUEST_TIMEOUT_S):
            raise RuntimeError(f"Could not write a heartbeat to {s.heartbeats_topic}")
        return beat

    def stop(self) -> None:
        if self._producer is not None:
            self._producer.flush(REQUEST_TIMEOUT_S)
            self._producer = None


__all__ = ["HeartbeatSettings", "MirrorHeartbeatFlow", "heartbeat_settings"]
