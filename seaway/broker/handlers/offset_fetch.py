"""OffsetFetch (9): a group's committed offsets (-1 where it has none).

As Kafka authorizes it: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED (the
top-level code from v2, each requested partition's before); then DESCRIBE on each topic:
a named topic without it gets TOPIC_AUTHORIZATION_FAILED per partition (offset -1), a
fetch of all topics silently leaves it out.

v8 fetches many groups at once (each with its own error code); v9 carries a consumer group's
member id and epoch (KIP-848): an unknown member is UNKNOWN_MEMBER_ID, another epoch
STALE_MEMBER_EPOCH, for that group.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.OFFSET_FETCH, max_version=9)
async def offset_fetch(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    stable = getattr(req, "require_stable", False)
    if ctx.version < 8:
        code, topics = _group_offsets(ctx, req.group_id, req.topics, stable, (None, -1))
        return make(resp, throttle_time=ZERO, topics=topics, error_code=code)
    groups = []
    for g in req.groups:  # v8+: many groups, v9+: a consumer group's member and epoch
        member = (getattr(g, "member_id", None), getattr(g, "member_epoch", -1))
        code, topics = _group_offsets(ctx, g.group_id, g.topics, stable, member)
        groups.append(
            make(
                nested(resp, "OffsetFetchResponseGroup"),
                group_id=g.group_id,
                topics=topics,
                error_code=code,
            )
        )
    return make(resp, throttle_time=ZERO, groups=tuple(groups))


def _group_offsets(
    ctx: RequestContext,
    group_id: str,
    requested: Iterable[Any] | None,
    require_stable: bool,
    member: tuple[str | None, int],
) -> tuple[ErrorCode, tuple[Any, ...]]:
    """One group's error code and topics (``requested`` None: every committed topic)."""
    resp = ctx.response_class
    suffix = "s" if ctx.version >= 8 else ""
    topic_cls = nested(resp, f"OffsetFetchResponseTopic{suffix}")
    part_cls = nested(resp, f"OffsetFetchResponsePartition{suffix}")
    if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
        code = ErrorCode.group_authorization_failed
        return code, _failed(resp, requested or (), code) if ctx.version < 2 else ()
    try:
        ctx.broker.groups.validate_fetch(group_id, *member)
    except KafkaError as e:
        return e.code, ()
    committed = ctx.broker.groups.fetch_offsets(group_id)
    unstable = ctx.broker.groups.unstable_partitions(group_id) if require_stable else set()
    denied: list[Any] = []
    if requested is None:
        wanted: dict[str, list[int]] = {}
        for topic, partition in sorted(committed):
            if ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, topic, log_denial=False):
                wanted.setdefault(topic, []).append(partition)
    else:
        wanted = {}
        for t in requested:
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
    return ErrorCode.none, tuple(topics)


def _failed(resp: type, topics: Iterable[Any], code: ErrorCode) -> tuple[Any, ...]:
    """The requested *topics* answered with *code* on each partition and no offset."""
    suffix = "s" if resp.__version__ >= 8 else ""  # type: ignore[attr-defined]
    topic_cls = nested(resp, f"OffsetFetchResponseTopic{suffix}")
    part_cls = nested(resp, f"OffsetFetchResponsePartition{suffix}")
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
