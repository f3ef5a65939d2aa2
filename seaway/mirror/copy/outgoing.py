"""The batches a range's copy sends for the source's batches: :class:`Outgoing`.

Each source batch goes to the target as it came (compression codec, keys, values, headers
and timestamps byte for byte) when it can. Small uncompressed batches (a source written
with ``linger.ms=0``) are joined into one of up to 1 MB before they are sent
(:mod:`seaway.protocol.batch_merge`: only each record's offset and timestamp deltas are
rewritten), so each costs no Produce request of its own. A batch is opened
(:mod:`seaway.protocol.record_codec`) only when its records must change: it straddles an
edge of the range (only the records inside are copied), it has offset gaps left by
compaction (Kafka takes only contiguous batches on produce), it carries LogAppendTime
(MM2 gives the target record the time the source consumer sees, the append time, as its
CreateTime), or it is larger than the remote topic's ``max.message.bytes`` (split into
batches that fit). Each piece keeps its codec.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from seaway.kafka.fetcher import FetchedBatch
from seaway.protocol.batch_merge import can_merge, merge_batches
from seaway.protocol.record_codec import Record, build_batch, decode_records
from seaway.protocol.records import ATTR_TIMESTAMP_TYPE, BATCH_OVERHEAD, BatchHeader

__all__ = ["MERGE_BELOW", "MERGE_TARGET", "Outgoing", "Upstream"]

_RECORD_OVERHEAD: Final = 24  # a record's varints and attributes, at most, beside its bytes

Upstream = list[Sequence[int]]
r"""The upstream offsets a sent batch holds, as runs: one per source batch (``range``\ s),
or the offsets kept of a rebuilt one (a list)."""

MERGE_BELOW: Final = 64 << 10
"""Uncompressed source batches smaller than this are joined before they are sent."""
MERGE_TARGET: Final = 1 << 20
"""How many bytes of small batches are joined into one (at most ``max.message.bytes``)."""
_JOIN_GROWTH: Final = 16  # timestamp (10) + offset (5) + length (+1) varints, at most


def _fits_whole(header: BatchHeader, start: int, end: int, max_bytes: int) -> bool:
    return (
        header.base_offset >= start
        and header.last_offset < end
        and header.records_count == header.last_offset_delta + 1
        and not header.attributes & ATTR_TIMESTAMP_TYPE
        and header.size <= max_bytes
    )


def _record_size(record: Record) -> int:
    size = _RECORD_OVERHEAD + len(record.key or b"") + len(record.value or b"")
    return size + sum(len(k) + len(v or b"") + 10 for k, v in record.headers)


def _chunks(records: list[Record], max_bytes: int) -> Iterator[list[Record]]:
    """*records* in runs whose batch (uncompressed) stays within *max_bytes*."""
    chunk: list[Record] = []
    size = BATCH_OVERHEAD
    for record in records:
        n = _record_size(record)
        if chunk and size + n > max_bytes:
            yield chunk
            chunk, size = [], BATCH_OVERHEAD
        chunk.append(record)
        size += n
    if chunk:
        yield chunk


class Outgoing:
    """Turns a range's source batches into the batches to send, in order.

    A batch goes whole when it can; small uncompressed ones are joined
    (:func:`~seaway.protocol.batch_merge.merge_batches`: one Produce request instead of
    many); the rest are opened and rebuilt (:func:`_rebuilt`).
    """

    def __init__(self, start: int, end: int, max_bytes: int) -> None:
        self.start, self.end, self.max_bytes = start, end, max_bytes
        self.target = min(MERGE_TARGET, max_bytes - BATCH_OVERHEAD)
        self.pending: list[FetchedBatch] = []
        self.pending_bytes = 0  # what the joined batch may take, at most

    def add(self, batch: FetchedBatch) -> Iterator[tuple[bytes | memoryview, Upstream]]:
        """What to send now that *batch* came (possibly nothing yet)."""
        header = batch.header
        if not _fits_whole(header, self.start, self.end, self.max_bytes):
            yield from self.flush()
            yield from _rebuilt(batch, self.start, self.end, self.max_bytes)
            return
        if header.size >= MERGE_BELOW or not can_merge(header):
            yield from self.flush()
            yield batch.data, [range(header.base_offset, header.next_offset)]
            return
        # A joined record's rewritten varints may take up to _JOIN_GROWTH bytes more.
        size = header.size + _JOIN_GROWTH * header.records_count
        if self.pending and self.pending_bytes + size > self.target:
            yield from self.flush()
        self.pending.append(batch)
        self.pending_bytes += size

    def flush(self) -> Iterator[tuple[bytes | memoryview, Upstream]]:
        """Send what is held back."""
        pending, self.pending, self.pending_bytes = self.pending, [], 0
        runs: Upstream = []
        for b in pending:  # consecutive batches make one run
            if runs and runs[-1].stop == b.header.base_offset:  # type: ignore[attr-defined]
                runs[-1] = range(runs[-1].start, b.header.next_offset)  # type: ignore[attr-defined]
            else:
                runs.append(range(b.header.base_offset, b.header.next_offset))
        if len(pending) == 1:
            yield pending[0].data, runs
        elif pending:
            yield merge_batches([(b.header, b.data) for b in pending]), runs


def _rebuilt(
    batch: FetchedBatch, start: int, end: int, max_bytes: int
) -> Iterator[tuple[bytes, Upstream]]:
    """A batch's records in ``[start, end)``, rebuilt contiguous, restamped CreateTime and
    cut to fit *max_bytes*, with the same codec."""
    _, records = decode_records(batch.data)
    kept = [r for r in records if start <= r.offset < end]
    for chunk in _chunks(kept, max_bytes):
        yield build_batch(chunk, compression=batch.header.compression), [[r.offset for r in chunk]]
