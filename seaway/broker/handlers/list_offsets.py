"""ListOffsets (2): earliest, latest, max-timestamp and by-timestamp offset lookups.

Each topic needs DESCRIBE (else TOPIC_AUTHORIZATION_FAILED on its partitions), as in Kafka.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.log.partition import PartitionLog
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

EARLIEST = -2
LATEST = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL = -4
LATEST_TIERED = -5


def lookup(plog: PartitionLog, timestamp: int, committed: bool = False) -> tuple[int, int]:
    """``(offset, timestamp)`` for one ListOffsets query, Kafka's semantics.

    read_committed clients (``isolation_level`` 1) see up to the last stable offset.
    """
    upper = plog.last_stable_offset if committed else plog.high_watermark
    if timestamp in (EARLIEST, EARLIEST_LOCAL):
        return plog.log_start_offset, -1
    if timestamp == LATEST:
        return upper, -1
    if timestamp == MAX_TIMESTAMP:
        found = plog.max_timestamp_offset()
        return (found[0], found[1]) if found else (-1, -1)
    if timestamp < 0:  # LATEST_TIERED and anything newer: no tiered storage here
        return -1, -1
    found = plog.offset_for_timestamp(timestamp, upper)
    return (found[0], found[1]) if found else (-1, -1)


@handles(ApiKey.LIST_OFFSETS, max_version=7)
async def list_offsets(ctx: RequestContext) -> Any:
    req = ctx.request
    committed = ctx.version >= 2 and req.isolation_level == 1
    resp = ctx.response_class
    topic_cls = nested(resp, "ListOffsetsTopicResponse")
    part_cls = nested(resp, "ListOffsetsPartitionResponse")
    topics = []
    for wanted in req.topics:
        parts = []
        described = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, wanted.name)
        for p in wanted.partitions:
            try:
                if not described:
                    raise KafkaError(ErrorCode.topic_authorization_failed)
                offset, ts = lookup(
                    ctx.broker.topics.partition(wanted.name, p.partition_index),
                    p.timestamp,
                    committed=committed,
                )
                code = ErrorCode.none
            except KafkaError as e:
                offset, ts, code = -1, -1, e.code
            parts.append(
                make(
                    part_cls,
                    partition_index=p.partition_index,
                    error_code=code,
                    timestamp=ts,
                    offset=offset,
                    leader_epoch=0 if code == ErrorCode.none else -1,
                )
            )
        topics.append(make(topic_cls, name=wanted.name, partitions=tuple(parts)))
    return make(resp, throttle_time=ZERO, topics=tuple(topics))
