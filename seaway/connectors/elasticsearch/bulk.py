"""Bulk requests: actions cut into requests, sent with a few in flight, answers handled.

A task hands the writer :class:`Actions`, the NDJSON lines of consecutive records of one
topic-partition as one Arrow binary column (row i: action i's lines, each ending in a
newline). The writer cuts them into ``_bulk`` requests of at most ``batch.size`` actions and
``bulk.size.bytes`` bytes, whose bodies are slices of those columns' data buffers (no Python
object per record), and keeps at most ``max.in.flight.requests`` of them in flight on a
thread pool (a request not answered within ``flush.timeout.ms``, retries included, fails the
task). Answers are handled on the task's own thread (it reports to the dead letter
queue), item by item only when the server says an item failed, as Confluent's
``ElasticsearchClient.handleResponse`` does:

1. a malformed document (``mapper_parsing_exception`` and its kin) goes to the errant record
   reporter, then counts as written (``ignore``, ``warn``) or fails the task (``fail``);
2. a version conflict of an externally versioned write is a replay of an older offset: it
   counts as written; other conflicts follow ``behavior.on.version.conflict``;
3. anything else goes to the reporter and fails the task. Item errors are never retried.

:meth:`BulkWriter.flush` returns once every request was answered, so the offsets the task
then gives its ``pre_commit`` are of records the server has acknowledged. Seaway's sink task
lives for one micro-batch and flushes at its end, so ``linger.ms`` has nothing to wait for,
and what is buffered is at most ``max.in.flight.requests`` requests of ``batch.size``.
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, Final

import pyarrow as pa

from seaway.connect.api import ConnectError, SinkRecord
from seaway.connect.api.sink import ErrantRecordReporter
from seaway.connectors.elasticsearch.client import SearchClient
from seaway.connectors.elasticsearch.settings import (
    MalformedBehavior,
    SinkSettings,
    VersionConflictBehavior,
)

__all__ = ["Actions", "BulkWriter"]

log = logging.getLogger(__name__)

MALFORMED_DOCUMENT_ERRORS: Final = (
    "strict_dynamic_mapping_exception",
    "mapper_parsing_exception",
    "illegal_argument_exception",
    "action_request_validation_exception",
    "document_parsing_exception",
)
VERSION_CONFLICT: Final = "version_conflict_engine_exception"


@dataclass(frozen=True)
class Actions:
    """Bulk actions of consecutive records of one topic-partition."""

    topic: str
    partition: int
    lines: pa.Array  # binary: row i is action i's NDJSON lines, newline-terminated
    record: Callable[[int], SinkRecord]  # the record of action i (made only to report it)
    versioned: bool  # external versions: a conflict is a replay of an older offset

    def __len__(self) -> int:
        return len(self.lines)


@dataclass
class _Request:
    """One ``_bulk`` request: slices ``[start, end)`` of some :class:`Actions`."""

    parts: list[tuple[Actions, int, int]] = field(default_factory=list)
    count: int = 0
    size: int = 0

    def body(self) -> bytes:
        return b"".join(_data(actions.lines, start, end) for actions, start, end in self.parts)

    def action(self, item: int) -> tuple[Actions, int]:
        """The actions and index of the request's *item*-th action."""
        for actions, start, end in self.parts:
            if item < end - start:
                return actions, start + item
            item -= end - start
        raise IndexError(item)


