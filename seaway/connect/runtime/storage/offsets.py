"""Source offsets: the store protocol, Kafka's record format, and the in-memory store.

Offsets are kept per *namespace* (the connector name) and source partition. On Kafka's
offsets topic, and in every store here, an entry is the pair of JSON documents a Java worker
writes (``OffsetStorageWriter``; :mod:`seaway.connect.offset_format` encodes them):

* key: ``["<namespace>",{<source partition>}]``
* value: ``{<source offset>}``, or null to delete the entry (a tombstone).

>>> offset_key("local-file-source", {"filename": "/tmp/test.txt"})
b'["local-file-source",{"filename":"/tmp/test.txt"}]'
>>> offset_value({"position": 28})
b'{"position":28}'
>>> store = MemoryOffsetStore()
>>> store.set("local-file-source", {partition_key({"filename": "in.txt"}): {"position": 28}})
>>> store.get("local-file-source", [{"filename": "in.txt"}])
{'{"filename":"in.txt"}': {'position': 28}}
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from seaway.connect.api.errors import DataError
from seaway.connect.api.offsets import (
    OffsetStorageReader,
    PartitionKey,
    SourceOffset,
    SourcePartition,
    partition_from_key,
    partition_key,
)
from seaway.connect.offset_format import offset_key, offset_value
from seaway.connect.runtime.storage import _json

log = logging.getLogger(__name__)

__all__ = [
    "MemoryOffsetStore",
    "OffsetStore",
    "OffsetStoreReader",
    "OffsetTable",
    "checked_offsets",
    "offset_key",
    "offset_value",
    "parse_offset_key",
    "parse_offset_value",
    "validate_offset_map",
]

_PRIMITIVES = (bool, int, float, str, bytes)


@runtime_checkable
class OffsetStore(Protocol):
    """Where source connectors' offsets are kept, keyed by namespace and partition.

    ``set`` hands offsets to the store, ``flush`` returns once everything set before it is
    durable, and ``get`` always sees what was set (read your own writes).
    """

    def start(self) -> None:
        """Load the stored offsets."""

    def stop(self) -> None:
        """Flush and release resources."""

    def get(
        self, namespace: str, partitions: Iterable[Mapping[str, Any]]
    ) -> dict[PartitionKey, SourceOffset]:
        """The offsets of *partitions* keyed by ``partition_key``; unknown ones left out."""

    def set(self, namespace: str, offsets: Mapping[PartitionKey, SourceOffset | None]) -> None:
        """Store offsets by ``partition_key``; None deletes a partition's offset."""

    def flush(self, timeout: float = 30.0) -> None:
        """Make everything set so far durable; raises ConnectError if that failed."""

    def connector_offsets(self, namespace: str) -> dict[PartitionKey, SourceOffset]:
        """Every partition of *namespace* that has an offset (``GET /connectors/x/offsets``)."""


# ---------------------------------------------------------------------- record format


def validate_offset_map(data: Mapping[str, Any] | None, what: str = "Offsets") -> None:
    """Kafka's ``OffsetUtils.validateFormat``: string keys and primitive (or null) values."""
    if data is None:
        return
    if not isinstance(data, Mapping):
        raise DataError(f"{what} must be specified as a Map")
    for key, value in data.items():
        if not isinstance(key, str):
            raise DataError(f"{what} may only use String keys")
        if value is not None and not isinstance(value, _PRIMITIVES):
            raise DataError(
                f"{what} may only contain primitive types as values, but field {key} "
                f"contains {type(value).__name__}"
            )


def parse_offset_key(key: bytes | None) -> tuple[str, SourcePartition] | None:
    """(namespace, partition) of a record key, or None (logged) if it is malformed."""
    if key is None:
        log.warning("Ignoring offset partition key with an unexpected null value")
        return None
    try:
        parsed = _json.decode(key)
    except DataError:
        log.warning("Ignoring offset partition key with unknown serialization. Expected json.")
        return None
    if not isinstance(parsed, list) or len(parsed) != 2:
        log.warning("Ignoring offset partition key with an unexpected format: %r", key)
        return None
    namespace, partition = parsed
    if not isinstance(namespace, str) or not isinstance(partition, dict):
        if partition is not None:
            log.warning("Ignoring offset partition key with an unexpected format: %r", key)
        return None
    return namespace, partition


