"""The initial snapshot (``BinlogSnapshotChangeEventSource``, minimal locking): the captured
tables' rows as ``op=r`` events, consistent with the binlog position streaming starts from.

Under ``FLUSH TABLES WITH READ LOCK`` a REPEATABLE READ transaction starts ``WITH CONSISTENT
SNAPSHOT``, the binlog position and GTIDs are read and the tables' models too; the lock is
released, the models go to the schema history (and the schema change topic), then each table
is read in that transaction. Every record carries the snapshot's position with
``snapshot`` set, except the very last one: a restart before it redoes the snapshot, a restart
after it streams from the position.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pymysql.cursors

from seaway.connect.api import SourceRecord
from seaway.connectors.debezium.binlog.database import (
    Filters,
    binlog_position,
    captured_tables,
    connect,
    read_table,
)
from seaway.connectors.debezium.binlog.events import EventMaker, SourceInfo
from seaway.connectors.debezium.binlog.history import HistoryRecord, SchemaHistory, TableChange
from seaway.connectors.debezium.binlog.position import Position
from seaway.connectors.debezium.binlog.schemas import TableSchema
from seaway.connectors.debezium.binlog.tables import Table, TableId
from seaway.connectors.debezium.snapshot import marked, with_offset

__all__ = ["Snapshot"]


class Snapshot:
    """One snapshot: :meth:`lock_and_read_schema` first, then :meth:`records`."""

    def __init__(self, maker: EventMaker, filters: Filters, mariadb: bool, history: SchemaHistory):
        self.maker = maker
        self.settings = maker.settings
        self.filters = filters
        self.mariadb = mariadb
        self.history = history
        self.connection: Any = None
        self.position: Position | None = None
        self.tables: dict[TableId, Table] = {}

    def lock_and_read_schema(self) -> Position:
        """Steps 1-5: the consistent snapshot's position and the tables' models, written to
        the schema history. Returns the position streaming starts from."""
        self.connection = connect(self.settings, autocommit=True)
        with self.connection.cursor() as cursor:
            cursor.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("FLUSH TABLES WITH READ LOCK")
            try:
                cursor.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
                file, pos, gtids = binlog_position(self.connection, self.mariadb)
                for table_id in captured_tables(self.connection, self.filters):
                    table = read_table(self.connection, table_id)
                    if table is not None:
                        self.tables[table_id] = table
            finally:
                cursor.execute("UNLOCK TABLES")
        self.position = Position(file, pos, gtids, ts_sec=int(time.time()), snapshot=True)
        self._write_schema()
        return self.position

    def _write_schema(self) -> list[SourceRecord]:
        assert self.position is not None
        self.history.initialize_storage()
        offset = self.position.offset()
        self.schema_records: list[SourceRecord] = []
        for table in self.tables.values():
            ddl = table.create_ddl or ""
            change = (TableChange("CREATE", table),)
            now = int(time.time() * 1000)
            self.history.write(HistoryRecord(self.maker.partition, offset, now, table.id[0], ddl,
                                             change))  # fmt: skip
            if self.settings.include_schema_changes:
                info = SourceInfo(db=table.id[0], table=table.id[1], ts_ms=now,
                                  file=self.position.file, pos=self.position.pos,
                                  gtid=None, snapshot="true")  # fmt: skip
                self.schema_records.append(
                    self.maker.schema_change(table.id[0], ddl, change, info, offset)
                )
        return self.schema_records

    def records(self, with_data: bool = True) -> Iterator[SourceRecord]:
        """Steps 6-7: the schema change events, then every row (unless not *with_data*), the
        last without ``snapshot`` in its offset; the transaction is committed at the end."""
        assert self.position is not None
        yield from self.schema_records
        tables = list(self.tables.values()) if with_data else []
        try:
            yield from marked((self._rows(table) for table in tables), self._last)
            self.connection.commit()
        finally:
            self.close()

    def _rows(self, table: Table) -> Iterator[SourceRecord]:
        assert self.position is not None
        schema = TableSchema.of(table, self.settings, self.filters, self.maker.source_schema)
        offset = self.position.offset()
        db, name = table.id
        with self.connection.cursor(pymysql.cursors.SSDictCursor) as cursor:
            cursor.execute(f"SELECT * FROM `{db.replace('`', '``')}`.`{name.replace('`', '``')}`")
            for values in cursor:
                info = SourceInfo(db=db, table=name, ts_ms=int(time.time() * 1000),
                                  file=self.position.file, pos=self.position.pos,
                                  snapshot="true")  # fmt: skip
                yield from self.maker.change(schema, "r", None, schema.row(values), info, offset)

    def _last(self, record: SourceRecord) -> SourceRecord:
        """The last snapshot record, with an offset without ``snapshot``."""
        assert self.position is not None
        return with_offset(record, replace(self.position, snapshot=False).offset())

    def close(self) -> None:
        """Close the snapshot's connection (rolls back an unfinished snapshot)."""
        if self.connection is not None:
            try:
                self.connection.close()
            except Exception:  # already closed by the server
                pass
            self.connection = None
