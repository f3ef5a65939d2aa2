"""DeleteTopics (20): remove topics, their logs and the offsets committed for them.

Authorization as Kafka's KRaft controller: DELETE on the cluster, else DELETE on each
topic (else TOPIC_AUTHORIZATION_FAILED), checked once topic deletion is known enabled.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DELETE_TOPICS, max_version=5)
async def delete_topics(ctx: RequestContext) -> Any:
    broker = ctx.broker
    resp = ctx.response_class
    result_cls = nested(resp, "DeletableTopicResult")
    on_cluster = ctx.authorized(AclOperation.DELETE, ResourceType.CLUSTER, log_denial=False)
    results = []
    for name in ctx.request.topic_names:
        code, message = ErrorCode.none, None
        try:
            if not broker.delete_topic_enable:
                raise KafkaError(
                    ErrorCode.topic_deletion_disabled, "delete.topic.enable is false on the broker"
                )
            if not (on_cluster or ctx.authorized(AclOperation.DELETE, ResourceType.TOPIC, name)):
                raise KafkaError(ErrorCode.topic_authorization_failed)
            broker.topics.delete(name)
        except KafkaError as e:
            code, message = e.code, e.message
        results.append(make(result_cls, name=name, error_code=code, error_message=message))
    return make(resp, throttle_time=ZERO, responses=tuple(results))
