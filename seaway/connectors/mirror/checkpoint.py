"""MirrorCheckpointConnector on a Connect worker: a checkpoint flow in its own thread."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.connect.api.flow import FlowContext, FlowHandle, FlowTask
from seaway.connectors.mirror.base import MirrorConnector, split_contiguous
from seaway.connectors.mirror.handles import PeriodicFlowHandle
from seaway.kafka import clients
from seaway.kafka.admin import committed_offsets
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.config import MirrorCheckpointConfig, MirrorSourceConfig
from seaway.mirror.config.defs import TASK_CONSUMER_GROUPS, TASK_INDEX


class MirrorCheckpointTask(FlowTask):
    """Names MirrorCheckpointConnector's tasks (``task.assigned.groups``)."""


class MirrorCheckpointConnector(MirrorConnector):
    """Translates consumer-group offsets A -> B (Kafka's ``MirrorCheckpointConnector``).

    On start it lists the groups on A that pass ``groups``/``groups.exclude`` and have
    committed offsets on a topic the topic filter accepts; every
    ``refresh.groups.interval.seconds`` it lists them again and asks for new task configs
    when they changed. Task configs split the groups in contiguous chunks
    (``task.assigned.groups``). No groups, ``enabled=false`` or
    ``emit.checkpoints.enabled=false``: no tasks. The flow (one thread for all tasks) waits
    for the offset-syncs topic the MirrorSourceConnector creates, then emits checkpoints
    right away and every ``emit.checkpoints.interval.seconds`` (and syncs group offsets with
    ``sync.group.offsets.enabled``) for every matching group, new ones included.
    """

    CONFIG = MirrorCheckpointConfig
    TASK = MirrorCheckpointTask

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[str] = []

    def _extra_errors(self, props: Mapping[str, str]) -> dict[str, list[str]]:
        return {**super()._extra_errors(props), **MirrorCheckpointConfig.validate(props)}

    @property
    def _active(self) -> bool:
        config = self.mirror_config
        return config.enabled and config.emit_checkpoints_interval() is not None

    def _settings(self) -> Any:
        from seaway.mirror.driver import checkpoint_settings, flow_settings

        source = flow_settings(MirrorSourceConfig(self.props))
        return checkpoint_settings(self.mirror_config, source)

    def _start(self) -> None:
        if not self._active:
            return
        self.groups = self.find_groups()
        self._refresh_every("refresh-groups", self.mirror_config.refresh_groups_interval(),
                            self._refresh)  # fmt: skip

    def find_groups(self) -> list[str]:
        """The groups to checkpoint (Kafka's ``findConsumerGroups``), sorted."""
        from seaway.mirror.checkpoint_flow import MirrorCheckpointFlow

        settings = self._settings()
        admin = clients.admin(settings.source_client)
        return [
            group
            for group in MirrorCheckpointFlow(settings).groups()
            if any(
                settings.topic_filter.should_replicate_topic(topic)
                for topic, _ in committed_offsets(admin, group, REQUEST_TIMEOUT_S)
            )
        ]

    def _refresh(self) -> None:
        groups = self.find_groups()
        if groups != self.groups:
            self.groups = groups
            self._reconfigure()

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if not self._active or not self.groups:
            return []
        chunks = split_contiguous(self.groups, min(max_tasks, len(self.groups)))
        return [
            {**self.props, TASK_CONSUMER_GROUPS: ",".join(chunk), TASK_INDEX: str(index)}
            for index, chunk in enumerate(chunks)
        ]

    def start_flow(self, context: FlowContext, task_configs: list[dict[str, str]]) -> FlowHandle:
        from seaway.mirror.checkpoint_flow import MirrorCheckpointFlow

        settings = self._settings()
        flow = MirrorCheckpointFlow(settings)

        def syncs_topic_exists() -> bool:
            metadata = clients.admin(settings.offset_syncs_client).list_topics(
                timeout=REQUEST_TIMEOUT_S
            )
            return settings.offset_syncs_topic in metadata.topics

        return PeriodicFlowHandle(
            f"{context.connector_name}-checkpoints",
            start=flow.start,
            job=flow.emit,
            interval_s=float(self.mirror_config.emit_checkpoints_interval() or 0),
            close=flow.stop,
            ready=syncs_topic_exists,
            waiting_for=(
                f"the offset-syncs topic {settings.offset_syncs_topic} on "
                f"{settings.offset_syncs_client.get('bootstrap.servers')}, written by the "
                f"MirrorSourceConnector of {settings.source_alias}->{settings.target_alias} "
                "(both connectors need the same replication.policy.separator and "
                "offset-syncs.topic.location)"
            ),
        )


__all__ = ["MirrorCheckpointConnector", "MirrorCheckpointTask"]
