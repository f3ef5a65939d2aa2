"""DescribeUserScramCredentials (50): each user's SCRAM mechanisms and iterations.

Needs DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED for the request and each
user asked for (as Kafka's error response).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType
from seaway.security.scram import MECHANISMS

_TWICE = "Cannot describe SCRAM credentials for the same user twice in a single request: "
_DENIED = "Cluster authorization failed."


@handles(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, max_version=0)
async def describe_user_scram_credentials(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    result = nested(resp, "DescribeUserScramCredentialsResult")
    info = nested(resp, "CredentialInfo")
    if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        code = ErrorCode.cluster_authorization_failed
        denied = tuple(
            make(result, user=user.name, error_code=code, error_message=_DENIED,
                 credential_infos=())
            for user in ctx.request.users or ()
        )  # fmt: skip
        return make(resp, throttle_time=ZERO, error_code=code, error_message=_DENIED,
                    results=denied)  # fmt: skip
    known = ctx.broker.scram.users()
    asked = Counter(user.name for user in ctx.request.users or ()) or Counter(known.keys())
    results = []
    for user, count in asked.items():
        error, message, infos = ErrorCode.none, None, ()
        if count > 1:
            error = ErrorCode.duplicate_resource
            message = f"{_TWICE}{user}"
        elif user not in known:
            error = ErrorCode.resource_not_found
            message = f"Attempt to describe a user credential that does not exist: {user}"
        else:
            infos = tuple(
                info(mechanism=MECHANISMS[name].type_id, iterations=iterations)
                for name, iterations in known[user].items()
            )
        results.append(make(result, user=user, error_code=error, error_message=message,
                            credential_infos=infos))  # fmt: skip
    return make(resp, throttle_time=ZERO, error_code=ErrorCode.none, error_message=None,
                results=tuple(results))  # fmt: skip
