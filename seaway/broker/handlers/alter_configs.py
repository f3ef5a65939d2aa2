"""AlterConfigs (33): replace a topic's dynamic configs with the given set.

Each resource needs ALTER_CONFIGS, as DescribeConfigs needs DESCRIBE_CONFIGS (29, 30 or 31
when denied, before the resource is looked up).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from seaway.broker.handlers.describe_configs import (
    RESOURCE_BROKER,
    RESOURCE_TOPIC,
    authorize_config_resource,
)
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation

Overrides = dict[str, str]


def alter_resources(ctx: RequestContext, change: Callable[[Overrides, Any], Overrides]) -> Any:
    """Apply ``change(current overrides, resource) -> new overrides`` to each resource."""
    req = ctx.request
    resp = ctx.response_class
    result_cls = nested(resp, "AlterConfigsResourceResponse")
    results = []
    for r in req.resources:
        code, message = ErrorCode.none, None
        try:
            authorize_config_resource(
                ctx, AclOperation.ALTER_CONFIGS, r.resource_type, r.resource_name
            )
            if r.resource_type == RESOURCE_BROKER:
                raise KafkaError(
                    ErrorCode.invalid_request,
                    "dynamic broker configs are not supported: set them in the broker's config",
                )
            if r.resource_type != RESOURCE_TOPIC:
                raise KafkaError(
                    ErrorCode.invalid_request, f"Unsupported resource type {r.resource_type}"
                )
            topic = ctx.broker.topics.get(r.resource_name)
            if topic is None:
                raise KafkaError(
                    ErrorCode.unknown_topic_or_partition, f"Topic {r.resource_name} does not exist"
                )
            overrides = change(dict(topic.record.configs), r)
            ctx.broker.topics.check_configs(overrides)
            if not req.validate_only:
                ctx.broker.topics.set_configs(r.resource_name, overrides)
        except KafkaError as e:
            code, message = e.code, e.message
        results.append(
            make(
                result_cls,
                error_code=code,
                error_message=message,
                resource_type=r.resource_type,
                resource_name=r.resource_name,
            )
        )
    return make(resp, throttle_time=ZERO, responses=tuple(results))


@handles(ApiKey.ALTER_CONFIGS, max_version=2)
async def alter_configs(ctx: RequestContext) -> Any:
    def replace(_: Overrides, resource: Any) -> Overrides:
        return {c.name: c.value for c in resource.configs if c.value is not None}

    return alter_resources(ctx, replace)
