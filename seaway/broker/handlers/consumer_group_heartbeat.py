"""ConsumerGroupHeartbeat (68): join, stay in and leave a consumer group (KIP-848).

v1 (KIP-1082) members generate their member id and may subscribe with
``SubscribedTopicRegex``; v0 members may leave the id to the coordinator. As Kafka
authorizes it: READ on the group (else GROUP_AUTHORIZATION_FAILED), then DESCRIBE on every
subscribed topic name (else TOPIC_AUTHORIZATION_FAILED); a regex resolves only to topics the
caller may DESCRIBE.
"""

from __future__ import annotations

import datetime
from typing import Any

from seaway.broker.coordinator.consumer_coordinator import HeartbeatRequest
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

_MS = datetime.timedelta(milliseconds=1)


@handles(ApiKey.CONSUMER_GROUP_HEARTBEAT, max_version=1)
async def consumer_group_heartbeat(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    try:
        if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
            raise KafkaError(ErrorCode.group_authorization_failed)
        names = req.subscribed_topic_names
        denied = [
            t for t in sorted(set(names or ())) if not ctx.authorized(
                AclOperation.DESCRIBE, ResourceType.TOPIC, t
            )
        ]  # fmt: skip
        if denied:
            raise KafkaError(
                ErrorCode.topic_authorization_failed,
                f"not authorized to DESCRIBE the subscribed topics {', '.join(denied)}",
            )
        owned = req.topic_partitions
        result = ctx.broker.groups.consumer_heartbeat(
            HeartbeatRequest(
                group_id=req.group_id,
                member_id=req.member_id,
                member_epoch=req.member_epoch,
                client_id=ctx.frame.client_id or "",
                client_host=ctx.client_host,
                version=ctx.version,
                instance_id=req.instance_id,
                rack_id=req.rack_id,
                rebalance_timeout_ms=req.rebalance_timeout // _MS,
                subscribed_topic_names=tuple(names) if names is not None else None,
                subscribed_topic_regex=getattr(req, "subscribed_topic_regex", None),
                server_assignor=req.server_assignor,
                owned=(
                    {t.topic_id: frozenset(t.partitions) for t in owned if t.partitions}
                    if owned is not None
                    else None
                ),
            ),
            lambda topic: ctx.authorized(
                AclOperation.DESCRIBE, ResourceType.TOPIC, topic, log_denial=False
            ),
        )
    except KafkaError as e:
        return make(
            resp,
            throttle_time=ZERO,
            error_code=e.code,
            error_message=e.message,
            member_id=None,
            member_epoch=0,
            heartbeat_interval=ZERO,
            assignment=None,
        )
    assignment = None
    if result.assignment is not None:
        part_cls = nested(resp, "TopicPartitions")
        assignment = make(
            nested(resp, "Assignment"),
            topic_partitions=tuple(
                make(part_cls, topic_id=topic_id, partitions=tuple(sorted(partitions)))
                for topic_id, partitions in sorted(
                    result.assignment.items(), key=lambda tp: str(tp[0])
                )
            ),
        )
    return make(
        resp,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        error_message=None,
        member_id=result.member_id,
        member_epoch=result.member_epoch,
        heartbeat_interval=datetime.timedelta(milliseconds=result.heartbeat_interval_ms),
        assignment=assignment,
    )
