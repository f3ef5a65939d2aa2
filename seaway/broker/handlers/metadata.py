"""Metadata (3): brokers, the cluster id, and topics with their partitions' leaders.

Unknown topics are created when both the broker (``auto.create.topics.enable``) and the
client (``allow_auto_topic_creation``, v4+) allow it, with ``num.partitions`` partitions.

Authorization as Kafka's: a topic needs DESCRIBE. Topics named in the request and denied
come back with TOPIC_AUTHORIZATION_FAILED (name kept, id zeroed; by id: id kept, name
null); an all-topics request just leaves them out. Auto-creation needs CREATE on the
cluster or on the topic (else TOPIC_AUTHORIZATION_FAILED). The ``authorized_operations``
bit fields are filled in only when the request asks for them.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.coordinator.offsets_topic import OFFSETS_TOPIC
from seaway.broker.handlers.describe_cluster import NOT_REQUESTED, cluster_authorized_operations
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.topics import Topic
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.METADATA, max_version=12)
async def metadata(ctx: RequestContext) -> Any:
    broker = ctx.broker
    req = ctx.request
    resp = ctx.response_class
    topic_cls = nested(resp, "MetadataResponseTopic")
    partition_cls = nested(resp, "MetadataResponsePartition")
    node = broker.node_id
    with_topic_operations = getattr(req, "include_topic_authorized_operations", False)
    denied = ErrorCode.topic_authorization_failed

    def operations(name: str | None) -> int:
        if not with_topic_operations or name is None:
            return NOT_REQUESTED
        return ctx.authorized_operations(ResourceType.TOPIC, name)

    def may_describe(name: str, *, log_denial: bool = True) -> bool:
        return ctx.authorized(
            AclOperation.DESCRIBE, ResourceType.TOPIC, name, log_denial=log_denial
        )

    def may_create(name: str) -> bool:
        on_cluster = ctx.authorized(AclOperation.CREATE, ResourceType.CLUSTER, log_denial=False)
        return on_cluster or ctx.authorized(AclOperation.CREATE, ResourceType.TOPIC, name)

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
            topic_authorized_operations=operations(topic.name),
        )

    def missing(name: str | None, code: ErrorCode, topic_id: Any = None) -> Any:
        return make(
            topic_cls,
            error_code=code,
            name=name,
            topic_id=topic_id,
            is_internal=False,
            partitions=(),
            topic_authorized_operations=NOT_REQUESTED if code == denied else operations(name),
        )

    requested = req.topics
    if requested is None or (ctx.version == 0 and not requested):
        topics = tuple(
            describe(t)
            for t in broker.topics.topics.values()
            if may_describe(t.name, log_denial=False)
        )
    else:
        allow_create = getattr(req, "allow_auto_topic_creation", True) and broker.auto_create
        out = []
        for wanted in requested:
            name = wanted.name
            topic_id = getattr(wanted, "topic_id", None)
            if name is None and topic_id is not None:
                found = broker.topics.by_id(topic_id)
                if found is None:
                    out.append(missing(None, ErrorCode.unknown_topic_id, topic_id))
                elif not may_describe(found.name):
                    out.append(missing(None, denied, topic_id))  # ids are not secret
                else:
                    out.append(describe(found))
                continue
            if not may_describe(name):
                out.append(missing(name, denied))
                continue
            topic = broker.topics.get(name)
            if topic is None and allow_create:
                if not may_create(name):
                    out.append(missing(name, denied))
                    continue
                try:
                    if name == OFFSETS_TOPIC:  # Kafka creates it with its own settings
                        broker.groups.offsets_topic_ensure()
                        topic = broker.topics.get(name)
                    else:
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
        cluster_authorized_operations=cluster_authorized_operations(
            ctx, getattr(req, "include_cluster_authorized_operations", False)
        ),
    )
