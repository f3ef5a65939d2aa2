"""LeaveGroup (13): members leave (one per request before v3, a batch from v3).

From v3 each member is named by member id and/or ``group.instance.id`` (an empty member id
with an instance id removes that static member, as admin tools do) and answered with its
own error; v5 adds the leave's ``reason`` (KIP-800), logged. Needs READ on the group, else
GROUP_AUTHORIZATION_FAILED for the request, no member results (as in Kafka).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.LEAVE_GROUP, max_version=5)
async def leave_group(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    groups = ctx.broker.groups
    if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
        return make(resp, throttle_time=ZERO, error_code=ErrorCode.group_authorization_failed,
                    members=())  # fmt: skip
    if ctx.version < 3:
        try:
            groups.leave(req.group_id, req.member_id, None, None)
            code = ErrorCode.none
        except KafkaError as e:
            code = e.code
        return make(resp, throttle_time=ZERO, error_code=code)
    member_cls = nested(resp, "MemberResponse")
    members = []
    for m in req.members:
        try:
            groups.leave(req.group_id, m.member_id, m.group_instance_id, getattr(m, "reason", None))
            code = ErrorCode.none
        except KafkaError as e:
            code = e.code
        members.append(
            make(
                member_cls,
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                error_code=code,
            )
        )
    return make(resp, throttle_time=ZERO, error_code=ErrorCode.none, members=tuple(members))
