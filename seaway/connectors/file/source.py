"""FileStreamSourceConnector and FileStreamSourceTask: the lines of a file (or stdin) to a topic.

Behaviour follows Kafka's ``connect-file`` (``FileStreamSourceConnector`` /
``FileStreamSourceTask``):

* Configs ``file`` (null or blank: standard input), ``topic`` (required, non-empty) and
  ``batch.size`` (default 2000); see :mod:`seaway.connectors.file.config`.
* :meth:`FileStreamSourceConnector.task_configs` returns one config whatever ``tasks.max``.
* Each line becomes ``SourceRecord(partition, offset, topic, kafka_partition=None,
  key_schema=None, key=None, Schema.STRING_SCHEMA, line, timestamp=now)`` with source
  partition ``{"filename": <file as configured>}`` and source offset ``{"position": p}``,
  the position right after the line's terminator.
* Lines end with ``\\n``, ``\\r`` or ``\\r\\n``. A last line without terminator is held
  back until one is written; so is a line ending in ``\\r`` at the current end of the file,
  until the next byte shows whether it is ``\\r\\n``. Text is decoded as UTF-8 (invalid
  bytes become U+FFFD, as with Java's decoder).
* A missing file is not an error: the task logs a warning and waits for it to appear.
  Other errors opening it fail the task.
* :meth:`FileStreamSourceConnector.exactly_once_support` is SUPPORTED iff ``file`` is
  set; :meth:`FileStreamSourceConnector.alter_offsets` validates like Kafka's.

**Difference from Kafka: positions are byte positions.** Kafka's task counts the
*characters* it has decoded, but resumes with ``InputStream.skip(position)``, which skips
*bytes*: with multi-byte UTF-8 text a restarted task resumes too early and re-emits a
tail of an old line (or resumes mid-character). Seaway counts and seeks in bytes
consistently, so a committed or user-set ``position`` always means the same place in the
file. For ASCII text the two are the same numbers (5 lines ``"Line 0".."Line 4"``:
positions 7, 14, 21, 28, 35). As in Kafka, an offset altered to the middle of a line
makes the rest of that line the first record; an offset past the end of the file yields
nothing until the file grows past it.

**Replayable.** :class:`FileStreamSourceTask` is a
:class:`~seaway.connect.api.replay.ReplayableSourceTask`. On the driver,
:meth:`~FileStreamSourceTask.plan` scans forward from the committed position (streaming,
64 KiB at a time, never the whole file) to the end of the next ``batch.size`` complete
lines; on an executor, :meth:`~FileStreamSourceTask.read` yields exactly the lines between
the two byte positions. The same range always yields the same values and offsets (the
timestamp is the read time, as in Kafka), provided the file is only appended to;
:meth:`~FileStreamSourceTask.read` raises :class:`~seaway.connect.api.errors.ConnectError`
if the range no longer ends at a line boundary (the file was truncated or rewritten). The
file must be readable at the same path on the executors. ``poll()`` still works: it plans
and reads on the calling thread, and waits a second when there is nothing new, as Kafka's
task does.

Standard input cannot be replayed: with no ``file``,
:meth:`FileStreamSourceConnector.task_class` returns :class:`FileStreamStdinSourceTask`,
a plain ``poll()`` task (records carry ``{"position": None}``, as in Kafka).
"""

from __future__ import annotations

import json
import logging
import os
import select
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO, TypeGuard

import pyarrow as pa

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import (
    ConnectError,
    ExactlyOnceSupport,
    PartitionKey,
    RecordSchemas,
    Schema,
    SourceConnector,
    SourceOffset,
    SourcePartition,
    SourceRecord,
    SourceTask,
    Task,
    partition_key,
)
from seaway.connect.api.batches import BatchSourceTask, SourceBatch
from seaway.connectors.file._lines import (
    CHUNK_SIZE,
    TERMINATOR,
    LineSplitter,
    end_after_lines,
    iter_lines,
)
from seaway.connectors.file.config import (
    FILE_CONFIG,
    FILENAME_FIELD,
    POSITION_FIELD,
    SOURCE_CONFIG_DEF,
    TASK_BATCH_SIZE_CONFIG,
    TOPIC_CONFIG,
)

