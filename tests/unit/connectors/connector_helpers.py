"""Shared helpers for the connector tests: an in-memory offset store and task context."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from seaway.connect.api import (
    OffsetStorageReader,
    SourceOffset,
    SourceRecord,
    SourceTaskContext,
    partition_key,
)
from seaway.connectors.file import FileStreamSourceTask


class MemoryOffsetReader(OffsetStorageReader):
    def __init__(self, offsets: dict[str, SourceOffset] | None = None) -> None:
        self.stored = dict(offsets or {})

    def offsets(self, partitions: Iterable[Mapping[str, Any]]) -> dict[str, SourceOffset]:
        keys = [partition_key(p) for p in partitions]
        return {k: self.stored[k] for k in keys if k in self.stored}


class StubTaskContext(SourceTaskContext):
    def __init__(self, reader: OffsetStorageReader) -> None:
        self.reader = reader

    def configs(self) -> dict[str, str]:
        return {}

    def offset_storage_reader(self) -> OffsetStorageReader:
        return self.reader


def source_task(
    path: Path | str,
    *,
    batch_size: int | None = None,
    offsets: dict[str, SourceOffset] | None = None,
    chunk_size: int | None = None,
) -> FileStreamSourceTask:
    """A started FileStreamSourceTask reading *path* (poll waits are made short)."""
    task = FileStreamSourceTask()
    task.poll_wait_seconds = 0.01
    if chunk_size is not None:
        task.chunk_size = chunk_size
    task.initialize(StubTaskContext(MemoryOffsetReader(offsets)))
    props = {"file": str(path), "topic": "connect-test"}
    if batch_size is not None:
        props["batch.size"] = str(batch_size)
    task.start(props)
    return task


def key(path: Path | str) -> str:
    """The partition key of the file source partition for *path*."""
    return partition_key({"filename": str(path)})


def values(records: Iterable[SourceRecord]) -> list[str]:
    return [r.value for r in records]


def lines_and_positions(records: Iterable[SourceRecord]) -> list[tuple[str, int]]:
    return [(r.value, r.source_offset["position"]) for r in records]


def flat(batches: Iterable[list[Any]]) -> list[Any]:
    return [item for batch in batches for item in batch]


def drain(task: FileStreamSourceTask, start: SourceOffset | None = None) -> list[list[Any]]:
    """Plan and read batches until there is nothing new; returns each batch's (line, pos)."""
    path_key = key(task.filename or "")
    offset = start
    batches = []
    while True:
        plan = task.plan({} if offset is None else {path_key: offset})
        if not plan:
            return batches
        end = plan[path_key]
        batches.append(lines_and_positions(task.read(task.partition, offset, end)))
        offset = end
