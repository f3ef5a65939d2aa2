"""Deleting a consumer group's committed offsets (``OffsetDelete``, Kafka's
``Admin.deleteConsumerGroupOffsets``), which confluent-kafka's admin client lacks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from seaway.kafka.cluster import GROUP, KafkaCluster
from seaway.kafka.security import ClientSecurity
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested

__all__ = ["delete_group_offsets"]

Partition = tuple[str, int]


def delete_group_offsets(
    config: Mapping[str, str],
    group: str,
    partitions: Sequence[Partition],
    timeout: float,
    retry_s: float,
) -> tuple[int, dict[Partition, int]]:
    """OffsetDelete of *group*'s *partitions* (confluent-kafka has no
    DeleteConsumerGroupOffsets): the request's error code and each partition's. Raises
    ``ConfigException`` for a bad client config, ``KafkaConnectionError`` when the cluster
    cannot be reached. *timeout*: each request's; *retry_s*: how long retriable errors are
    retried."""
    security = ClientSecurity.from_config(config)
    cluster = KafkaCluster(
        config["bootstrap.servers"],
        client_id="seaway-groups",
        request_timeout_s=max(timeout, 1.0),
        security=security,
    )
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)

    def call() -> Any:
        connection = cluster.coordinator(group, GROUP)
        cls = connection.request_class(ApiKey.OFFSET_DELETE, 0, 0)
        topic_cls = nested(cls, "OffsetDeleteRequestTopic")
        partition_cls = nested(cls, "OffsetDeleteRequestPartition")
        topics = tuple(
            make(
                topic_cls,
                name=t,
                partitions=tuple(make(partition_cls, partition_index=p) for p in ps),
            )
            for t, ps in by_topic.items()
        )
        response = connection.request(make(cls, group_id=group, topics=topics))
        code = ErrorCode(response.error_code)
        if code.retriable:  # NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...
            raise KafkaError(code, f"OffsetDelete({group})")
        return response

    try:
        response = cluster.retrying(call, f"OffsetDelete({group})", retry_s)
    except KafkaError as error:  # FindCoordinator's (GROUP_AUTHORIZATION_FAILED, ...)
        return int(error.code), {}
    finally:
        cluster.close()
    codes = {
        (str(t.name), int(p.partition_index)): int(p.error_code)
        for t in response.topics
        for p in t.partitions
    }
    return int(response.error_code), codes
