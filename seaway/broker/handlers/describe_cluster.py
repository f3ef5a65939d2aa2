"""DescribeCluster (60): the cluster id, the controller and the brokers.

No ACL is needed; ``cluster_authorized_operations`` is filled in only when asked for, and
then only for a caller with DESCRIBE on the cluster (0 for others), as in Kafka.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType

NOT_REQUESTED = -(2**31)
"""An ``authorized_operations`` field nobody asked for (Kafka's ``Int.MinValue``)."""


def cluster_authorized_operations(ctx: RequestContext, requested: bool) -> int:
    """The ``cluster_authorized_operations`` of DescribeCluster and Metadata v8-10."""
    if not requested:
        return NOT_REQUESTED
    if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        return 0
    return ctx.authorized_operations(ResourceType.CLUSTER)


@handles(ApiKey.DESCRIBE_CLUSTER, max_version=1)
async def describe_cluster(ctx: RequestContext) -> Any:
    broker = ctx.broker
    resp = ctx.response_class
    node = make(
        nested(resp, "DescribeClusterBroker"),
        broker_id=broker.node_id,
        host=ctx.listener.advertised_host,
        port=ctx.listener.advertised_port,
        rack=None,
    )
    return make(
        resp,
        throttle_time=ZERO,
        error_code=ErrorCode.none,
        error_message=None,
        endpoint_type=1,
        cluster_id=broker.cluster_id,
        controller_id=broker.node_id,
        brokers=(node,),
        cluster_authorized_operations=cluster_authorized_operations(
            ctx, ctx.request.include_cluster_authorized_operations
        ),
    )
