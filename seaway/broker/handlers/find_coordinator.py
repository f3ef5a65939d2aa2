"""FindCoordinator (10): this node coordinates every group and every transactional id.

As Kafka authorizes it: DESCRIBE on the group (else GROUP_AUTHORIZATION_FAILED) or on the
transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED), answered with no node.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make
from seaway.security.acl import AclOperation, ResourceType

GROUP = 0
TRANSACTION = 1

_DENIED = {
    GROUP: (ResourceType.GROUP, ErrorCode.group_authorization_failed,
            "Group authorization failed."),
    TRANSACTION: (ResourceType.TRANSACTIONAL_ID, ErrorCode.transactional_id_authorization_failed,
                  "Transactional Id authorization failed."),
}  # fmt: skip


@handles(ApiKey.FIND_COORDINATOR, max_version=3)
async def find_coordinator(ctx: RequestContext) -> Any:
    broker = ctx.broker
    key_type = getattr(ctx.request, "key_type", GROUP)
    if key_type not in (GROUP, TRANSACTION):
        return _no_node(ctx, ErrorCode.invalid_request, f"unknown coordinator key type {key_type}")
    resource_type, code, message = _DENIED[key_type]
    if not ctx.authorized(AclOperation.DESCRIBE, resource_type, ctx.request.key):
        return _no_node(ctx, code, message)
    return make(
        ctx.response_class,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        error_message=None,
        node_id=broker.node_id,
        host=ctx.listener.advertised_host,
        port=ctx.listener.advertised_port,
    )


def _no_node(ctx: RequestContext, code: ErrorCode, message: str) -> Any:
    return make(ctx.response_class, throttle_time=ZERO, error_code=code, error_message=message,
                node_id=-1, host="", port=-1)  # fmt: skip
