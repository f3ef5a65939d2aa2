"""The topics this node hosts: their partitions' logs, configs and lifecycle.

Creating, deleting and altering topics goes through here, so that the durable metadata
(:class:`MetadataStore`) and the partition directories on disk stay in step.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seaway.broker.log.config import (
    TOPIC_CONFIG_DEF,
    LogConfig,
    topic_config_defaults,
)
from seaway.broker.log.partition import AppendCounts, PartitionLog
from seaway.broker.metadata import MetadataStore, TopicRecord
from seaway.config import ConfigException
from seaway.protocol.errors import ErrorCode, KafkaError

log = logging.getLogger(__name__)

__all__ = ["Topic", "TopicManager", "validate_topic_name"]

_LEGAL_NAME = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_NAME_LENGTH = 249


def validate_topic_name(name: str | None) -> str:
    """Kafka's topic name rules; raise INVALID_TOPIC_EXCEPTION naming the problem."""
    if not name:
        raise KafkaError(ErrorCode.invalid_topic_exception, "Topic name is empty")
    if name in (".", ".."):
        raise KafkaError(ErrorCode.invalid_topic_exception, f"Topic name cannot be '{name}'")
    if len(name) > MAX_NAME_LENGTH:
        raise KafkaError(
            ErrorCode.invalid_topic_exception,
            f"Topic name is longer than the maximum of {MAX_NAME_LENGTH} characters",
        )
    if not _LEGAL_NAME.match(name):
        raise KafkaError(
            ErrorCode.invalid_topic_exception,
            f"Topic name '{name}' is illegal: it may contain only ASCII alphanumerics, "
            "'.', '_' and '-'",
        )
    return name


@dataclass(eq=False)
class Topic:
    """A topic: its durable record and one open log per partition."""

    record: TopicRecord
    config_values: dict[str, Any]
    partitions: list[PartitionLog] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def topic_id(self) -> uuid.UUID:
        return self.record.topic_id

    @property
    def is_internal(self) -> bool:
        return self.name.startswith("__")


