"""DescribeTransactions (65) and ListTransactions (66): transactions for operators.

Authorization as Kafka's: DescribeTransactions needs DESCRIBE on each transactional id
(else TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and lists only the partitions of topics the
caller may DESCRIBE; ListTransactions silently leaves out ids without DESCRIBE.
"""

from __future__ import annotations

import datetime
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DESCRIBE_TRANSACTIONS, max_version=0)
async def describe_transactions(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    state_cls = nested(resp, "TransactionState")
    topic_cls = nested(resp, "TopicData")
    states = []
    for txn_id in ctx.request.transactional_ids:
        meta = None
        code = ErrorCode.transactional_id_authorization_failed
        if ctx.authorized(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, txn_id):
            meta = ctx.broker.transactions.describe(txn_id)
            code = ErrorCode.transactional_id_not_found
        if meta is None:
            states.append(
                make(
                    state_cls,
                    error_code=code,
                    transactional_id=txn_id,
                    transaction_state="",
                    transaction_timeout=ZERO,
                    transaction_start_time=datetime.datetime.fromtimestamp(-0.001, tz=datetime.UTC),
                    producer_id=-1,
                    producer_epoch=-1,
                    topics=(),
                )
            )
            continue
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(meta.partitions):
            if not ctx.authorized(
                AclOperation.DESCRIBE, ResourceType.TOPIC, topic, log_denial=False
            ):
                continue
            by_topic.setdefault(topic, []).append(partition)
        states.append(
            make(
                state_cls,
                error_code=ErrorCode.none,
                transactional_id=txn_id,
                transaction_state=meta.state.value,
                transaction_timeout=datetime.timedelta(milliseconds=meta.timeout_ms),
                transaction_start_time=datetime.datetime.fromtimestamp(
                    meta.start_ms / 1000, tz=datetime.UTC
                ),
                producer_id=meta.producer_id,
                producer_epoch=meta.producer_epoch,
                topics=tuple(
                    make(topic_cls, topic=t, partitions=tuple(ps)) for t, ps in by_topic.items()
                ),
            )
        )
    return make(resp, throttle_time=ZERO, transaction_states=tuple(states))


@handles(ApiKey.LIST_TRANSACTIONS, max_version=1)
async def list_transactions(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    state_cls = nested(resp, "TransactionState")
    states = set(req.state_filters)
    pids = set(req.producer_id_filters)
    known = {"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"}
    listed = tuple(
        make(
            state_cls,
            transactional_id=m.transactional_id,
            producer_id=m.producer_id,
            transaction_state=m.state.value,
        )
        for m in ctx.broker.transactions.list()
        if (not states or m.state.value in states)
        and (not pids or m.producer_id in pids)
        and ctx.authorized(
            AclOperation.DESCRIBE,
            ResourceType.TRANSACTIONAL_ID,
            m.transactional_id,
            log_denial=False,
        )
    )
    return make(
        resp,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        unknown_state_filters=tuple(sorted(states - known)),
        transaction_states=listed,
    )
