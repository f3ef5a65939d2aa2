"""OffsetCommit (8): store a group's consumed positions durably.

As Kafka authorizes it: READ on the group (else GROUP_AUTHORIZATION_FAILED on every
partition), then READ on each topic (else TOPIC_AUTHORIZATION_FAILED on its partitions,
which are not committed); a partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION.
v9 is the version of the consumer group protocol (KIP-848): a consumer group's member
commits with its member epoch (STALE_MEMBER_EPOCH otherwise) and must use it.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.OFFSET_COMMIT, max_version=9)
async def offset_commit(ctx: RequestContext) -> Any:
    req = ctx.request
    generation = getattr(req, "generation_id_or_member_epoch", getattr(req, "generation_id", -1))
    offsets = requested_offsets(req)
    if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
        denied = {(t, p): ErrorCode.group_authorization_failed for t, p, *_ in offsets}
        return commit_response(ctx, "OffsetCommit", offsets, denied)
    allowed, codes = readable_offsets(ctx, offsets)
    if allowed or not offsets:  # Kafka skips the coordinator only when every topic is denied
        try:
            codes |= ctx.broker.groups.commit_offsets(
                req.group_id,
                generation,
                req.member_id,
                getattr(req, "group_instance_id", None),  # v7+: a replaced one is fenced
                allowed,
                ctx.version,
            )
        except KafkaError as e:
            codes |= {(t, p): _commit_error(e.code) for t, p, *_ in allowed}
    return commit_response(ctx, "OffsetCommit", offsets, codes)


def _commit_error(code: ErrorCode) -> ErrorCode:
    """As Kafka's GroupMetadataManager: an offsets write the storage refused answers
    NOT_COORDINATOR, which clients retry (after finding the coordinator again)."""
    return ErrorCode.not_coordinator if code == ErrorCode.kafka_storage_error else code


def readable_offsets(
    ctx: RequestContext, offsets: list[tuple[str, int, int, int, str | None]]
) -> tuple[list[tuple[str, int, int, int, str | None]], dict[tuple[str, int], ErrorCode]]:
    """The offsets the caller may commit, and the others' errors (an (Txn)OffsetCommit
    commits only the first): TOPIC_AUTHORIZATION_FAILED without READ on the topic, then, as
    Kafka checks its metadata, UNKNOWN_TOPIC_OR_PARTITION for a partition that does not exist."""
    topics = {t for t, *_ in offsets}
    readable = {t for t in topics if ctx.authorized(AclOperation.READ, ResourceType.TOPIC, t)}
    sizes = {t: len(found.partitions) if (found := ctx.broker.topics.get(t)) else 0
             for t in readable}  # fmt: skip
    allowed, errors = [], {}
    for offset in offsets:
        topic, partition = offset[0], offset[1]
        if topic not in readable:
            errors[topic, partition] = ErrorCode.topic_authorization_failed
        elif not 0 <= partition < sizes[topic]:
            errors[topic, partition] = ErrorCode.unknown_topic_or_partition
        else:
            allowed.append(offset)
    return allowed, errors


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
