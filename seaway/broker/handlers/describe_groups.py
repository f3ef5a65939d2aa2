"""DescribeGroups (15): state, protocol and members of groups ("Dead" when unknown)."""

from __future__ import annotations

from typing import Any

from seaway.broker.coordinator.group import GroupState
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested


@handles(15, max_version=5)
async def describe_groups(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    group_cls = nested(resp, "DescribedGroup")
    member_cls = nested(resp, "DescribedGroupMember")
    described = []
    for group_id in ctx.request.groups:
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
            )
        )
    return make(resp, throttle_time=ZERO, groups=tuple(described))
