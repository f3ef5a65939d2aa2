"""TxnOffsetCommit (28): group offsets that become visible when the transaction commits."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.protocol.errors import ErrorCode, KafkaError
from seaway.broker.protocol.framing import make, nested


@handles(28, max_version=3)
async def txn_offset_commit(ctx: RequestContext) -> Any:
    req = ctx.request
    offsets = [
        (
            t.name,
            p.partition_index,
            p.committed_offset,
            getattr(p, "committed_leader_epoch", -1),
            p.committed_metadata,
        )
        for t in req.topics
        for p in t.partitions
    ]
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
    resp = ctx.response_class
    topic_cls = nested(resp, "TxnOffsetCommitResponseTopic")
    part_cls = nested(resp, "TxnOffsetCommitResponsePartition")
    return make(
        resp,
        throttle_time=ZERO,
        topics=tuple(
            make(
                topic_cls,
                name=t.name,
                partitions=tuple(
                    make(
                        part_cls,
                        partition_index=p.partition_index,
                        error_code=codes.get((t.name, p.partition_index), ErrorCode.none),
                    )
                    for p in t.partitions
                ),
            )
            for t in req.topics
        ),
    )
