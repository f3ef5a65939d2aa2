"""PostgreSQL through psycopg 3 (``jdbc:postgresql://``), libpq's C client underneath."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, Final

from seaway.connect.api.data.logical import Date, Time, Timestamp
from seaway.connectors.jdbc.dialects.base import Column, ConnectionSettings, Dialect

__all__ = ["PostgresDialect"]

log = logging.getLogger(__name__)

# Type OIDs -> JDBC types, as pgjdbc reports them (json, jsonb and uuid read as strings, as
# Confluent's PostgreSQL dialect does).
_TYPES: dict[int, str] = {
    16: "BOOLEAN", 1560: "BOOLEAN", 21: "SMALLINT", 23: "INTEGER", 20: "BIGINT", 700: "REAL",
    701: "DOUBLE", 1700: "NUMERIC", 18: "STRING", 19: "STRING", 25: "STRING", 1042: "STRING",
    1043: "STRING", 114: "STRING", 3802: "STRING", 2950: "STRING", 17: "BYTES", 1082: "DATE",
    1083: "TIME", 1266: "TIME", 1114: "TIMESTAMP", 1184: "TIMESTAMP",
}  # fmt: skip
_JSON = (114, 3802)
_UNSET_SCALE = 127  # pgjdbc's scale of an unconstrained numeric


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


_STAGE: Final = "__seaway_stage"
"""The temporary table an upsert's rows are copied into (dropped in the transaction)."""
_ORDINAL: Final = "__seaway_ordinal"


class PostgresDialect(Dialect):
    """PostgreSQL: pgjdbc's type mapping, tables qualified as ``schema.table``, the session
    clock in ``db.timezone``."""

    name: ClassVar[str] = "PostgreSqlDatabaseDialect"
    SQL_TYPES: ClassVar[dict[str, str]] = {
        "int8": "SMALLINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT",
        "float32": "REAL", "float64": "DOUBLE PRECISION", "boolean": "BOOLEAN", "string": "TEXT",
        "bytes": "BYTEA", "decimal": "DECIMAL", Date.LOGICAL_NAME: "DATE",
        Time.LOGICAL_NAME: "TIME", Timestamp.LOGICAL_NAME: "TIMESTAMP",
    }  # fmt: skip

    def open(self) -> Any:
        import psycopg

        s = ConnectionSettings.parse(self.url, self.user, self.password)
        options = [f"-c TimeZone={self.timezone.key}"]
        if "currentSchema" in s.params:
            options.append(f"-c search_path={s.params['currentSchema']}")
        extra: dict[str, Any] = {}
        if "sslmode" in s.params or s.params.get("ssl") == "true":
            extra["sslmode"] = s.params.get("sslmode", "require")
        if "ApplicationName" in s.params:
            extra["application_name"] = s.params["ApplicationName"]
        return psycopg.connect(
            host=s.host, port=s.port or 5432, dbname=s.database or None, user=s.user,
            password=s.password, autocommit=True, options=" ".join(options),
            connect_timeout=int(s.params.get("connectTimeout", "10")), **extra,
        )  # fmt: skip

    def tables(self, connection: Any) -> list[str]:
        cursor = self.execute(connection,
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', "
            "'information_schema') ORDER BY 1")  # fmt: skip
        return [row[0] for row in cursor.fetchall()]

    def columns(self, connection: Any, table: str | None, query: str) -> list[Column]:
        not_null: set[str] = set()
        query = self.literal_sql(query)
        if table:
            query = f"SELECT * FROM {self.quote_table(table)}"
            sql = ("SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass "
                   "AND attnum > 0 AND NOT attisdropped AND attnotnull")  # fmt: skip
            rows = self.execute(connection, sql, [self.quote_table(table)]).fetchall()
            not_null = {row[0] for row in rows}
        cursor = self.execute(connection, f"SELECT * FROM ({query}) AS __seaway_q LIMIT 0")
        out: list[Column] = []
        for index, description in enumerate(cursor.description or []):
            oid, name = description.type_code, description.name
            jdbc_type = _TYPES.get(oid)
            if jdbc_type is None:
                log.warning("Skipping column %s of %s: its PostgreSQL type (oid %d) has no "
                            "Connect mapping", name, table or "the query", oid)  # fmt: skip
                continue
            precision, scale = description.precision or 0, description.scale or 0
            if jdbc_type == "NUMERIC" and description.precision is None:
                scale = _UNSET_SCALE
            column = self.column(name, index, jdbc_type, name not in not_null, precision, scale)
            if column is not None and oid in _JSON:
                column = Column(name, index, column.schema, _json_text)
            if column is not None:
                out.append(column)
        return out

    @contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        with connection.transaction():
            yield

    def upsert_sql(self, table: str, keys: Sequence[str], others: Sequence[str]) -> str:
        return f"{self.insert_sql(table, keys, others)} {self._on_conflict(keys, others)}"

    def _on_conflict(self, keys: Sequence[str], others: Sequence[str]) -> str:
        conflict = self.quote_list(keys)
        if not others:
            return f"ON CONFLICT ({conflict}) DO NOTHING"
        sets = ", ".join(f"{self.quote(c)}=EXCLUDED.{self.quote(c)}" for c in others)
        return f"ON CONFLICT ({conflict}) DO UPDATE SET {sets}"

    def copy_rows(
        self, connection: Any, table: str, keys: Sequence[str], others: Sequence[str],
        rows: Sequence[Sequence[Any]], upsert: bool,
    ) -> bool:  # fmt: skip
        """``COPY`` into the table, or for an upsert into a temporary table and from there
        one ``INSERT ... SELECT ... ON CONFLICT`` of each key's last row: the rows the
        statements one by one would leave."""
        target, names = self.quote_table(table), self.quote_list((*keys, *others))
        cursor = connection.cursor()
        try:
            if not upsert:
                with cursor.copy(f"COPY {target} ({names}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                return True
            cursor.execute(f"CREATE TEMPORARY TABLE {_STAGE} ON COMMIT DROP AS SELECT {names}, "
                           f"0::bigint AS {_ORDINAL} FROM {target} WITH NO DATA")  # fmt: skip
            with cursor.copy(f"COPY {_STAGE} FROM STDIN") as copy:
                for ordinal, row in enumerate(rows):
                    copy.write_row((*row, ordinal))
            conflict = self.quote_list(keys)
            cursor.execute(
                f"INSERT INTO {target} ({names}) SELECT DISTINCT ON ({conflict}) {names} "
                f"FROM {_STAGE} ORDER BY {conflict}, {_ORDINAL} DESC "
                f"{self._on_conflict(keys, others)}"
            )
            cursor.execute(f"DROP TABLE {_STAGE}")
            return True
        finally:
            cursor.close()
