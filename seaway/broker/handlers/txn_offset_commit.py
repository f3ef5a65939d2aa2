"""TxnOffsetCommit (28): group offsets that become visible when the transaction commits.

Authorization as Kafka's: WRITE on the transactional id (else every partition gets
TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on the group (else GROUP_AUTHORIZATION_FAILED),
then READ on each topic (else TOPIC_AUTHORIZATION_FAILED on its partitions, which are not
committed).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.offset_commit import (
    commit_response,
    readable_offsets,
    requested_offsets,
)
from seaway.broker.handlers.registry import RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.TXN_OFFSET_COMMIT, max_version=3)
async def txn_offset_commit(ctx: RequestContext) -> Any:
    req = ctx.request
    offsets = requested_offsets(req)
    denied = ErrorCode.none
    if not ctx.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id):
        denied = ErrorCode.transactional_id_authorization_failed
    elif not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
        denied = ErrorCode.group_authorization_failed
    if denied is not ErrorCode.none:
        return commit_response(
            ctx, "TxnOffsetCommit", offsets, {(t, p): denied for t, p, *_ in offsets}
        )
    allowed, codes = readable_offsets(ctx, offsets)
    if allowed or not offsets:  # Kafka skips the coordinator only when every topic is denied
        try:
            ctx.broker.transactions.check_offsets_allowed(
                req.transactional_id, req.producer_id, req.producer_epoch, req.group_id, ctx.version
            )
            codes |= ctx.broker.groups.txn_commit_offsets(
                req.group_id,
                req.producer_id,
                getattr(req, "generation_id", -1),
                getattr(req, "member_id", ""),
                getattr(req, "group_instance_id", None),
                allowed,
            )
        except KafkaError as e:
            codes |= {(t, p): e.code for t, p, *_ in allowed}
    return commit_response(ctx, "TxnOffsetCommit", offsets, codes)