logger = logging.getLogger(__name__)

VALUE_SCHEMA = Schema.STRING_SCHEMA
"""The schema of every record value: a (non-optional) string."""

POLL_WAIT_SECONDS = 1.0
"""How long ``poll()`` waits when nothing new is available (Kafka's ``wait(1000)``)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


BATCH_BYTES = 4 << 20
"""Bytes of the file per batch of :meth:`FileStreamSourceTask.read_batches`."""


def _decode(line: bytes | None) -> str:
    """A line's text; invalid UTF-8 becomes U+FFFD, as with Java's decoder."""
    return "" if line is None else line.decode("utf-8", errors="replace")


def _is_long(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _offset_position(offset: Mapping[str, Any] | None) -> int:
    """The byte position an offset stands for; no offset (or no position) means 0."""
    if offset is None:
        return 0
    position = offset.get(POSITION_FIELD)
    if position is None:
        return 0
    if not _is_long(position):
        raise ConnectError("Offset position is the incorrect type")
    if position < 0:
        raise ConnectError(
            f"The value for the '{POSITION_FIELD}' key in the offset should be a non-negative "
            f"value, but was {position}"
        )
    return position


def _parse_config(props: Mapping[str, Any]) -> dict[str, Any]:
    """Parsed source config (raises ConfigException like Kafka's ``AbstractConfig``)."""
    return SOURCE_CONFIG_DEF.parse(props)


# --------------------------------------------------------------------------- connector


class FileStreamSourceConnector(SourceConnector):
    """Very simple source connector that works with stdin or a file."""

    # Kafka's docs: the FileStream connectors are meant for standalone use.
    host_bound = (
        "it reads the file named by 'file' (or standard input) on the host that runs its task"
    )

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        self._props = dict(props)
        filename = _parse_config(props)[FILE_CONFIG]
        logger.info("Starting file source connector reading from %s", filename or "standard input")

    def task_class(self) -> type[Task]:
        """:class:`FileStreamSourceTask`, or the plain-``poll`` stdin task without a file."""
        if self._props and not _parse_config(self._props)[FILE_CONFIG]:
            return FileStreamStdinSourceTask
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        # Only one input stream makes sense.
        return [dict(self._props)]

    def record_schemas(self) -> RecordSchemas:
        """Every record is a line: a STRING value, no key."""
        return RecordSchemas(key=None, value=VALUE_SCHEMA)

    def stop(self) -> None:
        """Nothing to do: the connector has no background monitoring."""

    def config(self) -> ConfigDef:
        return SOURCE_CONFIG_DEF.copy()

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        # Exactly-once works for a "real" file that is only appended to; stdin has no offsets.
        if _parse_config(props)[FILE_CONFIG]:
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]
    ) -> bool:
        """Kafka's checks: a file must be configured; offsets are null or a valid position.

        *offsets* is keyed by :func:`~seaway.connect.api.offsets.partition_key` (JSON text;
        ``"null"`` is a null partition). Tombstones (None offsets) are always accepted.
        """
        if not _parse_config(props)[FILE_CONFIG]:
            raise ConnectError(
                f"Offsets cannot be modified if the '{FILE_CONFIG}' configuration is "
                "unspecified. This is because stdin is used for input and offsets are not "
                "tracked."
            )
        # One partition at a time is the configured file, but partitions of earlier
        # configurations of the connector may be there too.
        for key, offset in offsets.items():
            if offset is None:
                # Tombstones are allowed for anything, so garbage can be cleaned up.
                continue
            if not isinstance(offset, Mapping) or POSITION_FIELD not in offset:
                raise ConnectError(
                    f"Offset objects should either be null or contain the key '{POSITION_FIELD}'"
                )
            position = offset[POSITION_FIELD]
            if not _is_long(position):
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset is expected to be "
                    "a Long value"
                )
            if position < 0:
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset should be a "
                    "non-negative value"
                )
            partition = _partition_of(key)
            if partition is None:
                raise ConnectError("Partition objects cannot be null")
            if not isinstance(partition, Mapping) or FILENAME_FIELD not in partition:
                raise ConnectError(f"Partition objects should contain the key '{FILENAME_FIELD}'")
        # The task checks on startup whether the position is valid for the file.
        return True


