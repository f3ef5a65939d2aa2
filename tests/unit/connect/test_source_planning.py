"""The Connect source query's planning on the driver: a plain ``poll()`` task's records always
make a micro-batch, also when they move no source offset (a Debezium heartbeat at the same
position, records without a source partition), and the marker that makes the end offset
move never reaches the connector's offsets."""

from __future__ import annotations

from typing import Any

from seaway.connect.api import SourceRecord, SourceTask
from seaway.connect.runtime.queries.conversion import ConversionSpec, ConverterSpec
from seaway.connect.runtime.queries.source import (
    ConnectSourceStreamReader,
    SourceQuerySpec,
    class_path,
    source_offsets,
)

PARTITION = {"server": "p"}


def _record(partition: Any, offset: Any, value: str) -> SourceRecord:
    return SourceRecord(source_partition=partition, source_offset=offset, topic="t", value=value)


class RepeatingTask(SourceTask):
    """Polls one record at offset ``{"pos": 1}``, one without a partition, then nothing."""

    def start(self, props: dict[str, str]) -> None:
        self.polls = 0

    def poll(self) -> list[SourceRecord]:
        self.polls += 1
        if self.polls == 1:
            return [_record(PARTITION, {"pos": 1}, "first")]
        if self.polls == 2:
            return [_record(PARTITION, {"pos": 1}, "same offset")]
        if self.polls == 3:
            return [_record(None, None, "no partition")]
        return []

    def stop(self) -> None:
        pass

    def version(self) -> str:
        return "1"


def _reader(start: dict[str, Any], sequences: dict[str, int]) -> ConnectSourceStreamReader:
    string = ConverterSpec("org.apache.kafka.connect.storage.StringConverter", {})
    conversion = ConversionSpec("c", string, string, string, {})
    spec = SourceQuerySpec("c", class_path(RepeatingTask), [{}], [0], start, conversion,
                           start_sequences=sequences)  # fmt: skip
    return ConnectSourceStreamReader(spec)


def _polled(reader: ConnectSourceStreamReader, start: Any, end: Any) -> list[Any]:
    [batch] = reader.partitions(start, end)
    return [r.value for r in batch.polled or []]


def test_records_that_move_no_offset_still_make_a_batch() -> None:
    reader = _reader({}, {})
    start = reader.initialOffset()
    first = reader.latestOffset(start)
    assert first != start and _polled(reader, start, first) == ["first"]
    for expected in ("same offset", "no partition"):
        end = reader.latestOffset(first)
        assert end != first, f"no batch for {expected!r}: its record would be lost"
        assert _polled(reader, first, end) == [expected]
        [batch] = reader.partitions(first, end)
        assert batch.ranges == []  # the marker is no source partition to replay
        assert source_offsets(end) == {'{"server":"p"}': {"pos": 1}}
        first = end
    assert reader.latestOffset(first) == first  # nothing polled: no batch


def test_exactly_once_moves_the_sequence_instead() -> None:
    reader = _reader({}, {"0": 7})
    start = reader.initialOffset()
    first = reader.latestOffset(start)
    second = reader.latestOffset(first)
    assert second["#seq-0"] != first["#seq-0"]
    assert second["#polled-0"][1][1] == 1  # the records polled, for a replay
    [batch] = reader.partitions(first, second)
    assert batch.sequence == (first["#seq-0"][1], second["#seq-0"][1])
