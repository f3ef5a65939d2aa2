"""Heartbeat (12): keep a member's session alive; learn of rebalances."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make


@handles(12, max_version=4)
async def heartbeat(ctx: RequestContext) -> Any:
    req = ctx.request
    try:
        ctx.broker.groups.heartbeat(req.group_id, req.generation_id, req.member_id)
        code = ErrorCode.none
    except KafkaError as e:
        code = e.code
    return make(ctx.response_class, throttle_time=ZERO, error_code=code)
