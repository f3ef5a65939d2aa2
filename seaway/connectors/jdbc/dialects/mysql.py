"""MySQL and MariaDB through PyMySQL (``jdbc:mysql://``, ``jdbc:mariadb://``).

PyMySQL is pure Python and needs no client library, so the connector installs anywhere;
the C drivers (mysqlclient, MariaDB Connector/Python) need MariaDB's headers to build.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any, ClassVar

from seaway.connect.api import ConnectError
from seaway.connect.api.data.logical import Date, Time, Timestamp
from seaway.connectors.jdbc.dialects.base import Column, ConnectionSettings, Dialect

__all__ = ["MySqlDialect"]

log = logging.getLogger(__name__)

# PyMySQL's FIELD_TYPE codes -> JDBC types, as Connector/J reports them.
_TYPES: dict[int, str] = {
    1: "TINYINT", 2: "SMALLINT", 9: "INTEGER", 3: "INTEGER", 8: "BIGINT", 4: "REAL", 5: "DOUBLE",
    0: "DECIMAL", 246: "DECIMAL", 16: "BIT", 10: "DATE", 14: "DATE", 13: "DATE", 11: "TIME",
    7: "TIMESTAMP", 12: "TIMESTAMP", 15: "STRING", 253: "STRING", 254: "STRING",
    247: "STRING", 248: "STRING", 245: "STRING", 249: "STRING", 250: "STRING", 251: "STRING",
    252: "STRING",
}  # fmt: skip
# An unsigned integer needs the next wider type (Connector/J: TINYINT UNSIGNED -> SMALLINT).
_WIDER = {"TINYINT": "SMALLINT", "SMALLINT": "INTEGER", "INTEGER": "BIGINT"}
_UNSIGNED, _NOT_NULL, _BINARY_CHARSET = 32, 1, 63
# Connector/J URL parameters and what they become for PyMySQL.
_KNOWN = {"useSSL", "sslMode", "connectTimeout", "characterEncoding", "serverTimezone",
          "useUnicode", "allowPublicKeyRetrieval", "permitMysqlScheme"}  # fmt: skip


def _bit(value: Any) -> int:
    return int.from_bytes(value, "big") if isinstance(value, bytes) else int(value)


def _year(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date(int(value), 1, 1)


class MySqlDialect(Dialect):
    """MySQL and MariaDB: Connector/J's type mapping, tables qualified as ``db.table``."""

    name: ClassVar[str] = "MySqlDatabaseDialect"
    quote_char: ClassVar[str] = "`"
    now_query: ClassVar[str] = "SELECT CURRENT_TIMESTAMP(6)"
    current_namespace: ClassVar[str] = "DATABASE()"
    # Confluent's MySQL types, but for a string key: TEXT cannot be a primary key in MySQL
    # (kafka-connect-jdbc#996), so a string key column is VARCHAR(256).
    SQL_TYPES: ClassVar[dict[str, str]] = {
        "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT",
        "float32": "FLOAT", "float64": "DOUBLE", "boolean": "TINYINT", "string": "TEXT",
        "string_key": "VARCHAR(256)", "bytes": "VARBINARY(1024)", "decimal": "DECIMAL(65,{scale})",
        Date.LOGICAL_NAME: "DATE", Time.LOGICAL_NAME: "TIME(3)",
        Timestamp.LOGICAL_NAME: "DATETIME(3)",
    }  # fmt: skip

    def open(self) -> Any:
        import pymysql

        s = ConnectionSettings.parse(self.url, self.user, self.password)
        unknown = sorted(set(s.params) - _KNOWN)
        if unknown:
            log.warning("Ignoring JDBC URL parameters Seaway's MySQL driver has no use for: %s",
                        ", ".join(unknown))  # fmt: skip
        ssl_mode = s.params.get("sslMode", "").upper()
        use_ssl = s.params.get("useSSL", "").lower() == "true" or ssl_mode in (
            "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")  # fmt: skip
        return pymysql.connect(
            host=s.host, port=s.port or 3306, user=s.user or "", password=s.password or "",
            database=s.database or None, autocommit=True,
            charset="utf8mb4" if s.params.get("characterEncoding", "utf8").lower().startswith(
                "utf") else s.params["characterEncoding"],
            connect_timeout=max(1, int(s.params.get("connectTimeout", "10000")) // 1000),
            ssl={} if use_ssl else None,
        )  # fmt: skip

    def tables(self, connection: Any) -> list[str]:
        cursor = self.execute(connection,
            "SELECT CONCAT(table_schema, '.', table_name) FROM information_schema.tables "
            "WHERE table_type = 'BASE TABLE' AND table_schema = COALESCE(DATABASE(), "
            "table_schema) AND table_schema NOT IN ('mysql', 'information_schema', "
            "'performance_schema', 'sys') ORDER BY 1")  # fmt: skip
        return [row[0] for row in cursor.fetchall()]

    def columns(self, connection: Any, table: str | None, query: str) -> list[Column]:
        sql = f"SELECT * FROM {self.quote_table(table)}" if table else self.literal_sql(query)
        cursor = self.execute(connection, f"SELECT * FROM ({sql}) AS __seaway_q LIMIT 0")
        fields = cursor._result.fields if cursor._result else []  # PyMySQL's column metadata
        out: list[Column] = []
        for index, field in enumerate(fields):
            jdbc_type = _TYPES.get(field.type_code)
            if jdbc_type == "STRING" and field.charsetnr == _BINARY_CHARSET:
                jdbc_type = "BYTES"  # BINARY, VARBINARY and BLOB
            if jdbc_type is None:
                log.warning("Skipping column %s of %s: its MySQL type %d has no Connect mapping",
                            field.name, table or "the query", field.type_code)  # fmt: skip
                continue
            unsigned = bool(field.flags & _UNSIGNED)
            if unsigned:
                jdbc_type = _WIDER.get(jdbc_type, jdbc_type)
            precision = 0
            if jdbc_type == "DECIMAL":  # the display length counts a sign and a point
                precision = field.length - (1 if field.scale else 0) - (0 if unsigned else 1)
            nullable = not field.flags & _NOT_NULL
            column = self.column(field.name, index, jdbc_type, nullable, precision, field.scale)
            if column is None:
                raise ConnectError(f"Column {field.name} cannot be mapped")
            if field.type_code == 16:
                column = Column(column.name, index, column.schema, _bit)
            elif field.type_code == 13:
                column = Column(column.name, index, column.schema, _year)
            out.append(column)
        return out

    def upsert_sql(self, table: str, keys: Sequence[str], others: Sequence[str]) -> str:
        updates = ", ".join(f"{self.quote(c)}=VALUES({self.quote(c)})" for c in others or keys)
        return f"{self.insert_sql(table, keys, others)} ON DUPLICATE KEY UPDATE {updates}"
