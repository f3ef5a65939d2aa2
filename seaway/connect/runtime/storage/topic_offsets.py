"""Distributed mode's offset store: the compacted ``offset.storage.topic``.

Records are exactly those of Kafka's ``KafkaOffsetBackingStore``: key
``["<connector>",{<source partition>}]``, value ``{<source offset>}`` or a tombstone, both as
the schemaless JsonConverter writes them. Partitioning hashes the key bytes (murmur2), like
Java producers, so a partition's offsets always land in the same topic partition.
"""

from __future__ import annotations

import builtins
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from seaway.connect.api.errors import ConnectError
from seaway.connect.api.offsets import PartitionKey, SourceOffset, partition_key
from seaway.connect.runtime.storage import settings
from seaway.connect.runtime.storage.offsets import (
    OffsetTable,
    checked_offsets,
    offset_key,
    offset_value,
    parse_offset_key,
    parse_offset_value,
)
from seaway.connect.runtime.storage.topic_log import (
    DEFAULT_TIMEOUT_S,
    LogRecord,
    TopicBackedLog,
    TopicSpec,
)

log = logging.getLogger(__name__)

__all__ = ["TopicOffsetStore"]


class TopicOffsetStore:
    """Offsets kept in a compacted topic and read back into memory by a background thread.

    ``get`` and ``connector_offsets`` first read the topic to its end, so they see every
    offset written before they were called, by this worker or any other.
    """

    def __init__(
        self,
        spec: TopicSpec,
        client_config: Mapping[str, Any],
        *,
        client_id: str = "connect-offsets",
        timeout: float = DEFAULT_TIMEOUT_S,
        **log_options: Any,
    ) -> None:
        self.table = OffsetTable()
        self.timeout = timeout
        self.topic_log = TopicBackedLog(
            spec, client_config, self._on_record, client_id=client_id, **log_options
        )
        # The key bytes last read for each entry: rewrites and tombstones reuse them, so an
        # entry another writer created (with its own key order) is replaced, not duplicated.
        self._keys: dict[tuple[str, PartitionKey], bytes] = {}
        # Records whose value could not be read, by connector and partition: reported when
        # the connector starts instead of silently starting that partition over.
        self._corrupt: dict[str, dict[PartitionKey, str]] = {}
        self._pending: list[Future[tuple[int, int]]] = []
        self._pending_lock = threading.Lock()

    @classmethod
    def from_worker_config(
        cls,
        props: Mapping[str, Any],
        client_overrides: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> TopicOffsetStore:
        """The store a distributed worker with properties *props* uses.

        *client_overrides* are extra librdkafka settings (security, ...) for its clients.
        """
        return cls(
            settings.internal_topic_spec(props, settings.OFFSETS),
            {**settings.client_config(props), **(client_overrides or {})},
            client_id=settings.client_id_base(props) + settings.OFFSETS.client_suffix,
            **options,
        )

    @property
    def topic(self) -> str:
        return self.topic_log.topic

    def start(self) -> None:
        """Create the topic if needed and read every offset in it."""
        log.info("Starting TopicOffsetStore on topic %s", self.topic)
        self.topic_log.start()

    def stop(self) -> None:
        """Deliver pending writes and stop reading."""
        self.topic_log.stop()

    def get(
        self, namespace: str, partitions: Iterable[Mapping[str, Any]]
    ) -> dict[PartitionKey, SourceOffset]:
        """The offsets of *partitions* keyed by ``partition_key``, after reading to the end."""
        keys = [partition_key(p) for p in partitions]
        self.topic_log.read_to_end(self.timeout)
        return self.table.lookup(namespace, keys)

    def set(self, namespace: str, offsets: Mapping[PartitionKey, SourceOffset | None]) -> None:
        """Write one record per partition (None = tombstone); ``flush`` waits for them."""
        futures = []
        for key, partition, offset in checked_offsets(offsets):
            record_key = self._keys.get((namespace, key)) or offset_key(namespace, partition)
            futures.append(self.topic_log.send(record_key, offset_value(offset)))
        with self._pending_lock:
            self._pending.extend(futures)

    def flush(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Wait until the broker has acknowledged every record set so far."""
        deadline = time.monotonic() + timeout
        self.topic_log.flush(timeout)
        with self._pending_lock:
            pending, self._pending = self._pending, []
        errors = []
        for future in pending:
            try:
                future.result(max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                errors.append(ConnectError(f"Timed out writing offsets to topic {self.topic}"))
            except ConnectError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def connector_offsets(self, namespace: str) -> dict[PartitionKey, SourceOffset]:
        """Every partition of *namespace* that has an offset, after reading to the end."""
        self.topic_log.read_to_end(self.timeout)
        return self.table.all(namespace)

    def namespaces(self) -> builtins.set[str]:
        """The namespaces (connectors) that have offsets, as read so far."""
        return self.table.namespaces()

    def corrupt_offsets(self, namespace: str) -> list[str]:
        """What is wrong with connector *namespace*'s unreadable offset records, if any."""
        self.topic_log.read_to_end(self.timeout)
        return sorted(self._corrupt.get(namespace, {}).values())

    def _on_record(self, record: LogRecord) -> None:
        parsed = parse_offset_key(record.key)
        if parsed is None:
            return
        namespace, partition = parsed
        key = partition_key(partition)
        if record.value is None:
            self._corrupt.get(namespace, {}).pop(key, None)
            self._keys.pop((namespace, key), None)
            self.table.apply(namespace, key, None)
            return
        offset = parse_offset_value(record.value)
        if offset is None:
            self._corrupt.setdefault(namespace, {})[key] = (
                f"the record for source partition {key} at {self.topic}-{record.partition} "
                f"offset {record.offset} is not a JSON object: {record.value[:100]!r}"
            )
            return
        self._corrupt.get(namespace, {}).pop(key, None)
        assert record.key is not None
        self._keys[(namespace, key)] = record.key
        self.table.apply(namespace, key, offset)
