"""Which tables a DDL statement of the binlog changes.

Debezium parses DDL with a full MySQL grammar to update its table model. Seaway only needs
to know which tables a statement touches and how (``CREATE``, ``ALTER``, ``DROP``): it then
reads the table's new columns from the server (:mod:`.database`), and the rows themselves
carry their column names (``binlog_row_metadata=FULL``), so a model read after a later DDL is
noticed and not used for older rows (``streaming``).
"""

from __future__ import annotations

import re
from typing import Final

from seaway.connectors.debezium.binlog.tables import TableId

__all__ = ["TableDdl", "tables_of"]

TableDdl = tuple[str, TableId]
"""(``CREATE``/``ALTER``/``DROP``, table)."""

_NAME: Final = r"(?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?"
_COMMENTS: Final = re.compile(r"/\*.*?\*/|--[^\n]*|#[^\n]*", re.DOTALL)
_CREATE: Final = re.compile(
    rf"^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?({_NAME})",
    re.IGNORECASE,
)
_ALTER: Final = re.compile(
    rf"^ALTER\s+(?:ONLINE\s+)?(?:IGNORE\s+)?TABLE\s+(?:IF\s+EXISTS\s+)?({_NAME})", re.IGNORECASE
)
_DROP: Final = re.compile(
    r"^DROP\s+(?:TEMPORARY\s+)?TABLES?\s+(?:IF\s+EXISTS\s+)?(.*)$", re.IGNORECASE | re.DOTALL
)
_RENAME: Final = re.compile(r"^RENAME\s+TABLES?\s+(.*)$", re.IGNORECASE | re.DOTALL)
_TRUNCATE: Final = re.compile(rf"^TRUNCATE\s+(?:TABLE\s+)?({_NAME})", re.IGNORECASE)
_NAMES: Final = re.compile(_NAME)


def _split_name(name: str, database: str) -> TableId:
    """(db, table) of ``db.t``, ```db`.`t```, ``t`` (in *database*)."""
    tokens = re.findall(r"`((?:[^`]|``)+)`|([\w$]+)", name)
    parts = [(q or p).replace("``", "`") for q, p in tokens]
    if len(parts) >= 2:
        return parts[0], parts[1]
    return database, parts[0]


def tables_of(ddl: str, database: str) -> list[TableDdl]:
    """The tables *ddl* (run in *database*) creates, alters or drops; a rename drops the old
    name and creates the new one; a truncate changes no table. Unknown statements: []."""
    text = _COMMENTS.sub(" ", ddl).strip()
    if match := _CREATE.match(text):
        return [("CREATE", _split_name(match.group(1), database))]
    if match := _ALTER.match(text):
        table = _split_name(match.group(1), database)
        rest = text[match.end() :]
        renamed = re.search(rf"\bRENAME\s+(?:TO\s+|AS\s+)?({_NAME})\s*(?:,|$)", rest, re.I)
        if renamed:
            return [("DROP", table), ("CREATE", _split_name(renamed.group(1), database))]
        return [("ALTER", table)]
    if match := _DROP.match(text):
        names = re.sub(r"\s+(RESTRICT|CASCADE)\s*$", "", match.group(1), flags=re.IGNORECASE)
        return [("DROP", _split_name(n, database)) for n in _NAMES.findall(names)]
    if match := _RENAME.match(text):
        out: list[TableDdl] = []
        for pair in match.group(1).split(","):
            old, new = re.split(r"\s+TO\s+", pair.strip(), maxsplit=1, flags=re.IGNORECASE)
            out += [("DROP", _split_name(old, database)), ("CREATE", _split_name(new, database))]
        return out
    return []
