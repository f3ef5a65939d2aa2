"""OffsetFetch (9): a group's committed offsets (-1 where it has none)."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested


@handles(9, max_version=7)
async def offset_fetch(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    topic_cls = nested(resp, "OffsetFetchResponseTopic")
    part_cls = nested(resp, "OffsetFetchResponsePartition")
    committed = ctx.broker.groups.fetch_offsets(req.group_id)
    unstable = (
        ctx.broker.groups.unstable_partitions(req.group_id)
        if getattr(req, "require_stable", False)
        else set()
    )
    if req.topics is None:
        wanted: dict[str, list[int]] = {}
        for topic, partition in sorted(committed):
            wanted.setdefault(topic, []).append(partition)
    else:
        wanted = {t.name: list(t.partition_indexes) for t in req.topics}
    topics = []
    for topic, partitions in wanted.items():
        parts = []
        for partition in partitions:
            c = committed.get((topic, partition))
            parts.append(
                make(
                    part_cls,
                    partition_index=partition,
                    committed_offset=c.offset if c else -1,
                    committed_leader_epoch=c.leader_epoch if c else -1,
                    metadata=(c.metadata if c.metadata is not None else "") if c else "",
                    error_code=ErrorCode.unstable_offset_commit
                    if (topic, partition) in unstable
                    else ErrorCode.none,
                )
            )
        topics.append(make(topic_cls, name=topic, partitions=tuple(parts)))
    return make(resp, throttle_time=ZERO, topics=tuple(topics), error_code=ErrorCode.none)
