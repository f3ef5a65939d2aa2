"""AlterClientQuotas (49): set and remove quota values of user and client-id entities.

Each entity is checked as Kafka's controller checks it (entity types, keys, values: an
unknown key is INVALID_REQUEST naming it); the valid ones apply together and durably,
unless ``validate_only``. Needs ALTER_CONFIGS on the cluster, else every entity gets
CLUSTER_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.quotas import Alteration, Entity
from seaway.broker.quotas.entities import entity
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

_DENIED = "Cluster authorization failed."


@handles(ApiKey.ALTER_CLIENT_QUOTAS, max_version=1)
async def alter_client_quotas(ctx: RequestContext) -> Any:
    request, resp = ctx.request, ctx.response_class
    alterations: list[Alteration] = [
        (
            entity((e.entity_type, e.entity_name) for e in entry.entity),
            [(op.key, None if op.remove else float(op.value)) for op in entry.ops],
        )
        for entry in request.entries
    ]
    results: list[tuple[Entity, ErrorCode, str | None]]
    if ctx.authorized(AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER):
        results = ctx.broker.quotas.alter(alterations, request.validate_only)
    else:
        denied = {e: (ErrorCode.cluster_authorization_failed, _DENIED) for e, _ in alterations}
        results = [(e, code, message) for e, (code, message) in denied.items()]
    entry_cls, entity_cls = nested(resp, "EntryData"), nested(resp, "EntityData")
    entries = tuple(
        make(
            entry_cls,
            error_code=code,
            error_message=message,
            entity=tuple(make(entity_cls, entity_type=t, entity_name=n) for t, n in e),
        )
        for e, code, message in results
    )
    return make(resp, throttle_time=ZERO, entries=entries)
