"""ListGroups (16): every group with its protocol type and state (v4 filters by state; v5
gives each group's type, "classic" or "consumer" (KIP-848), and filters by type).

As Kafka authorizes it: DESCRIBE on the cluster lists every group; otherwise only the
groups the caller may DESCRIBE, the others silently left out.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.coordinator.consumer_group import ConsumerGroup
from seaway.broker.coordinator.group import Group
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.LIST_GROUPS, max_version=5)
async def list_groups(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    group_cls = nested(resp, "ListedGroup")
    states = {s.lower() for s in getattr(ctx.request, "states_filter", ())}
    types = {t.lower() for t in getattr(ctx.request, "types_filter", ())}
    everything = ctx.authorized(AclOperation.DESCRIBE, ResourceType.CLUSTER, log_denial=False)

    def visible(group_id: str) -> bool:
        return everything or ctx.authorized(
            AclOperation.DESCRIBE, ResourceType.GROUP, group_id, log_denial=False
        )

    groups = tuple(
        make(
            group_cls,
            group_id=g.group_id,
            protocol_type=g.protocol_type,
            group_state=g.state.value,
            group_type=group_type(g),
        )
        for g in ctx.broker.groups.list()
        if (not states or g.state.value.lower() in states)
        and (not types or group_type(g) in types)
        and visible(g.group_id)
    )
    return make(resp, throttle_time=ZERO, error_code=ErrorCode.none, groups=groups)


def group_type(group: Group | ConsumerGroup) -> str:
    """Kafka's group type: "consumer" for the consumer group protocol, else "classic"."""
    return ConsumerGroup.group_type if isinstance(group, ConsumerGroup) else "classic"
