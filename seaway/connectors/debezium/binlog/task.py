"""The binlog source task: snapshot when the offsets say so, then the binlog (``BinlogSourceTask``;
the poll loop is :class:`~seaway.connectors.debezium.task.SnapshotThenStreamTask`'s). At start:

* no offset: a snapshot per ``snapshot.mode`` (``never``: stream from the current position);
* an offset of a snapshot that did not finish: the snapshot again (Debezium's error if
  ``snapshot.mode=never``);
* a streaming offset: the tables' models from the schema history as of the offset, then the
  binlog from the offset, skipping what the offset says was emitted; if the offset's binlog
  was purged, Debezium's error, or under ``when_needed`` the snapshot again.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from seaway.connect.api import ConnectError
from seaway.connectors.debezium.binlog import config as c
from seaway.connectors.debezium.binlog import database
from seaway.connectors.debezium.binlog.database import Filters
from seaway.connectors.debezium.binlog.events import EventMaker
from seaway.connectors.debezium.binlog.history import schema_history
from seaway.connectors.debezium.binlog.position import Position
from seaway.connectors.debezium.binlog.purged import is_available, unavailable_message
from seaway.connectors.debezium.binlog.snapshot import Snapshot
from seaway.connectors.debezium.binlog.streaming import BinlogStream
from seaway.connectors.debezium.binlog.tables import Table, TableId
from seaway.connectors.debezium.offsets import partition
from seaway.connectors.debezium.task import (
    NEVER_AFTER_SNAPSHOT,
    SnapshotThenStreamTask,
    close_quietly,
)

__all__ = ["CONNECTOR_KEY", "BinlogSourceTask"]

log = logging.getLogger(__name__)

CONNECTOR_KEY: Final = "seaway.debezium.connector"
"""Task config key: ``mariadb`` or ``mysql`` (which connector class made the task)."""


class BinlogSourceTask(SnapshotThenStreamTask[Snapshot, BinlogStream]):
    """Captures a MariaDB or MySQL server's changes."""

    settings: c.Settings
    prefetch = True  # nothing depends on what was polled: the binlog is read ahead

    def __init__(self) -> None:
        super().__init__()
        self.control: Any = None
        self.after_snapshot: Position | None = None

    def start(self, props: dict[str, str]) -> None:
        self.settings = c.settings(props)
        connector = props.get(CONNECTOR_KEY, "mysql")
        self.maker = EventMaker(self.settings, connector)
        self.filters = Filters.of(self.settings)
        self.control = database.connect(self.settings, autocommit=True)
        database.check_prerequisites(self.control)
        self.mariadb = database.is_mariadb(self.control)
        source = partition(self.settings.topic_prefix)
        self.history = schema_history(self.settings, source)
        reader = self.context.offset_storage_reader() if self.context else None
        offset = reader.offset(source) if reader is not None else None
        mode = self.settings.snapshot_mode
        position = Position.from_offset(offset) if offset is not None else None
        if offset is not None and position is not None and not position.snapshot:
            if is_available(self.control, position):
                self._stream(position, self.history.recover(offset))
            elif mode == "when_needed":
                log.warning("The stored position is no longer on the server: %s; "
                            "snapshot.mode=when_needed: a snapshot again", position)  # fmt: skip
                self._snapshot(with_data=True)
            else:
                raise ConnectError(unavailable_message(position))
        elif offset is not None and mode == "never":
            raise ConnectError(NEVER_AFTER_SNAPSHOT)
        elif mode == "never":
            file, pos, gtids = database.binlog_position(self.control, self.mariadb)
            tables = {t: database.read_table(self.control, t)
                      for t in database.captured_tables(self.control, self.filters)}  # fmt: skip
            self._stream(Position(file, pos, gtids), {k: v for k, v in tables.items() if v})
        else:
            self._snapshot(with_data=mode != "no_data")

    def _snapshot(self, with_data: bool) -> None:
        self.snapshot = Snapshot(self.maker, self.filters, self.mariadb, self.history)
        self.after_snapshot = self.snapshot.lock_and_read_schema()
        self.pending = self.snapshot.records(with_data=with_data)

    def _stream(self, start: Position, tables: dict[TableId, Table]) -> None:
        self.stream = BinlogStream(self.maker, self.filters, self.mariadb, start, tables,
                                   self.history, self.control)  # fmt: skip

    def start_stream(self, snapshot: Snapshot) -> None:
        assert self.after_snapshot is not None
        self._stream(self.after_snapshot, snapshot.tables)

    def stop(self) -> None:
        self.stop_reading()
        close_quietly(self.snapshot, self.stream, self.control)
        self.snapshot = self.stream = self.control = None
