"""FileStreamSinkConnector and FileStreamSinkTask: records' values appended to a file (or stdout).

Behaviour follows Kafka's ``connect-file``:

* Config ``file`` (null or blank: standard output); the topics to consume come from the
  framework keys ``topics`` / ``topics.regex``, which the runtime checks.
* :meth:`FileStreamSinkConnector.task_configs` returns ``tasks.max`` identical configs:
  every task appends to the same file.
* The task opens the file with create + append (UTF-8). If it cannot,
  :meth:`FileStreamSinkTask.start` raises ``ConnectError("Couldn't find or create file
  '<file>' for FileStreamSinkTask")`` and the task fails.
* :meth:`FileStreamSinkTask.put` writes each record's value as Java's
  ``PrintStream.println`` would: its ``toString`` (:func:`seaway.java.objects.to_string`:
  None is ``null``) and ``"\\n"``. :meth:`FileStreamSinkTask.flush` flushes, and for a file
  also fsyncs, so the consumer offsets committed after it are backed by durable lines.

Differences from Kafka: ``bytes`` values (from ``ByteArrayConverter``) are written
decoded as UTF-8 rather than as Java's ``[B@1b6d3586``; Seaway's flush also fsyncs.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Collection, Mapping
from typing import BinaryIO, TextIO

import pyarrow as pa

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import (
    ConnectError,
    OffsetAndMetadata,
    SinkConnector,
    SinkRecord,
    Task,
    TopicPartition,
)
from seaway.connect.api.batches import BatchSinkTask, SinkBatch
from seaway.connectors.file.config import FILE_CONFIG, SINK_CONFIG_DEF
from seaway.java.objects import to_string

logger = logging.getLogger(__name__)


class FileStreamSinkConnector(SinkConnector):
    """Very simple sink connector that works with stdout or a file."""

    # Kafka's docs: the FileStream connectors are meant for standalone use.
    host_bound = (
        "it writes the file named by 'file' (or standard output) on the host that runs its task"
    )

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        self._props = dict(props)
        filename = SINK_CONFIG_DEF.parse(props)[FILE_CONFIG]
        logger.info("Starting file sink connector writing to %s", filename or "standard output")

    def task_class(self) -> type[Task]:
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing to do: the connector has no background monitoring."""

    def config(self) -> ConfigDef:
        return SINK_CONFIG_DEF.copy()

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Any consumer offsets are fine: the sink keeps no state of its own."""
        return True


class FileStreamSinkTask(BatchSinkTask):
    """Writes records' values, one per line, to stdout or a file."""

    def __init__(self, output: TextIO | None = None) -> None:
        """*output* replaces stdout (for tests; Kafka's ``FileStreamSinkTask(PrintStream)``)."""
        self.filename: str | None = None
        self._text: TextIO | None = output
        self._file: BinaryIO | None = None
        self._lock = threading.Lock()

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        self.filename = SINK_CONFIG_DEF.parse(props)[FILE_CONFIG] or None
        if self.filename is None:
            if self._text is None:
                self._text = sys.stdout
            return
        try:
            # "ab" is O_CREAT | O_APPEND: every write goes to the end, even with several tasks.
            self._file = open(self.filename, "ab")  # noqa: SIM115 (closed in stop)
        except OSError as exc:
            raise ConnectError(
                f"Couldn't find or create file '{self.filename}' for FileStreamSinkTask"
            ) from exc

    def _log_filename(self) -> str:
        return self.filename or "stdout"

    def put(self, records: Collection[SinkRecord]) -> None:
        if not records:
            return
        text = "".join(to_string(record.value) + "\n" for record in records)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("Writing %d lines to %s", len(records), self._log_filename())
        with self._lock:
            if self._file is not None:
                # Java's UTF-8 encoder writes '?' for what it cannot encode (lone surrogates).
                self._file.write(text.encode("utf-8", errors="replace"))
            elif self._text is not None:
                self._text.write(text)
            else:
                raise ConnectError("FileStreamSinkTask is not started")

    def put_batch(self, batch: SinkBatch) -> None:
        """The batch's values, one per line: text as it is, null as ``null`` (as
        :meth:`put`); other values go through :meth:`put`, record by record."""
        values = batch.records.column("value")
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            self.put(batch.sink_records())
            return
        lines = values.fill_null("null").to_pylist()
        if not lines:
            return
        with self._lock:
            if self._file is not None:
                self._file.write("\n".join(lines).encode("utf-8", errors="replace") + b"\n")
            elif self._text is not None:
                self._text.write("\n".join(lines) + "\n")
            else:
                raise ConnectError("FileStreamSinkTask is not started")

    def flush(self, current_offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> None:
        logger.debug("Flushing output stream for %s", self._log_filename())
        with self._lock:
            if self._file is not None:
                self._file.flush()
                os.fsync(self._file.fileno())
            elif self._text is not None:
                self._text.flush()

    def stop(self) -> None:
        with self._lock:
            if self._file is not None:
                try:
                    self._file.close()
                finally:
                    self._file = None


__all__ = ["FileStreamSinkConnector", "FileStreamSinkTask"]
