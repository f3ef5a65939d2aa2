"""FileStreamSinkTask: lines appended as Java's println would, flush + fsync, and a file copy."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from seaway.connect.api import (
    ConnectError,
    Schema,
    SinkRecord,
    SourceRecord,
)
from seaway.connectors.file import FileStreamSinkTask
from tests.unit.connectors.connector_helpers import key, source_task


def sink_record(value: Any, offset: int = 0, schema: Schema | None = None) -> SinkRecord:
    return SinkRecord(
        topic="connect-test",
        kafka_partition=0,
        value_schema=schema or Schema.OPTIONAL_STRING_SCHEMA,
        value=value,
        kafka_offset=offset,
    )


def as_sink_records(records: list[SourceRecord], first_offset: int = 0) -> list[SinkRecord]:
    return [
        SinkRecord(
            topic=r.topic,
            kafka_partition=0,
            value_schema=r.value_schema,
            value=r.value,
            timestamp=r.timestamp,
            kafka_offset=first_offset + i,
        )
        for i, r in enumerate(records)
    ]


def started_sink(path: Path) -> FileStreamSinkTask:
    task = FileStreamSinkTask()
    task.start({"file": str(path), "topics": "connect-test"})
    return task


def test_put_appends_lines_and_flush_makes_them_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.txt"
    task = started_sink(path)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])

    task.put([sink_record("line1", 0), sink_record("line2", 1)])
    task.put([])
    task.flush({})
    assert path.read_text(encoding="utf-8") == "line1\nline2\n"
    assert len(synced) == 1

    task.put([sink_record("ünïcödé 🎉", 2), sink_record(None, 3)])
    task.flush({})
    task.stop()
    assert path.read_text(encoding="utf-8") == "line1\nline2\nünïcödé 🎉\nnull\n"
    assert len(synced) == 2
    task.flush({})  # after stop: nothing to do, no error


def test_opens_with_create_and_append(tmp_path: Path) -> None:
    path = tmp_path / "existing.txt"
    path.write_text("already here\n", encoding="utf-8")
    task = started_sink(path)
    task.put([sink_record("new")])
    task.flush({})
    task.stop()
    # Two tasks of the same connector append to the same file.
    first, second = started_sink(path), started_sink(path)
    first.put([sink_record("from task 0")])
    second.put([sink_record("from task 1")])
    first.flush({})
    second.flush({})
    first.stop()
    second.stop()
    assert path.read_text(encoding="utf-8") == ("already here\nnew\nfrom task 0\nfrom task 1\n")


def test_file_that_cannot_be_created_fails_the_task(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "out.txt"
    with pytest.raises(ConnectError) as error:
        started_sink(path)
    assert str(error.value) == f"Couldn't find or create file '{path}' for FileStreamSinkTask"
    assert isinstance(error.value.__cause__, OSError)


def test_no_file_writes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    task = FileStreamSinkTask()
    task.start({"topics": "t"})
    task.put([sink_record("to stdout"), sink_record(None)])
    task.flush({})
    task.stop()
    assert capsys.readouterr().out == "to stdout\nnull\n"


def test_output_stream_for_tests() -> None:
    out = io.StringIO()
    task = FileStreamSinkTask(out)
    task.start({"file": "  "})  # blank means stdout, here replaced by *out*
    task.put([sink_record("a"), sink_record("b")])
    assert out.getvalue() == "a\nb\n"


def test_copy_of_a_file_through_source_and_sink_is_identical(tmp_path: Path) -> None:
    # The seed walkthrough: FileStreamSource reads server.properties into a topic, and
    # FileStreamSink dumps the topic into copy-of-server-properties, identical to the source.
    original = tmp_path / "server.properties"
    lines = [
        "# Licensed to the Apache Software Foundation (ASF) under one or more",
        "",
        "############################# Server Basics #############################",
        "",
        "# The id of the broker. This must be set to a unique integer for each broker.",
        "broker.id=0",
        "ünïcödé: 日本語 🎉",
        "\ttabs and  spaces  ",
    ] * 500
    original.write_bytes("".join(line + "\n" for line in lines).encode())
    copy = tmp_path / "copy-of-server-properties"

    source = source_task(original, batch_size=700)
    sink = started_sink(copy)
    offset = 0
    committed = None
    while True:
        plan = source.plan({} if committed is None else {key(original): committed})
        if not plan:
            break
        end = plan[key(original)]
        records = list(source.read(source.partition, committed, end))
        sink.put(as_sink_records(records, offset))
        offset += len(records)
        sink.flush({})
        committed = end
    sink.stop()
    assert offset == len(lines)
    assert copy.read_bytes() == original.read_bytes()


def test_copy_through_poll(tmp_path: Path) -> None:
    original = tmp_path / "in.txt"
    original.write_bytes(b"".join(b"record %d\n" % i for i in range(5000)))
    copy = tmp_path / "out.txt"
    source = source_task(original)
    sink = started_sink(copy)
    batches = 0
    while (records := source.poll()) is not None:
        sink.put(as_sink_records(records))
        batches += 1
    sink.flush({})
    sink.stop()
    assert batches == 3  # 2000 + 2000 + 1000
    assert copy.read_bytes() == original.read_bytes()
