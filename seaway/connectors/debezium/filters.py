"""Which databases, tables and columns are captured: Debezium's include and exclude lists,
regular expressions matched against the whole name and ignoring case (``db``, ``db.table``,
``db.table.column``). The server's own databases are never captured
(``table.ignore.builtin``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from seaway.connectors.debezium.config import Settings

__all__ = ["BUILTIN_DATABASES", "Filters"]

BUILTIN_DATABASES: Final = frozenset({"mysql", "performance_schema", "sys", "information_schema"})


def _compiled(patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


def _kept(
    name: str, include: tuple[re.Pattern[str], ...], exclude: tuple[re.Pattern[str], ...]
) -> bool:
    if include:
        return any(p.fullmatch(name) for p in include)
    return not any(p.fullmatch(name) for p in exclude)


@dataclass(frozen=True)
class Filters:
    """The compiled lists of a configuration."""

    database_include: tuple[re.Pattern[str], ...] = ()
    database_exclude: tuple[re.Pattern[str], ...] = ()
    table_include: tuple[re.Pattern[str], ...] = ()
    table_exclude: tuple[re.Pattern[str], ...] = ()
    column_include: tuple[re.Pattern[str], ...] = ()
    column_exclude: tuple[re.Pattern[str], ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> Filters:
        """The filters *settings* configure."""
        return cls(
            _compiled(settings.database_include),
            _compiled(settings.database_exclude),
            _compiled(settings.table_include),
            _compiled(settings.table_exclude),
            _compiled(settings.column_include),
            _compiled(settings.column_exclude),
        )

    def database(self, db: str) -> bool:
        """Whether tables of *db* may be captured."""
        return db.lower() not in BUILTIN_DATABASES and _kept(
            db, self.database_include, self.database_exclude
        )

    def table(self, db: str, table: str) -> bool:
        """Whether ``db.table`` is captured."""
        return self.database(db) and _kept(f"{db}.{table}", self.table_include, self.table_exclude)

    def column(self, db: str, table: str, column: str) -> bool:
        """Whether the column is part of the table's events."""
        return _kept(f"{db}.{table}.{column}", self.column_include, self.column_exclude)