class TopicManager:
    """Owns every topic's logs; wakes fetchers waiting for data when a log grows."""

    def __init__(
        self,
        data_dir: Path,
        store: MetadataStore,
        broker_values: Mapping[str, Any],
        *,
        recover: bool,
    ) -> None:
        self.data_dir = data_dir
        self.store = store
        self.broker_values = broker_values
        self.topics: dict[str, Topic] = {}
        self._by_id: dict[uuid.UUID, Topic] = {}
        self._waiters: dict[tuple[str, int], set[asyncio.Future[None]]] = {}
        self.retired = AppendCounts()  # what deleted topics' logs had appended (metrics)
        for record in store.topics():
            self._open(record, recover=recover)
        self._remove_orphans()

    # -- lookup ----------------------------------------------------------------------------

    def get(self, name: str) -> Topic | None:
        return self.topics.get(name)

    def by_id(self, topic_id: uuid.UUID) -> Topic | None:
        return self._by_id.get(topic_id)

    def partition(self, topic: str, partition: int) -> PartitionLog:
        """The log of ``topic``/``partition`` or UNKNOWN_TOPIC_OR_PARTITION."""
        t = self.topics.get(topic)
        if t is None or not 0 <= partition < len(t.partitions):
            raise KafkaError(
                ErrorCode.unknown_topic_or_partition,
                f"This server does not host this topic-partition: {topic}-{partition}",
            )
        return t.partitions[partition]

    def all_partitions(self) -> Iterator[tuple[str, int, PartitionLog]]:
        for topic in list(self.topics.values()):
            for i, p in enumerate(topic.partitions):
                yield topic.name, i, p

    # -- configs ---------------------------------------------------------------------------

    def defaults(self) -> dict[str, Any]:
        return topic_config_defaults(self.broker_values)

    def effective_configs(self, overrides: Mapping[str, str]) -> dict[str, Any]:
        """Parsed topic configs: broker defaults overlaid with the topic's overrides."""
        values = self.defaults()
        if overrides:
            parsed = TOPIC_CONFIG_DEF.parse(dict(overrides))
            values.update((name, parsed[name]) for name in overrides)
        return values

    @staticmethod
    def check_configs(configs: Mapping[str, str | None]) -> None:
        """Raise INVALID_CONFIG naming the first unknown or invalid key."""
        for name, value in configs.items():
            if name not in TOPIC_CONFIG_DEF.config_keys:
                raise KafkaError(ErrorCode.invalid_config, f"Unknown topic config name: {name}")
            if value is None:
                continue
            try:
                TOPIC_CONFIG_DEF.parse({name: value})
            except ConfigException as e:
                raise KafkaError(ErrorCode.invalid_config, str(e)) from None

    # -- lifecycle -------------------------------------------------------------------------

    def _partition_dir(self, topic: str, partition: int) -> Path:
        return self.data_dir / f"{topic}-{partition}"

    def _open(self, record: TopicRecord, *, recover: bool) -> Topic:
        values = self.effective_configs(record.configs)
        topic = Topic(record, values)
        log_config = LogConfig.from_values(values)
        for i in range(record.partitions):
            topic.partitions.append(
                PartitionLog(self._partition_dir(record.name, i), log_config, recover=recover)
            )
        self.topics[record.name] = topic
        self._by_id[record.topic_id] = topic
        return topic

    def _remove_orphans(self) -> None:
        """Delete partition directories of topics no longer in the metadata (a crash mid-delete)."""
        known = {
            self._partition_dir(t.name, i).name
            for t in self.topics.values()
            for i in range(len(t.partitions))
        }
        for path in self.data_dir.iterdir():
            if path.is_dir() and re.match(r".+-\d+$", path.name) and path.name not in known:
                log.warning("Removing %s: its topic is not in the metadata", path)
                shutil.rmtree(path, ignore_errors=True)

    def create(
        self,
        name: str,
        partitions: int,
        configs: Mapping[str, str | None] | None = None,
        *,
        validate_only: bool = False,
    ) -> Topic | None:
        validate_topic_name(name)
        if name in self.topics:
            raise KafkaError(ErrorCode.topic_already_exists, f"Topic '{name}' already exists.")
        if partitions < 1:
            raise KafkaError(
                ErrorCode.invalid_partitions, "Number of partitions must be larger than 0."
            )
        overrides = {k: v for k, v in (configs or {}).items() if v is not None}
        self.check_configs(overrides)
        if validate_only:
            return None
        record = TopicRecord(name, uuid.uuid4(), partitions, dict(overrides))
        self.store.put_topic(record)
        try:
            topic = self._open(record, recover=False)
        except OSError as e:  # disk full: forget it again (startup drops its directories)
            log.error("Error while creating the log of topic %s: %s", name, e)
            self.store.delete_topic(name)
            raise KafkaError(
                ErrorCode.kafka_storage_error, f"cannot create the log of {name}: {e}"
            ) from e
        log.info("Created topic %s with %d partitions and configs %s", name, partitions, overrides)
        return topic

    def delete(self, name: str) -> None:
        topic = self.topics.get(name)
        if topic is None:
            raise KafkaError(
                ErrorCode.unknown_topic_or_partition,
                f"This server does not host this topic: {name}",
            )
        self.store.delete_topic(name)
        del self.topics[name]
        self._by_id.pop(topic.topic_id, None)
        for i, partition in enumerate(topic.partitions):
            self.retired.add(partition.appended)
            partition.delete()
            self._wake((name, i))
        log.info("Deleted topic %s", name)

    def add_partitions(self, name: str, count: int, *, validate_only: bool = False) -> None:
        topic = self.topics.get(name)
        if topic is None:
            raise KafkaError(
                ErrorCode.unknown_topic_or_partition, f"The topic '{name}' does not exist."
            )
        current = len(topic.partitions)
        if count <= current:
            raise KafkaError(
                ErrorCode.invalid_partitions,
                f"Topic currently has {current} partitions, which is higher than or equal to "
                f"the requested {count}.",
            )
        if validate_only:
            return
        log_config = LogConfig.from_values(topic.config_values)
        for i in range(current, count):
            topic.partitions.append(
                PartitionLog(self._partition_dir(name, i), log_config, recover=False)
            )
        topic.record.partitions = count
        self.store.put_topic(topic.record)
        log.info("Topic %s now has %d partitions", name, count)

    def set_configs(self, name: str, overrides: Mapping[str, str]) -> None:
        """Replace a topic's dynamic configs and apply them to its open logs."""
        topic = self.topics[name]
        self.check_configs(overrides)
        topic.record.configs = dict(overrides)
        topic.config_values = self.effective_configs(overrides)
        self.store.put_topic(topic.record)
        log_config = LogConfig.from_values(topic.config_values)
        for partition in topic.partitions:
            partition.config = log_config

    def close(self) -> None:
        for topic in self.topics.values():
            for partition in topic.partitions:
                partition.close()

    # -- waiting for data ------------------------------------------------------------------

    def watch(self, keys: list[tuple[str, int]]) -> asyncio.Future[None]:
        """A future resolved when any of these partitions is appended to (or deleted)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        for key in keys:
            self._waiters.setdefault(key, set()).add(future)
        return future

    def unwatch(self, keys: list[tuple[str, int]], future: asyncio.Future[None]) -> None:
        for key in keys:
            waiters = self._waiters.get(key)
            if waiters is not None:
                waiters.discard(future)
                if not waiters:
                    del self._waiters[key]

    def notify(self, topic: str, partition: int) -> None:
        self._wake((topic, partition))

    def _wake(self, key: tuple[str, int]) -> None:
        waiters = self._waiters.pop(key, None)
        if waiters:
            for future in waiters:
                if not future.done():
                    future.set_result(None)
