"""CreateTopics (19): create topics with partition counts and config overrides.

Authorization as Kafka's: CREATE on the cluster, else CREATE on each topic (else
TOPIC_AUTHORIZATION_FAILED "Authorization failed."). A created topic's configs are echoed
back (v5+) to a caller with DESCRIBE_CONFIGS on it; others get ``topic_config_error_code``
TOPIC_AUTHORIZATION_FAILED instead.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.describe_configs import topic_entries
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
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


@handles(19, max_version=7)
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
                raise KafkaError(
                    ErrorCode.invalid_replica_assignment,
                    "manual replica assignment is not supported by a single node",
                )
            if t.replication_factor not in (-1, 1):
                raise KafkaError(
                    ErrorCode.invalid_replication_factor,
                    f"Replication factor: {t.replication_factor} larger than available brokers: 1.",
                )
            partitions = t.num_partitions if t.num_partitions != -1 else broker.default_partitions
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
