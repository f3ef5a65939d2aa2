"""MirrorHeartbeatConnector on a Connect worker: a heartbeat flow in its own thread."""

from __future__ import annotations

from typing import Any

from seaway.connect.api.flow import FlowContext, FlowHandle, FlowTask
from seaway.connectors.mirror.base import MirrorConnector
from seaway.connectors.mirror.handles import PeriodicFlowHandle
from seaway.mirror.config import MirrorHeartbeatConfig
from seaway.mirror.heartbeat_flow import MirrorHeartbeatFlow, heartbeat_settings


class MirrorHeartbeatTask(FlowTask):
    """Names MirrorHeartbeatConnector's task."""


class MirrorHeartbeatConnector(MirrorConnector):
    """Emits heartbeats A -> B into B's ``heartbeats`` (Kafka's ``MirrorHeartbeatConnector``).

    One task, or none with ``emit.heartbeats.enabled=false`` (or a negative interval); as in
    Kafka, ``enabled`` is ignored. The flow creates the heartbeats topic on B (1 partition,
    compacted, ``heartbeats.topic.replication.factor``) and writes a heartbeat right away
    and every ``emit.heartbeats.interval.seconds``.
    """

    CONFIG = MirrorHeartbeatConfig
    TASK = MirrorHeartbeatTask
    CLUSTERS = ("target",)

    def __init__(self) -> None:
        super().__init__()
        self.settings: Any = None

    def _start(self) -> None:
        self.settings = heartbeat_settings(self.mirror_config)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if self.settings is None or not self.settings.enabled or max_tasks < 1:
            return []
        return [dict(self.props)]

    def start_flow(self, context: FlowContext, task_configs: list[dict[str, str]]) -> FlowHandle:
        flow = MirrorHeartbeatFlow(self.settings)
        return PeriodicFlowHandle(
            f"{context.connector_name}-heartbeats",
            start=flow.start,
            job=flow.emit,
            interval_s=float(self.settings.interval_s or 0),
            close=flow.stop,
        )


__all__ = ["MirrorHeartbeatConnector", "MirrorHeartbeatTask"]
