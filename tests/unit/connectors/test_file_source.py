"""FileStreamSourceTask: planning and reading by byte position, replay, resume, line endings."""

from __future__ import annotations

import io
import logging
import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from seaway.connect.api import ConnectError, ReplayableSourceTask, Schema, SourceTask
from seaway.connectors.file import FileStreamSourceTask, FileStreamStdinSourceTask
from seaway.connectors.file._lines import LineSplitter, iter_lines
from tests.unit.connectors.connector_helpers import (
    drain,
    flat,
    key,
    lines_and_positions,
    source_task,
    values,
)

FIVE_LINES = "".join(f"Line {i}\n" for i in range(5))


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def append(path: Path, data: bytes | str) -> None:
    with path.open("ab") as f:
        f.write(data.encode() if isinstance(data, str) else data)


# ---------------------------------------------------------------------------- plan and read


def test_task_is_replayable_and_records_are_kafkas(tmp_path: Path) -> None:
    path = write(tmp_path / "test.txt", FIVE_LINES)
    task = source_task(path)
    assert isinstance(task, ReplayableSourceTask)
    assert task.known_partitions() == [{"filename": str(path)}]
    plan = task.plan({})
    assert plan == {key(path): {"position": 35}}
    before = time.time_ns() // 1_000_000
    records = list(task.read({"filename": str(path)}, None, plan[key(path)]))
    after = time.time_ns() // 1_000_000
    assert lines_and_positions(records) == [(f"Line {i}", 7 * (i + 1)) for i in range(5)]
    for record in records:
        assert record.source_partition == {"filename": str(path)}
        assert record.topic == "connect-test"
        assert record.kafka_partition is None
        assert record.key is None and record.key_schema is None
        assert record.value_schema is Schema.STRING_SCHEMA
        assert record.timestamp is not None and before <= record.timestamp <= after


