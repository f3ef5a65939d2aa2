"""Which tables and columns are captured: Debezium's include and exclude lists, regular
expressions matched against the whole name and ignoring case, on the connector's first level
(a database for the binlog, a schema for PostgreSQL), ``<first>.<table>`` and
``<first>.<table>.<column>``. The server's own databases or schemas are never captured
(``table.ignore.builtin``): each connector's subclass names them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Self

from seaway.connectors.debezium.config import Settings

__all__ = ["Filters"]


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

    first_include: tuple[re.Pattern[str], ...] = ()
    first_exclude: tuple[re.Pattern[str], ...] = ()
    table_include: tuple[re.Pattern[str], ...] = ()
    table_exclude: tuple[re.Pattern[str], ...] = ()
    column_include: tuple[re.Pattern[str], ...] = ()
    column_exclude: tuple[re.Pattern[str], ...] = ()

    @classmethod
    def compile(
        cls, first_include: Iterable[str], first_exclude: Iterable[str], settings: Settings
    ) -> Self:
        """The filters of the first level's lists and *settings*' table and column lists."""
        return cls(
            _compiled(first_include),
            _compiled(first_exclude),
            _compiled(settings.table_include),
            _compiled(settings.table_exclude),
            _compiled(settings.column_include),
            _compiled(settings.column_exclude),
        )

    def builtin(self, first: str) -> bool:
        """Whether *first* is the server's own (never captured); none by default."""
        return False

    def first(self, first: str) -> bool:
        """Whether tables of the database or schema *first* may be captured."""
        return not self.builtin(first) and _kept(first, self.first_include, self.first_exclude)

    def table(self, first: str, table: str) -> bool:
        """Whether ``first.table`` is captured."""
        return self.first(first) and _kept(
            f"{first}.{table}", self.table_include, self.table_exclude
        )

    def column(self, first: str, table: str, column: str) -> bool:
        """Whether the column is part of the table's events."""
        return _kept(f"{first}.{table}.{column}", self.column_include, self.column_exclude)