def _partition_of(key: Any) -> Any:
    """The partition object a key of ``alter_offsets``' mapping stands for."""
    if isinstance(key, str):
        try:
            return json.loads(key)
        except ValueError:
            return key
    return key


# --------------------------------------------------------------------------- file task


class FileStreamSourceTask(BatchSourceTask):
    """Reads the lines of a file; plans batches by byte position and replays them exactly.

    Started without a ``file`` it reads standard input through :meth:`poll` only (like
    :class:`FileStreamStdinSourceTask`); :meth:`plan` and :meth:`read` then raise.
    """

    poll_wait_seconds: float = POLL_WAIT_SECONDS
    chunk_size: int = CHUNK_SIZE

    def __init__(self) -> None:
        self.filename: str | None = None
        self.topic: str = ""
        self.batch_size: int = 0
        self.partition: SourcePartition = {}
        self._key: PartitionKey = ""
        self._stopping = threading.Event()
        self._missing = False
        self._past_end_warned = False
        self._stdin: _StdinReader | None = None

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        config = _parse_config(props)
        self._stopping.clear()
        self.filename = config[FILE_CONFIG] or None
        self.topic = config[TOPIC_CONFIG]
        self.batch_size = config[TASK_BATCH_SIZE_CONFIG]
        self.partition = {FILENAME_FIELD: config[FILE_CONFIG]}
        self._key = partition_key(self.partition)
        self._missing = False
        self._past_end_warned = False
        self._replay_offsets = None  # poll() reloads the committed offsets
        self._stdin = (
            _StdinReader(self.partition, self.topic, self.batch_size)
            if self.filename is None
            else None
        )

    def stop(self) -> None:
        self._stopping.set()

    # ---------------------------------------------------------------- replay

    def known_partitions(self) -> list[SourcePartition]:
        return [] if self.filename is None else [dict(self.partition)]

    def _require_file(self) -> str:
        if self.filename is None:
            raise ConnectError(
                "FileStreamSourceTask reads standard input, which cannot be planned or "
                "replayed; use poll()"
            )
        return self.filename

    def plan(
        self, start_offsets: Mapping[PartitionKey, SourceOffset]
    ) -> dict[PartitionKey, SourceOffset]:
        """The byte position after the next ``batch.size`` complete lines, if any.

        Reads forward from the committed position only as far as those lines go, a chunk
        at a time. A missing file is logged and planned as "nothing new".
        """
        filename = self._require_file()
        start = _offset_position(start_offsets.get(self._key))
        try:
            stream = open(filename, "rb")  # noqa: SIM115 (closed below)
        except FileNotFoundError:
            self._file_missing()
            return {}
        except OSError as exc:
            logger.error("Error while trying to open file %s: %s", filename, exc)
            raise ConnectError(f"Couldn't open file '{filename}' for FileStreamSourceTask") from exc
        with stream:
            if self._missing:
                logger.info("Found file %s for FileStreamSourceTask", filename)
                self._missing = False
            size = os.fstat(stream.fileno()).st_size
            if size <= start:
                if size < start and not self._past_end_warned:
                    logger.warning(
                        "Position %d of %s is past its end (%d bytes): nothing is read until "
                        "the file grows past it",
                        start,
                        filename,
                        size,
                    )
                    self._past_end_warned = True
                return {}
            self._past_end_warned = False
            count = max(1, self.batch_size)
            end = end_after_lines(stream, start, count, chunk_size=self.chunk_size)
        return {self._key: {POSITION_FIELD: end}} if end != start else {}

    def _range(
        self,
        partition: SourcePartition,
        start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> tuple[str, int, int]:
        """``(file, start, end)`` of a range to read, checked."""
        self._require_file()
        filename = partition.get(FILENAME_FIELD)
        if not isinstance(filename, str) or not filename:
            raise ConnectError(f"Not a FileStreamSourceTask partition: {partition!r}")
        start = _offset_position(start_offset)
        end = _offset_position(end_offset)
        if end < start:
            raise ConnectError(f"End position {end} is before start position {start}")
        return filename, start, end

    @staticmethod
    def _open(filename: str, start: int, end: int) -> BinaryIO:
        try:
            return open(filename, "rb")
        except OSError as exc:
            raise ConnectError(
                f"Couldn't open file '{filename}' for FileStreamSourceTask to read bytes "
                f"{start} to {end}: {exc}"
            ) from exc

    @staticmethod
    def _changed(filename: str, start: int, end: int, position: int) -> ConnectError:
        return ConnectError(
            f"File '{filename}' changed: bytes {start} to {end} no longer end with a "
            f"complete line (the last line read ends at {position}); was it truncated "
            "or rewritten?"
        )

    def read(
        self,
        partition: SourcePartition,
        start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceRecord]:
        """The lines between byte positions *start_offset* and *end_offset*, in order."""
        filename, start, end = self._range(partition, start_offset, end_offset)
        if end == start:
            return
        topic = self.topic
        position = start
        with self._open(filename, start, end) as stream:
            for line, position in iter_lines(
                stream, start, end, collect=True, chunk_size=self.chunk_size
            ):
                yield SourceRecord(
                    source_partition=dict(partition),
                    source_offset={POSITION_FIELD: position},
                    topic=topic,
                    value_schema=VALUE_SCHEMA,
                    value=_decode(line),
                    timestamp=_now_ms(),
                )
        if position != end:
            raise self._changed(filename, start, end, position)

    def read_batches(
        self,
        partition: SourcePartition,
        start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceBatch]:
        """The lines :meth:`read` yields, as columns of up to ``BATCH_BYTES`` of the file:
        split at ``\\n``, ``\\r`` and ``\\r\\n`` by the bytes methods, decoded as UTF-8
        by Arrow (a chunk with invalid bytes line by line, with U+FFFD as :meth:`read`)."""
        filename, start, end = self._range(partition, start_offset, end_offset)
        position, carry = start, b""
        with self._open(filename, start, end) as stream:
            stream.seek(start)
            while position < end:
                chunk = stream.read(min(BATCH_BYTES, end - position))
                if not chunk:
                    break
                position += len(chunk)
                data, held = carry + chunk, b""
                if position < end and data.endswith(b"\r"):  # maybe half of "\r\n"
                    data, held = data[:-1], b"\r"
                lines = TERMINATOR.split(data) if b"\r" in data else data.split(b"\n")
                carry = lines.pop() + held
                if lines:
                    yield self._batch(lines)
        if position != end or carry:
            raise self._changed(filename, start, end, position - len(carry))

    def _batch(self, lines: list[bytes]) -> SourceBatch:
        raw = pa.array(lines, pa.binary())
        try:
            text = raw.cast(pa.string())
        except pa.ArrowInvalid:  # invalid UTF-8 somewhere: U+FFFD, as Java's decoder
            text = pa.array([_decode(line) for line in lines], pa.string())
        now = pa.nulls(len(lines), pa.int64()).fill_null(_now_ms())
        records = pa.RecordBatch.from_arrays([text, now], names=["value", "timestamp"])
        return SourceBatch(self.topic, records, VALUE_SCHEMA)

    def _file_missing(self) -> None:
        if not self._missing:
            logger.warning(
                "Couldn't find file %s for FileStreamSourceTask, sleeping to wait for it to be "
                "created",
                self.filename,
            )
            self._missing = True
        else:
            logger.debug("Still waiting for file %s to be created", self.filename)

    # ---------------------------------------------------------------- poll

    def poll(self) -> list[SourceRecord] | None:
        """The next batch (at most ``batch.size`` lines); waits a second when there is none."""
        if self._stopping.is_set():
            return None
        if self._stdin is not None:
            return self._stdin.poll(self._stopping, self.poll_wait_seconds)
        records = super().poll()
        if not records:
            self._stopping.wait(self.poll_wait_seconds)
        return records


# --------------------------------------------------------------------------- stdin


def _readable(fd: int) -> bool:
    """Whether reading *fd* would not block. ``poll`` rather than ``select``: select cannot
    watch descriptors above FD_SETSIZE (1024), which a busy worker process soon has."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        try:
            return bool(poller.poll(0))
        except OSError:
            return True
    try:
        readable, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return True  # not selectable (e.g. a regular file on Windows): just read
    return bool(readable)


class _StdinReader:
    """Kafka's stdin mode: read whatever is available without blocking, split into lines."""

    def __init__(
        self,
        partition: SourcePartition,
        topic: str,
        batch_size: int,
        stream: BinaryIO | None = None,
    ) -> None:
        self.partition = partition
        self.topic = topic
        self.batch_size = max(1, batch_size)
        self.stream: BinaryIO | None = stream
        self._splitter = LineSplitter()
        self._ready: deque[str] = deque()
        self._eof = False

    def _stream(self) -> BinaryIO:
        if self.stream is None:
            self.stream = sys.stdin.buffer
        return self.stream

    def _read_available(self) -> bytes | None:
        """Bytes available now without blocking: None when none yet, b"" at end of input."""
        stream = self._stream()
        try:
            fd: int | None = stream.fileno()
        except (OSError, AttributeError, ValueError):
            fd = None  # an in-memory stream: reading never blocks
        if fd is None:
            return stream.read(CHUNK_SIZE)
        return os.read(fd, CHUNK_SIZE) if _readable(fd) else None

    def poll(self, stopping: threading.Event, wait: float) -> list[SourceRecord] | None:
        while not self._eof and len(self._ready) < self.batch_size:
            data = self._read_available()
            if not data:
                # At the end of input a partial last line stays unsent, as in Kafka.
                self._eof = data is not None
                break
            self._ready.extend(_decode(line) for line, _ in self._splitter.feed(data))
        if not self._ready:
            stopping.wait(wait)
            return None
        now = _now_ms()
        return [
            SourceRecord(
                source_partition=dict(self.partition),
                source_offset={POSITION_FIELD: None},  # offsets of stdin are not tracked
                topic=self.topic,
                value_schema=VALUE_SCHEMA,
                value=self._ready.popleft(),
                timestamp=now,
            )
            for _ in range(min(self.batch_size, len(self._ready)))
        ]


class FileStreamStdinSourceTask(SourceTask):
    """The source task for ``file`` unset: reads standard input with ``poll()`` only.

    Not replayable (stdin cannot be read twice); records carry ``{"position": None}`` and
    the source partition ``{"filename": None}`` (or the blank ``file`` value), as in Kafka.
    """

    poll_wait_seconds: float = POLL_WAIT_SECONDS

    def __init__(self, stream: BinaryIO | None = None) -> None:
        self._stream = stream
        self._reader: _StdinReader | None = None
        self._stopping = threading.Event()

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        config = _parse_config(props)
        self._stopping.clear()
        if config[FILE_CONFIG]:
            raise ConnectError(
                "FileStreamStdinSourceTask reads standard input; use FileStreamSourceTask "
                f"to read file '{config[FILE_CONFIG]}'"
            )
        self._reader = _StdinReader(
            {FILENAME_FIELD: config[FILE_CONFIG]},
            config[TOPIC_CONFIG],
            config[TASK_BATCH_SIZE_CONFIG],
            self._stream,
        )

    def poll(self) -> list[SourceRecord] | None:
        if self._reader is None or self._stopping.is_set():
            return None
        return self._reader.poll(self._stopping, self.poll_wait_seconds)

    def stop(self) -> None:
        self._stopping.set()


__all__ = [
    "POLL_WAIT_SECONDS",
    "VALUE_SCHEMA",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
    "FileStreamStdinSourceTask",
]
