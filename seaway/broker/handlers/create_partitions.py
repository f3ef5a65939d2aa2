"""CreatePartitions (37): grow a topic's partition count.

Each topic needs ALTER (else TOPIC_AUTHORIZATION_FAILED), as in Kafka.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(37, max_version=3)
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
            ctx.broker.topics.add_partitions(t.name, t.count, validate_only=req.validate_only)
        except KafkaError as e:
            code, message = e.code, e.message
        results.append(make(result_cls, name=t.name, error_code=code, error_message=message))
    return make(resp, throttle_time=ZERO, results=tuple(results))
