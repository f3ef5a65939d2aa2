"""ConsumerGroupDescribe (69): consumer groups (KIP-848) with their members, epochs, current
and target assignments.

As Kafka answers it: DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED for that group;
a group that does not exist, or is a classic group, is GROUP_ID_NOT_FOUND; a group whose
members' assignments name a topic the caller may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED,
without members. ``include_authorized_operations`` adds the group's operations the caller
may do (else Kafka's "omitted" value, ``-2**31``). v1 adds each member's type (1: consumer).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from seaway.broker.coordinator.assignors import Assignment
from seaway.broker.coordinator.consumer_group import ConsumerGroup
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

OMITTED = -(2**31)
CONSUMER_MEMBER = 1
UNAUTHORIZED_TOPICS = (
    "The group has described topic(s) that the client is not authorized to describe."
)


@handles(ApiKey.CONSUMER_GROUP_DESCRIBE, max_version=1)
async def consumer_group_describe(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    group_cls = nested(resp, "DescribedGroup")
    names = {t.topic_id: name for name, t in ctx.broker.topics.topics.items()}

    def failed(group_id: str, code: ErrorCode, message: str | None) -> Any:
        return make(
            group_cls,
            error_code=code,
            error_message=message,
            group_id=group_id,
            group_state="",
            group_epoch=0,
            assignment_epoch=0,
            assignor_name="",
            members=(),
            authorized_operations=OMITTED,
        )

    described = []
    for group_id in ctx.request.group_ids:
        if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(failed(group_id, ErrorCode.group_authorization_failed, None))
            continue
        group = ctx.broker.groups.consumer.get(group_id)
        if group is None:
            message = (
                f"Group {group_id} is not a consumer group."
                if ctx.broker.groups.describe(group_id) is not None
                else f"Group {group_id} not found."
            )
            described.append(failed(group_id, ErrorCode.group_id_not_found, message))
            continue
        topics = {
            names[t]
            for m in group.members.values()
            for a in (m.assignment.assigned, group.target.get(m.member_id, {}))
            for t in a
            if t in names
        }
        if not all(ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t) for t in topics):
            described.append(
                failed(group_id, ErrorCode.topic_authorization_failed, UNAUTHORIZED_TOPICS)
            )
            continue
        described.append(_described(ctx, resp, group, names))
    return make(resp, throttle_time=ZERO, groups=tuple(described))


def _described(
    ctx: RequestContext, resp: type, group: ConsumerGroup, names: Mapping[uuid.UUID, str]
) -> Any:
    member_cls = nested(resp, "Member")
    assignment_cls = nested(resp, "Assignment")
    part_cls = nested(resp, "TopicPartitions")

    def assignment(partitions: Assignment) -> Any:
        return make(
            assignment_cls,
            topic_partitions=tuple(
                make(part_cls, topic_id=t, topic_name=names[t], partitions=tuple(sorted(ps)))
                for t, ps in sorted(partitions.items(), key=lambda tp: names.get(tp[0], ""))
                if t in names
            ),
        )

    members = tuple(
        make(
            member_cls,
            member_id=m.member_id,
            instance_id=m.instance_id,
            rack_id=m.rack_id,
            member_epoch=m.epoch,
            client_id=m.client_id,
            client_host=m.client_host,
            subscribed_topic_names=tuple(sorted(m.subscribed_topic_names)),
            subscribed_topic_regex=m.subscribed_topic_regex,
            assignment=assignment(m.assignment.assigned),
            target_assignment=assignment(group.target.get(m.member_id, {})),
            member_type=CONSUMER_MEMBER,
        )
        for m in group.members.values()
    )
    with_operations = ctx.request.include_authorized_operations
    return make(
        nested(resp, "DescribedGroup"),
        error_code=ErrorCode.none,
        error_message=None,
        group_id=group.group_id,
        group_state=group.state.value,
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        assignor_name=group.preferred_assignor(ctx.broker.groups.consumer.assignors),
        members=members,
        authorized_operations=(
            ctx.authorized_operations(ResourceType.GROUP, group.group_id)
            if with_operations
            else OMITTED
        ),
    )
