"""OffsetForLeaderEpoch (23): where a leader epoch ended, for truncation checks (KIP-320).

A single node leads every partition in epoch 0 from its creation (Metadata says so), so
epoch 0 ends at the log end offset; an epoch the node never had answers Kafka's undefined
epoch and offset (-1, -1); a client that knows a newer epoch than 0 (``current_leader_epoch``)
gets UNKNOWN_LEADER_EPOCH. Consumers need DESCRIBE on the topic, followers CLUSTER_ACTION.
"""

from __future__ import annotations

from typing import Any, Final

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

LEADER_EPOCH: Final = 0
_UNDEFINED: Final = -1
_CONSUMER: Final = -1  # replica_id of a consumer (-2: a debugging consumer)


@handles(ApiKey.OFFSET_FOR_LEADER_EPOCH, max_version=4)
async def offset_for_leader_epoch(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    topic_cls, part_cls = nested(resp, "OffsetForLeaderTopicResult"), nested(resp, "EpochEndOffset")
    follower = getattr(req, "replica_id", _CONSUMER) >= 0
    topics = []
    for t in req.topics:
        if follower:
            allowed = ctx.authorized(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER)
        else:
            allowed = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic)
        parts = []
        for p in t.partitions:
            code, epoch, end = ErrorCode.none, _UNDEFINED, _UNDEFINED
            try:
                if not allowed:
                    raise KafkaError(ErrorCode.topic_authorization_failed)
                plog = ctx.broker.topics.partition(t.topic, p.partition)
                current = getattr(p, "current_leader_epoch", _UNDEFINED)
                if current > LEADER_EPOCH:
                    raise KafkaError(ErrorCode.unknown_leader_epoch)
                if p.leader_epoch == LEADER_EPOCH:
                    epoch, end = LEADER_EPOCH, plog.log_end_offset
            except KafkaError as e:
                code = e.code
            parts.append(make(part_cls, error_code=code, partition=p.partition,
                              leader_epoch=epoch, end_offset=end))  # fmt: skip
        topics.append(make(topic_cls, topic=t.topic, partitions=tuple(parts)))
    return make(resp, throttle_time=ZERO, topics=tuple(topics))
