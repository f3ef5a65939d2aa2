"""Where the PostgreSQL connector is in the WAL, in Debezium's offset format
(``PostgresOffsetContext.getOffset``), and the rule that skips what a restart has already
emitted (Debezium's ``WalPositionLocator``, for pgoutput).

The source partition is ``{"server": <topic.prefix>}``. A change's offset holds ``lsn`` (the
change's LSN), ``lsn_proc`` (the last completely processed LSN: the change's own for
pgoutput), ``lsn_commit`` (the end LSN of the last transaction committed before it),
``lsn_events_processed`` (events emitted at ``lsn``), ``txId``, ``ts_usec`` (commit time)
and ``messageType``. Snapshot rows carry ``snapshot`` (``INITIAL``),
``last_snapshot_record`` and ``snapshot_completed``; their ``lsn`` is the slot's consistent
point, where streaming starts.

Keys are in the order Java's ``HashMap`` writes them, so the offsets topic holds the bytes
Debezium would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connectors.debezium.offsets import SNAPSHOT_INITIAL
from seaway.java.hash_map import hash_map_order, string_hash

__all__ = ["WalPosition"]

CHANGE_TYPES: Final = frozenset({"INSERT", "UPDATE", "DELETE", "TRUNCATE", "MESSAGE"})


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class WalPosition:
    """An offset: a position in the WAL, or a snapshot's."""

    lsn: int | None = None
    lsn_proc: int | None = None
    lsn_commit: int | None = None
    lsn_events_processed: int = 0
    tx_id: int | None = None
    ts_usec: int | None = None
    message_type: str | None = None
    snapshot: bool = False
    last_snapshot_record: bool = False
    snapshot_completed: bool = False

    def offset(self) -> dict[str, Any]:
        """The offset map Debezium stores for this position."""
        items: list[tuple[str, Any]] = []
        if self.ts_usec is not None:
            items.append(("ts_usec", self.ts_usec))
        if self.tx_id is not None:
            items.append(("txId", self.tx_id))
        if self.lsn is not None:
            items.append(("lsn", self.lsn))
        if self.snapshot:
            items.append(("snapshot", SNAPSHOT_INITIAL))
            items.append(("last_snapshot_record", self.last_snapshot_record))
            items.append(("snapshot_completed", self.snapshot_completed))
        if self.lsn_proc is not None:
            items.append(("lsn_proc", self.lsn_proc))
        if self.lsn_commit is not None:
            items.append(("lsn_commit", self.lsn_commit))
        if self.message_type is not None:
            items.append(("messageType", self.message_type))
        if self.lsn_events_processed > 0:
            items.append(("lsn_events_processed", self.lsn_events_processed))
        return dict(hash_map_order(items, string_hash))

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any]) -> WalPosition:
        """The position an offset map stands for (``snapshot`` of old versions: ``true``)."""
        snapshot = offset.get("snapshot")
        completed = offset.get("snapshot_completed") in (True, "true")
        last = offset.get("last_snapshot_record") in (True, "true")
        running = snapshot not in (None, False, "false", "FALSE") and not (completed or last)
        lsn_proc = _int(offset.get("lsn_proc"))
        lsn_commit = _int(offset.get("lsn_commit"))
        return cls(
            lsn=_int(offset.get("lsn")),
            lsn_proc=lsn_proc,
            lsn_commit=lsn_commit if lsn_commit is not None else lsn_proc,
            lsn_events_processed=int(offset.get("lsn_events_processed") or 0),
            tx_id=_int(offset.get("txId")),
            ts_usec=_int(offset.get("ts_usec")),
            message_type=offset.get("messageType"),
            snapshot=running,
            last_snapshot_record=last,
            snapshot_completed=completed,
        )

    @property
    def snapshot_running(self) -> bool:
        """Whether this is the offset of a snapshot that did not finish."""
        return self.snapshot

    def transaction_done(self, final_lsn: int) -> bool:
        """Whether the transaction whose commit record starts at *final_lsn* (pgoutput's
        Begin) was completely emitted before this position.

        A transaction's commit record starts after the previous commit's end, so any
        transaction committing before ``lsn_commit`` (the end of the last commit processed)
        is done; a snapshot's position (the slot's consistent point, no ``lsn_commit``)
        covers every transaction committed before it."""
        done_before = self.lsn_commit if self.lsn_commit is not None else self.lsn
        return done_before is not None and final_lsn < done_before

    def change_done(self, xid: int, lsn: int, nth_at_lsn: int) -> bool:
        """Whether the *nth_at_lsn*-th change (from 1) at *lsn* of transaction *xid* was
        emitted: this position is inside that transaction, at or after the change."""
        if self.message_type not in CHANGE_TYPES or self.tx_id != xid or self.lsn is None:
            return False
        return (lsn, nth_at_lsn) <= (self.lsn, max(self.lsn_events_processed, 1))
