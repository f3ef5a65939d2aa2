"""The connector's SQL connections to the server: opening them, checking that the server is set
up for change data capture (with Debezium's error texts), the binlog position, and the
captured tables' models read from ``information_schema``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import pymysql
import pymysql.cursors

from seaway.connect.api import ConnectError
from seaway.connectors.debezium import filters as common
from seaway.connectors.debezium.binlog.config import Settings
from seaway.connectors.debezium.binlog.tables import Column, Table, TableId, column_from_schema

__all__ = [
    "BUILTIN_DATABASES",
    "Filters",
    "binlog_position",
    "captured_tables",
    "check_prerequisites",
    "connect",
    "connection_settings",
    "is_mariadb",
    "read_table",
]

BUILTIN_DATABASES: Final = frozenset({"mysql", "performance_schema", "sys", "information_schema"})
NOT_ROW: Final = (
    "The database server is not configured to use a ROW binlog_format, which is required for "
    "this connector to work properly. Change the database configuration to use a "
    "binlog_format=ROW and restart the connector."
)
NOT_FULL: Final = (
    "The database server is not configured to use a FULL binlog_row_image, which is required "
    "for this connector to work properly. Change the database configuration to use a "
    "binlog_row_image=FULL and restart the connector."
)
NO_BINLOG: Final = (
    "The database server does not write a binary log (log_bin=OFF), which is required for this "
    "connector to work properly. Start it with log-bin and a server-id and restart the connector."
)


@dataclass(frozen=True)
class Filters(common.Filters):
    """The lists on ``db``, ``db.table`` and ``db.table.column``; the server's own databases
    are never captured."""

    @classmethod
    def of(cls, settings: Settings) -> Filters:
        """The filters *settings* configure."""
        return cls.compile(settings.database_include, settings.database_exclude, settings)

    def builtin(self, first: str) -> bool:
        return first.lower() in BUILTIN_DATABASES


def connection_settings(settings: Settings) -> dict[str, Any]:
    """PyMySQL's settings for *settings* (UTC session, utf8mb4)."""
    return {
        "host": settings.hostname,
        "port": settings.port,
        "user": settings.user,
        "passwd": settings.password,
        "charset": "utf8mb4",
        "init_command": "SET time_zone = '+00:00'",
    }


def connect(settings: Settings, **extra: Any) -> Any:
    """A connection, or Debezium's error naming the server and the user."""
    try:
        return pymysql.connect(**connection_settings(settings), **extra)
    except pymysql.MySQLError as error:
        raise ConnectError(
            f"Unable to connect to the database at {settings.hostname}:{settings.port} with "
            f"user '{settings.user}': {error.args[-1] if error.args else error}"
        ) from error


def _variables(connection: Any, *names: str) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + ",".join(["%s"] * len(names)) + ")",
            names,
        )
        return {str(k).lower(): str(v) for k, v in cursor.fetchall()}


def check_prerequisites(connection: Any) -> None:
    """Fail unless the binlog is on, in ROW format with FULL row images."""
    values = _variables(connection, "log_bin", "binlog_format", "binlog_row_image")
    if values.get("log_bin", "OFF").upper() != "ON":
        raise ConnectError(NO_BINLOG)
    if values.get("binlog_format", "").upper() != "ROW":
        raise ConnectError(NOT_ROW)
    if values.get("binlog_row_image", "").upper() != "FULL":
        raise ConnectError(NOT_FULL)


def is_mariadb(connection: Any) -> bool:
    """Whether the server is MariaDB."""
    return "mariadb" in str(connection.get_server_info()).lower()


def binlog_position(connection: Any, mariadb: bool) -> tuple[str, int, str | None]:
    """The binlog file and position and the GTID set of the server now (under the lock)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW MASTER STATUS")
        row = cursor.fetchone()
        if row is None:
            raise ConnectError(NO_BINLOG)
        gtids = row[4] if not mariadb and len(row) > 4 else None
        if mariadb:
            cursor.execute("SELECT @@global.gtid_binlog_pos")
            gtids = cursor.fetchone()[0]
    return str(row[0]), int(row[1]), (str(gtids).replace("\n", "") or None) if gtids else None


def captured_tables(connection: Any, filters: Filters) -> list[TableId]:
    """The base tables the filters capture, by database and name."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
            "WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME"
        )
        return [(db, name) for db, name in cursor.fetchall() if filters.table(db, name)]


def read_table(connection: Any, table_id: TableId) -> Table | None:
    """The table's model and CREATE TABLE statement as the server has them now (None when the
    table does not exist)."""
    db, name = table_id
    with connection.cursor(pymysql.cursors.DictCursor) as cursor:
        cursor.execute(
            "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
            "ORDER BY ORDINAL_POSITION",
            (db, name),
        )
        columns: tuple[Column, ...] = tuple(column_from_schema(r) for r in cursor.fetchall())
        if not columns:
            return None
        cursor.execute(
            "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = %s "
            "AND TABLE_NAME = %s AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION",
            (db, name),
        )
        key = tuple(r["COLUMN_NAME"] for r in cursor.fetchall())
        cursor.execute(
            "SELECT CCSA.CHARACTER_SET_NAME FROM information_schema.TABLES T JOIN "
            "information_schema.COLLATION_CHARACTER_SET_APPLICABILITY CCSA ON "
            "CCSA.COLLATION_NAME = T.TABLE_COLLATION WHERE T.TABLE_SCHEMA = %s AND "
            "T.TABLE_NAME = %s",
            (db, name),
        )
        charset = cursor.fetchone()
        try:
            cursor.execute(f"SHOW CREATE TABLE `{db}`.`{name}`")
            ddl = cursor.fetchone()["Create Table"]
        except pymysql.MySQLError:
            ddl = None
    return Table(table_id, columns, key, charset["CHARACTER_SET_NAME"] if charset else None, ddl)
