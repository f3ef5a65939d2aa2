"""InitProducerId (22): producer ids and epochs, for idempotent and transactional producers.

A transactional id gets its producer id back with a bumped epoch, which fences any older
producer with the same id and aborts its open transaction (KIP-98). aiokafka sends v0,
which carries no producer id or epoch.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make


@handles(22, max_version=4)
async def init_producer_id(ctx: RequestContext) -> Any:
    req = ctx.request
    pid, epoch, code = -1, -1, ErrorCode.none
    try:
        if req.transactional_id is None:
            pid, epoch = ctx.broker.producer_ids.next_id(), 0
        else:
            timeout_ms = int(req.transaction_timeout.total_seconds() * 1000)
            expected = None
            if ctx.version >= 3:
                expected = (req.producer_id, req.producer_epoch)
            pid, epoch = ctx.broker.transactions.init_producer_id(
                req.transactional_id, timeout_ms, expected, ctx.version
            )
    except KafkaError as e:
        code = e.code
    return make(
        ctx.response_class,
        throttle_time=ZERO,
        error_code=code,
        producer_id=pid,
        producer_epoch=epoch,
    )
