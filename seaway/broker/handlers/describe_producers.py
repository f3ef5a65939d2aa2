"""DescribeProducers (61, KIP-664): the producers a partition remembers, with their epoch,
last sequence and timestamp, and the first offset of the transaction each has open.
Needs READ on the topic, as in Kafka."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DESCRIBE_PRODUCERS, max_version=0)
async def describe_producers(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    topic_cls, part_cls = nested(resp, "TopicResponse"), nested(resp, "PartitionResponse")
    state_cls = nested(resp, "ProducerState")
    topics = []
    for t in ctx.request.topics:
        readable = ctx.authorized(AclOperation.READ, ResourceType.TOPIC, t.name)
        parts = []
        for index in t.partition_indexes:
            code, message, producers = ErrorCode.none, None, ()
            try:
                if not readable:
                    raise KafkaError(ErrorCode.topic_authorization_failed)
                state = ctx.broker.topics.partition(t.name, index).producer_state
                producers = tuple(
                    make(state_cls, producer_id=pid, producer_epoch=entry.epoch,
                         last_sequence=entry.last_sequence, last_timestamp=entry.last_timestamp,
                         coordinator_epoch=-1, current_txn_start_offset=entry.txn_first_offset)
                    for pid, entry in sorted(state.producers.items())
                )  # fmt: skip
            except KafkaError as e:
                code, message = e.code, e.message
            parts.append(make(part_cls, partition_index=index, error_code=code,
                              error_message=message, active_producers=producers))  # fmt: skip
        topics.append(make(topic_cls, name=t.name, partitions=tuple(parts)))
    return make(resp, throttle_time=ZERO, topics=tuple(topics))
