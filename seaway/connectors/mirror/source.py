"""MirrorSourceConnector on a Connect worker: a MirrorSource flow (a Spark query)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from seaway.connect.api.flow import FlowContext, FlowHandle, FlowTask
from seaway.connectors.mirror.base import MirrorConnector, split_round_robin
from seaway.connectors.mirror.handles import SourceFlowHandle
from seaway.mirror.config import MirrorSourceConfig
from seaway.mirror.config.defs import TASK_INDEX, TASK_TOPIC_PARTITIONS


class MirrorSourceTask(FlowTask):
    """Names MirrorSourceConnector's tasks (``task.assigned.partitions``); the flow copies."""


class MirrorSourceConnector(MirrorConnector):
    """Replicates topics A -> B (Kafka's ``MirrorSourceConnector``).

    On start it lists the topic-partitions to replicate (the topic filter, heartbeats topics,
    never internal topics or cycles); every ``refresh.topics.interval.seconds`` it lists them
    again and asks for new task configs when they changed, which restarts the flow. Task
    configs deal the partitions round-robin to ``min(tasks.max, partitions)`` tasks
    (``task.assigned.partitions``, ``task.index``), as Kafka's do; the flow copies all of
    them in one Spark query. ``enabled=false``: no tasks. Every
    ``sync.topic.configs.interval.seconds`` and ``sync.topic.acls.interval.seconds`` (from
    the start) the remote topics' configs and ACLs follow the source's. On a distributed
    worker with ``exactly.once.source.support=enabled`` the copy is exactly-once.
    """

    CONFIG = MirrorSourceConfig
    TASK = MirrorSourceTask

    def __init__(self) -> None:
        super().__init__()
        self.partitions: list[tuple[str, int]] = []

    def _extra_errors(self, props: Mapping[str, str]) -> dict[str, list[str]]:
        return {**super()._extra_errors(props), **MirrorSourceConfig.validate(props)}

    def _settings(self) -> Any:
        from seaway.mirror.driver import flow_settings

        return flow_settings(self.mirror_config)

    def _start(self) -> None:
        if not self.mirror_config.enabled:
            return
        self.partitions = self.find_partitions()
        self._refresh_every("refresh-topics", self.mirror_config.refresh_topics_interval(),
                            self._refresh)  # fmt: skip

    def find_partitions(self) -> list[tuple[str, int]]:
        """The source topic-partitions to replicate, in order."""
        from seaway.mirror.source_flow import MirrorSourceFlow

        topics = MirrorSourceFlow(None, self._settings()).source_topics()
        return [(topic, p) for topic, count in sorted(topics.items()) for p in range(count)]

    def _refresh(self) -> None:
        partitions = self.find_partitions()
        if partitions != self.partitions:
            self.partitions = partitions
            self._reconfigure()

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if not self.mirror_config.enabled or not self.partitions:
            return []
        chunks = split_round_robin(self.partitions, min(max_tasks, len(self.partitions)))
        return [
            {
                **self.props,
                TASK_TOPIC_PARTITIONS: ",".join(f"{t}-{p}" for t, p in chunk),
                TASK_INDEX: str(index),
            }
            for index, chunk in enumerate(chunks)
        ]

    def start_flow(self, context: FlowContext, task_configs: list[dict[str, str]]) -> FlowHandle:
        from seaway.mirror.source_flow import MirrorSourceFlow, register

        register(context.spark)
        settings = dataclasses.replace(
            self._settings(),
            trigger_ms=context.trigger_interval_ms,
            exactly_once=context.exactly_once_source,
        )
        flow = MirrorSourceFlow(context.spark, settings)
        config, name = self.mirror_config, context.connector_name
        jobs = [
            (f"{name}-{what}", max(float(interval), 1.0), job)
            for what, interval, job in (
                (
                    "topic-config-sync",
                    config.sync_topic_configs_interval(),
                    flow.sync_topic_configs,
                ),
                ("topic-acl-sync", config.sync_topic_acls_interval(), flow.sync_topic_acls),
            )
            if interval is not None and interval >= 0
        ]
        return SourceFlowHandle(flow, jobs)


__all__ = ["MirrorSourceConnector", "MirrorSourceTask"]
