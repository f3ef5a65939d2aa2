"""Small Kafka admin helpers over confluent-kafka's AdminClient, shared by Connect and Mirror.

Every helper keeps its AdminClient referenced until the futures it waits on resolve: a
client collected while a request is in flight never answers (librdkafka's handle is
destroyed with it), which once made callers hang for the whole timeout.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Final

from seaway.kafka import clients
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

log = logging.getLogger(__name__)

TIMEOUT_S: Final = REQUEST_TIMEOUT_S
INACTIVE_GROUP_STATES: Final = ("EMPTY", "DEAD", "UNKNOWN")


def create_topics(admin: Any, topics: Iterable[Any], timeout: float = TIMEOUT_S) -> list[str]:
    """Create the ``NewTopic``\\ s; one that exists already is fine. Returns those created."""
    from confluent_kafka import KafkaError, KafkaException

    wanted = list(topics)
    if not wanted:
        return []
    created = []
    for name, future in admin.create_topics(wanted, request_timeout=timeout).items():
        try:
            future.result(timeout)
            created.append(name)
        except KafkaException as error:
            if error.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise
    return created


def ensure_topic(
    client: Mapping[str, str],
    name: str,
    partitions: int,
    replication_factor: int,
    config: Mapping[str, str] | None = None,
) -> bool:
    """Create *name* on the cluster of *client* unless it exists; whether it was created."""
    from confluent_kafka.admin import NewTopic

    admin = clients.admin(client)
    topic = NewTopic(name, partitions, replication_factor, config=dict(config or {}))
    return bool(create_topics(admin, [topic]))


def group_state(admin: Any, group: str, timeout: float = TIMEOUT_S) -> tuple[str, int]:
    """A group's state name (``STABLE``, ``EMPTY``, ...) and its member count."""
    description = admin.describe_consumer_groups([group])[group].result(timeout)
    return getattr(description.state, "name", str(description.state)), len(description.members)


def is_group_inactive(admin: Any, group: str, timeout: float = TIMEOUT_S) -> bool:
    """Whether *group* has no active members (so its offsets may be moved)."""
    state, members = group_state(admin, group, timeout)
    return state in INACTIVE_GROUP_STATES and not members


def committed_offsets(
    admin: Any, group: str, timeout: float = TIMEOUT_S
) -> dict[tuple[str, int], int]:
    """The group's committed offsets (partitions without a commit left out)."""
    from confluent_kafka import ConsumerGroupTopicPartitions

    request = [ConsumerGroupTopicPartitions(group)]
    result = admin.list_consumer_group_offsets(request)[group].result(timeout)
    return {
        (tp.topic, tp.partition): tp.offset
        for tp in result.topic_partitions or []
        if tp.offset >= 0
    }


def partition_offsets(
    admin: Any, group: str, partitions: Iterable[tuple[str, int]], timeout: float = TIMEOUT_S
) -> dict[tuple[str, int], tuple[int, str]]:
    """The group's committed offset and its metadata of each of *partitions* that has one."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(t, p) for t, p in partitions])]
    result = admin.list_consumer_group_offsets(request)[group].result(timeout)
    return {
        (tp.topic, tp.partition): (tp.offset, tp.metadata or "")
        for tp in result.topic_partitions or []
        if tp.offset >= 0
    }


def alter_offsets(
    admin: Any,
    group: str,
    offsets: Mapping[tuple[str, int], int],
    timeout: float = TIMEOUT_S,
    metadata: str = "",
) -> None:
    """Commit *offsets* for *group* (which must have no active members), each with
    *metadata*."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException, TopicPartition

    request = ConsumerGroupTopicPartitions(
        group,
        [
            TopicPartition(t, p, o, metadata=metadata) if metadata else TopicPartition(t, p, o)
            for (t, p), o in sorted(offsets.items())
        ],
    )
    result = admin.alter_consumer_group_offsets([request])[group].result(timeout)
    failed = [tp for tp in result.topic_partitions if tp.error is not None]
    if failed:
        raise KafkaException(failed[0].error)


__all__ = [
    "INACTIVE_GROUP_STATES",
    "TIMEOUT_S",
    "alter_offsets",
    "committed_offsets",
    "create_topics",
    "ensure_topic",
    "group_state",
    "is_group_inactive",
    "partition_offsets",
]


def authorizer_class(admin: Any, timeout: float = TIMEOUT_S) -> str | None:
    """The cluster's ``authorizer.class.name`` ("" when ACLs are off), None if it cannot be
    read. librdkafka drops DescribeAcls' error code, so an empty listing means "no ACLs",
    "no authorizer" or "not allowed to look"; DescribeConfigs reports its errors."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ConfigResource, ResourceType

    try:
        brokers = admin.list_topics(timeout=timeout).brokers
        resource = ConfigResource(ResourceType.BROKER, str(min(brokers)))
        configs = admin.describe_configs([resource], request_timeout=timeout)
        entry = configs[resource].result(timeout).get("authorizer.class.name")
    except (KafkaException, ValueError):
        return None
    return None if entry is None else (entry.value or "")
