"""Replayable source tasks: the driver fixes each batch's offset range before it is read.

Seaway runs source tasks as Spark streaming queries. Spark writes a batch's offset range
to its offset log *before* the batch runs, and after a failure it runs the same range
again. A plain :meth:`~seaway.connect.api.source.SourceTask.poll` cannot honour that:
``poll()`` decides what it returns only as it reads, so a retry may see other records.
A :class:`ReplayableSourceTask` splits ``poll()`` in two:

``plan(start_offsets) -> end_offsets``
    Runs on the driver, once per batch, and must be cheap (a ``stat``, a ``MAX(id)``
    query, a list of object names). Given the offsets the previous batch ended at, keyed by
    :func:`~seaway.connect.api.offsets.partition_key`, it returns the offset each partition
    should reach in the next batch. Leave out partitions with nothing new; return ``{}``
    when there is no new data. ``start_offsets`` holds the last committed offset of every
    partition of the connector the runtime knows about (ignore the ones this task does not
    own); a partition missing from it has never been read.

``read(partition, start_offset, end_offset) -> Iterator[SourceRecord]``
    Runs on an executor and yields exactly the records after *start_offset* (None: from
    the beginning) up to and including *end_offset*, in order. It must be deterministic:
    called again with the same arguments it yields the same records. It runs on a task
    instance that was started with the same task config but is not the one that planned,
    so it may depend only on its arguments and that config. Each record's
    ``source_partition`` is *partition* and its ``source_offset`` the position after it;
    the last one's should equal *end_offset*.

The runtime treats offsets as opaque JSON dicts and compares them only for equality;
only the task knows how to order them. After a batch succeeds, its end offsets are
committed to Connect's offsets topic, so a restarted connector resumes there. A
``ReplayableSourceTask`` also works anywhere a plain task does: its default :meth:`poll`
plans and reads on the calling thread.

Example, a table read in ``id`` order (ids are assumed to become visible in order):

.. code-block:: python

    class TableTask(ReplayableSourceTask):
        def start(self, props):
            self.table = props["table"]
            self.partition = {"table": self.table}
            self.batch_size = int(props.get("batch.size", "1000"))

        def known_partitions(self):
            return [self.partition]

        def plan(self, start_offsets):
            key = partition_key(self.partition)
            last = (start_offsets.get(key) or {"id": 0})["id"]
            newest = db.max_id(self.table)  # one cheap query on the driver
            if newest <= last:
                return {}
            return {key: {"id": min(newest, last + self.batch_size)}}

        def read(self, partition, start_offset, end_offset):
            after = start_offset["id"] if start_offset else 0
            for row in db.rows(partition["table"], after, end_offset["id"]):  # (after, end]
                yield SourceRecord(
                    source_partition=partition, source_offset={"id": row.id},
                    topic=self.table, value_schema=Schema.STRING_SCHEMA, value=row.text,
                )

        def stop(self):
            pass

Plain ``poll()`` tasks are supported too: the runtime then calls ``poll()`` on the driver
and ships the records it returns as the batch, committing their offsets afterwards. That is
at-least-once: records polled again after a crash are written again.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping

from seaway.connect.api.offsets import (
    PartitionKey,
    SourceOffset,
    SourcePartition,
    partition_from_key,
)
from seaway.connect.api.records import SourceRecord
from seaway.connect.api.source import SourceTask


class ReplayableSourceTask(SourceTask):
    """A source task whose batches are planned on the driver and replayable on executors."""

    _replay_offsets: dict[PartitionKey, SourceOffset] | None = None

    @abstractmethod
    def plan(
        self, start_offsets: Mapping[PartitionKey, SourceOffset]
    ) -> dict[PartitionKey, SourceOffset]:
        """End offsets of the next batch for the partitions that have new records."""

    @abstractmethod
    def read(
        self,
        partition: SourcePartition,
        start_offset: SourceOffset | None,
        end_offset: SourceOffset,
    ) -> Iterator[SourceRecord]:
        """The records of *partition* after *start_offset* up to and including *end_offset*."""

    def known_partitions(self) -> list[SourcePartition]:
        """Partitions whose committed offsets :meth:`poll` loads on its first call."""
        return []

    def poll(self) -> list[SourceRecord] | None:
        """Plan a batch from the offsets reached so far and read it here (driver mode)."""
        if self._replay_offsets is None:
            reader = None if self.context is None else self.context.offset_storage_reader()
            partitions = self.known_partitions()
            self._replay_offsets = (
                reader.offsets(partitions) if reader is not None and partitions else {}
            )
        offsets = self._replay_offsets
        records: list[SourceRecord] = []
        for key, end in self.plan(dict(offsets)).items():
            start = offsets.get(key)
            if end == start:
                continue
            records.extend(self.read(partition_from_key(key), start, end))
            offsets[key] = end
        return records or None


__all__ = ["ReplayableSourceTask"]