class BulkWriter:
    """Sends a task's actions as bulk requests and handles the answers."""

    def __init__(
        self,
        client: SearchClient,
        settings: SinkSettings,
        reporter: ErrantRecordReporter | None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.reporter = reporter
        self.pool = ThreadPoolExecutor(
            max_workers=settings.max_in_flight_requests, thread_name_prefix="search-bulk"
        )
        self.in_flight: deque[tuple[_Request, Future[dict[str, Any]]]] = deque()
        self.pending = _Request()
        self.max_bytes = settings.bulk_size_bytes if settings.bulk_size_bytes > 0 else 1 << 62
        self.written = 0

    def add(self, actions: Actions) -> None:
        """Queue *actions*, sending every request they fill."""
        start, n = 0, len(actions)
        offsets = _offsets(actions.lines)
        while start < n:
            room = self.settings.batch_size - self.pending.count
            end = min(n, start + room)
            budget = self.max_bytes - self.pending.size
            first = offsets[start].as_py()
            if offsets[end].as_py() - first > budget:  # cut at the byte bound
                end = _last_fitting(offsets, start, end, first + budget)
                if end == start and self.pending.count == 0:
                    end = start + 1  # one action larger than bulk.size.bytes goes alone
            if end > start:
                self.pending.parts.append((actions, start, end))
                self.pending.count += end - start
                self.pending.size += offsets[end].as_py() - first
                start = end
            if end < n or self.pending.count >= self.settings.batch_size:
                self._send()

    def flush(self) -> None:
        """Send what is queued and wait until every request is answered and handled."""
        self._send()
        while self.in_flight:
            self._complete_oldest()

    def close(self) -> None:
        for _, future in self.in_flight:
            future.cancel()
        self.in_flight.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)

    # --- requests ---------------------------------------------------------------------------

    def _send(self) -> None:
        request, self.pending = self.pending, _Request()
        if not request.count:
            return
        while len(self.in_flight) >= self.settings.max_in_flight_requests:
            self._complete_oldest()
        future = self.pool.submit(self.client.bulk, request.body())
        self.in_flight.append((request, future))

    def _complete_oldest(self) -> None:
        request, future = self.in_flight.popleft()
        try:  # a request that failed all its retries raises here
            answer = future.result(timeout=self.settings.flush_timeout_ms / 1000)
        except FutureTimeout:
            raise ConnectError(
                f"A bulk request of {request.count} actions was not answered within "
                f"flush.timeout.ms={self.settings.flush_timeout_ms}: could not make space in "
                "the internal buffer fast enough. Consider increasing flush.timeout.ms."
            ) from None
        if answer.get("errors"):
            self._handle_items(request, answer.get("items") or [])
        self.written += request.count

    # --- answers ----------------------------------------------------------------------------

    def _handle_items(self, request: _Request, items: list[dict[str, Any]]) -> None:
        for i, item in enumerate(items):
            result: dict[str, Any] = next(iter(item.values()), {}) if item else {}
            error = result.get("error")
            if error is None:
                continue  # done, or a delete of a document that was not there
            actions, index = request.action(i)
            self._failed_item(actions, index, _describe(error))

    def _failed_item(self, actions: Actions, index: int, error: str) -> None:
        settings = self.settings
        if any(kind in error for kind in MALFORMED_DOCUMENT_ERRORS):
            self._report(actions, index, f"Indexing failed: {error}")
            behavior = settings.malformed_documents
            if behavior is MalformedBehavior.FAIL:
                raise ConnectError(
                    "Indexing record failed. Please check DLQ topic for errors. "
                    f"{_where(actions, index)}: {error}"
                )
            if behavior is MalformedBehavior.WARN:
                where = _where(actions, index)
                log.warning("Encountered an illegal document error when executing the bulk "
                            "request for %s; ignoring it: %s", where, error)  # fmt: skip
            return
        if VERSION_CONFLICT in error:
            self._version_conflict(actions, index, error)
            return
        self._report(actions, index, f"Indexing failed: {error}")
        raise ConnectError(f"Indexing record failed: {_where(actions, index)}: {error}")

    def _version_conflict(self, actions: Actions, index: int, error: str) -> None:
        behavior = self.settings.version_conflicts
        if behavior is VersionConflictBehavior.IGNORE:
            if not actions.versioned:  # Confluent: warned, reported, counted as written
                log.warning("Ignoring a version conflict for %s: %s", _where(actions, index), error)
                self._report(actions, index, f"Version conflict: {error}")
            return  # externally versioned: an older offset than the document's, a replay
        if behavior is VersionConflictBehavior.FAIL:
            raise ConnectError(f"Version conflict for {_where(actions, index)}: {error}")
        if behavior is VersionConflictBehavior.WARN:
            log.warning("Version conflict for %s: %s", _where(actions, index), error)
            return
        self._report(actions, index, f"Version conflict: {error}")

    def _report(self, actions: Actions, index: int, message: str) -> None:
        if self.reporter is not None:
            self.reporter.report(actions.record(index), ConnectError(message)).result()


def _offsets(lines: pa.Array) -> pa.Array:
    """The value offsets of a binary or string column (row i spans ``[o[i], o[i+1])`` of
    its data buffer)."""
    kind = pa.int64() if pa.types.is_large_binary(lines.type) or pa.types.is_large_string(
        lines.type) else pa.int32()  # fmt: skip
    return pa.Array.from_buffers(
        kind, len(lines) + 1, [None, lines.buffers()[1]], null_count=0, offset=lines.offset
    )


def _data(lines: pa.Array, start: int, end: int) -> memoryview:
    """The bytes of rows ``[start, end)`` of a binary column, without a copy."""
    offsets = _offsets(lines)
    low, high = offsets[start].as_py(), offsets[end].as_py()
    data = lines.buffers()[2]
    return memoryview(data)[low:high] if data is not None else memoryview(b"")


def _last_fitting(offsets: pa.Array, start: int, end: int, limit: int) -> int:
    """The largest ``e`` in ``[start, end]`` with ``offsets[e] <= limit``."""

    class _View:
        def __getitem__(self, i: int) -> int:
            return int(offsets[start + i].as_py())

        def __len__(self) -> int:
            return end - start + 1

    return start + bisect_right(_View(), limit) - 1


def _describe(error: Any) -> str:
    """An item's error as ``<type>: <reason>``, with its cause."""
    if not isinstance(error, dict):
        return str(error)
    text = f"{error.get('type', 'error')}: {error.get('reason', '')}"
    cause = error.get("caused_by")
    if isinstance(cause, dict):
        text += f" (caused by {cause.get('type', '')}: {cause.get('reason', '')})"
    return text


def _where(actions: Actions, index: int) -> str:
    record = actions.record(index)
    return f"record {record.topic}-{record.kafka_partition}@{record.kafka_offset}"
