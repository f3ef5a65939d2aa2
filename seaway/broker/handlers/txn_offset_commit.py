"""TxnOffsetCommit (28): group offsets that become visible when the transaction commits."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.offset_commit import commit_response, requested_offsets
from seaway.broker.handlers.registry import RequestContext, handles
from seaway.protocol.errors import KafkaError


@handles(28, max_version=3)
async def txn_offset_commit(ctx: RequestContext) -> Any:
    req = ctx.request
    offsets = requested_offsets(req)
    try:
        ctx.broker.transactions.check_offsets_allowed(
            req.transactional_id, req.producer_id, req.producer_epoch, req.group_id, ctx.version
        )
        codes = ctx.broker.groups.txn_commit_offsets(
            req.group_id,
            req.producer_id,
            getattr(req, "generation_id", -1),
            getattr(req, "member_id", ""),
            offsets,
        )
    except KafkaError as e:
        codes = {(t, p): e.code for t, p, *_ in offsets}
    return commit_response(ctx, "TxnOffsetCommit", offsets, codes)
