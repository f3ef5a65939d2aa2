"""The binlog source task: snapshot when the offsets say so, then the binlog (``BinlogSourceTask``).

A plain ``poll()`` task: Seaway's runtime polls it on the Spark driver and ships the records
with the batch; with ``exactly.once.source.support=enabled`` each batch's records and its last
offset commit in one Kafka transaction. At start:

* no offset: a snapshot per ``snapshot.mode`` (``never``: stream from the current position);
* an offset of a snapshot that did not finish: the snapshot again (Debezium's error if
  ``snapshot.mode=never``);
* a streaming offset: the tables' models from the schema history as of the offset, then the
  binlog from the offset, skipping what the offset says was emitted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from itertools import islice
from typing import Any, Final

from seaway.connect.api import ConnectError, SourceRecord, SourceTask
from seaway.connectors.debezium import config as c
from seaway.connectors.debezium import database
from seaway.connectors.debezium.events import EventMaker
from seaway.connectors.debezium.filters import Filters
from seaway.connectors.debezium.history import SchemaHistory
from seaway.connectors.debezium.position import Position, partition
from seaway.connectors.debezium.snapshot import Snapshot
from seaway.connectors.debezium.streaming import BinlogStream
from seaway.connectors.debezium.tables import Table, TableId

__all__ = ["CONNECTOR_KEY", "BinlogSourceTask"]

log = logging.getLogger(__name__)

CONNECTOR_KEY: Final = "seaway.debezium.connector"
"""Task config key: ``mariadb`` or ``mysql`` (which connector class made the task)."""

NEVER_AFTER_SNAPSHOT: Final = (
    "The connector previously stopped while taking a snapshot, but now the connector is "
    "configured to never allow snapshots. Reconfigure the connector to use snapshots "
    "initially or when needed."
)


class BinlogSourceTask(SourceTask):
    """Captures a MariaDB or MySQL server's changes."""

    def __init__(self) -> None:
        super().__init__()
        self.control: Any = None
        self.snapshot: Snapshot | None = None
        self.pending: Iterator[SourceRecord] | None = None
        self.stream: BinlogStream | None = None
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
        self.history = SchemaHistory(
            self.settings.history_servers, self.settings.history_topic, source
        )
        reader = self.context.offset_storage_reader() if self.context else None
        offset = reader.offset(source) if reader is not None else None
        mode = self.settings.snapshot_mode
        if offset is not None and not Position.from_offset(offset).snapshot:
            self._stream(Position.from_offset(offset), self.history.recover(offset))
        elif offset is not None and mode == "never":
            raise ConnectError(NEVER_AFTER_SNAPSHOT)
        elif mode == "never":
            file, pos, gtids = database.binlog_position(self.control, self.mariadb)
            tables = {t: database.read_table(self.control, t)
                      for t in database.captured_tables(self.control, self.filters)}  # fmt: skip
            self._stream(Position(file, pos, gtids), {k: v for k, v in tables.items() if v})
        else:
            self.snapshot = Snapshot(self.maker, self.filters, self.mariadb, self.history)
            self.after_snapshot = self.snapshot.lock_and_read_schema()
            self.pending = self.snapshot.records(with_data=mode != "no_data")

    def _stream(self, start: Position, tables: dict[TableId, Table]) -> None:
        self.stream = BinlogStream(self.maker, self.filters, self.mariadb, start, tables,
                                   self.history, self.control)  # fmt: skip

    def poll(self) -> list[SourceRecord] | None:
        limit = self.settings.max_batch_size
        if self.pending is not None:
            records = list(islice(self.pending, limit))
            if len(records) == limit:
                return records
            self.pending = None
            assert self.snapshot is not None and self.after_snapshot is not None
            tables = self.snapshot.tables
            self.snapshot = None
            if self.settings.snapshot_mode != "initial_only":
                self._stream(self.after_snapshot, tables)
            if records:
                return records
        if self.stream is None:
            time.sleep(self.settings.poll_interval_ms / 1000)
            return []
        return self.stream.poll(limit, self.settings.poll_interval_ms / 1000)

    def stop(self) -> None:
        for closing in (self.snapshot, self.stream, self.control):
            if closing is not None:
                try:
                    closing.close()
                except Exception:
                    log.debug("Closing failed", exc_info=True)
        self.snapshot = self.stream = self.control = None
