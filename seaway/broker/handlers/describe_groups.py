"""DescribeGroups (15): state, protocol and members of groups ("Dead" when unknown).

As Kafka authorizes it: DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED for that
group. ``include_authorized_operations`` (v3+) adds each described group's operations the
caller may do; without it the field stays Kafka's "omitted" value, ``-2**31``.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.coordinator.group import GroupState
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

OMITTED = -(2**31)


@handles(15, max_version=5)
async def describe_groups(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    group_cls = nested(resp, "DescribedGroup")
    member_cls = nested(resp, "DescribedGroupMember")
    with_operations = getattr(ctx.request, "include_authorized_operations", False)
    described = []
    for group_id in ctx.request.groups:
        if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(
                make(
                    group_cls,
                    error_code=ErrorCode.group_authorization_failed,
                    group_id=group_id,
                    group_state="",
                    protocol_type="",
                    protocol_data="",
                    members=(),
                    authorized_operations=OMITTED,
                )
            )
            continue
        operations = (
            ctx.authorized_operations(ResourceType.GROUP, group_id) if with_operations else OMITTED
        )
        group = ctx.broker.groups.describe(group_id)
        if group is None:
            described.append(
                make(
                    group_cls,
                    error_code=ErrorCode.none,
                    group_id=group_id,
                    group_state=GroupState.DEAD.value,
                    protocol_type="",
                    protocol_data="",
                    members=(),
                    authorized_operations=operations,
                )
            )
            continue
        stable = group.state == GroupState.STABLE
        members = tuple(
            make(
                member_cls,
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                member_metadata=m.metadata(group.protocol_name) if stable else b"",
                member_assignment=m.assignment if stable else b"",
            )
            for m in group.members.values()
        )
        described.append(
            make(
                group_cls,
                error_code=ErrorCode.none,
                group_id=group_id,
                group_state=group.state.value,
                protocol_type=group.protocol_type,
                protocol_data=group.protocol_name or "",
                members=members,
                authorized_operations=operations,
            )
        )
    return make(resp, throttle_time=ZERO, groups=tuple(described))
