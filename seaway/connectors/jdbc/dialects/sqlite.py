"""SQLite through the standard library's ``sqlite3`` (``jdbc:sqlite:<path>``)."""

from __future__ import annotations

import datetime as dt
import decimal
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from seaway.connect.api import ConnectError, Schema
from seaway.connect.api.data.logical import Date, Time, Timestamp
from seaway.connectors.jdbc.dialects.base import Column, Dialect

__all__ = ["SqliteDialect"]

_DECIMAL = re.compile(r"(?:NUMERIC|DECIMAL)\s*\(\s*(\d+)\s*(?:,\s*(\d+))?\s*\)", re.IGNORECASE)


class SqliteDialect(Dialect):
    """SQLite: types come from the declared column types, by SQLite's affinity rules (an
    ``INTEGER`` holds 64 bits, so it maps to INT64); timestamps are kept as UTC text."""

    name: ClassVar[str] = "SqliteDatabaseDialect"
    placeholder: ClassVar[str] = "?"
    now_query: ClassVar[str] = "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')"
    SQL_TYPES: ClassVar[dict[str, str]] = {
        "int8": "INTEGER", "int16": "INTEGER", "int32": "INTEGER", "int64": "INTEGER",
        "float32": "REAL", "float64": "REAL", "boolean": "INTEGER", "string": "TEXT",
        "bytes": "BLOB", "decimal": "NUMERIC", Date.LOGICAL_NAME: "DATE",
        Time.LOGICAL_NAME: "TIME", Timestamp.LOGICAL_NAME: "DATETIME",
    }  # fmt: skip

    def open(self) -> Any:
        path = self.url.removeprefix("jdbc:sqlite:")
        return sqlite3.connect(path, check_same_thread=False, isolation_level=None)

    def execute(self, connection: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return connection.execute(sql, tuple(params))

    @contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        connection.execute("BEGIN")
        try:
            yield
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def table_columns(self, connection: Any, table: str) -> dict[str, bool] | None:
        rows = connection.execute(f"PRAGMA table_info({self.quote(table)})").fetchall()
        return {row[1]: not (row[3] or row[5]) for row in rows} or None

    def upsert_sql(self, table: str, keys: Sequence[str], others: Sequence[str]) -> str:
        return "INSERT OR REPLACE" + self.insert_sql(table, keys, others).removeprefix("INSERT")

    def alter_sql(self, table: str, columns: Sequence[tuple[str, Schema]]) -> list[str]:
        """SQLite adds one column per statement."""
        target = self.quote_table(table)
        return [f"ALTER TABLE {target} ADD {self._column_definition(n, s, False)}"
                for n, s in columns]  # fmt: skip

    def bind_column(self, schema: Schema, values: list[Any]) -> list[Any]:
        return [self.bind(schema, v) for v in values]

    def bind(self, schema: Schema | None, value: Any) -> Any:
        """SQLite stores decimals, dates and times as text."""
        value = super().bind(schema, value)
        if isinstance(value, decimal.Decimal):
            return str(value)
        if isinstance(value, (dt.date, dt.time)):
            return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
        return value

    def tables(self, connection: Any) -> list[str]:
        rows = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        ).fetchall()
        return [row[0] for row in rows]

    def columns(self, connection: Any, table: str | None, query: str) -> list[Column]:
        declared: dict[str, tuple[str, bool]] = {}
        source = table
        if table is not None:
            query = f"SELECT * FROM {self.quote_table(table)}"
        else:  # a query: SQLite gives a view's columns their declared types
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
        for index, description in enumerate(cursor.description):
            name = description[0]
            kind, nullable = declared.get(name, ("", True))
            jdbc_type, precision, scale = _jdbc_type(kind)
            column = self.column(name, index, jdbc_type, nullable, precision, scale)
            if column is None:
                raise ConnectError(
                    f"Column {name} has SQL type {kind}, which has no Connect mapping: cast it "
                    "in a query (query=SELECT ...) to a supported type"
                )
            out.append(column)
        return out

    def timestamp_expression(self, column: str) -> str:
        """SQLite keeps timestamps as text: compare them in one canonical form."""
        return f"strftime('%Y-%m-%d %H:%M:%f', {self.quote(column)})"

    def timestamp_param(self, moment: Any) -> str:
        wall: dt.datetime = super().timestamp_param(moment)  # the base's naive wall clock
        return wall.strftime("%Y-%m-%d %H:%M:%S.") + f"{wall.microsecond // 1000:03d}"


def _jdbc_type(declared: str) -> tuple[str, int, int]:
    """``(jdbc type, precision, scale)`` of a declared SQLite type, by its affinity."""
    kind = declared.upper()
    match = _DECIMAL.search(kind)
    if match or kind in ("NUMERIC", "DECIMAL"):
        precision = int(match.group(1)) if match else 0
        return "NUMERIC", precision, int(match.group(2) or 0) if match else 0
    for words, jdbc in (
        (("BOOL",), "BOOLEAN"), (("INT",), "BIGINT"), (("REAL", "FLOA", "DOUB"), "DOUBLE"),
        (("TIMESTAMP", "DATETIME"), "TIMESTAMP"), (("BLOB", "BINARY"), "BYTES"),
    ):  # fmt: skip
        if any(w in kind for w in words):
            return jdbc, 0, 0
    if kind == "DATE":
        return "DATE", 0, 0
    if not kind or any(t in kind for t in ("CHAR", "CLOB", "TEXT")):
        return "STRING", 0, 0
    return kind, 0, 0
