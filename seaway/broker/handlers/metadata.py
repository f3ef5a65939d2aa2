"""Metadata (3): brokers, the cluster id, and topics with their partitions' leaders.

Unknown topics are created when both the broker (``auto.create.topics.enable``) and the
client (``allow_auto_topic_creation``, v4+) allow it, with ``num.partitions`` partitions.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.topics import Topic
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested


@handles(3, max_version=12)
async def metadata(ctx: RequestContext) -> Any:
    broker = ctx.broker
    req = ctx.request
    resp = ctx.response_class
    topic_cls = nested(resp, "MetadataResponseTopic")
    partition_cls = nested(resp, "MetadataResponsePartition")
    node = broker.node_id

    def describe(topic: Topic) -> Any:
        partitions = tuple(
            make(
                partition_cls,
                error_code=ErrorCode.none,
                partition_index=i,
                leader_id=node,
                leader_epoch=0,
                replica_nodes=(node,),
                isr_nodes=(node,),
                offline_replicas=(),
            )
            for i in range(len(topic.partitions))
        )
        return make(
            topic_cls,
            error_code=ErrorCode.none,
            name=topic.name,
            topic_id=topic.topic_id,
            is_internal=topic.is_internal,
            partitions=partitions,
        )

    def missing(name: str | None, code: ErrorCode, topic_id: Any = None) -> Any:
        return make(
            topic_cls,
            error_code=code,
            name=name,
            topic_id=topic_id,
            is_internal=False,
            partitions=(),
        )

    requested = req.topics
    if requested is None or (ctx.version == 0 and not requested):
        topics = tuple(describe(t) for t in broker.topics.topics.values())
    else:
        allow_create = getattr(req, "allow_auto_topic_creation", True) and broker.auto_create
        out = []
        for wanted in requested:
            name = wanted.name
            topic_id = getattr(wanted, "topic_id", None)
            if name is None and topic_id is not None:
                found = broker.topics.by_id(topic_id)
                out.append(
                    describe(found)
                    if found
                    else missing(None, ErrorCode.unknown_topic_id, topic_id)
                )
                continue
            topic = broker.topics.get(name)
            if topic is None and allow_create:
                try:
                    topic = broker.topics.create(name, broker.default_partitions)
                except KafkaError as e:
                    out.append(missing(name, e.code))
                    continue
            out.append(
                describe(topic) if topic else missing(name, ErrorCode.unknown_topic_or_partition)
            )
        topics = tuple(out)
    broker_cls = nested(resp, "MetadataResponseBroker")
    return make(
        resp,
        throttle_time=ZERO,
        brokers=(
            make(
                broker_cls,
                node_id=node,
                host=ctx.listener.advertised_host,
                port=ctx.listener.advertised_port,
                rack=None,
            ),
        ),
        cluster_id=broker.cluster_id,
        controller_id=node,
        topics=topics,
    )
