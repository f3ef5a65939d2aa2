"""Streaming from the replication slot with SQL functions, and slot flushing.

psycopg 3 has no replication protocol API (psycopg issue #71) and psycopg2 is not a Seaway
dependency, so the stream is read with ``pg_logical_slot_peek_binary_changes(slot, NULL, n,
'proto_version', '1', 'publication_names', pub)`` on an ordinary connection: rows of
(lsn, xid, pgoutput message), decoded by :mod:`.pgoutput`. *Peek*, not *get*: nothing is
consumed from the slot when read. The slot moves only with
``pg_replication_slot_advance(slot, lsn)`` once the records before that point are in Kafka
(:meth:`WalStream.commit`), so the slot never passes what Kafka holds (Debezium flushes
``lsn_commit`` to the slot after an offset commit for the same reason).

A peek always starts at the slot's ``confirmed_flush_lsn`` and returns whole transactions, so
a peek after records were read but before the slot moved returns them again; they are
skipped by position (:class:`WalPosition` rules: a transaction whose commit precedes the last
processed commit, and changes of the current transaction at or before the last emitted one),
which is also how a restart skips what the stored offset says was emitted. ``n`` grows with
the rows already read since the slot's position, so a peek always reaches new rows.

The runtime (``seaway.connect.runtime.queries.source``) polls a plain task on the driver for
micro-batch *N* before it commits *N-1*, so at ``commit()`` every poll but the latest one that
returned records is in Kafka: the slot advances to the last commit processed by the
second-latest such poll. Between the offsets topic's flushes (at-least-once mode) the slot
may be ahead of the stored offset but never of the records in Kafka; a restart from the
older offset then gets from the slot only what follows, and skips nothing it needs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any, Final

from seaway.connect.api import SourceRecord
from seaway.connect.api.data import Schema, SchemaType, Struct
from seaway.connectors.debezium.postgres import pgoutput as pg
from seaway.connectors.debezium.postgres.config import Settings
from seaway.connectors.debezium.postgres.database import Filters, read_table
from seaway.connectors.debezium.postgres.events import EventMaker, PgSourceInfo, TableSchema
from seaway.connectors.debezium.postgres.offsets import WalPosition
from seaway.connectors.debezium.postgres.types import Column

__all__ = ["UNAVAILABLE_VALUE", "WalStream"]

log = logging.getLogger(__name__)

UNAVAILABLE_VALUE: Final = "__debezium_unavailable_value"
"""Debezium's ``unavailable.value.placeholder``: an unchanged TOASTed column of an update."""

PEEK: Final = (
    "SELECT lsn::text, xid::text::bigint, data FROM pg_logical_slot_peek_binary_changes("
    "%s, NULL, %s, 'proto_version', '1', 'publication_names', %s)"
)
_OPS: Final = {pg.Insert: ("c", "INSERT"), pg.Update: ("u", "UPDATE"), pg.Delete: ("d", "DELETE")}


def _fallback(schema: Schema) -> Any:
    """The value Debezium gives a required column the server sent as null (a delete's or
    key change's old tuple holds only the replica identity's columns)."""
    if schema.name == "org.apache.kafka.connect.data.Decimal":
        import decimal

        return decimal.Decimal(0)
    if schema.type is SchemaType.STRUCT:
        struct = Struct(schema)
        for field in schema.fields:
            struct.put(field.name, _fallback(field.schema))
        return struct
    return {
        SchemaType.INT8: 0, SchemaType.INT16: 0, SchemaType.INT32: 0, SchemaType.INT64: 0,
        SchemaType.FLOAT32: 0.0, SchemaType.FLOAT64: 0.0, SchemaType.BOOLEAN: False,
        SchemaType.STRING: "", SchemaType.BYTES: b"",
    }.get(schema.type)  # fmt: skip


def _unavailable(schema: Schema) -> Any:
    """Debezium's placeholder for an unchanged TOASTed value of a column of *schema*."""
    if schema.type is SchemaType.STRING:
        return UNAVAILABLE_VALUE
    if schema.type is SchemaType.BYTES:
        return UNAVAILABLE_VALUE.encode()
    return None


