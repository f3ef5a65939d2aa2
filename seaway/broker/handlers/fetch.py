"""Fetch (1): raw batch byte ranges per partition, with long polling.

The response holds the segment bytes as they lie on disk, starting at the batch that holds
the fetch offset; clients skip records below the offset they asked for. When fewer than
``min_bytes`` are available the request waits, up to ``max_wait``, for an append to one of
its partitions. Fetch sessions (KIP-227) are answered with session id 0: full fetches.

Authorization as Kafka's: a consumer needs READ on each topic, a follower (replica id set)
CLUSTER_ACTION on the cluster; denied partitions get TOPIC_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

# index, error, high watermark, last stable offset, log start, aborted (pid, first), records
_Part = tuple[int, ErrorCode, int, int, int, list[tuple[int, int]] | None, bytes]


def _denied_topics(ctx: RequestContext) -> set[str]:
    """The requested topics the caller may not fetch from."""
    names = {t.topic for t in ctx.request.topics}
    if ctx.request.replica_id >= 0:
        return set() if ctx.authorized(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER) else names
    return {n for n in names if not ctx.authorized(AclOperation.READ, ResourceType.TOPIC, n)}


def _read_all(
    ctx: RequestContext, denied: set[str]
) -> tuple[list[tuple[str, list[_Part]]], int, bool]:
    req = ctx.request
    topics = ctx.broker.topics
    remaining = req.max_bytes if ctx.version >= 3 else 0x7FFFFFFF
    committed = ctx.version >= 4 and req.isolation_level == 1
    total = 0
    failed = False
    out: list[tuple[str, list[_Part]]] = []
    for wanted in req.topics:
        parts: list[_Part] = []
        for p in wanted.partitions:
            try:
                if wanted.topic in denied:
                    raise KafkaError(ErrorCode.topic_authorization_failed)
                plog = topics.partition(wanted.topic, p.partition)
                data = b""
                lso = plog.last_stable_offset
                upper = lso if committed else plog.high_watermark
                if remaining > 0:
                    data = plog.read(p.fetch_offset, min(p.partition_max_bytes, remaining), upper)
                aborted = None
                if committed:
                    aborted = [
                        (a.producer_id, a.first_offset)
                        for a in plog.aborted_transactions(p.fetch_offset, upper)
                    ]
                hw, start = plog.high_watermark, plog.log_start_offset
                parts.append((p.partition, ErrorCode.none, hw, lso, start, aborted, data))
                remaining -= len(data)
                total += len(data)
            except KafkaError as e:
                failed = True
                parts.append((p.partition, e.code, -1, -1, -1, None, b""))
        out.append((wanted.topic, parts))
    return out, total, failed


@handles(1, max_version=12)
async def fetch(ctx: RequestContext) -> Any:
    req = ctx.request
    loop = asyncio.get_running_loop()
    deadline = loop.time() + req.max_wait.total_seconds()
    keys = [(t.topic, p.partition) for t in req.topics for p in t.partitions]
    denied = _denied_topics(ctx)
    while True:
        results, total, failed = _read_all(ctx, denied)
        remaining = deadline - loop.time()
        if total >= req.min_bytes or failed or remaining <= 0 or ctx.broker.stopping:
            break
        waiter = ctx.broker.topics.watch(keys)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waiter), remaining)
        finally:
            ctx.broker.topics.unwatch(keys, waiter)
    return _response(ctx, results)


def _response(ctx: RequestContext, results: list[tuple[str, list[_Part]]]) -> Any:
    resp = ctx.response_class
    topic_cls = nested(resp, "FetchableTopicResponse")
    part_cls = nested(resp, "PartitionData")
    aborted_cls = nested(resp, "AbortedTransaction") if ctx.version >= 4 else None
    return make(
        resp,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        session_id=0,
        responses=tuple(
            make(
                topic_cls,
                topic=topic,
                partitions=tuple(
                    make(
                        part_cls,
                        partition_index=index,
                        error_code=code,
                        high_watermark=hw,
                        last_stable_offset=lso,
                        log_start_offset=start,
                        aborted_transactions=None
                        if aborted is None or aborted_cls is None
                        else tuple(
                            make(aborted_cls, producer_id=pid, first_offset=first)
                            for pid, first in aborted
                        ),
                        preferred_read_replica=-1,
                        records=data,
                    )
                    for index, code, hw, lso, start, aborted, data in parts
                ),
            )
            for topic, parts in results
        ),
    )
