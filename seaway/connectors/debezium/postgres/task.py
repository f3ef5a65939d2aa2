"""The PostgreSQL source task (``PostgresConnectorTask``): snapshot when the offsets and
``snapshot.mode`` say so, then the slot.

The poll loop is :class:`~seaway.connectors.debezium.task.SnapshotThenStreamTask`'s;
``commit()`` moves the slot (:meth:`WalStream.commit`). At start:

* the prerequisites (``wal_level``), the publication (``publication.autocreate.mode``) and the
  slot, created with an exported snapshot when missing;
* no offset: a snapshot unless ``snapshot.mode=no_data``;
* an offset of a snapshot that did not finish: the snapshot again, from a fresh slot (nothing
  was streamed from the old one, so dropping it loses nothing; Debezium's error under
  ``no_data``);
* a streaming offset: the slot from there, skipping what the offset says was emitted;
  ``always`` snapshots again, ``when_needed`` when the slot had to be created;
* ``initial_only``: the snapshot, then nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from seaway.connect.api import ConnectError
from seaway.connectors.debezium.offsets import partition
from seaway.connectors.debezium.postgres import config as c
from seaway.connectors.debezium.postgres import database as db
from seaway.connectors.debezium.postgres.events import EventMaker
from seaway.connectors.debezium.postgres.offsets import WalPosition
from seaway.connectors.debezium.postgres.snapshot import Snapshot
from seaway.connectors.debezium.postgres.stream import WalStream
from seaway.connectors.debezium.task import (
    NEVER_AFTER_SNAPSHOT,
    SnapshotThenStreamTask,
    close_quietly,
)

__all__ = ["PostgresSourceTask"]

log = logging.getLogger(__name__)


class PostgresSourceTask(SnapshotThenStreamTask[Snapshot, WalStream]):
    """Captures a PostgreSQL database's changes through pgoutput."""

    settings: c.Settings

    def __init__(self) -> None:
        super().__init__()
        self.connection: Any = None
        self.after_snapshot: WalPosition | None = None
        self.slot: db.CreatedSlot | None = None

    def start(self, props: dict[str, str]) -> None:
        self.settings = c.settings(props)
        settings = self.settings
        self.maker = EventMaker(settings)
        self.filters = db.Filters.of(settings)
        self.connection = db.connect(settings)
        db.check_prerequisites(self.connection, settings.user)
        tables = db.captured_tables(self.connection, self.filters)
        db.ensure_publication(self.connection, settings, tables)
        reader = self.context.offset_storage_reader() if self.context else None
        stored = reader.offset(partition(settings.topic_prefix)) if reader is not None else None
        offset = WalPosition.from_offset(stored) if stored else None
        mode = settings.snapshot_mode
        if offset is not None and offset.snapshot_running:
            if mode == "no_data":
                raise ConnectError(NEVER_AFTER_SNAPSHOT)
            db.drop_slot(self.connection, settings.slot_name)
        slot_lsn = db.slot_flushed_lsn(self.connection, settings)
        created = None
        if slot_lsn is None:
            self.slot = created = db.create_slot(settings)
            slot_lsn = created.consistent_point
        if offset is None:
            snapshot = mode != "no_data"
        elif offset.snapshot_running:
            snapshot = True
        else:
            snapshot = mode == "always" or (mode == "when_needed" and created is not None)
        if snapshot:
            self.snapshot = Snapshot(settings, self.maker, self.filters)
            lsn = self.snapshot.begin(created, slot_lsn)
            self.slot = None
            self.after_snapshot = WalPosition(lsn=lsn)
            self.pending = self.snapshot.records()
        elif mode == "initial_only" and offset is not None:
            log.info("Snapshot done and snapshot.mode=initial_only: nothing to stream")
        else:
            if created is not None:
                created.close()
                self.slot = None
            self._stream(offset if offset is not None else WalPosition(lsn=slot_lsn))

    def _stream(self, start: WalPosition) -> None:
        self.stream = WalStream(self.settings, self.maker, self.filters, self.connection, start)

    def start_stream(self, snapshot: Snapshot) -> None:
        assert self.after_snapshot is not None
        self._stream(self.after_snapshot)

    def commit(self) -> None:
        if self.stream is not None:
            self.stream.commit()

    def stop(self) -> None:
        close_quietly(self.snapshot, self.slot)
        if self.connection is not None:
            try:
                if self.settings.slot_drop_on_stop:
                    db.drop_slot(self.connection, self.settings.slot_name)
                self.connection.close()
            except Exception:
                log.debug("Closing failed", exc_info=True)
        self.snapshot = self.stream = self.connection = self.slot = None
