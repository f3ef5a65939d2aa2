"""FindCoordinator (10): this node coordinates every group and every transactional id."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make

GROUP = 0
TRANSACTION = 1


@handles(10, max_version=3)
async def find_coordinator(ctx: RequestContext) -> Any:
    broker = ctx.broker
    key_type = getattr(ctx.request, "key_type", GROUP)
    if key_type not in (GROUP, TRANSACTION):
        return make(
            ctx.response_class,
            throttle_time=ZERO,
            error_code=ErrorCode.invalid_request,
            error_message=f"unknown coordinator key type {key_type}",
            node_id=-1,
            host="",
            port=-1,
        )
    return make(
        ctx.response_class,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        error_message=None,
        node_id=broker.node_id,
        host=ctx.listener.advertised_host,
        port=ctx.listener.advertised_port,
    )