def parse_offset_value(value: bytes | None) -> SourceOffset | None:
    """The offset of a record value; None for a tombstone or (logged) a malformed value."""
    if value is None:
        return None
    try:
        parsed = _json.decode(value)
    except DataError:
        log.warning("Ignoring offset value with unknown serialization. Expected json.")
        return None
    if not isinstance(parsed, dict):
        log.warning("Ignoring offset value that is not a JSON object: %r", value)
        return None
    return parsed


def _normalized(offset: Mapping[str, Any]) -> SourceOffset:
    """*offset* as it reads back from JSON (tuples become lists, bytes base64 text)."""
    value = parse_offset_value(offset_value(offset))
    assert value is not None
    return value


def checked_offsets(
    offsets: Mapping[PartitionKey, SourceOffset | None],
) -> list[tuple[PartitionKey, SourcePartition, SourceOffset | None]]:
    """Validate what ``set`` was given; (canonical key, partition, offset) triples."""
    checked = []
    for key, offset in offsets.items():
        try:
            parsed = partition_from_key(key)
        except ValueError as exc:
            raise DataError(f"Not a source partition key: {key!r}") from exc
        validate_offset_map(parsed, "Source partitions")
        validate_offset_map(offset)
        canonical = partition_key(parsed)  # keys sorted, so the record key is too
        checked.append((canonical, partition_from_key(canonical), offset))
    return checked


# ---------------------------------------------------------------------- memory store


class OffsetTable:
    """Thread-safe offsets by namespace and ``partition_key``: the state every store keeps."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.offsets: dict[str, dict[PartitionKey, SourceOffset]] = {}

    def lookup(
        self, namespace: str, keys: Iterable[PartitionKey]
    ) -> dict[PartitionKey, SourceOffset]:
        """Copies of the offsets stored under *keys*; missing ones left out."""
        with self.lock:
            stored = self.offsets.get(namespace, {})
            return {k: dict(stored[k]) for k in keys if k in stored}

    def all(self, namespace: str) -> dict[PartitionKey, SourceOffset]:
        """Copies of every offset of *namespace*."""
        with self.lock:
            return {k: dict(v) for k, v in self.offsets.get(namespace, {}).items()}

    def namespaces(self) -> set[str]:
        """The namespaces that have offsets."""
        with self.lock:
            return set(self.offsets)

    def apply(self, namespace: str, key: PartitionKey, offset: SourceOffset | None) -> None:
        """Store or (None) delete one entry."""
        with self.lock:
            if offset is not None:
                self.offsets.setdefault(namespace, {})[key] = offset
                return
            stored = self.offsets.get(namespace)
            if stored is not None:
                stored.pop(key, None)
                if not stored:
                    del self.offsets[namespace]


class MemoryOffsetStore:
    """Offsets in a dict; gone when the process ends. ``flush`` has nothing to do."""

    def __init__(self) -> None:
        self.table = OffsetTable()

    def start(self) -> None:
        """Nothing to load."""

    def stop(self) -> None:
        """Nothing to release."""

    def get(
        self, namespace: str, partitions: Iterable[Mapping[str, Any]]
    ) -> dict[PartitionKey, SourceOffset]:
        """The offsets of *partitions* keyed by ``partition_key``; unknown ones left out."""
        return self.table.lookup(namespace, [partition_key(p) for p in partitions])

    def set(self, namespace: str, offsets: Mapping[PartitionKey, SourceOffset | None]) -> None:
        """Store offsets by ``partition_key``; None deletes a partition's offset."""
        for key, _, offset in checked_offsets(offsets):
            self.table.apply(namespace, key, None if offset is None else _normalized(offset))

    def flush(self, timeout: float = 30.0) -> None:
        """Nothing to do: memory is as durable as it gets."""

    def connector_offsets(self, namespace: str) -> dict[PartitionKey, SourceOffset]:
        """Every partition of *namespace* that has an offset."""
        return self.table.all(namespace)

    def namespaces(self) -> builtins.set[str]:
        """The namespaces (connectors) that have offsets."""
        return self.table.namespaces()


class OffsetStoreReader(OffsetStorageReader):
    """What a source task reads its committed offsets through: one namespace of a store."""

    def __init__(self, store: OffsetStore, namespace: str) -> None:
        self.store = store
        self.namespace = namespace

    def offsets(self, partitions: Iterable[Mapping[str, Any]]) -> dict[PartitionKey, SourceOffset]:
        """Committed offsets of *partitions*, keyed by ``partition_key``."""
        partitions = list(partitions)
        for partition in partitions:
            validate_offset_map(partition, "Source partitions")
        return self.store.get(self.namespace, partitions)
