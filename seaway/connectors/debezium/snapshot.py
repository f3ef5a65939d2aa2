"""What every connector's initial snapshot shares: ``source.snapshot`` marks the first,
first-in-table, last-in-table and last rows (``SnapshotRecord``), and the last record takes
the offset that says the snapshot is done, so a restart before it redoes the snapshot."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from seaway.connect.api import SourceRecord

__all__ = ["marked", "with_offset"]


def _mark(record: SourceRecord, mark: str) -> SourceRecord:
    """*record* with ``source.snapshot`` = *mark*."""
    if record.value is not None:
        record.value.get("source").put("snapshot", mark)
    return record


def marked(
    tables: Iterable[Iterable[SourceRecord]], last: Callable[[SourceRecord], SourceRecord]
) -> Iterator[SourceRecord]:
    """The records of each table in turn, marked (``first``, ``first_in_data_collection``,
    ``last_in_data_collection``, ``true`` as read), the very last through *last* after it is
    marked ``last``. A record is held back until the next one is known."""
    pending: SourceRecord | None = None
    for rows in tables:
        first_of_table = True
        for record in rows:
            if pending is not None:
                yield _mark(pending, "last_in_data_collection") if first_of_table else pending
            if first_of_table:
                _mark(record, "first_in_data_collection" if pending else "first")
                first_of_table = False
            pending = record
    if pending is not None:
        yield last(_mark(pending, "last"))


def with_offset(record: SourceRecord, offset: dict[str, Any]) -> SourceRecord:
    """*record* with the source offset *offset*."""
    return SourceRecord(
        source_partition=record.source_partition, source_offset=offset, topic=record.topic,
        key_schema=record.key_schema, key=record.key, value_schema=record.value_schema,
        value=record.value,
    )  # fmt: skip
