"""JoinGroup (11): join a consumer group; answered when the rebalance completes.

v5+ carry ``group.instance.id`` (KIP-345 static membership), v8+ the join's ``reason``
(KIP-800), v9+ ``skip_assignment`` (KIP-814). Needs READ on the group, else
GROUP_AUTHORIZATION_FAILED (as in Kafka).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.coordinator.group_coordinator import JoinRequest, MemberIdRequired
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.JOIN_GROUP, max_version=9)
async def join_group(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    session_ms = int(req.session_timeout.total_seconds() * 1000)
    rebalance = getattr(req, "rebalance_timeout", None)
    rebalance_ms = int(rebalance.total_seconds() * 1000) if rebalance is not None else session_ms
    join = JoinRequest(
        group_id=req.group_id,
        member_id=req.member_id,
        group_instance_id=getattr(req, "group_instance_id", None),
        client_id=ctx.frame.client_id or "",
        client_host=ctx.client_host,
        session_timeout_ms=session_ms,
        rebalance_timeout_ms=rebalance_ms if rebalance_ms >= 0 else session_ms,
        protocol_type=req.protocol_type,
        protocols=[(p.name, p.metadata) for p in req.protocols],
        version=ctx.version,
        reason=getattr(req, "reason", None),
    )

    def failure(code: ErrorCode, member_id: str = "") -> Any:
        return make(
            resp,
            throttle_time=ZERO,
            error_code=code,
            generation_id=-1,
            protocol_type=None,
            protocol_name=None if ctx.version >= 7 else "",
            leader="",
            member_id=member_id,
            members=(),
        )

    if not ctx.authorized(AclOperation.READ, ResourceType.GROUP, req.group_id):
        return failure(ErrorCode.group_authorization_failed)
    try:
        result = await ctx.broker.groups.join(join)
    except MemberIdRequired as e:
        return failure(e.code, e.member_id)
    except KafkaError as e:
        return failure(e.code, req.member_id)
    member_cls = nested(resp, "JoinGroupResponseMember")
    return make(
        resp,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        generation_id=result.generation,
        protocol_type=req.protocol_type,
        protocol_name=result.protocol_name,
        leader=result.leader,
        skip_assignment=result.skip_assignment,
        member_id=result.member_id,
        members=tuple(
            make(member_cls, member_id=m, group_instance_id=i, metadata=meta)
            for m, i, meta in result.members
        ),
    )
