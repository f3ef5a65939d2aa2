"""InitProducerId (22): producer ids for idempotent producers.

Transactional ids are refused until the transaction coordinator exists (FindCoordinator
for transactions answers COORDINATOR_NOT_AVAILABLE, and the transaction APIs are not
advertised, so clients fail ``init_transactions`` cleanly).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.protocol.errors import ErrorCode
from seaway.broker.protocol.framing import make


@handles(22, max_version=4)
async def init_producer_id(ctx: RequestContext) -> Any:
    if ctx.request.transactional_id is not None:
        return make(
            ctx.response_class,
            throttle_time=ZERO,
            error_code=ErrorCode.not_coordinator,
            producer_id=-1,
            producer_epoch=-1,
        )
    return make(
        ctx.response_class,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        producer_id=ctx.broker.producer_ids.next_id(),
        producer_epoch=0,
    )
