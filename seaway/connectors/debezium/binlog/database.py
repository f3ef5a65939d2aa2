"""The connector's SQL connections to the server: opening them, checking that the server is set
up for change data capture (with Debezium's error texts), the binlog position, and the
captured tables' models read from ``information_schema``.

Like Debezium, the connector's ``validate()`` only tests the connection
(:func:`connection_error`); the task checks the rest at start (:func:`check_prerequisites`):
the binlog on, in ROW format with FULL row images and row metadata, and the grants change data
capture needs, each failing with the setting and how to fix it."""

from __future__ import annotations

import re
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
    "connection_error",
    "connection_settings",
    "is_mariadb",
    "missing_from_grants",
    "missing_privileges",
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
NOT_FULL_METADATA: Final = (
    "The database server is not configured to use a FULL binlog_row_metadata, which Seaway's "
    "binlog reader needs to name the columns of each row. Change the database configuration "
    "to use a binlog_row_metadata=FULL and restart the connector."
)
NO_BINLOG: Final = (
    "The database server is not configured to write a binlog (log_bin=OFF), which is required "
    "for this connector to work properly. Start the server with the binlog on and a server id "
    "(log-bin=mysql-bin and server-id=1 in its configuration) and restart the connector."
)
PRIVILEGES: Final = {
    "SELECT": ("to read the captured tables", ("SELECT",)),
    "REPLICATION SLAVE": ("to read the binlog", ("REPLICATION SLAVE", "REPLICATION REPLICA")),
    "REPLICATION CLIENT": (
        "to read the binlog position with SHOW MASTER STATUS",
        ("REPLICATION CLIENT", "BINLOG MONITOR", "SUPER"),
    ),
}
"""The privileges the connector checks: why it needs each, and the grants that give it."""
_GRANT: Final = re.compile(r"GRANT (?P<privileges>.+?) ON (?P<scope>\S+) TO ", re.IGNORECASE)
_MYSQL_ROLE: Final = re.compile(r"GRANT `[^`]*`@`[^`]*` TO ", re.IGNORECASE)


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


def _unable(hostname: str, port: int, user: str, detail: str) -> str:
    """Debezium's text for a connection that failed, with what failed."""
    return f"Unable to connect to the database at {hostname}:{port} with user '{user}': {detail}"


def _reason(error: pymysql.MySQLError) -> str:
    return str(error.args[-1]) if error.args else str(error)


def connect(settings: Settings, **extra: Any) -> Any:
    """A connection, or Debezium's error naming the server and the user."""
    try:
        return pymysql.connect(**connection_settings(settings), **extra)
    except pymysql.MySQLError as error:
        raise ConnectError(
            _unable(settings.hostname, settings.port, settings.user, _reason(error))
        ) from error


def connection_error(hostname: str, port: int, user: str, password: str) -> str | None:
    """What Debezium's ``validateConnection`` checks: None when a connection opens (within
    10 s) and runs ``SELECT version()``, else the server's error."""
    try:
        connection = pymysql.connect(
            host=hostname, port=port, user=user, passwd=password, connect_timeout=10
        )
        with connection, connection.cursor() as cursor:
            cursor.execute("SELECT version()")
    except pymysql.MySQLError as error:
        return _reason(error)
    return None


def _variables(connection: Any, *names: str) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SHOW GLOBAL VARIABLES WHERE Variable_name IN (" + ",".join(["%s"] * len(names)) + ")",
            names,
        )
        return {str(k).lower(): str(v) for k, v in cursor.fetchall()}


def check_prerequisites(connection: Any) -> None:
    """Fail unless the binlog is on, in ROW format with FULL row images and row metadata
    (where the server has the setting), and the user has the :data:`PRIVILEGES`. On failure
    *connection* is closed: the task that opened it fails to start and is never stopped."""
    try:
        _check_server(connection)
    except ConnectError:
        connection.close()
        raise


def _check_server(connection: Any) -> None:
    values = _variables(
        connection, "log_bin", "binlog_format", "binlog_row_image", "binlog_row_metadata"
    )
    if values.get("log_bin", "OFF").upper() != "ON":
        raise ConnectError(NO_BINLOG)
    if values.get("binlog_format", "").upper() != "ROW":
        raise ConnectError(NOT_ROW)
    if values.get("binlog_row_image", "").upper() != "FULL":
        raise ConnectError(NOT_FULL)
    if values.get("binlog_row_metadata", "FULL").upper() != "FULL":
        raise ConnectError(NOT_FULL_METADATA)
    missing = missing_privileges(connection)
    if missing:
        user = connection.user  # PyMySQL keeps it encoded
        user = user.decode() if isinstance(user, bytes) else str(user)
        detail = _privileges_message(missing, _account(connection))
        raise ConnectError(_unable(connection.host, connection.port, user, detail))


def missing_privileges(connection: Any) -> list[str]:
    """The :data:`PRIVILEGES` the user lacks, per its ``SHOW GRANTS``
    (:func:`missing_from_grants`)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GRANTS")
            return missing_from_grants([str(row[0]) for row in cursor.fetchall()])
    except pymysql.MySQLError:
        return []


def missing_from_grants(lines: list[str]) -> list[str]:
    """The :data:`PRIVILEGES` that the ``SHOW GRANTS`` *lines* do not give on ``*.*`` (MariaDB
    lists the active roles' grants too); SELECT on some databases or tables counts. None are
    missing when MySQL lists roles without their grants: it cannot be told."""
    if any(_MYSQL_ROLE.match(line) for line in lines):
        return []
    every = {grant for _, grants in PRIVILEGES.values() for grant in grants}
    granted: set[str] = set()
    for match in filter(None, (_GRANT.match(line) for line in lines)):
        listed = re.sub(r"\([^)]*\)", "", match["privileges"])  # column lists
        names = {name.strip().upper() for name in listed.split(",")}
        if names & {"ALL", "ALL PRIVILEGES"}:
            names |= every
        granted |= names if match["scope"] == "*.*" else names & {"SELECT"}
    return [name for name, (_, grants) in PRIVILEGES.items() if not granted & set(grants)]


def _account(connection: Any) -> str:
    """``'user'@'host'``: the account the server matched (``CURRENT_USER()``)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT CURRENT_USER()")
        user, _, host = str(cursor.fetchone()[0]).rpartition("@")
    return "'{}'@'{}'".format(user.replace("'", "''"), host.replace("'", "''"))


def _privileges_message(missing: list[str], account: str) -> str:
    """Which privileges are missing, what for, and the GRANT that gives them."""
    each = " and ".join(f"the {name} privilege ({PRIVILEGES[name][0]})" for name in missing)
    them = "it" if len(missing) == 1 else "them"
    return (
        f"Access denied; the user lacks {each}. Grant {them} and restart the connector: "
        f"GRANT {', '.join(missing)} ON *.* TO {account}"
    )


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
