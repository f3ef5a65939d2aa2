"""InitProducerId (22): producer ids and epochs, for idempotent and transactional producers.

A transactional id gets its producer id back with a bumped epoch, which fences any older
producer with the same id and aborts its open transaction (KIP-98). aiokafka sends v0,
which carries no producer id or epoch.

Authorization as Kafka's: a transactional id needs WRITE on it (else
TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent producer needs IDEMPOTENT_WRITE on
the cluster or WRITE on some topic (KIP-679; else CLUSTER_AUTHORIZATION_FAILED).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make
from seaway.security.acl import AclOperation, ResourceType


def _may_write_idempotently(ctx: RequestContext) -> bool:
    if ctx.authorized(AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, log_denial=False):
        return True
    authorizer = ctx.broker.authorizer
    return authorizer is not None and authorizer.table.authorize_any(
        ctx.session.principal, ctx.client_host, AclOperation.WRITE, ResourceType.TOPIC
    )


@handles(ApiKey.INIT_PRODUCER_ID, max_version=4)
async def init_producer_id(ctx: RequestContext) -> Any:
    req = ctx.request
    pid, epoch, code = -1, -1, ErrorCode.none
    try:
        if req.transactional_id is None:
            if not _may_write_idempotently(ctx):
                raise KafkaError(ErrorCode.cluster_authorization_failed)
            pid, epoch = ctx.broker.producer_ids.next_id(), 0
        else:
            if not ctx.authorized(
                AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactional_id
            ):
                raise KafkaError(ErrorCode.transactional_id_authorization_failed)
            timeout_ms = int(req.transaction_timeout.total_seconds() * 1000)
            expected = None
            if ctx.version >= 3:
                expected = (req.producer_id, req.producer_epoch)
            pid, epoch = ctx.broker.transactions.init_producer_id(
                req.transactional_id, timeout_ms, expected, ctx.version
            )
    except KafkaError as e:
        code = e.code
    return make(
        ctx.response_class,
        throttle_time=ZERO,
        error_code=code,
        producer_id=pid,
        producer_epoch=epoch,
    )
