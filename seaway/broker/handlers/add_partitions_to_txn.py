"""AddPartitionsToTxn (24): partitions a transaction will write to (v0-3, client side).

Authorization as Kafka's: WRITE on the transactional id (else every partition gets
TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then WRITE on each topic. One failed partition
fails the request: denied ones get TOPIC_AUTHORIZATION_FAILED, unknown ones
UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


def _add(ctx: RequestContext, wanted: list[tuple[str, int]]) -> dict[tuple[str, int], ErrorCode]:
    """Add the partitions to the transaction, or none of them; the code of each."""
    req = ctx.request
    writable = {
        name
        for name in dict.fromkeys(name for name, _ in wanted)
        if ctx.authorized(AclOperation.WRITE, ResourceType.TOPIC, name)
    }
    failed: dict[tuple[str, int], ErrorCode] = {}
    for tp in wanted:
        if tp[0] not in writable:
            failed[tp] = ErrorCode.topic_authorization_failed
            continue
        try:
            ctx.broker.topics.partition(*tp)
        except KafkaError:
            failed[tp] = ErrorCode.unknown_topic_or_partition
    if failed:
        return {tp: failed.get(tp, ErrorCode.operation_not_attempted) for tp in wanted}
    try:
        ctx.broker.transactions.add_partitions(
            req.v3_and_below_transactional_id,
            req.v3_and_below_producer_id,
            req.v3_and_below_producer_epoch,
            wanted,
            ctx.version,
        )
    except KafkaError as e:
        return dict.fromkeys(wanted, e.code)
    return dict.fromkeys(wanted, ErrorCode.none)


@handles(ApiKey.ADD_PARTITIONS_TO_TXN, max_version=3)
async def add_partitions_to_txn(ctx: RequestContext) -> Any:
    req = ctx.request
    topics = [(t.name, list(t.partitions)) for t in req.v3_and_below_topics]
    wanted = [(name, p) for name, parts in topics for p in parts]
    txn_id = req.v3_and_below_transactional_id
    if ctx.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, txn_id):
        codes = _add(ctx, wanted)
    else:
        codes = dict.fromkeys(wanted, ErrorCode.transactional_id_authorization_failed)
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
