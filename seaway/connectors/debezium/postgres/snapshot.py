"""The initial snapshot (``PostgresSnapshotChangeEventSource``).

With a slot created for it, the snapshot transaction imports the slot's exported snapshot
(``REPEATABLE READ`` + ``SET TRANSACTION SNAPSHOT``), so the rows read are exactly the
database as of the slot's consistent point, where streaming starts: no gap, no overlap. With
an existing slot (``snapshot.mode=always`` or ``when_needed``, or a slot made beforehand) the
snapshot is ``SERIALIZABLE, READ ONLY, DEFERRABLE`` and streaming resumes at the slot's
flushed position, so changes made since are sent again (at least once).

Rows are read as text (``column::text``) through a server-side cursor and mapped like the
stream's. Every record carries an offset with ``snapshot``; the last has
``last_snapshot_record`` and ``snapshot_completed`` too, so a restart before it redoes the
snapshot. ``source.snapshot`` marks the first, first-in-table, last-in-table and last rows as
Debezium does.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from psycopg import sql

from seaway.connect.api import SourceRecord
from seaway.connectors.debezium.postgres.config import Settings
from seaway.connectors.debezium.postgres.database import (
    CreatedSlot,
    Filters,
    captured_tables,
    connect,
)
from seaway.connectors.debezium.postgres.events import EventMaker, PgSourceInfo, TableSchema
from seaway.connectors.debezium.postgres.offsets import WalPosition
from seaway.connectors.debezium.snapshot import marked, with_offset

__all__ = ["Snapshot"]

FETCH_ROWS = 2000


class Snapshot:
    """One snapshot: :meth:`begin`, then :meth:`records`."""

    def __init__(self, settings: Settings, maker: EventMaker, filters: Filters) -> None:
        self.settings = settings
        self.maker = maker
        self.filters = filters
        self.connection: Any = None
        self.lsn = 0
        self.tx_id: int | None = None

    def begin(self, slot: CreatedSlot | None, slot_lsn: int | None) -> int:
        """Open the snapshot transaction; the LSN where streaming starts."""
        self.connection = connect(self.settings, autocommit=False)
        if slot is not None:
            self.connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            self.connection.execute(
                sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(slot.snapshot_name))
            )
            slot.close()  # the snapshot is imported: the walsender may go
            self.lsn = slot.consistent_point
        else:
            self.connection.execute(
                "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE"
            )
            self.lsn = slot_lsn or 0
        if slot is not None:
            self.tx_id = int(self.connection.execute("SELECT txid_current()").fetchone()[0])
        return self.lsn

    def records(self, with_data: bool = True) -> Iterator[SourceRecord]:
        """Every captured row as an ``r`` record; the transaction ends with the last."""
        try:
            tables = captured_tables(self.connection, self.filters) if with_data else []
            yield from marked((self._rows(*table) for table in tables), self._last)
            self.connection.commit()
        finally:
            self.close()

    def _position(self, last: bool = False) -> WalPosition:
        return WalPosition(
            lsn=self.lsn, tx_id=self.tx_id, ts_usec=time.time_ns() // 1000, snapshot=True,
            last_snapshot_record=last, snapshot_completed=last,
        )  # fmt: skip

    def _rows(self, schema_name: str, table_name: str) -> Iterator[SourceRecord]:
        schema = TableSchema.read(self.connection, self.settings, self.filters, schema_name,
                                  table_name, self.maker.source_schema)  # fmt: skip
        if schema is None:
            return
        names = [c.name for c in schema.columns]
        select = sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.SQL("{}::text").format(sql.Identifier(n)) for n in names)
            if names else sql.SQL("NULL"),
            sql.Identifier(schema_name, table_name),
        )  # fmt: skip
        offset = self._position().offset()
        with self.connection.cursor(name=f"seaway_snapshot_{id(self)}") as cursor:
            cursor.itersize = FETCH_ROWS
            cursor.execute(select)
            for values in cursor:
                now_us = time.time_ns() // 1000
                source = PgSourceInfo(schema_name, table_name, now_us // 1000, self.lsn,
                                      self.tx_id, None, now_us, snapshot="true")  # fmt: skip
                row = schema.row(dict(zip(names, values, strict=False)) if names else {})
                yield from self.maker.change(schema, "r", None, row, source, offset)

    def _last(self, record: SourceRecord) -> SourceRecord:
        return with_offset(record, self._position(last=True).offset())

    def close(self) -> None:
        if self.connection is not None:
            try:
                self.connection.close()
            except Exception:
                pass
            self.connection = None
