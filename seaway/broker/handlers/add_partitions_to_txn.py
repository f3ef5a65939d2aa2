"""AddPartitionsToTxn (24): partitions a transaction will write to (v0-3, client side)."""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested


@handles(24, max_version=3)
async def add_partitions_to_txn(ctx: RequestContext) -> Any:
    req = ctx.request
    topics = [(t.name, list(t.partitions)) for t in req.v3_and_below_topics]
    wanted = [(name, p) for name, parts in topics for p in parts]
    codes: dict[tuple[str, int], ErrorCode] = {}
    unknown = set()
    for tp in wanted:
        try:
            ctx.broker.topics.partition(*tp)
        except KafkaError:
            unknown.add(tp)
    if unknown:
        # Kafka rejects the whole request: the unknown ones fail, the others were not tried.
        codes = {
            tp: ErrorCode.unknown_topic_or_partition
            if tp in unknown
            else ErrorCode.operation_not_attempted
            for tp in wanted
        }
    else:
        try:
            ctx.broker.transactions.add_partitions(
                req.v3_and_below_transactional_id,
                req.v3_and_below_producer_id,
                req.v3_and_below_producer_epoch,
                wanted,
                ctx.version,
            )
            codes = dict.fromkeys(wanted, ErrorCode.none)
        except KafkaError as e:
            codes = dict.fromkeys(wanted, e.code)
    resp = ctx.response_class
    topic_cls = nested(resp, "AddPartitionsToTxnTopicResult")
    part_cls = nested(resp, "AddPartitionsToTxnPartitionResult")
    return make(
        resp,
        throttle_time=ZERO,
        results_by_topic_v3_and_below=tuple(
            make(
                topic_cls,
                name=name,
                results_by_partition=tuple(
                    make(part_cls, partition_index=p, partition_error_code=codes[name, p])
                    for p in parts
                ),
            )
            for name, parts in topics
        ),
    )
