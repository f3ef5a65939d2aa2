"""OffsetCommit (8): store a group's consumed positions durably."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested


@handles(8, max_version=8)
async def offset_commit(ctx: RequestContext) -> Any:
    req = ctx.request
    generation = getattr(req, "generation_id_or_member_epoch", getattr(req, "generation_id", -1))
    offsets = requested_offsets(req)
    try:
        codes = ctx.broker.groups.commit_offsets(req.group_id, generation, req.member_id, offsets)
    except KafkaError as e:
        codes = {(t, p): e.code for t, p, *_ in offsets}
    return commit_response(ctx, "OffsetCommit", offsets, codes)


def requested_offsets(req: Any) -> list[tuple[str, int, int, int, str | None]]:
    """``(topic, partition, offset, leader epoch, metadata)`` of an (Txn)OffsetCommit."""
    return [
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


def commit_response(
    ctx: RequestContext,
    api: str,
    offsets: list[tuple[str, int, int, int, str | None]],
    codes: dict[tuple[str, int], ErrorCode],
) -> Any:
    """The per-partition answer of OffsetCommit or TxnOffsetCommit (``api``)."""
    resp = ctx.response_class
    topic_cls = nested(resp, f"{api}ResponseTopic")
    part_cls = nested(resp, f"{api}ResponsePartition")
    by_topic: dict[str, list[int]] = {}
    for topic, partition, *_ in offsets:
        by_topic.setdefault(topic, []).append(partition)
    return make(
        resp,
        throttle_time=ZERO,
        topics=tuple(
            make(
                topic_cls,
                name=topic,
                partitions=tuple(
                    make(
                        part_cls,
                        partition_index=p,
                        error_code=codes.get((topic, p), ErrorCode.none),
                    )
                    for p in partitions
                ),
            )
            for topic, partitions in by_topic.items()
        ),
    )
