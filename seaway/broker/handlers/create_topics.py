"""CreateTopics (19): create topics with partition counts and config overrides."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested


@handles(19, max_version=7)
async def create_topics(ctx: RequestContext) -> Any:
    req = ctx.request
    broker = ctx.broker
    resp = ctx.response_class
    result_cls = nested(resp, "CreatableTopicResult")
    results = []
    for t in req.topics:
        code, message, topic_id, partitions = ErrorCode.none, None, None, -1
        try:
            if t.assignments:
                raise KafkaError(
                    ErrorCode.invalid_replica_assignment,
                    "manual replica assignment is not supported by a single node",
                )
            if t.replication_factor not in (-1, 1):
                raise KafkaError(
                    ErrorCode.invalid_replication_factor,
                    f"Replication factor: {t.replication_factor} larger than available brokers: 1.",
                )
            partitions = t.num_partitions if t.num_partitions != -1 else broker.default_partitions
            configs = {c.name: c.value for c in t.configs}
            topic = broker.topics.create(
                t.name, partitions, configs, validate_only=req.validate_only
            )
            if topic is not None:
                topic_id = topic.topic_id
        except KafkaError as e:
            code, message, partitions = e.code, e.message, -1
        results.append(
            make(
                result_cls,
                name=t.name,
                topic_id=topic_id,
                error_code=code,
                error_message=message,
                num_partitions=partitions,
                replication_factor=1 if code == ErrorCode.none else -1,
                configs=None,
            )
        )
    return make(resp, throttle_time=ZERO, topics=tuple(results))
