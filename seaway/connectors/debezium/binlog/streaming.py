"""Reading the binlog from a position into change events (``BinlogStreamingChangeEventSource``),
with pymysqlreplication (``mysql-replication``: the one maintained binlog client for Python).

Each record's offset is the restart point Debezium would store (:mod:`.position`): inside a
transaction its start, with the events and rows emitted so far; a restart (or the client's own
reconnection, which resends the transaction) skips those. MariaDB is read by GTID only (the
library cannot start a MariaDB dump at a file position); MySQL by GTID when the offset has a
GTID set, else at the file position.

A row's schema comes from the table model (``information_schema``, re-read at each DDL of the
table) when the model has the columns the row carries (``binlog_row_metadata=FULL`` names
them); a model read after a later DDL than the row's does not, and the row's schema is then
built from the TableMapEvent's own metadata, so an older row never gets a newer schema.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Final

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import (
    GtidEvent,
    HeartbeatLogEvent,
    MariadbGtidEvent,
    QueryEvent,
    RotateEvent,
    XidEvent,
)
from pymysqlreplication.gtid import Gtid, GtidSet
from pymysqlreplication.row_event import (
    DeleteRowsEvent,
    TableMapEvent,
    UpdateRowsEvent,
    WriteRowsEvent,
)

from seaway.connect.api import SourceRecord
from seaway.connectors.debezium.binlog.database import Filters, connection_settings, read_table
from seaway.connectors.debezium.binlog.ddl import tables_of
from seaway.connectors.debezium.binlog.events import EventMaker, SourceInfo
from seaway.connectors.debezium.binlog.history import HistoryRecord, SchemaHistory, TableChange
from seaway.connectors.debezium.binlog.position import Position, merge_gtid
from seaway.connectors.debezium.binlog.schemas import TableSchema
from seaway.connectors.debezium.binlog.tables import Table, TableId, table_from_binlog

__all__ = ["BinlogStream"]

log = logging.getLogger(__name__)

_EVENTS: Final = [
    MariadbGtidEvent, GtidEvent, QueryEvent, XidEvent, TableMapEvent, WriteRowsEvent,
    UpdateRowsEvent, DeleteRowsEvent, RotateEvent, HeartbeatLogEvent,
]  # fmt: skip
_OPS: Final = {WriteRowsEvent: "c", UpdateRowsEvent: "u", DeleteRowsEvent: "d"}
_STANDALONE: Final = 1  # MariaDB's GTID flag of a transaction of one statement (DDL)


class BinlogStream:
    """The binlog from *start* on, as records, a batch per :meth:`poll`."""

    def __init__(
        self,
        maker: EventMaker,
        filters: Filters,
        mariadb: bool,
        start: Position,
        tables: dict[TableId, Table],
        history: SchemaHistory,
        control: Any,
    ) -> None:
        self.maker = maker
        self.settings = maker.settings
        self.filters = filters
        self.mariadb = mariadb
        self.tables = tables
        self.history = history
        self.control = control
        self._schemas: dict[Table, TableSchema] = {}
        self.gtids = start.gtids
        self.file, self.pos = start.file, start.pos
        self.after = start  # where a restart resumes outside a transaction
        self.skip = (start.event, start.row)
        self.in_tx = False
        self.tx: Position = start
        self.tx_gtid: str | None = None
        self.standalone = False
        self.events = 0  # events of the current transaction done
        self.emitted = (0, 0)  # (event, row) of the last record of the current transaction
        self.reader = self._reader()

    def _reader(self) -> BinLogStreamReader:
        heartbeat = max(0.1, min(1.0, self.settings.poll_interval_ms / 1000))
        position: dict[str, Any]
        if self.mariadb:
            position = {"auto_position": self.gtids or ""}
        elif self.gtids:
            position = {"auto_position": self.gtids}
        else:
            position = {"log_file": self.file, "log_pos": self.pos, "resume_stream": True}
        return BinLogStreamReader(
            connection_settings=connection_settings(self.settings),
            server_id=self.settings.server_id, blocking=True, is_mariadb=self.mariadb,
            only_events=_EVENTS, slave_heartbeat=heartbeat, enable_logging=False, **position,
        )  # fmt: skip

    def close(self) -> None:
        """Close the replication connection."""
        self.reader.close()

    def poll(self, max_records: int, timeout_s: float) -> list[SourceRecord]:
        """The records of the events that arrive within *timeout_s* (at most about
        *max_records*; a rows event's records are never split)."""
        records: list[SourceRecord] = []
        deadline = time.monotonic() + timeout_s
        while len(records) < max_records and time.monotonic() < deadline:
            event = self.reader.fetchone()
            if event is None:
                break
            handler = self._handlers.get(type(event))
            if handler is not None:
                handler(self, event, records)
        return records

    # --- events -------------------------------------------------------------------------

    def _begin(self, event: Any, records: list[SourceRecord]) -> None:
        gtid = str(event.gtid)
        if self.in_tx and gtid == self.tx_gtid:  # the client reconnected: resent from its start
            self.skip = self.emitted
        self.in_tx = True
        self.tx_gtid = gtid
        self.standalone = bool(getattr(event, "flags", 0) & _STANDALONE)
        start = event.packet.log_pos - event.event_size
        self.tx = Position(self.reader.log_file, start, self.gtids, 0, 0, event.packet.server_id,
                           event.timestamp)  # fmt: skip
        self.events = 0
        self.emitted = (0, 0)

    def _commit(self, event: Any) -> None:
        if self.tx_gtid is not None:
            self.gtids = (
                merge_gtid(self.gtids, self.tx_gtid)
                if self.mariadb
                else str(GtidSet(self.gtids or "") + Gtid(self.tx_gtid))
            )
            if self.mariadb or self.reader.auto_position:
                self.reader.auto_position = self.gtids  # the client's reconnections resume here
        self.file, self.pos = self.reader.log_file, event.packet.log_pos
        self.after = self._position(event)
        self.in_tx = False
        self.tx_gtid = None
        self.skip = (0, 0)
        self.events = 0

    def offset(self) -> dict[str, Any]:
        """The offset a restart would resume from now: inside a transaction its start with
        what was emitted of it, else the position after the last transaction."""
        if self.in_tx:
            return self.tx.with_counters(*self.emitted).offset()
        return self.after.offset()

    def _position(self, event: Any) -> Position:
        """The position after *event* outside a transaction."""
        return Position(
            self.file, self.pos, self.gtids, 0, 0, event.packet.server_id, event.timestamp
        )

    def _xid(self, event: Any, records: list[SourceRecord]) -> None:
        self._commit(event)

    def _query(self, event: Any, records: list[SourceRecord]) -> None:
        query = event.query.strip()
        upper = query.upper()
        if upper == "BEGIN":
            self.events += 1
        elif upper in ("COMMIT", "ROLLBACK"):
            self._commit(event)
        else:  # DDL commits implicitly: one statement, its own transaction
            gtid = self.tx_gtid
            self._commit(event)
            self._ddl(event, query, gtid, records)

    def _count(self, event: Any, records: list[SourceRecord]) -> None:
        self.events += 1

    def _rows(self, event: Any, records: list[SourceRecord]) -> None:
        table_id = (event.schema, event.table)
        event_index = self.events
        self.events += 1
        skip_event, skip_row = self.skip
        if event_index < skip_event or not self.filters.table(*table_id):
            return
        schema = self._schema(table_id, event.columns)
        op = _OPS[type(event)]
        if op in self.settings.skipped_operations:
            return
        start = event.packet.log_pos - event.event_size
        for index, row in enumerate(event.rows):
            if event_index == skip_event and index < skip_row:
                continue
            self.emitted = (event_index, index + 1)
            offset = self.tx.with_counters(*self.emitted).offset()
            info = SourceInfo(
                db=table_id[0], table=table_id[1], ts_ms=event.timestamp * 1000,
                file=self.reader.log_file, pos=start, row=index, server_id=event.packet.server_id,
                gtid=self.tx_gtid,
            )  # fmt: skip
            if op == "c":
                records += self.maker.change(schema, op, None, schema.row(row["values"]), info,
                                             offset)  # fmt: skip
            elif op == "d":
                records += self.maker.change(schema, op, schema.row(row["values"]), None, info,
                                             offset)  # fmt: skip
            else:
                before = schema.row(row["before_values"])
                after = schema.row(row["after_values"])
                if schema.key(before) != schema.key(after):
                    records += self.maker.key_change(schema, before, after, info, offset)
                else:
                    records += self.maker.change(schema, op, before, after, info, offset)

    def _schema(self, table_id: TableId, columns: Any) -> TableSchema:
        names = tuple(c.name for c in columns)
        table = self.tables.get(table_id)
        if table is None or table.names != names:
            log.info("Columns of %s.%s differ from its model: schema from the binlog", *table_id)
            table = table_from_binlog(table_id, columns)
        schema = self._schemas.get(table)
        if schema is None:
            schema = TableSchema.of(table, self.settings, self.filters, self.maker.source_schema)
            self._schemas[table] = schema
        return schema

    def _ddl(self, event: Any, query: str, gtid: str | None, records: list[SourceRecord]) -> None:
        database = event.schema.decode() if isinstance(event.schema, bytes) else event.schema
        changes: list[TableChange] = []
        affected = [(k, t) for k, t in tables_of(query, database or "") if self.filters.table(*t)]
        if affected:
            self.control.ping(reconnect=True)  # idle since the last DDL: may have timed out
        for kind, table_id in affected:
            table = None if kind == "DROP" else read_table(self.control, table_id)
            if table is None:
                dropped = self.tables.pop(table_id, None)
                if dropped is not None:
                    changes.append(TableChange("DROP", dropped))
                continue
            self.tables[table_id] = table
            changes.append(TableChange(kind, table))
        if not changes:
            return
        position = self._position(event)
        offset = position.offset()
        self.history.write(
            HistoryRecord(self.maker.partition, offset, event.timestamp * 1000, database or "",
                          query, tuple(changes))
        )  # fmt: skip
        if self.settings.include_schema_changes:
            info = SourceInfo(
                db=database or "", table=",".join(c.table.id[1] for c in changes),
                ts_ms=event.timestamp * 1000, file=self.file,
                pos=event.packet.log_pos - event.event_size, server_id=event.packet.server_id,
                gtid=gtid, thread=getattr(event, "slave_proxy_id", None),
            )  # fmt: skip
            records.append(
                self.maker.schema_change(database or "", query, tuple(changes), info, offset)
            )

    def _ignore(self, event: Any, records: list[SourceRecord]) -> None:
        pass

    _handlers: Final[dict[type, Callable[[BinlogStream, Any, list[SourceRecord]], None]]] = {
        MariadbGtidEvent: _begin, GtidEvent: _begin, XidEvent: _xid, QueryEvent: _query,
        TableMapEvent: _count, WriteRowsEvent: _rows, UpdateRowsEvent: _rows,
        DeleteRowsEvent: _rows, RotateEvent: _ignore, HeartbeatLogEvent: _ignore,
    }  # fmt: skip
