"""Heartbeat (12): keep a member's session alive; learn of rebalances.

From v3 it carries ``group.instance.id``: a static member another instance replaced gets
FENCED_INSTANCE_ID. Needs READ on the group, else GROUP_AUTHORIZATION_FAILED (as in Kafka).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.HEARTBEAT, max_version=4)
async def heartbeat(ctx: RequestContext) -> Any:
    req = ctx.request
    code = ErrorCode.none
    try:
        if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
            raise KafkaError(ErrorCode.group_authorization_failed)
        ctx.broker.groups.heartbeat(
            req.group_id, req.generation_id, req.member_id, getattr(req, "group_instance_id", None)
        )
    except KafkaError as e:
        code = e.code
    return make(ctx.response_class, throttle_time=ZERO, error_code=code)
