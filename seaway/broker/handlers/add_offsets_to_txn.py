"""AddOffsetsToTxn (25): a consumer group whose offsets the transaction will commit.

Needs WRITE on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then
READ on the group (else GROUP_AUTHORIZATION_FAILED), as in Kafka.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.ADD_OFFSETS_TO_TXN, max_version=3)
async def add_offsets_to_txn(ctx: RequestContext) -> Any:
    req = ctx.request
    try:
        if not ctx.authorized(
            AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id
        ):
            raise KafkaError(ErrorCode.transactional_id_authorization_failed)
        if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
            raise KafkaError(ErrorCode.group_authorization_failed)
        ctx.broker.transactions.add_offsets(
            req.transactional_id, req.producer_id, req.producer_epoch, req.group_id, ctx.version
        )
        code = ErrorCode.none
    except KafkaError as e:
        code = e.code
    return make(ctx.response_class, throttle_time=ZERO, error_code=code)
