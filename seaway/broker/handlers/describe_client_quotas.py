"""DescribeClientQuotas (48): the quota values of the entities a filter matches.

A filter component names an entity type and matches one name (exact), the type's
``<default>`` (default) or any entity of that type (specified); ``strict`` leaves out
entities with types the filter does not name. Needs DESCRIBE_CONFIGS on the cluster, else
CLUSTER_AUTHORIZATION_FAILED; a bad filter gets Kafka's error for it.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.quotas import parse_filter
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DESCRIBE_CLIENT_QUOTAS, max_version=1)
async def describe_client_quotas(ctx: RequestContext) -> Any:
    request, resp = ctx.request, ctx.response_class
    try:
        if not ctx.authorized(AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER):
            raise KafkaError(
                ErrorCode.cluster_authorization_failed, "Cluster authorization failed."
            )
        wanted = parse_filter(
            ((c.entity_type, c.match_type, c.match) for c in request.components), request.strict
        )
    except KafkaError as e:
        return make(resp, throttle_time=ZERO, error_code=e.code, error_message=e.message,
                    entries=None)  # fmt: skip
    entry_cls, entity_cls, value_cls = (
        nested(resp, n) for n in ("EntryData", "EntityData", "ValueData")
    )
    entries = tuple(
        make(
            entry_cls,
            entity=tuple(make(entity_cls, entity_type=t, entity_name=n) for t, n in entity),
            values=tuple(make(value_cls, key=k, value=v) for k, v in sorted(values.items())),
        )
        for entity, values in ctx.broker.quotas.describe(wanted)
    )
    return make(resp, throttle_time=ZERO, error_code=ErrorCode.none, error_message=None,
                entries=entries)  # fmt: skip
