"""DescribeCluster (60): the cluster id, the controller and the brokers."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested


@handles(60, max_version=1)
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
    )
