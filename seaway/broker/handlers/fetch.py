"""Fetch (1): raw batch byte ranges per partition, with long polling.

The response holds the segment bytes as they lie on disk, starting at the batch that holds
the fetch offset; clients skip records below the offset they asked for. When fewer than
``min_bytes`` are available the request waits, up to ``max_wait``, for an append to one of
its partitions. Fetch sessions (KIP-227) are answered with session id 0: full fetches.

Authorization as Kafka's: a consumer needs READ on each topic, a follower (replica id set)
CLUSTER_ACTION on the cluster; denied partitions get TOPIC_AUTHORIZATION_FAILED.

A consumer with a ``consumer_byte_rate`` quota fetches at most what its quota allows over
the rate's burst windows; when a response would take it over, Kafka's way: the bytes are
not counted, the response is empty with the throttle time, and the connection reads
nothing more until it has passed (KIP-219). Followers are exempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import time
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.quotas import ClientQuotaManager, quota_user
from seaway.protocol.api_keys import ApiKey
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
    ctx: RequestContext, denied: set[str], max_bytes: int
) -> tuple[list[tuple[str, list[_Part]]], int, bool]:
    req = ctx.request
    topics = ctx.broker.topics
    remaining = max_bytes
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


@handles(ApiKey.FETCH, max_version=12)
async def fetch(ctx: RequestContext) -> Any:
    req = ctx.request
    loop = asyncio.get_running_loop()
    deadline = loop.time() + req.max_wait.total_seconds()
    keys = [(t.topic, p.partition) for t in req.topics for p in t.partitions]
    denied = _denied_topics(ctx)
    max_bytes, min_bytes = req.max_bytes if ctx.version >= 3 else 0x7FFFFFFF, req.min_bytes
    quota, client = ctx.broker.quotas.fetch, None
    if quota.enabled and req.replica_id < 0:  # more than max_bytes is throttled even after a pause
        client = (quota_user(ctx.session.principal), ctx.frame.client_id or "")
        max_bytes = min(max_bytes, int(min(quota.max_value_in_window(*client), 0x7FFFFFFF)))
        min_bytes = min(min_bytes, max_bytes)
    while True:
        results, total, failed = _read_all(ctx, denied, max_bytes)
        remaining = deadline - loop.time()
        if total >= min_bytes or failed or remaining <= 0 or ctx.broker.stopping:
            break
        waiter = ctx.broker.topics.watch(keys)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(waiter), remaining)
        finally:
            ctx.broker.topics.unwatch(keys, waiter)
    if client is not None and (throttle := _throttle(ctx, quota, client, total)):
        return _response(ctx, [], throttle)
    return _response(ctx, results, ZERO)


def _throttle(
    ctx: RequestContext, quota: ClientQuotaManager, client: tuple[str, str], size: int
) -> datetime.timedelta:
    """Record the response's record bytes against the client's consumer_byte_rate; over it,
    take them back and mute the connection. Kafka counts the whole response."""
    now = int(time.time() * 1000)
    ms = quota.record(*client, size, now)
    if ms:
        quota.unrecord(*client, size, now)
        ctx.session.throttle_ms = ms
    return datetime.timedelta(milliseconds=ms)


def _response(
    ctx: RequestContext, results: list[tuple[str, list[_Part]]], throttle: datetime.timedelta
) -> Any:
    resp = ctx.response_class
    topic_cls = nested(resp, "FetchableTopicResponse")
    part_cls = nested(resp, "PartitionData")
    aborted_cls = nested(resp, "AbortedTransaction") if ctx.version >= 4 else None
    return make(
        resp,
        throttle_time=throttle,
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
