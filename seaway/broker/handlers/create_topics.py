"""CreateTopics (19): create topics with partition counts and config overrides.

Authorization as Kafka's: CREATE on the cluster, else CREATE on each topic (else
TOPIC_AUTHORIZATION_FAILED "Authorization failed."). A created topic's configs are echoed
back (v5+) to a caller with DESCRIBE_CONFIGS on it; others get ``topic_config_error_code``
TOPIC_AUTHORIZATION_FAILED instead.

A manual replica assignment is checked as Kafka's ``ReplicationControlManager`` does: every
replica a registered broker (here: this node), none twice, the same count in every
partition, partitions numbered 0..n-1, and numPartitions and replicationFactor left at -1.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from seaway.broker.handlers.describe_configs import topic_entries
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


def _configs(ctx: RequestContext, name: str) -> tuple[Any, ...]:
    """The created topic's configs, as DescribeConfigs would list them."""
    config_cls = nested(ctx.response_class, "CreatableTopicConfigs")
    return tuple(
        make(
            config_cls,
            name=key,
            value=value,
            read_only=False,
            config_source=source,
            is_sensitive=False,
        )
        for key, value, source, _ in topic_entries(ctx, name)
    )


def _invalid_assignment(message: str) -> KafkaError:
    return KafkaError(ErrorCode.invalid_replica_assignment, message)


def validate_replicas(replicas: Sequence[int], brokers: Collection[int], count: int | None) -> None:
    """Kafka's ``validateManualPartitionAssignment``: one partition's replicas, all in
    *brokers*, none twice, *count* of them if given (the other partitions' count)."""
    if not replicas:
        raise _invalid_assignment("The manual partition assignment includes an empty replica list.")
    previous = None
    for broker_id in sorted(replicas):
        if broker_id not in brokers:
            raise _invalid_assignment(
                f"The manual partition assignment includes broker {broker_id}, but no such "
                "broker is registered."
            )
        if broker_id == previous:
            raise _invalid_assignment(
                f"The manual partition assignment includes the broker {broker_id} more than once."
            )
        previous = broker_id
    if count is not None and len(replicas) != count:
        raise _invalid_assignment(
            f"The manual partition assignment includes a partition with {len(replicas)} "
            "replica(s), but this is not consistent with previous partitions, which have "
            f"{count} replica(s)."
        )


def _manual_partitions(topic: Any, node_id: int) -> int:
    """The partition count of *topic*'s manual assignment, checked as Kafka's
    ``ReplicationControlManager.createTopic`` does."""
    for field, value in (("replication factor", topic.replication_factor),
                         ("numPartitions", topic.num_partitions)):  # fmt: skip
        if value != -1:
            raise KafkaError(
                ErrorCode.invalid_request,
                f"A manual partition assignment was specified, but {field} was not set to -1.",
            )
    seen: set[int] = set()
    count = None
    for assignment in topic.assignments:
        if assignment.partition_index in seen:
            raise _invalid_assignment(
                f"Found multiple manual partition assignments for partition "
                f"{assignment.partition_index}"
            )
        validate_replicas(assignment.broker_ids, (node_id,), count)
        count = len(assignment.broker_ids)
        seen.add(assignment.partition_index)
    if seen != set(range(len(seen))):
        raise _invalid_assignment("partitions should be a consecutive 0-based integer sequence")
    return len(seen)


@handles(ApiKey.CREATE_TOPICS, max_version=7)
async def create_topics(ctx: RequestContext) -> Any:
    req = ctx.request
    broker = ctx.broker
    resp = ctx.response_class
    result_cls = nested(resp, "CreatableTopicResult")
    on_cluster = ctx.authorized(AclOperation.CREATE, ResourceType.CLUSTER, log_denial=False)
    results = []
    for t in req.topics:
        code, message, topic_id, partitions = ErrorCode.none, None, None, -1
        echoed, config_code = None, ErrorCode.none
        try:
            if not (on_cluster or ctx.authorized(AclOperation.CREATE, ResourceType.TOPIC, t.name)):
                raise KafkaError(ErrorCode.topic_authorization_failed, "Authorization failed.")
            if t.assignments:
                partitions = _manual_partitions(t, broker.node_id)
            elif t.replication_factor not in (-1, 1):
                raise KafkaError(
                    ErrorCode.invalid_replication_factor,
                    f"Replication factor: {t.replication_factor} larger than available brokers: 1.",
                )
            else:
                partitions = t.num_partitions
                if partitions == -1:
                    partitions = broker.default_partitions
            configs = {c.name: c.value for c in t.configs}
            topic = broker.topics.create(
                t.name, partitions, configs, validate_only=req.validate_only
            )
            if not ctx.authorized(
                AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, t.name, log_denial=False
            ):
                config_code = ErrorCode.topic_authorization_failed
            elif topic is not None and ctx.version >= 5:
                echoed = _configs(ctx, t.name)
            if topic is not None:
                topic_id = topic.topic_id
        except KafkaError as e:
            code, message, partitions = e.code, e.message, -1
        results.append(
            make(
                result_cls,
                name=t.name,
                topic_id=topic_id,
                error_code=code,
                error_message=message,
                topic_config_error_code=config_code,
                num_partitions=partitions,
                replication_factor=1 if code == ErrorCode.none else -1,
                configs=echoed,
            )
        )
    return make(resp, throttle_time=ZERO, topics=tuple(results))
