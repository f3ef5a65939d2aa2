"""A decoder of PostgreSQL's ``pgoutput`` logical replication messages, protocol version 1
(PostgreSQL's "Logical Replication Message Formats").

Written here rather than taken from a library: psycopg 3, Seaway's PostgreSQL driver, has no
replication API (psycopg issue #71), psycopg2 is not a dependency, and ``pypgoutput`` is
unmaintained. Version 1 is small: Begin, Commit, Origin, Relation, Type, Insert, Update,
Delete, Truncate and (PostgreSQL 14+) Message. Tuple columns come as text (``t``), null
(``n``) or unchanged TOAST (``u``); binary (``b``) needs protocol option ``binary``, which
Seaway never asks for. Timestamps are microseconds since 2000-01-01 UTC.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

__all__ = [
    "PG_EPOCH_MICROS",
    "Begin",
    "Commit",
    "Delete",
    "Insert",
    "LogicalMessage",
    "Message",
    "Origin",
    "Relation",
    "RelationColumn",
    "Truncate",
    "TupleValue",
    "TypeMessage",
    "Update",
    "decode",
    "format_lsn",
    "parse_lsn",
]

PG_EPOCH_MICROS: Final = 946_684_800_000_000
"""2000-01-01T00:00:00Z in microseconds since the Unix epoch."""

UNCHANGED_TOAST: Final = object()
"""The value of a ``u`` column: an unchanged TOASTed value the server did not send."""

TupleValue = str | bytes | None | object


def parse_lsn(text: str) -> int:
    """``'0/15265C0'`` as an integer."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


def format_lsn(lsn: int) -> str:
    """An LSN as PostgreSQL writes it (``0/15265C0``)."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


@dataclass(frozen=True)
class Begin:
    final_lsn: int
    commit_ts_us: int  # Unix epoch microseconds
    xid: int


@dataclass(frozen=True)
class Commit:
    flags: int
    commit_lsn: int
    end_lsn: int
    commit_ts_us: int


@dataclass(frozen=True)
class Origin:
    commit_lsn: int
    name: str


@dataclass(frozen=True)
class RelationColumn:
    key: bool  # part of the replica identity
    name: str
    type_oid: int
    type_modifier: int


@dataclass(frozen=True)
class Relation:
    oid: int
    namespace: str
    name: str
    replica_identity: str  # d(efault), n(othing), f(ull), i(ndex)
    columns: tuple[RelationColumn, ...]


@dataclass(frozen=True)
class TypeMessage:
    oid: int
    namespace: str
    name: str


@dataclass(frozen=True)
class Insert:
    relation: int
    new: tuple[TupleValue, ...]


@dataclass(frozen=True)
class Update:
    relation: int
    old: tuple[TupleValue, ...] | None  # key columns ('K') or the whole old row ('O')
    old_kind: str | None
    new: tuple[TupleValue, ...]


@dataclass(frozen=True)
class Delete:
    relation: int
    old: tuple[TupleValue, ...]
    old_kind: str  # 'K' (replica identity key columns, others null) or 'O' (full row)


@dataclass(frozen=True)
class Truncate:
    options: int  # 1: CASCADE, 2: RESTART IDENTITY
    relations: tuple[int, ...]


@dataclass(frozen=True)
class LogicalMessage:
    transactional: bool
    lsn: int
    prefix: str
    content: bytes


Message = (
    Begin
    | Commit
    | Origin
    | Relation
    | TypeMessage
    | Insert
    | Update
    | Delete
    | Truncate
    | LogicalMessage
)

_BEGIN: Final = struct.Struct(">QqI")
_COMMIT: Final = struct.Struct(">BQQq")
_U32: Final = struct.Struct(">I")
_I32: Final = struct.Struct(">i")
_U16: Final = struct.Struct(">H")
_U64: Final = struct.Struct(">Q")


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 1) -> None:
        self.data = data
        self.pos = pos

    def byte(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return value

    def char(self) -> str:
        return chr(self.byte())

    def unpack(self, fmt: struct.Struct) -> tuple[int, ...]:
        values = fmt.unpack_from(self.data, self.pos)
        self.pos += fmt.size
        return values

    def u16(self) -> int:
        return self.unpack(_U16)[0]

    def u32(self) -> int:
        return self.unpack(_U32)[0]

    def i32(self) -> int:
        return self.unpack(_I32)[0]

    def u64(self) -> int:
        return self.unpack(_U64)[0]

    def string(self) -> str:
        end = self.data.index(b"\x00", self.pos)
        text = self.data[self.pos : end].decode()
        self.pos = end + 1
        return text

    def raw(self, n: int) -> bytes:
        value = self.data[self.pos : self.pos + n]
        self.pos += n
        return value

    def tuple(self) -> tuple[TupleValue, ...]:
        count = self.u16()
        values: list[TupleValue] = []
        for _ in range(count):
            kind = self.char()
            if kind == "n":
                values.append(None)
            elif kind == "u":
                values.append(UNCHANGED_TOAST)
            elif kind == "t":
                values.append(self.raw(self.u32()).decode())
            elif kind == "b":
                values.append(self.raw(self.u32()))
            else:
                raise ValueError(f"Unknown pgoutput tuple column kind {kind!r}")
        return tuple(values)


def decode(data: bytes) -> Message:
    """One pgoutput message (the ``data`` of a logical decoding row or XLogData)."""
    data = bytes(data)
    kind = chr(data[0])
    r = _Reader(data)
    if kind == "B":
        final_lsn, ts, xid = r.unpack(_BEGIN)
        return Begin(final_lsn, ts + PG_EPOCH_MICROS, xid)
    if kind == "C":
        flags, commit_lsn, end_lsn, ts = r.unpack(_COMMIT)
        return Commit(flags, commit_lsn, end_lsn, ts + PG_EPOCH_MICROS)
    if kind == "I":
        relation = r.u32()
        if r.char() != "N":
            raise ValueError("Malformed pgoutput Insert message")
        return Insert(relation, r.tuple())
    if kind == "U":
        relation = r.u32()
        tag = r.char()
        old: tuple[TupleValue, ...] | None = None
        old_kind = None
        if tag in ("K", "O"):
            old_kind = tag
            old = r.tuple()
            tag = r.char()
        if tag != "N":
            raise ValueError("Malformed pgoutput Update message")
        return Update(relation, old, old_kind, r.tuple())
    if kind == "D":
        relation = r.u32()
        tag = r.char()
        if tag not in ("K", "O"):
            raise ValueError("Malformed pgoutput Delete message")
        return Delete(relation, r.tuple(), tag)
    if kind == "R":
        oid = r.u32()
        namespace = r.string() or "pg_catalog"  # the protocol sends "" for pg_catalog
        name = r.string()
        identity = r.char()
        columns = []
        for _ in range(r.u16()):
            flags = r.byte()
            column_name = r.string()
            type_oid = r.u32()
            columns.append(RelationColumn(bool(flags & 1), column_name, type_oid, r.i32()))
        return Relation(oid, namespace, name, identity, tuple(columns))
    if kind == "Y":
        oid = r.u32()
        return TypeMessage(oid, r.string(), r.string())
    if kind == "O":
        lsn = r.u64()
        return Origin(lsn, r.string())
    if kind == "T":
        count = r.u32()
        options = r.byte()
        return Truncate(options, tuple(r.u32() for _ in range(count)))
    if kind == "M":
        transactional = bool(r.byte())
        lsn = r.u64()
        prefix = r.string()
        return LogicalMessage(transactional, lsn, prefix, r.raw(r.u32()))
    raise ValueError(f"Unknown pgoutput message type {kind!r}")