def test_read_is_deterministic(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", "".join(f"line {i} é\n" for i in range(100)))
    task = source_task(path, batch_size=30)
    start = {"position": 0}
    end = task.plan({key(path): start})[key(path)]
    first = lines_and_positions(task.read(task.partition, start, end))
    # A replay, even on another task instance started with the same config, and even
    # after the file grew, yields exactly the same records.
    append(path, "more\n")
    other = source_task(path, batch_size=30)
    assert lines_and_positions(other.read(other.partition, start, end)) == first
    assert lines_and_positions(task.read(task.partition, None, end)) == first
    assert len(first) == 30
    assert first[-1][1] == end["position"]


def test_acceptance_altered_offset_re_emits_exactly_the_later_lines(tmp_path: Path) -> None:
    # connect.md §3: FileStreamSourceConnectorIntegrationTest.testAlterOffsets.
    path = write(tmp_path / "test.txt", FIVE_LINES)
    task = source_task(path)
    assert values(task.poll() or []) == [f"Line {i}" for i in range(5)]

    # The connector's offset is altered to {"position": 28}; the restarted task resumes there.
    task = source_task(path, offsets={key(path): {"position": 28}})
    records = task.poll()
    assert records is not None
    assert lines_and_positions(records) == [("Line 4", 35)]
    assert task.poll() is None

    # The same through plan/read.
    assert drain(task, {"position": 28}) == [[("Line 4", 35)]]
    assert drain(task, {"position": 14}) == [[("Line 2", 21), ("Line 3", 28), ("Line 4", 35)]]


def test_batch_size_limits_each_batch(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", "".join(f"{i}\n" for i in range(10)))
    batches = drain(source_task(path, batch_size=3))
    assert [len(b) for b in batches] == [3, 3, 3, 1]
    assert [line for batch in batches for line, _ in batch] == [str(i) for i in range(10)]

    task = source_task(path, batch_size=4)
    assert [len(task.poll() or []) for _ in range(4)] == [4, 4, 2, 0]


def test_default_batch_size_is_2000(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", "x\n" * 4500)
    task = source_task(path)
    assert task.batch_size == 2000
    assert [len(b) for b in drain(task)] == [2000, 2000, 500]


@pytest.mark.parametrize("batch_size", ["0", "-5"])
def test_non_positive_batch_size_reads_one_line_at_a_time(tmp_path: Path, batch_size: str) -> None:
    # Kafka returns as soon as records.size() >= batchSize, i.e. after every line.
    path = write(tmp_path / "f.txt", "a\nb\n")
    assert drain(source_task(path, batch_size=int(batch_size))) == [[("a", 2)], [("b", 4)]]


def test_resume_from_every_offset_matches_a_full_read(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", "alpha\r\nbeta\rgamma\n\ndelta\n")
    full = flat(drain(source_task(path)))
    assert full == [("alpha", 7), ("beta", 12), ("gamma", 18), ("", 19), ("delta", 25)]
    for index, (_, position) in enumerate(full):
        resumed = flat(drain(source_task(path), {"position": position}))
        assert resumed == full[index + 1 :]


def test_poll_resumes_from_the_committed_offset_and_keeps_going(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", "a\nb\nc\n")
    task = source_task(path, offsets={key(path): {"position": 2}})
    assert lines_and_positions(task.poll() or []) == [("b", 4), ("c", 6)]
    assert task.poll() is None
    append(path, "d\n")
    assert lines_and_positions(task.poll() or []) == [("d", 8)]


def test_offset_in_the_middle_of_a_line_and_past_the_end(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", FIVE_LINES)
    # As in Kafka, the rest of the line is the first record.
    assert drain(source_task(path), {"position": 30}) == [[("ne 4", 35)]]
    # Past the end: nothing until the file grows past it.
    task = source_task(path)
    assert task.plan({key(path): {"position": 100}}) == {}


def test_offset_of_the_wrong_type_fails(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", FIVE_LINES)
    task = source_task(path)
    with pytest.raises(ConnectError, match="Offset position is the incorrect type"):
        task.plan({key(path): {"position": "28"}})
    with pytest.raises(ConnectError, match="incorrect type"):
        list(task.read(task.partition, None, {"position": 3.5}))
    with pytest.raises(ConnectError, match="non-negative"):
        task.plan({key(path): {"position": -1}})
    # A null position (Kafka's stdin offsets) means the start.
    assert task.plan({key(path): {"position": None}}) == {key(path): {"position": 35}}


def test_plan_ignores_other_partitions(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", FIVE_LINES)
    task = source_task(path)
    other = {key(tmp_path / "old.txt"): {"position": 3}}
    assert task.plan(other) == {key(path): {"position": 35}}


def test_read_fails_if_the_file_was_truncated(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", FIVE_LINES)
    task = source_task(path)
    end = task.plan({})[key(path)]
    write(path, "Line 0\nLine 1\n")
    with pytest.raises(ConnectError, match="truncated or rewritten"):
        list(task.read(task.partition, None, end))
    write(path, "Line 0\nLine 1\nLine 2 is much longer now\n")
    with pytest.raises(ConnectError, match="no longer end with a complete line"):
        list(task.read(task.partition, None, end))


def test_empty_range_and_reversed_range(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", FIVE_LINES)
    task = source_task(path)
    assert list(task.read(task.partition, {"position": 7}, {"position": 7})) == []
    with pytest.raises(ConnectError, match="before start"):
        list(task.read(task.partition, {"position": 14}, {"position": 7}))


# ---------------------------------------------------------------------------- UTF-8 and lines


def test_multi_byte_utf8_uses_byte_positions(tmp_path: Path) -> None:
    lines = ["héllo", "日本語のテキスト", "emoji 🎉🎉", "plain"]
    data = "".join(line + "\n" for line in lines).encode()
    path = write(tmp_path / "u.txt", data)
    records = flat(drain(source_task(path)))
    ends = []
    position = 0
    for line in lines:
        position += len(line.encode()) + 1
        ends.append(position)
    assert records == list(zip(lines, ends, strict=True))
    assert ends[-1] == len(data)

    # Kafka would store 6 (characters) after "héllo" and then skip 6 *bytes*, resuming on
    # "\n" and emitting a spurious empty line. Byte positions resume exactly.
    after_first = len("héllo\n".encode())
    assert after_first == 7
    resumed = flat(drain(source_task(path), {"position": after_first}))
    assert resumed == records[1:]


def test_multi_byte_characters_split_across_chunks(tmp_path: Path) -> None:
    text = "ñandú\n中文字符\n🎉 party 🎉\n"
    path = write(tmp_path / "u.txt", text)
    expected = drain(source_task(path))
    for chunk_size in range(1, 9):
        assert drain(source_task(path, chunk_size=chunk_size)) == expected
    assert [line for line, _ in expected[0]] == ["ñandú", "中文字符", "🎉 party 🎉"]


def test_invalid_utf8_becomes_replacement_characters(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.txt", b"ok\n\xff\xfebad\n")
    assert drain(source_task(path)) == [[("ok", 3), ("\ufffd\ufffdbad", 9)]]


def test_crlf_and_lone_cr_terminators(tmp_path: Path) -> None:
    path = write(tmp_path / "crlf.txt", b"a\r\nb\rc\n\r\n\r\rd\n")
    assert drain(source_task(path)) == [
        [("a", 3), ("b", 5), ("c", 7), ("", 9), ("", 10), ("", 11), ("d", 13)]
    ]


def test_trailing_cr_waits_for_the_next_byte(tmp_path: Path) -> None:
    path = write(tmp_path / "cr.txt", b"a\r")
    task = source_task(path)
    # "a\r" might become "a\r\n": Kafka waits for the next character, and so does plan.
    assert task.plan({}) == {}
    append(path, b"\n")
    assert drain(task) == [[("a", 3)]]

    path = write(tmp_path / "cr2.txt", b"a\rb\r")
    task = source_task(path)
    assert drain(task) == [[("a", 2)]]
    append(path, b"c\n")
    assert drain(task, {"position": 2}) == [[("b", 4), ("c", 6)]]


def test_partial_last_line_is_held_back(tmp_path: Path) -> None:
    path = write(tmp_path / "p.txt", "first\nsecond")
    task = source_task(path)
    assert lines_and_positions(task.poll() or []) == [("first", 6)]
    assert task.poll() is None
    append(path, " half")
    assert task.poll() is None
    append(path, "\nthird\n")
    assert lines_and_positions(task.poll() or []) == [("second half", 18), ("third", 24)]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 7, 64 * 1024])
def test_splitting_is_independent_of_chunk_boundaries(tmp_path: Path, chunk_size: int) -> None:
    data = b"x\r\n\r\ry\n\nz\r\r\nlong line " + b"w" * 40 + b"\r\n\xc3\xa9\r"
    path = write(tmp_path / "c.bin", data)
    expected = [
        ("x", 3), ("", 4), ("", 5), ("y", 7), ("", 8), ("z", 10), ("", 12),
        ("long line " + "w" * 40, 64),
    ]  # fmt: skip
    assert flat(drain(source_task(path, chunk_size=chunk_size))) == expected
    # With a known end, the trailing "\r" counts as a terminator.
    task = source_task(path, chunk_size=chunk_size)
    tail = lines_and_positions(task.read(task.partition, {"position": 64}, {"position": 67}))
    assert tail == [("é", 67)]


def test_line_splitter_positions() -> None:
    splitter = LineSplitter(10)
    assert list(splitter.feed(b"ab\r")) == []
    assert splitter.pending_bytes == 3
    assert list(splitter.feed(b"\ncd")) == [(b"ab", 14)]
    assert list(splitter.feed(b"\r")) == []
    assert list(splitter.finish_at_boundary()) == [(b"cd", 17)]
    with io.BytesIO(b"1\n22\n333") as stream:
        assert list(iter_lines(stream, 0, collect=False)) == [(None, 2), (None, 5)]


# ---------------------------------------------------------------------------- big files


def _write_big_file(path: Path, size: int) -> int:
    """Write ~*size* bytes of numbered 1 KiB lines; returns the number of lines."""
    line_body = "y" * 1000
    count = 0
    with path.open("w", encoding="utf-8", newline="") as f:
        written = 0
        while written < size:
            line = f"{count:08d} {line_body}\n"
            f.write(line)
            written += len(line)
            count += 1
    return count


def test_fifty_megabyte_file_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    count = _write_big_file(path, 50 * 1024 * 1024)
    size = path.stat().st_size
    task = source_task(path, batch_size=10**9)
    tracemalloc.start()
    try:
        plan = task.plan({})
        _, plan_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        assert plan == {key(path): {"position": size}}
        seen = 0
        last = None
        for record in task.read(task.partition, None, plan[key(path)]):
            seen += 1
            last = record
        _, read_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == count
    assert last is not None and last.source_offset == {"position": size}
    assert last.value.startswith(f"{count - 1:08d} ")
    assert plan_peak < 2 * 1024 * 1024, plan_peak
    assert read_peak < 4 * 1024 * 1024, read_peak


def test_plan_reads_only_what_the_batch_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.txt"
    _write_big_file(path, 50 * 1024 * 1024)
    task = source_task(path, batch_size=10)
    reads: list[int] = []
    real_open = open

    class CountingFile(io.FileIO):
        def readinto(self, buffer):  # type: ignore[no-untyped-def]
            count = super().readinto(buffer)
            reads.append(count or 0)
            return count

    def counting_open(file, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
        if mode == "rb" and str(file) == str(path):
            return io.BufferedReader(CountingFile(file, "r"))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counting_open)
    plan = task.plan({})
    monkeypatch.undo()
    assert plan == {key(path): {"position": 10 * 1010}}
    assert 0 < sum(reads) <= 256 * 1024


def test_a_huge_line_without_terminator_is_scanned_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "one-line.txt"
    block = b"z" * (1024 * 1024)
    with path.open("wb") as f:
        for _ in range(50):
            f.write(block)
    task = source_task(path)
    tracemalloc.start()
    try:
        assert task.plan({}) == {}
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * 1024 * 1024, peak


# ---------------------------------------------------------------------------- missing file


def test_missing_file_waits_without_failing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "later.txt"
    task = source_task(path)
    with caplog.at_level(logging.WARNING, logger="seaway.connectors.file.source"):
        assert task.plan({}) == {}
        assert task.poll() is None
        assert task.poll() is None
    warnings = [r for r in caplog.records if "Couldn't find file" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].getMessage() == (
        f"Couldn't find file {path} for FileStreamSourceTask, sleeping to wait for it to be created"
    )
    write(path, "hello\n")
    assert lines_and_positions(task.poll() or []) == [("hello", 6)]


def test_poll_waits_when_there_is_nothing_new_and_stop_interrupts(tmp_path: Path) -> None:
    path = write(tmp_path / "f.txt", "")
    task = source_task(path)
    task.poll_wait_seconds = 0.2
    started = time.monotonic()
    assert task.poll() is None
    assert time.monotonic() - started >= 0.15

    task.poll_wait_seconds = 30
    threading.Timer(0.1, task.stop).start()
    started = time.monotonic()
    assert task.poll() is None
    assert time.monotonic() - started < 5


def test_unreadable_path_fails(tmp_path: Path) -> None:
    task = source_task(tmp_path)  # a directory
    with pytest.raises(ConnectError, match="Couldn't open file"):
        task.plan({})


def test_read_of_a_missing_file_fails(tmp_path: Path) -> None:
    task = source_task(tmp_path / "gone.txt")
    with pytest.raises(ConnectError, match="Couldn't open file"):
        list(task.read(task.partition, None, {"position": 5}))


# ---------------------------------------------------------------------------- stdin


def test_stdin_task_reads_available_lines() -> None:
    stream = io.BytesIO(b"one\r\ntwo\nthree\npartial")
    task = FileStreamStdinSourceTask(stream)
    task.poll_wait_seconds = 0.01
    assert isinstance(task, SourceTask) and not isinstance(task, ReplayableSourceTask)
    task.start({"topic": "t", "batch.size": "2"})
    first = task.poll() or []
    assert values(first) == ["one", "two"]
    assert first[0].source_partition == {"filename": None}
    assert first[0].source_offset == {"position": None}
    assert values(task.poll() or []) == ["three"]
    assert task.poll() is None  # the unterminated last line is never sent


def test_stdin_task_over_a_pipe() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb", buffering=0) as reader:
        task = FileStreamStdinSourceTask(reader)  # type: ignore[arg-type]
        task.poll_wait_seconds = 0.01
        task.start({"topic": "t", "file": "  "})
        assert task.poll() is None  # nothing yet: does not block
        os.write(write_fd, "héllo\nwor".encode())
        assert values(task.poll() or []) == ["héllo"]
        os.write(write_fd, b"ld\n")
        os.close(write_fd)
        assert values(task.poll() or []) == ["world"]
        assert task.poll() is None


def test_file_task_without_file_cannot_plan() -> None:
    task = FileStreamSourceTask()
    task.start({"topic": "t"})
    assert task.known_partitions() == []
    with pytest.raises(ConnectError, match="standard input"):
        task.plan({})
    with pytest.raises(ConnectError, match="standard input"):
        list(task.read({"filename": None}, None, {"position": 1}))


def test_stdin_task_over_a_pipe_with_a_high_descriptor() -> None:
    """A descriptor above select()'s FD_SETSIZE (1024) must not make poll() block."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1100:
        pytest.fail(f"this test needs a descriptor limit above 1100 (hard limit {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1100), hard))
    import fcntl

    read_fd, write_fd = os.pipe()
    # The lowest free descriptor >= 1030: never one this process already uses.
    high = fcntl.fcntl(read_fd, fcntl.F_DUPFD, 1030)
    os.close(read_fd)
    assert high >= 1030
    try:
        with os.fdopen(high, "rb", buffering=0) as reader:
            task = FileStreamStdinSourceTask(reader)  # type: ignore[arg-type]
            task.poll_wait_seconds = 0.01
            task.start({"topic": "t"})
            assert task.poll() is None  # nothing yet: does not block
            os.write(write_fd, b"line\n")
            assert values(task.poll() or []) == ["line"]
    finally:
        os.close(write_fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_end_after_lines_is_iter_lines_last_position() -> None:
    """The planner's fast line count ends where the line splitter would, for every mix of
    terminators, counts and chunk sizes."""
    import io
    import random

    from seaway.connectors.file._lines import end_after_lines, iter_lines

    rng = random.Random(7)
    for _ in range(300):
        pieces = [
            b"x" * rng.randrange(0, 5) + rng.choice([b"\n", b"\n", b"\r", b"\r\n", b""])
            for _ in range(rng.randrange(0, 30))
        ]
        data = b"".join(pieces)
        start = rng.randrange(0, len(data) + 1)
        count = rng.randrange(1, 12)
        chunk = rng.choice([1, 2, 3, 7, 64])
        expected = start
        for i, (_, position) in enumerate(
            iter_lines(io.BytesIO(data), start, collect=False, chunk_size=chunk)
        ):
            expected = position
            if i + 1 == count:
                break
        assert end_after_lines(io.BytesIO(data), start, count, chunk_size=chunk) == expected, (
            data, start, count, chunk,
        )  # fmt: skip
