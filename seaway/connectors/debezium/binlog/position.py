"""Where the connector is in the binlog, in Debezium's offset format
(``BinlogOffsetContext.offsetUsingPosition``) and ``source`` fields.

The source partition is ``{"server": <topic.prefix>}``. An offset is the point to restart
from: outside a transaction the end of the last event; inside one the transaction's start
(``file``, ``pos``) with the events (``event``) and rows of the next rows event (``row``)
already emitted, which a restart skips. ``gtids`` is the set of completed transactions
(MariaDB: the last ``domain-server-sequence`` of each domain, as ``@@gtid_binlog_pos``); a
restart with it resumes by GTID, which MariaDB needs (pymysqlreplication cannot start a
MariaDB dump at a file position). ``snapshot`` marks a snapshot still running.

Keys are in the order Java's ``HashMap`` writes them, so the offsets topic holds the bytes
Debezium would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from seaway.connectors.debezium.offsets import SNAPSHOT_INITIAL
from seaway.java.hash_map import hash_map_order, string_hash

__all__ = ["Position", "gtid_covers", "merge_gtid"]


def _mariadb_gtids(text: str | None) -> dict[int, tuple[int, int]]:
    """domain -> (server, sequence) of a MariaDB GTID list ``0-1-5,1-2-9``."""
    out: dict[int, tuple[int, int]] = {}
    for part in (text or "").split(","):
        part = part.strip()
        if part:
            domain, server, sequence = (int(x) for x in part.split("-"))
            out[domain] = (server, sequence)
    return out


def merge_gtid(gtids: str | None, gtid: str) -> str:
    """*gtids* with the MariaDB transaction *gtid* (``d-s-n``) completed."""
    current = _mariadb_gtids(gtids)
    domain, server, sequence = (int(x) for x in gtid.split("-"))
    current[domain] = (server, sequence)
    return ",".join(f"{d}-{s}-{n}" for d, (s, n) in sorted(current.items()))


def gtid_covers(gtids: str | None, other: str | None) -> bool:
    """Whether the MariaDB position *gtids* is at or after *other* in every domain of it."""
    mine = _mariadb_gtids(gtids)
    return all(d in mine and mine[d][1] >= n for d, (_, n) in _mariadb_gtids(other).items())


@dataclass(frozen=True)
class Position:
    """A restart point and the counters to skip after it."""

    file: str
    pos: int
    gtids: str | None = None
    event: int = 0
    row: int = 0
    server_id: int = 0
    ts_sec: int = 0
    snapshot: bool = False

    def offset(self) -> dict[str, Any]:
        """The offset map Debezium stores for this position."""
        items: list[tuple[str, Any]] = [("file", self.file), ("pos", self.pos)]
        if self.gtids:
            items.append(("gtids", self.gtids))
        if self.event:
            items.append(("event", self.event))
        if self.row:
            items.append(("row", self.row))
        if self.server_id:
            items.append(("server_id", self.server_id))
        items.append(("ts_sec", self.ts_sec))
        if self.snapshot:
            items.append(("snapshot", SNAPSHOT_INITIAL))
        return dict(hash_map_order(items, string_hash))

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any]) -> Position:
        """The position an offset map stands for (``snapshot`` of old versions: ``true``)."""
        snapshot = offset.get("snapshot")
        return cls(
            file=str(offset.get("file") or ""),
            pos=int(offset.get("pos") or 0),
            gtids=offset.get("gtids") or None,
            event=int(offset.get("event") or 0),
            row=int(offset.get("row") or 0),
            server_id=int(offset.get("server_id") or 0),
            ts_sec=int(offset.get("ts_sec") or 0),
            snapshot=snapshot not in (None, False, "false", "FALSE"),
        )

    def at_or_after(self, other: Position) -> bool:
        """Whether this position is at or past *other* (``BinlogHistoryRecordComparator``:
        GTIDs when both have them, else file, position, event and row)."""
        if self.gtids and other.gtids:
            return gtid_covers(self.gtids, other.gtids)
        mine = (self.file, self.pos, self.event, self.row)
        return mine >= (other.file, other.pos, other.event, other.row)

    def with_counters(self, event: int, row: int) -> Position:
        """This transaction start with *event* events and *row* rows emitted."""
        return replace(self, event=event, row=row)
