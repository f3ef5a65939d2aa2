"""AlterUserScramCredentials (51): add, change and delete SCRAM credentials (KIP-554).

The client sends the salted password; the broker keeps StoredKey and ServerKey only. Each
user is checked as Kafka's ScramControlManager does; the valid ones apply atomically. It
needs ALTER on the cluster, else every user gets CLUSTER_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType
from seaway.security.scram import MAX_ITERATIONS, MECHANISMS, MIN_ITERATIONS, ScramCredential

_BY_TYPE = {m.type_id: m for m in MECHANISMS.values()}
_TWICE = (
    ErrorCode.duplicate_resource,
    "A user credential cannot be altered twice in the same request",
)
_DENIED = ErrorCode.cluster_authorization_failed, "Cluster authorization failed."


def _problem(ctx: RequestContext, item: Any, upsert: bool) -> tuple[ErrorCode, str | None] | None:
    mechanism = _BY_TYPE.get(item.mechanism)
    if upsert and not item.name:
        return ErrorCode.unacceptable_credential, "Username must not be empty"
    if mechanism is None:
        return ErrorCode.unsupported_sasl_mechanism, "Unknown SCRAM mechanism"
    if upsert and item.iterations < MIN_ITERATIONS:
        return ErrorCode.unacceptable_credential, "Too few iterations"
    if upsert and item.iterations > MAX_ITERATIONS:
        return ErrorCode.unacceptable_credential, "Too many iterations"
    if not upsert and ctx.broker.scram.lookup(item.name, mechanism.name) is None:
        return (
            ErrorCode.resource_not_found,
            "Attempt to delete a user credential that does not exist",
        )
    return None


@handles(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, max_version=0)
async def alter_user_scram_credentials(ctx: RequestContext) -> Any:
    request, resp = ctx.request, ctx.response_class
    items = [(d, False) for d in request.deletions] + [(u, True) for u in request.upsertions]
    counts = Counter(item.name for item, _ in items)
    result = nested(resp, "AlterUserScramCredentialsResult")
    if not ctx.authorized(AclOperation.ALTER, ResourceType.CLUSTER):
        code, message = _DENIED
        denied = tuple(
            make(result, user=user, error_code=code, error_message=message)
            for user in sorted(counts)
        )
        return make(resp, throttle_time=ZERO, results=denied)
    errors: dict[str, tuple[ErrorCode, str | None]] = {}
    upserts, deletions = {}, []
    for item, upsert in items:
        problem = _TWICE if counts[item.name] > 1 else _problem(ctx, item, upsert)
        if problem is not None:
            errors.setdefault(item.name, problem)
            continue
        mechanism = _BY_TYPE[item.mechanism]
        if upsert:
            upserts[item.name, mechanism.name] = ScramCredential.from_salted_password(
                mechanism, item.salted_password, item.salt, item.iterations
            )
        else:
            deletions.append((item.name, mechanism.name))
    ctx.broker.scram.alter(upserts, deletions)
    fine: tuple[ErrorCode, str | None] = (ErrorCode.none, None)
    results = tuple(
        make(result, user=user, error_code=code, error_message=message)
        for user in counts
        for code, message in [errors.get(user, fine)]
    )
    return make(resp, throttle_time=ZERO, results=results)
