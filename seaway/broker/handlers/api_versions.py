"""ApiVersions (18): the versions of every API this broker serves, from the registry."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handlers, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested


def api_keys(response_class: type) -> tuple[Any, ...]:
    entry = nested(response_class, "ApiVersion")
    return tuple(
        entry(api_key=h.api_key, min_version=h.min_version, max_version=h.max_version)
        for h in handlers()
    )


@handles(ApiKey.API_VERSIONS, max_version=4)
async def api_versions(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    return make(resp, error_code=ErrorCode.none, api_keys=api_keys(resp), throttle_time=ZERO)
