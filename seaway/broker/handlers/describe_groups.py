"""DescribeGroups (15): state, protocol and members of groups.

As Kafka authorizes it: DESCRIBE on each group, else GROUP_AUTHORIZATION_FAILED for that
group. ``include_authorized_operations`` (v3+) adds each described group's operations the
caller may do; without it the field stays Kafka's "omitted" value, ``-2**31``. Members carry
their ``group.instance.id`` from v4. A group that does not exist is described as "Dead",
with GROUP_ID_NOT_FOUND and an error message from v6 (KIP-1043); so is a consumer group
(KIP-848: ConsumerGroupDescribe describes those), as Kafka answers. Member metadata,
assignments and the protocol name are given only for a Stable group, as Kafka does.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.coordinator.group import GroupState
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

OMITTED = -(2**31)


@handles(ApiKey.DESCRIBE_GROUPS, max_version=6)
async def describe_groups(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    group_cls = nested(resp, "DescribedGroup")
    member_cls = nested(resp, "DescribedGroupMember")
    with_operations = getattr(ctx.request, "include_authorized_operations", False)

    def without_members(
        group_id: str, code: ErrorCode, message: str | None, state: str, operations: int
    ) -> Any:
        return make(
            group_cls,
            error_code=code,
            error_message=message,  # v6+
            group_id=group_id,
            group_state=state,
            protocol_type="",
            protocol_data="",
            members=(),
            authorized_operations=operations,
        )

    described = []
    for group_id in ctx.request.groups:
        if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            denied = f"not authorized to DESCRIBE group {group_id}"
            described.append(
                without_members(group_id, ErrorCode.group_authorization_failed, denied, "", OMITTED)
            )
            continue
        operations = (
            ctx.authorized_operations(ResourceType.GROUP, group_id) if with_operations else OMITTED
        )
        group = ctx.broker.groups.describe(group_id)
        if group is None:  # v6+: GROUP_ID_NOT_FOUND, before: no error
            code, missing = ErrorCode.none, None
            if ctx.version >= 6:
                code, missing = (
                    ErrorCode.group_id_not_found,
                    f"Group {group_id} is not a classic group."  # a consumer group (KIP-848)
                    if ctx.broker.groups.consumer.get(group_id) is not None
                    else f"Group {group_id} not found.",
                )
            described.append(
                without_members(group_id, code, missing, GroupState.DEAD.value, operations)
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
                protocol_data=(group.protocol_name or "") if stable else "",
                members=members,
                authorized_operations=operations,
            )
        )
    return make(resp, throttle_time=ZERO, groups=tuple(described))
