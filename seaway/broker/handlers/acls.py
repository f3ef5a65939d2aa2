"""CreateAcls (30), DescribeAcls (29) and DeleteAcls (31): the ACL authorizer's admin API.

As Kafka answers them: ALTER on the cluster to create or delete, DESCRIBE to describe;
SECURITY_DISABLED without an authorizer; INVALID_REQUEST for a creation that is not a
concrete ACL (its message says which part) and for a filter with an UNKNOWN field. Creating
an ACL that exists succeeds; results keep the request's order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

_DISABLED = "No Authorizer is configured."
_LITERAL = PatternType.LITERAL


def _enum(kind: Any, value: int) -> Any:
    try:
        return kind(value)
    except ValueError:
        return kind(0)  # UNKNOWN


def _binding(item: Any, version: int) -> AclBinding:
    pattern = item.resource_pattern_type if version >= 1 else _LITERAL
    return AclBinding(
        _enum(ResourceType, item.resource_type), item.resource_name,
        _enum(PatternType, pattern), item.principal, item.host,
        _enum(AclOperation, item.operation), _enum(AclPermissionType, item.permission_type),
    )  # fmt: skip


def _filter(item: Any, version: int) -> AclBindingFilter:
    pattern = item.pattern_type_filter if version >= 1 else _LITERAL
    return AclBindingFilter(
        _enum(ResourceType, item.resource_type_filter), item.resource_name_filter,
        _enum(PatternType, pattern), item.principal_filter, item.host_filter,
        _enum(AclOperation, item.operation), _enum(AclPermissionType, item.permission_type),
    )  # fmt: skip


@handles(ApiKey.CREATE_ACLS, max_version=3)
async def create_acls(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    result = nested(resp, "AclCreationResult")
    authorizer = ctx.broker.authorizer
    outcomes: list[tuple[ErrorCode, str | None]] = []
    if authorizer is None:
        outcomes = [(ErrorCode.security_disabled, _DISABLED)] * len(ctx.request.creations)
    elif not ctx.authorized(AclOperation.ALTER, ResourceType.CLUSTER):
        outcomes = [(ErrorCode.cluster_authorization_failed, None)] * len(ctx.request.creations)
    else:
        valid = []
        for item in ctx.request.creations:
            acl = _binding(item, ctx.version)
            problem = acl.invalid()
            if problem is None and ctx.version == 0 and acl.pattern_type is not _LITERAL:
                problem = "CreateAcls v0 creates LITERAL ACLs only"
            if problem is None:
                valid.append(acl)
            outcomes.append(
                (ErrorCode.none, None) if problem is None else (ErrorCode.invalid_request, problem)
            )
        authorizer.create(valid)
    results = tuple(make(result, error_code=c, error_message=m) for c, m in outcomes)
    return make(resp, throttle_time=ZERO, results=results)


@handles(ApiKey.DESCRIBE_ACLS, max_version=3)
async def describe_acls(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    authorizer = ctx.broker.authorizer
    selection = _filter(ctx.request, ctx.version)
    error: tuple[ErrorCode, str | None] = (ErrorCode.none, None)
    found: list[AclBinding] = []
    if authorizer is None:
        error = (ErrorCode.security_disabled, "No Authorizer is configured on the broker")
    elif not ctx.authorized(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        error = (ErrorCode.cluster_authorization_failed, None)
    elif selection.unknown():
        error = (ErrorCode.invalid_request, "The filter has an UNKNOWN field")
    else:
        found = authorizer.describe(selection)
    return make(
        resp,
        throttle_time=ZERO,
        error_code=error[0],
        error_message=error[1],
        resources=_by_resource(resp, found),
    )


def _by_resource(resp: type, found: Iterable[AclBinding]) -> tuple[Any, ...]:
    resource, description = nested(resp, "DescribeAclsResource"), nested(resp, "AclDescription")
    grouped: dict[tuple[ResourceType, str, PatternType], list[AclBinding]] = {}
    for acl in found:
        grouped.setdefault((acl.resource_type, acl.name, acl.pattern_type), []).append(acl)
    return tuple(
        make(
            resource,
            resource_type=rtype,
            resource_name=name,
            pattern_type=pattern,
            acls=tuple(_entry(description, a) for a in acls),
        )
        for (rtype, name, pattern), acls in grouped.items()
    )


def _entry(cls: type, acl: AclBinding, **extra: Any) -> Any:
    """One ACL in a response (fields the entity lacks are dropped by ``make``)."""
    return make(
        cls,
        resource_type=acl.resource_type,
        resource_name=acl.name,
        pattern_type=acl.pattern_type,
        principal=acl.principal,
        host=acl.host,
        operation=acl.operation,
        permission_type=acl.permission,
        **extra,
    )


@handles(ApiKey.DELETE_ACLS, max_version=3)
async def delete_acls(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    result, matching = nested(resp, "DeleteAclsFilterResult"), nested(resp, "DeleteAclsMatchingAcl")
    authorizer = ctx.broker.authorizer
    filters = [_filter(item, ctx.version) for item in ctx.request.filters]
    removed: list[list[AclBinding]] = [[] for _ in filters]
    errors: list[tuple[ErrorCode, str | None]] = [(ErrorCode.none, None)] * len(filters)
    if authorizer is None:
        errors = [(ErrorCode.security_disabled, _DISABLED)] * len(filters)
    elif not ctx.authorized(AclOperation.ALTER, ResourceType.CLUSTER):
        errors = [(ErrorCode.cluster_authorization_failed, None)] * len(filters)
    else:
        usable = [i for i, f in enumerate(filters) if not f.unknown()]
        for i in set(range(len(filters))) - set(usable):
            errors[i] = (ErrorCode.invalid_request, "The filter has an UNKNOWN field")
        for i, acls in zip(usable, authorizer.delete([filters[i] for i in usable]), strict=True):
            removed[i] = acls
    results = tuple(
        make(
            result,
            error_code=code,
            error_message=message,
            matching_acls=tuple(
                _entry(matching, a, error_code=ErrorCode.none, error_message=None) for a in acls
            ),
        )
        for (code, message), acls in zip(errors, removed, strict=True)
    )
    return make(resp, throttle_time=ZERO, filter_results=results)