class WalStream:
    """The changes after a position, as records."""

    def __init__(
        self,
        settings: Settings,
        maker: EventMaker,
        filters: Filters,
        connection: Any,
        start: WalPosition,
    ) -> None:
        self.settings = settings
        self.maker = maker
        self.filters = filters
        self.connection = connection
        self.processed = start  # the last change emitted or commit processed
        self.relations: dict[int, TableSchema | None] = {}
        self.relation_columns: dict[int, tuple[str, ...]] = {}
        self._rows: Iterator[tuple[str, int, bytes]] | None = None
        self._peeked = 0  # rows the last peek returned
        self._skip_txn = False
        self._txn: pg.Begin | None = None
        self._last_change: tuple[int, int] = (-1, 0)  # (lsn, changes at it)
        self._last_commit_end: int | None = start.lsn_commit
        self._targets: list[int | None] = []  # per poll with records: last commit processed
        self.slot_lsn: int | None = None

    # -- reading ---------------------------------------------------------------------------

    def _peek(self, count: int) -> list[tuple[str, int, bytes]]:
        rows = self.connection.execute(
            PEEK, (self.settings.slot_name, count, self.settings.publication_name)
        ).fetchall()
        return [(lsn, xid, bytes(data)) for lsn, xid, data in rows]

    def poll(self, limit: int, wait_s: float) -> list[SourceRecord]:
        """Up to about *limit* records (a message's records are never split), waiting up to
        *wait_s* for the first."""
        records: list[SourceRecord] = []
        deadline = time.monotonic() + wait_s
        while len(records) < limit:
            if self._rows is None:
                rows = self._peek(self._peeked + limit)
                fresh = len(rows) > self._peeked or self._peeked == 0
                self._peeked = len(rows)
                self._rows = iter(rows)
                if not rows or not fresh:
                    self._rows = None
                    if records or time.monotonic() >= deadline:
                        break
                    time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
                    continue
            row = next(self._rows, None)
            if row is None:
                self._rows = None
                if records or time.monotonic() >= deadline:
                    # read the next rows in the next poll: a peek re-reads from the slot
                    break
                continue
            records.extend(self._message(pg.parse_lsn(row[0]), int(row[1]), row[2]))
        if records:
            self._targets.append(self._last_commit_end)
            del self._targets[:-2]
        return records

    def _message(self, lsn: int, xid: int, data: bytes) -> list[SourceRecord]:
        message = pg.decode(data)
        if isinstance(message, pg.Begin):
            self._txn = message
            self._skip_txn = self.processed.transaction_done(message.final_lsn)
            self._last_change = (-1, 0)
            return []
        if isinstance(message, pg.Commit):
            if not self._skip_txn:
                self._last_commit_end = lsn
                self.processed = WalPosition(
                    lsn=lsn, lsn_proc=lsn, lsn_commit=lsn, tx_id=xid,
                    ts_usec=message.commit_ts_us, message_type="COMMIT",
                )  # fmt: skip
            self._txn = None
            self._skip_txn = False
            return []
        if isinstance(message, pg.Relation):
            self._relation(message)
            return []
        if not isinstance(message, (pg.Insert, pg.Update, pg.Delete, pg.Truncate)):
            return []
        nth = self._last_change[1] + 1 if self._last_change[0] == lsn else 1
        self._last_change = (lsn, nth)
        if self._skip_txn or self.processed.change_done(xid, lsn, nth):
            return []
        txn = self._txn
        commit_us = txn.commit_ts_us if txn is not None else time.time_ns() // 1000
        kind = "TRUNCATE" if isinstance(message, pg.Truncate) else _OPS[type(message)][1]
        position = WalPosition(
            lsn=lsn, lsn_proc=lsn, lsn_commit=self._last_commit_end, lsn_events_processed=nth,
            tx_id=xid, ts_usec=commit_us, message_type=kind,
        )  # fmt: skip
        self.processed = position
        offset = position.offset()
        if isinstance(message, pg.Truncate):
            return self._truncate(message, position, offset)
        schema = self.relations.get(message.relation)
        op = _OPS[type(message)][0]
        if schema is None or op in self.settings.skipped_operations:
            return []
        info = PgSourceInfo(schema.schema_name, schema.table_name, commit_us // 1000, lsn, xid,
                            self._last_commit_end, commit_us)  # fmt: skip
        columns = self.relation_columns[message.relation]
        if isinstance(message, pg.Insert):
            return self.maker.change(schema, "c", None, self._row(schema, columns, message.new),
                                     info, offset)  # fmt: skip
        if isinstance(message, pg.Delete):
            deleted = self._row(schema, columns, message.old)
            return self.maker.change(schema, "d", deleted, None, info, offset)
        after = self._row(schema, columns, message.new)
        before: Struct | None = None
        if message.old is not None:
            before = self._row(schema, columns, message.old)
        if before is not None and schema.key(before) != schema.key(after):
            return self.maker.key_change(schema, before, after, info, offset)
        if message.old_kind == "K":
            before = None  # DEFAULT identity: only the key was sent, the key did not change
        return self.maker.change(schema, "u", before, after, info, offset)

    def _truncate(
        self, message: pg.Truncate, position: WalPosition, offset: dict[str, Any]
    ) -> list[SourceRecord]:
        if "t" in self.settings.skipped_operations:
            return []
        records = []
        for oid in message.relations:
            schema = self.relations.get(oid)
            if schema is None:
                continue
            ts_us = position.ts_usec or 0
            info = PgSourceInfo(
                schema.schema_name, schema.table_name, ts_us // 1000, position.lsn,
                position.tx_id, self._last_commit_end, ts_us,
            )  # fmt: skip
            record = self.maker.change(schema, "t", None, None, info, offset)[0]
            records.append(
                SourceRecord(
                    source_partition=record.source_partition, source_offset=offset,
                    topic=record.topic, key_schema=None, key=None,
                    value_schema=record.value_schema, value=record.value,
                )
            )  # fmt: skip
        return records

    def _relation(self, message: pg.Relation) -> None:
        """A table's columns as of this point of the stream (pgoutput sends a Relation
        before a table's first change in each decoding session and after its DDL); the
        catalog adds nullability, the primary key and enum labels."""
        self.relation_columns[message.oid] = tuple(c.name for c in message.columns)
        if not self.filters.table(message.namespace, message.name):
            self.relations[message.oid] = None
            return
        info = read_table(self.connection, message.namespace, message.name)
        catalog = {c.name: c for c in info.columns} if info is not None else {}
        columns = []
        for c in message.columns:
            if not self.filters.column(message.namespace, message.name, c.name):
                continue
            known = catalog.get(c.name)
            columns.append(
                Column(c.name, c.type_oid, c.type_modifier,
                       known.optional if known is not None else True,
                       known.type_name if known is not None else "",
                       known.enum_values if known is not None else None)
            )  # fmt: skip
        primary_key = (
            info.primary_key
            if info is not None
            else tuple(c.name for c in message.columns if c.key)
        )
        self.relations[message.oid] = TableSchema.of(
            self.settings, message.namespace, message.name, tuple(columns), primary_key,
            self.maker.source_schema,
        )  # fmt: skip

    def _row(
        self, schema: TableSchema, names: tuple[str, ...], values: tuple[pg.TupleValue, ...]
    ) -> Struct:
        """The row struct of a tuple's text values; each converter makes its column's value
        for its field (field order), so the struct takes them unvalidated."""
        texts: dict[str, Any] = dict(zip(names, values, strict=False))
        row: list[Any] = []
        for field, (name, convert) in zip(schema.row_schema.fields, schema.converters,
                                          strict=True):  # fmt: skip
            value = texts.get(name)
            if value is pg.UNCHANGED_TOAST:
                row.append(_unavailable(field.schema))
            elif value is None:
                row.append(None if field.schema.is_optional else _fallback(field.schema))
            else:
                row.append(convert(value if isinstance(value, str) else bytes(value).decode()))
        return Struct.of_values(schema.row_schema, row)

    def offset(self) -> dict[str, Any]:
        """The offset a restart would resume from now."""
        return self.processed.offset()

    # -- slot flushing ---------------------------------------------------------------------

    def commit(self) -> None:
        """The records of every poll but the latest are in Kafka: move the slot to the last
        commit those polls processed."""
        if len(self._targets) < 2:
            return
        target = self._targets[-2]
        if target is None or (self.slot_lsn is not None and target <= self.slot_lsn):
            return
        self.connection.execute(
            "SELECT pg_replication_slot_advance(%s, %s::pg_lsn)",
            (self.settings.slot_name, pg.format_lsn(target)),
        )
        self.slot_lsn = target
        self._peeked = 0  # the next peek starts later: size it afresh

    def close(self) -> None:
        pass
