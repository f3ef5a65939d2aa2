"""OffsetDelete (47): delete a group's offsets for partitions it no longer consumes.

As Kafka authorizes it: DELETE on the group, else GROUP_AUTHORIZATION_FAILED for the
request (before the group's existence is checked); READ on each topic, else
TOPIC_AUTHORIZATION_FAILED on its partitions, whose offsets stay.
"""

from __future__ import annotations

import struct
from typing import Any

from kio.schema.consumer_protocol_subscription.v0.data import ConsumerProtocolSubscription
from kio.serial import entity_reader

from seaway.broker.coordinator.group import Group
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

_read_subscription = entity_reader(ConsumerProtocolSubscription)


def subscribed_topics(group: Group) -> set[str]:
    """Topics the members of a ``consumer`` group subscribe to, from their join metadata.

    Every ConsumerProtocolSubscription version starts with ``version int16, topics
    [string]``, so reading it as v0 after the version prefix is enough for the topics.
    """
    topics: set[str] = set()
    if group.protocol_type != "consumer":
        return topics
    for member in group.members.values():
        data = member.metadata(group.protocol_name)
        if len(data) < 2:
            continue
        try:
            subscription, _ = _read_subscription(data, struct.calcsize(">h"))
        except Exception:  # malformed client metadata: treat as subscribing to nothing
            continue
        topics.update(subscription.topics)
    return topics


@handles(ApiKey.OFFSET_DELETE, max_version=0)
async def offset_delete(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    topic_cls = nested(resp, "OffsetDeleteResponseTopic")
    part_cls = nested(resp, "OffsetDeleteResponsePartition")
    if not ctx.authorized(AclOperation.DELETE, ResourceType.GROUP, req.group_id):
        code = ErrorCode.group_authorization_failed
        return make(resp, error_code=code, throttle_time=ZERO, topics=())
    group = ctx.broker.groups.describe(req.group_id)
    consumer = ctx.broker.groups.consumer.get(req.group_id)  # a KIP-848 consumer group
    committed = ctx.broker.groups.fetch_offsets(req.group_id)
    if group is None and consumer is None and not committed:
        return make(resp, error_code=ErrorCode.group_id_not_found, throttle_time=ZERO, topics=())
    busy = subscribed_topics(group) if group is not None else set()
    if consumer is not None:
        busy = consumer.subscribed_topics()
    doomed: list[tuple[str, int]] = []
    topics = []
    for t in req.topics:
        parts = []
        if not ctx.authorized(AclOperation.READ, ResourceType.TOPIC, t.name):
            code = ErrorCode.topic_authorization_failed
        elif t.name in busy:
            code = ErrorCode.group_subscribed_to_topic
        else:
            code = ErrorCode.none
        for p in t.partitions:
            if code == ErrorCode.none:
                doomed.append((t.name, p.partition_index))
            parts.append(make(part_cls, partition_index=p.partition_index, error_code=code))
        topics.append(make(topic_cls, name=t.name, partitions=tuple(parts)))
    ctx.broker.groups.delete_offsets(req.group_id, doomed)
    return make(resp, error_code=ErrorCode.none, throttle_time=ZERO, topics=tuple(topics))
