"""CreatePartitions (37): grow a topic's partition count.

Each topic needs ALTER (else TOPIC_AUTHORIZATION_FAILED), as in Kafka. Manual assignments
name one replica list per new partition, each checked as CreateTopics checks them.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.create_topics import validate_replicas
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


def _check_assignments(ctx: RequestContext, topic: Any) -> None:
    """Kafka's checks of *topic*'s manual assignments, once its new count is known valid."""
    additional = topic.count - len(ctx.broker.topics.topics[topic.name].partitions)
    if len(topic.assignments) != additional:
        raise KafkaError(
            ErrorCode.invalid_replica_assignment,
            f"Attempted to add {additional} additional partition(s), but only "
            f"{len(topic.assignments)} assignment(s) were specified.",
        )
    for assignment in topic.assignments:
        validate_replicas(assignment.broker_ids, (ctx.broker.node_id,), 1)


@handles(ApiKey.CREATE_PARTITIONS, max_version=3)
async def create_partitions(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    result_cls = nested(resp, "CreatePartitionsTopicResult")
    results = []
    for t in req.topics:
        code, message = ErrorCode.none, None
        try:
            if not ctx.authorized(AclOperation.ALTER, ResourceType.TOPIC, t.name):
                raise KafkaError(
                    ErrorCode.topic_authorization_failed, "The topic authorization is failed."
                )
            if t.assignments is not None:
                ctx.broker.topics.add_partitions(t.name, t.count, validate_only=True)
                _check_assignments(ctx, t)
            ctx.broker.topics.add_partitions(t.name, t.count, validate_only=req.validate_only)
        except KafkaError as e:
            code, message = e.code, e.message
        results.append(make(result_cls, name=t.name, error_code=code, error_message=message))
    return make(resp, throttle_time=ZERO, results=tuple(results))
