"""Helpers for the Debezium connector tests: a topic's JSON records (read whole, or tailed),
and the schema fields both connectors' envelopes and ``customers`` rows have."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from confluent_kafka import Consumer, TopicPartition

__all__ = [
    "CUSTOMERS_ROW_FIELDS",
    "ENVELOPE_FIELDS",
    "TopicTail",
    "kill_mid_snapshot",
    "topic_messages",
]

ENVELOPE_FIELDS: Final = ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us",
                          "ts_ns"]  # fmt: skip
"""The fields of a ``<topic>.Envelope``, in order."""

CUSTOMERS_ROW_FIELDS: Final = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": False, "field": "email"},
    {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal",
     "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"},
     "field": "balance"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.Timestamp",
     "version": 1, "field": "updated_at"}]  # fmt: skip
"""The JSON schema fields of a ``customers`` row (id, email, balance DECIMAL(10,2), updated_at
with milliseconds)."""


def topic_messages(bootstrap: str, topic: str, isolation: str = "read_uncommitted") -> list[Any]:
    """(key, value) of every record of partition 0, JSON-decoded (None for a null)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex}",
                         "isolation.level": isolation, "enable.partition.eof": True,
                         "log_level": 3})  # fmt: skip
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Any] = []
    try:
        while (message := consumer.poll(5)) is not None:
            if (error := message.error()) is not None:
                if error.code() == -191:  # _PARTITION_EOF
                    break
                continue
            key, value = message.key(), message.value()
            out.append((key and json.loads(key), value and json.loads(value)))
    finally:
        consumer.close()
    return out


def _json_or_text(data: bytes | None) -> Any:
    """A header's value: JSON when it parses, else its text."""
    try:
        return data and json.loads(data)
    except ValueError:
        return data.decode()


class TopicTail:
    """Partition 0 of a topic read on from where the last :meth:`read` stopped, so waiting
    for thousands of records reads each once: (key, value, headers) JSON-decoded."""

    def __init__(self, bootstrap: str, topic: str, isolation: str = "read_uncommitted") -> None:
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "log_level": 3, "group.id": f"tail-{uuid.uuid4().hex}",
            "isolation.level": isolation, "enable.partition.eof": True,
        })  # fmt: skip
        self.partition = TopicPartition(topic, 0, 0)
        self.consumer.assign([self.partition])
        self.messages: list[tuple[Any, Any, dict[str, Any]]] = []

    def read(self, limit: int | None = None) -> list[tuple[Any, Any, dict[str, Any]]]:
        """Every record so far: the new ones read until the end of the partition, or until
        *limit* new ones were read (a wait that must act soon, while records stream in)."""
        stop_at = None if limit is None else len(self.messages) + limit
        # the end as of now: while records stream in, the consumer's fetches never come back
        # empty at the end, so librdkafka reports no end of partition and a read up to it
        # would go on for as long as a writer writes
        _, end = self.consumer.get_watermark_offsets(self.partition, timeout=10, cached=False)
        while stop_at is None or len(self.messages) < stop_at:
            if (message := self.consumer.poll(1)) is None:
                break
            if (error := message.error()) is not None:
                if error.code() == -191:  # _PARTITION_EOF
                    break
                continue
            key, value = message.key(), message.value()
            headers = {k: _json_or_text(v) for k, v in message.headers() or []}
            self.messages.append((key and json.loads(key), value and json.loads(value), headers))
            if message.offset() >= end - 1:
                break
        return self.messages

    def __enter__(self) -> TopicTail:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.consumer.close()


def kill_mid_snapshot(
    props: dict[str, Any], workdir: Path, config: dict[str, Any], tail: TopicTail, rows: int
) -> int:
    """Start a worker with the connector ``cdc`` of *config*, ``kill -9`` it once *tail* holds
    1,200 of the snapshot's *rows* records; the records it wrote (fewer than *rows*)."""
    from tests.connect.workers import WorkerProcess, wait_for

    worker = WorkerProcess(props, workdir).start()
    try:
        assert worker.rest is not None
        worker.rest.ok("POST", "/connectors", {"name": "cdc", "config": config})
        wait_for("part of the snapshot", lambda: len(tail.read(200)) >= 1200, timeout=90)
    finally:
        worker.kill()
    # what the killed worker sent before it died may still be on its way into the log
    before, written = -1, len(tail.read())
    while written != before:
        time.sleep(1)
        before, written = written, len(tail.read())
    assert written < rows, "the snapshot finished before the kill: take more rows"
    return written
