"""The read-ahead of a change stream: records in order, whole batches up to the limit,
nothing when nothing came, the reader's error raised to the task, and a clean stop."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from seaway.connect.api import SourceRecord
from seaway.connectors.debezium.prefetch import Prefetcher


def _records(first: int, count: int) -> list[SourceRecord]:
    return [SourceRecord(source_partition={"s": "p"}, source_offset={"n": n}, topic="t", value=n)
            for n in range(first, first + count)]  # fmt: skip


def test_batches_come_in_order_and_whole_up_to_the_limit() -> None:
    counter = itertools.count()
    made = threading.Event()

    def read() -> list[SourceRecord]:
        n = next(counter)
        if n >= 10:
            made.set()
            time.sleep(0.01)
            return []
        return _records(n * 3, 3)

    reader = Prefetcher(read, "test-reader", batches=20)
    try:
        assert made.wait(5)
        first = reader.take(limit=5, wait_s=1)
        assert [r.value for r in first] == list(range(6))  # two whole batches reach 5
        rest = reader.take(limit=100, wait_s=1)
        assert [r.value for r in rest] == list(range(6, 30))
        assert reader.take(limit=100, wait_s=0.05) == []
    finally:
        reader.stop()


def test_a_full_queue_holds_the_reader_back() -> None:
    reads = itertools.count()
    reader = Prefetcher(lambda: _records(next(reads), 1), "test-reader", batches=2)
    try:
        time.sleep(0.3)
        assert next(reads) <= 5  # two queued, one waiting to be: the reader waits
        assert [r.value for r in reader.take(limit=10, wait_s=1)] == [0, 1]
    finally:
        reader.stop()


def test_the_readers_error_reaches_the_task() -> None:
    def read() -> list[SourceRecord]:
        raise ConnectionError("binlog connection lost")

    reader = Prefetcher(read, "test-reader")
    try:
        time.sleep(0.1)
        with pytest.raises(ConnectionError, match="binlog connection lost"):
            reader.take(limit=10, wait_s=0.1)
    finally:
        reader.stop()
