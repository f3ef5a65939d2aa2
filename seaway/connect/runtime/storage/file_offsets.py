"""Standalone mode's offset store: a JSON file (``offset.storage.file.filename``).

Kafka keeps a Java-serialized ``HashMap<byte[],byte[]>``; Seaway keeps the same entries as
readable JSON, one per connector and source partition::

    {
      "format": "seaway-connect-offsets",
      "version": 1,
      "offsets": [
        {"connector": "local-file-source",
         "partition": {"filename": "/tmp/test.txt"},
         "offset": {"position": 28}}
      ]
    }

Each flush writes a temporary file next to it, fsyncs it, renames it over the old one and
fsyncs the directory, so a crash leaves either the old or the new file. A file that cannot be
read is an error, never an empty start: resetting offsets silently would re-read or skip data.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from seaway.config import ConfigException
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.offsets import PartitionKey, SourceOffset, partition_key
from seaway.connect.runtime.storage.offsets import MemoryOffsetStore, validate_offset_map
from seaway.connect.runtime.storage.settings import OFFSET_STORAGE_FILE_FILENAME_CONFIG

log = logging.getLogger(__name__)

__all__ = ["CorruptOffsetFileError", "FileOffsetStore"]

FORMAT: Final = "seaway-connect-offsets"
VERSION: Final = 1
_JAVA_SERIALIZATION_MAGIC: Final = b"\xac\xed"


class CorruptOffsetFileError(ConnectError):
    """The offsets file exists but cannot be read."""


class FileOffsetStore(MemoryOffsetStore):
    """Offsets in memory, written to *path* atomically on each flush."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self._write_lock = threading.Lock()
        self._version = 0
        self._written = 0

    @classmethod
    def from_worker_config(cls, props: Mapping[str, Any]) -> FileOffsetStore:
        """The store of a standalone worker: ``offset.storage.file.filename``."""
        filename = str(props.get(OFFSET_STORAGE_FILE_FILENAME_CONFIG) or "").strip()
        if not filename:
            raise ConfigException(
                f'Missing required configuration "{OFFSET_STORAGE_FILE_FILENAME_CONFIG}" '
                "which has no default value."
            )
        return cls(filename)

    def start(self) -> None:
        """Load the file; a missing file means no offsets yet."""
        log.info("Starting FileOffsetStore with file %s", self.path)
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ConnectError(f"Could not read offsets file {self.path}: {exc}") from exc
        for connector, partition, offset in self._parse(data):
            self.table.apply(connector, partition_key(partition), offset)

    def stop(self) -> None:
        """Write any offsets not yet flushed."""
        self.flush()
        log.info("Stopped FileOffsetStore")

    def set(self, namespace: str, offsets: Mapping[PartitionKey, SourceOffset | None]) -> None:
        """Store offsets by ``partition_key`` (None deletes); ``flush`` writes the file."""
        super().set(namespace, offsets)
        with self.table.lock:
            self._version += 1

    def flush(self, timeout: float = 30.0) -> None:
        """Write the file if anything changed since the last flush."""
        with self._write_lock:
            with self.table.lock:
                version = self._version
                if version == self._written:
                    return
                entries = [
                    {"connector": ns, "partition": json.loads(key), "offset": offset}
                    for ns, partitions in sorted(self.table.offsets.items())
                    for key, offset in partitions.items()
                ]
            document = {"format": FORMAT, "version": VERSION, "offsets": entries}
            text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
            try:
                _write_atomically(self.path, text.encode())
            except OSError as exc:
                raise ConnectError(f"Could not write offsets file {self.path}: {exc}") from exc
            self._written = version

    # ------------------------------------------------------------------ parsing

    def _corrupt(self, problem: str) -> CorruptOffsetFileError:
        return CorruptOffsetFileError(
            f"The offsets file {self.path} (offset.storage.file.filename) is corrupt: {problem}. "
            "Seaway will not start from empty offsets on its own, since that would make source "
            "connectors re-read or skip data. Repair the file, restore it from a backup, or "
            "delete it to reset the offsets of every source connector on this worker."
        )

    def _parse(self, data: bytes) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        if data.startswith(_JAVA_SERIALIZATION_MAGIC):
            raise self._corrupt(
                "it is a Java-serialized file written by Apache Kafka's standalone worker, "
                "which Seaway cannot read"
            )
        try:
            document = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._corrupt(f"it is not valid JSON ({exc})") from exc
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise self._corrupt(f'it has no "format": "{FORMAT}" marker')
        if document.get("version") != VERSION:
            raise self._corrupt(
                f"it has version {document.get('version')!r}; this Seaway reads version {VERSION}"
            )
        entries = document.get("offsets")
        if not isinstance(entries, list):
            raise self._corrupt('"offsets" is not a list')
        parsed = []
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise self._corrupt(f"entry {index} is not an object")
            connector = entry.get("connector")
            partition = entry.get("partition")
            offset = entry.get("offset")
            if not isinstance(connector, str):
                raise self._corrupt(f'entry {index} has no "connector" string')
            if not isinstance(partition, dict) or not isinstance(offset, dict):
                raise self._corrupt(f'entry {index} needs "partition" and "offset" objects')
            try:
                validate_offset_map(partition, "Source partitions")
                validate_offset_map(offset)
            except ConnectError as exc:
                raise self._corrupt(f"entry {index}: {exc}") from exc
            parsed.append((connector, partition, offset))
        return parsed


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace *path* with *data*: temporary file, fsync, rename, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644  # mkstemp's 0o600 would hide the file from other readers
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    temporary = Path(name)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
