"""What differs between databases: connecting from a JDBC URL, listing tables, quoting names,
mapping column types to Connect schemas and values, and timestamps in queries.

Connections use Python's DB-API drivers. ``jdbc:sqlite:<path>`` uses the standard library's
``sqlite3``; other URLs are refused with an error naming what is supported.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.api import ConnectError, Schema
from seaway.connect.api.data import SchemaBuilder
from seaway.connect.api.data.logical import Date, Decimal, Timestamp

__all__ = ["Column", "SqliteDialect", "dialect_for"]

_DECIMAL = re.compile(r"(?:NUMERIC|DECIMAL)\s*\(\s*(\d+)\s*(?:,\s*(\d+))?\s*\)", re.IGNORECASE)


@dataclass(frozen=True)
class Column:
    """A column of a table or query: its name, Connect schema and how values convert."""

    name: str
    schema: Schema
    convert: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


class SqliteDialect:
    """SQLite through ``sqlite3`` (``jdbc:sqlite:<path>``)."""

    name: Final = "SqliteDatabaseDialect"

    def __init__(self, url: str, numeric_mapping: str | None) -> None:
        self.path = url.removeprefix("jdbc:sqlite:")
        self.numeric_mapping = (numeric_mapping or "none").lower()

    def connect(self) -> Any:
        try:
            return sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as error:
            raise ConnectError(f"Cannot open {self.path}: {error}") from None

    @staticmethod
    def quote(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def tables(self, connection: Any) -> list[str]:
        rows = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        ).fetchall()
        return [row[0] for row in rows]

    def qualified(self, table: str) -> str:
        """The table's name as offsets and logs give it."""
        return table

    def not_null(self, connection: Any, table: str, column: str) -> bool | None:
        """Whether *column* of *table* is NOT NULL (None when there is no such column)."""
        for row in connection.execute(f"PRAGMA table_info({self.quote(table)})"):
            if row[1] == column:
                return bool(row[3]) or bool(row[5])  # notnull, or part of the primary key
        return None

    def columns(self, connection: Any, table: str | None, query: str) -> list[Column]:
        """The columns of ``query`` (a SELECT over *table* or the user's query)."""
        declared: dict[str, tuple[str, bool]] = {}
        source = table
        if table is None:  # a query: SQLite gives a view's columns their declared types
            source = "__seaway_query"
            connection.execute(f"CREATE TEMP VIEW IF NOT EXISTS {source} AS {query}")
        try:
            for row in connection.execute(f"PRAGMA table_info({self.quote(source or '')})"):
                declared[row[1]] = (str(row[2] or ""), not (row[3] or row[5]))
        finally:
            if table is None:
                connection.execute(f"DROP VIEW IF EXISTS {source}")
        cursor = connection.execute(f"SELECT * FROM ({query}) LIMIT 0")
        out = []
        for description in cursor.description:
            name = description[0]
            kind, nullable = declared.get(name, ("", True))
            out.append(self._column(name, kind, nullable))
        return out

    def _column(self, name: str, declared: str, nullable: bool) -> Column:
        kind = declared.upper()
        convert: Callable[[Any], Any] = _same
        match = _DECIMAL.search(kind)
        if match or kind in ("NUMERIC", "DECIMAL"):
            precision = int(match.group(1)) if match else 0
            scale = int(match.group(2) or 0) if match else 0
            if self.numeric_mapping.startswith("best_fit") and scale == 0 and 0 < precision < 19:
                builder = SchemaBuilder.int64()
                convert = int
            elif self.numeric_mapping.startswith("best_fit"):
                builder = SchemaBuilder.float64()
                convert = float
            else:
                builder = Decimal.builder(scale)
                quantum = decimal.Decimal(1).scaleb(-scale)

                def convert(value: Any, quantum: decimal.Decimal = quantum) -> Any:
                    return decimal.Decimal(str(value)).quantize(quantum)
        elif "BOOL" in kind:
            builder, convert = SchemaBuilder.boolean(), bool
        elif "INT" in kind:
            builder = SchemaBuilder.int64()
        elif any(t in kind for t in ("REAL", "FLOA", "DOUB")):
            builder, convert = SchemaBuilder.float64(), float
        elif "TIMESTAMP" in kind or "DATETIME" in kind:
            builder, convert = Timestamp.builder(), _timestamp
        elif kind == "DATE":
            builder, convert = Date.builder(), _date
        elif "BLOB" in kind or "BINARY" in kind:
            builder, convert = SchemaBuilder.bytes(), bytes
        elif not kind or any(t in kind for t in ("CHAR", "CLOB", "TEXT")):
            builder, convert = SchemaBuilder.string(), str
        else:
            raise ConnectError(
                f"Column {name} has SQL type {declared}, which has no Connect mapping: cast it "
                "in a query (query=SELECT ...) to a supported type"
            )
        if nullable:
            builder.optional()
        return Column(name, builder.build(), convert)

    def timestamp_expression(self, column: str) -> str:
        """A timestamp column as comparable text (SQLite keeps timestamps as text)."""
        return f"strftime('%Y-%m-%d %H:%M:%f', {self.quote(column)})"

    @staticmethod
    def timestamp_param(millis: int) -> str:
        """A timestamp as this database compares it (SQLite: ISO text, UTC)."""
        moment = dt.datetime.fromtimestamp(millis / 1000, dt.UTC)
        return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"

    @staticmethod
    def timestamp_millis(value: Any) -> int:
        """A timestamp column's value as epoch ms."""
        stamp = _timestamp(value)
        return int(stamp.timestamp() * 1000)

    def now_millis(self, connection: Any) -> int:
        """The database's clock, in epoch ms."""
        (text,) = connection.execute("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')").fetchone()
        return self.timestamp_millis(text)


def _timestamp(value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, (int, float)):
        return dt.datetime.fromtimestamp(value / 1000, dt.UTC)
    text = str(value).strip().replace("T", " ").removesuffix("Z")
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def _date(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def dialect_for(url: str, numeric_mapping: str | None = None) -> SqliteDialect:
    """The dialect of a ``connection.url``."""
    if url.startswith("jdbc:sqlite:"):
        return SqliteDialect(url, numeric_mapping)
    raise ConnectError(
        f"connection.url {url!r} is not supported: Seaway's JDBC source connects to "
        "jdbc:sqlite:<path> databases so far (MySQL/MariaDB and PostgreSQL are not yet "
        "supported)"
    )
