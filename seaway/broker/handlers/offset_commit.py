"""OffsetCommit (8): store a group's consumed positions durably."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.protocol.errors import KafkaError
from seaway.broker.protocol.framing import make, nested


@handles(8, max_version=8)
async def offset_commit(ctx: RequestContext) -> Any:
    req = ctx.request
    generation = getattr(req, "generation_id_or_member_epoch", getattr(req, "generation_id", -1))
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
        codes = ctx.broker.groups.commit_offsets(req.group_id, generation, req.member_id, offsets)
    except KafkaError as e:
        codes = {(t, p): e.code for t, p, *_ in offsets}
    resp = ctx.response_class
    topic_cls = nested(resp, "OffsetCommitResponseTopic")
    part_cls = nested(resp, "OffsetCommitResponsePartition")
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
                        error_code=codes[t.name, p.partition_index],
                    )
                    for p in t.partitions
                ),
            )
            for t in req.topics
        ),
    )
