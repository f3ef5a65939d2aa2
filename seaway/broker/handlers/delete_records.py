"""DeleteRecords (21): move partitions' log start offsets forward.

Each topic needs DELETE (else TOPIC_AUTHORIZATION_FAILED on its partitions, before the
existence check), as in Kafka.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DELETE_RECORDS, max_version=2)
async def delete_records(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    topic_cls = nested(resp, "DeleteRecordsTopicResult")
    part_cls = nested(resp, "DeleteRecordsPartitionResult")
    topics = []
    for t in ctx.request.topics:
        parts = []
        deletable = ctx.authorized(AclOperation.DELETE, ResourceType.TOPIC, t.name)
        for p in t.partitions:
            try:
                if not deletable:
                    raise KafkaError(ErrorCode.topic_authorization_failed)
                low = ctx.broker.topics.partition(t.name, p.partition_index).delete_records(
                    p.offset
                )
                code = ErrorCode.none
            except KafkaError as e:
                low, code = -1, e.code
            parts.append(
                make(
                    part_cls, partition_index=p.partition_index, low_watermark=low, error_code=code
                )
            )
        topics.append(make(topic_cls, name=t.name, partitions=tuple(parts)))
    return make(resp, throttle_time=ZERO, topics=tuple(topics))
