"""Produce (0): validate each partition's batch, assign offsets in place, append.

For Produce v3+ Kafka requires exactly one magic-v2 batch per partition. The batch is
CRC-checked and written as received: only its ``baseOffset`` is rewritten. With
``flush.messages`` reached the log is fsynced (off the event loop) before the response.

Authorization as Kafka's: a request with transactional batches needs WRITE on its
transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED on every partition); then
each topic needs WRITE (else TOPIC_AUTHORIZATION_FAILED, before the existence check).

With a ``producer_byte_rate`` quota the request's record bytes count against the client's
rate; over it, the response (sent at once) carries the throttle time and the connection
reads nothing more until it has passed (KIP-219), with acks=0 too.

``__consumer_offsets`` is the group coordinator's to write: a client's batch for it gets
INVALID_TOPIC_EXCEPTION, as Kafka's ReplicaManager answers.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from typing import Any

from seaway.broker.coordinator.offsets_topic import OFFSETS_TOPIC
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.log.key_scan import null_keys
from seaway.broker.log.partition import PartitionLog
from seaway.broker.quotas import quota_user
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.protocol.record_codec import records_section
from seaway.protocol.records import InvalidBatch, iter_batches, parse_header, validate_batch
from seaway.security.acl import AclOperation, ResourceType

log = logging.getLogger(__name__)

_ZSTD = 4


def _check_batch(
    data: bytes | memoryview,
    version: int,
    compacted: bool,
    transactional_id: str | None,
    partition: str = "",
) -> tuple[Any, bytes | memoryview]:
    """Validate the partition's records as Kafka does; return the header and the batch.

    Bytes after the batch that do not form a whole second batch are dropped, as Kafka's
    batch iterator ignores a partial trailing batch.
    """
    header = validate_batch(data, 0)
    if header.size != len(data):
        if any(True for _ in iter_batches(memoryview(data)[header.size :], check_crc=False)):
            raise KafkaError(
                ErrorCode.invalid_record,
                f"Produce requests with version {version} must contain exactly one record batch",
            )
        data = memoryview(data)[: header.size]
    if header.base_offset != 0:
        raise KafkaError(
            ErrorCode.invalid_record,
            f"The baseOffset of the record batch should be 0, but it is {header.base_offset}",
        )
    if header.is_control:
        raise KafkaError(ErrorCode.invalid_record, "clients must not send control batches")
    if header.has_producer_id and header.base_sequence < 0:
        raise KafkaError(ErrorCode.invalid_record, "idempotent batch without a base sequence")
    if header.is_transactional and not transactional_id:
        raise KafkaError(
            ErrorCode.transactional_id_authorization_failed,
            "a transactional batch must come with the producer's transactional id",
        )
    if header.compression == _ZSTD and version < 7:
        raise KafkaError(ErrorCode.unsupported_compression_type, "zstd needs Produce v7+")
    if compacted and (keyless := null_keys(records_section(header, data), header.records_count)):
        raise RecordErrors(
            [(i, f"Compacted topic cannot accept message without key in topic partition "
                 f"{partition}.") for i in keyless]
        )  # fmt: skip
    return header, data


class RecordErrors(KafkaError):
    """INVALID_RECORD naming the culprit records (KIP-467: ``record_errors`` with each
    record's index in its batch), so clients can tell which records were invalid."""

    def __init__(self, errors: list[tuple[int, str]]) -> None:
        shown = ", ".join(f"RecordError(batchIndex={i}, message='{m}')" for i, m in errors[:3])
        super().__init__(
            ErrorCode.invalid_record,
            f"One or more records have been rejected due to {len(errors)} record errors in "
            f"total, and only showing the first three errors at most: [{shown}]",
        )
        self.records = errors


def _has_transactional_records(req: Any) -> bool:
    """Whether the first batch of some partition is transactional (Kafka's
    ``RequestUtils.hasTransactionalRecords``)."""
    for topic_data in req.topic_data:
        for pd in topic_data.partition_data:
            try:
                if pd.records and parse_header(pd.records, require_body=False).is_transactional:
                    return True
            except InvalidBatch:
                continue  # rejected later, per partition
    return False


def _authorization(ctx: RequestContext) -> tuple[ErrorCode, dict[str, bool]]:
    """The error of the whole request (none, or a denied transactional id) and whether
    each topic may be written. Transactional batches without a transactional id are
    refused per partition, by :func:`_check_batch`."""
    req = ctx.request
    if ctx.broker.authorizer is None:  # the hot path: no batch header is parsed
        return ErrorCode.none, {t.name: True for t in req.topic_data}
    txn_id = req.transactional_id
    if (
        txn_id is not None
        and _has_transactional_records(req)
        and not ctx.authorized(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, txn_id)
    ):
        return ErrorCode.transactional_id_authorization_failed, {}
    return ErrorCode.none, {
        t.name: ctx.authorized(AclOperation.WRITE, ResourceType.TOPIC, t.name)
        for t in req.topic_data
    }


# index, error, base offset, log append time, log start offset, message, record errors
_PartitionResult = tuple[int, ErrorCode, int, int, int, str | None, list[tuple[int, str]]]


@handles(ApiKey.PRODUCE, max_version=10)
async def produce(ctx: RequestContext) -> Any:
    req = ctx.request
    broker = ctx.broker
    now = int(time.time() * 1000)
    to_flush: list[tuple[PartitionLog, list[_PartitionResult], int]] = []
    results: list[tuple[str, list[_PartitionResult]]] = []
    bad_acks = req.acks not in (0, 1, -1)
    denied, writable = _authorization(ctx)
    for topic_data in req.topic_data:
        topic = topic_data.name
        partitions: list[_PartitionResult] = []
        for pd in topic_data.partition_data:
            base, append_time, start, message = -1, -1, -1, None
            culprits: list[tuple[int, str]] = []
            try:
                if denied is not ErrorCode.none:
                    raise KafkaError(denied)
                if not writable[topic]:
                    raise KafkaError(ErrorCode.topic_authorization_failed)
                if bad_acks:
                    raise KafkaError(ErrorCode.invalid_required_acks, f"acks={req.acks}")
                if topic == OFFSETS_TOPIC:  # as Kafka's ReplicaManager for client appends
                    raise KafkaError(
                        ErrorCode.invalid_topic_exception,
                        f"Cannot append to internal topic {topic}",
                    )
                plog = broker.topics.partition(topic, pd.index)
                if not pd.records:
                    raise KafkaError(ErrorCode.invalid_record, "empty records")
                header, data = _check_batch(
                    pd.records, ctx.version, plog.config.compact, req.transactional_id,
                    f"{topic}-{pd.index}",
                )  # fmt: skip
                result = plog.append(data, header, now)
                base, append_time, start = (
                    result.base_offset,
                    result.log_append_time,
                    plog.log_start_offset,
                )
                if result.needs_flush:
                    to_flush.append((plog, partitions, len(partitions)))
                if not result.duplicate:
                    broker.topics.notify(topic, pd.index)
                code = ErrorCode.none
            except KafkaError as e:
                code, message = e.code, e.message
                culprits = e.records if isinstance(e, RecordErrors) else []
                log.debug("Produce to %s-%d failed: %s", topic, pd.index, e)
            except InvalidBatch as e:
                code = ErrorCode.corrupt_message if e.corrupt else ErrorCode.invalid_record
                message = str(e)
                log.warning(
                    "Rejected a batch for %s-%d from %s: %s",
                    topic,
                    pd.index,
                    ctx.frame.client_id,
                    e,
                )
            partitions.append((pd.index, code, base, append_time, start, message, culprits))
        results.append((topic, partitions))
    if to_flush:
        failed = await asyncio.get_running_loop().run_in_executor(
            None, _flush_all, [plog for plog, _, _ in to_flush]
        )
        _fail_unflushed(to_flush, failed)
    throttle = _throttle(ctx) if broker.quotas.produce.enabled else ZERO
    if req.acks == 0:
        return None
    resp = ctx.response_class
    topic_cls = nested(resp, "TopicProduceResponse")
    part_cls = nested(resp, "PartitionProduceResponse")
    # KIP-467 record errors from v8; older versions have only the partition's error
    error_cls = nested(resp, "BatchIndexAndErrorMessage") if ctx.version >= 8 else None

    def record_errors(culprits: list[tuple[int, str]]) -> tuple[Any, ...]:
        if error_cls is None:
            return ()
        return tuple(
            make(error_cls, batch_index=i, batch_index_error_message=m) for i, m in culprits
        )

    return make(
        resp,
        throttle_time=throttle,
        responses=tuple(
            make(
                topic_cls,
                name=topic,
                partition_responses=tuple(
                    make(
                        part_cls,
                        index=index,
                        error_code=code,
                        base_offset=base,
                        log_append_time=_as_datetime(append_time),
                        log_start_offset=start,
                        record_errors=record_errors(culprits),
                        error_message=message,
                    )
                    for index, code, base, append_time, start, message, culprits in parts
                ),
            )
            for topic, parts in results
        ),
    )


def _throttle(ctx: RequestContext) -> datetime.timedelta:
    """Record the request's record bytes against the client's producer_byte_rate; over it,
    mute the connection. Kafka counts the whole request, a few dozen bytes more."""
    size = sum(len(pd.records or b"") for t in ctx.request.topic_data for pd in t.partition_data)
    ms = ctx.broker.quotas.produce.record(
        quota_user(ctx.session.principal), ctx.frame.client_id or "", size, int(time.time() * 1000)
    )
    ctx.session.throttle_ms = ms
    return datetime.timedelta(milliseconds=ms)


def _as_datetime(ms: int) -> datetime.datetime | None:
    if ms < 0:
        return None
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)


def _flush_all(logs: list[PartitionLog]) -> dict[int, str]:
    """fsync each log; return the cause by ``id`` of each log whose fsync failed."""
    failed = {}
    for plog in logs:
        try:
            plog.flush()
        except OSError as e:
            if plog.storage_error is None:  # once, until a write to it succeeds again
                log.error(
                    "Error while flushing %s in dir %s: %s",
                    plog.directory.name,
                    plog.directory.parent,
                    e,
                )
            plog.storage_error = failed[id(plog)] = str(e)
    return failed


def _fail_unflushed(
    flushed: list[tuple[PartitionLog, list[_PartitionResult], int]], failed: dict[int, str]
) -> None:
    """Answer KAFKA_STORAGE_ERROR for the partitions whose flush failed: not durable."""
    for plog, partitions, i in flushed:
        cause = failed.get(id(plog))
        if cause is not None:
            index = partitions[i][0]
            partitions[i] = (index, ErrorCode.kafka_storage_error, -1, -1, -1, cause, [])
