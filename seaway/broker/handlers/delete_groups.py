"""DeleteGroups (42): remove empty groups and their committed offsets.

Each group needs DELETE on it, else GROUP_AUTHORIZATION_FAILED for that group (as in Kafka).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DELETE_GROUPS, max_version=2)
async def delete_groups(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    result_cls = nested(resp, "DeletableGroupResult")
    results = []
    for group_id in ctx.request.groups_names:
        code = ErrorCode.none
        try:
            if not ctx.authorized(AclOperation.DELETE, ResourceType.GROUP, group_id):
                raise KafkaError(ErrorCode.group_authorization_failed)
            ctx.broker.groups.delete(group_id)
        except KafkaError as e:
            code = e.code
        results.append(make(result_cls, group_id=group_id, error_code=code))
    return make(resp, throttle_time=ZERO, results=tuple(results))
