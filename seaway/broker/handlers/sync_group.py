"""SyncGroup (14): the leader hands out assignments; every member receives its own.

From v5 the protocol type and name are mandatory and must be the group's, else
INCONSISTENT_GROUP_PROTOCOL (KIP-559). Needs READ on the group, else
GROUP_AUTHORIZATION_FAILED (as in Kafka).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.SYNC_GROUP, max_version=5)
async def sync_group(ctx: RequestContext) -> Any:
    req = ctx.request
    assignments = {a.member_id: a.assignment for a in req.assignments}
    protocol = (getattr(req, "protocol_type", None), getattr(req, "protocol_name", None))
    try:
        if ctx.version >= 5 and None in protocol:
            raise KafkaError(
                ErrorCode.inconsistent_group_protocol,
                "SyncGroup v5+ must carry the group's protocol_type and protocol_name",
            )
        if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
            raise KafkaError(ErrorCode.group_authorization_failed)
        group, assignment = await ctx.broker.groups.sync(
            req.group_id,
            req.generation_id,
            req.member_id,
            getattr(req, "group_instance_id", None),
            protocol,
            assignments,
        )
        code, protocol_type, protocol_name = (
            ErrorCode.none,
            group.protocol_type,
            group.protocol_name,
        )
    except KafkaError as e:
        code, assignment, protocol_type, protocol_name = e.code, b"", None, None
    return make(
        ctx.response_class,
        throttle_time=ZERO,
        error_code=code,
        protocol_type=protocol_type,
        protocol_name=protocol_name,
        assignment=assignment,
    )
