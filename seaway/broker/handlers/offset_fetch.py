"""OffsetFetch (9): a group's committed offsets (-1 where it has none).

As Kafka authorizes it: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED (the
top-level code from v2, each requested partition's before); then DESCRIBE on each topic:
a named topic without it gets TOPIC_AUTHORIZATION_FAILED per partition (offset -1), a
fetch of all topics silently leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(9, max_version=7)
async def offset_fetch(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    topic_cls = nested(resp, "OffsetFetchResponseTopic")
    part_cls = nested(resp, "OffsetFetchResponsePartition")
    if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, req.group_id):
        code = ErrorCode.group_authorization_failed
        failed = _failed(resp, req.topics, code) if ctx.version < 2 else ()
        return make(resp, throttle_time=ZERO, topics=failed, error_code=code)
    committed = ctx.broker.groups.fetch_offsets(req.group_id)
    unstable = (
        ctx.broker.groups.unstable_partitions(req.group_id)
        if getattr(req, "require_stable", False)
        else set()
    )
    denied: list[Any] = []
    if req.topics is None:
        wanted: dict[str, list[int]] = {}
        for topic, partition in sorted(committed):
            if ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, topic, log_denial=False):
                wanted.setdefault(topic, []).append(partition)
    else:
        wanted = {}
        for t in req.topics:
            if ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, t.name):
                wanted[t.name] = list(t.partition_indexes)
            else:
                denied.append(t)
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
    topics.extend(_failed(resp, denied, ErrorCode.topic_authorization_failed))
    return make(resp, throttle_time=ZERO, topics=tuple(topics), error_code=ErrorCode.none)


def _failed(resp: type, topics: Iterable[Any], code: ErrorCode) -> tuple[Any, ...]:
    """The requested *topics* answered with *code* on each partition and no offset."""
    topic_cls = nested(resp, "OffsetFetchResponseTopic")
    part_cls = nested(resp, "OffsetFetchResponsePartition")
    return tuple(
        make(
            topic_cls,
            name=t.name,
            partitions=tuple(
                make(
                    part_cls,
                    partition_index=p,
                    committed_offset=-1,
                    committed_leader_epoch=-1,
                    metadata="",
                    error_code=code,
                )
                for p in t.partition_indexes
            ),
        )
        for t in topics
    )
