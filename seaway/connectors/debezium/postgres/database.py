"""What the PostgreSQL connector asks the server: connections, the prerequisites (A.9), the
publication and the replication slot, and the tables' columns.

psycopg 3 has no replication protocol API, so the slot is created on a replication
connection with the raw ``CREATE_REPLICATION_SLOT ... LOGICAL pgoutput EXPORT_SNAPSHOT``
command (simple query protocol, ``pgconn.exec_``), which returns the consistent point and the
exported snapshot's name; the connection stays open until the snapshot transaction has
imported the snapshot (an exported snapshot dies with the walsender's next command).
Streaming uses SQL functions on an ordinary connection (see
:mod:`~seaway.connectors.debezium.postgres.stream`).

The prerequisites, as Debezium checks them: the connector's ``validate()`` connects and
checks ``wal_level`` (:func:`validation_error`) and only logs a role without REPLICATION; the
task checks both at start (:func:`check_prerequisites`) and fails on either, before it
creates the publication or the slot, with the setting and how to fix it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Final

import psycopg
from psycopg import sql

from seaway.connect.api import ConnectError
from seaway.connectors.debezium import filters as common
from seaway.connectors.debezium.postgres.config import Settings
from seaway.connectors.debezium.postgres.pgoutput import parse_lsn
from seaway.connectors.debezium.postgres.types import SESSION_SETTINGS, Column

__all__ = [
    "Filters",
    "TableInfo",
    "captured_tables",
    "check_prerequisites",
    "connect",
    "create_slot",
    "ensure_publication",
    "read_table",
    "slot_flushed_lsn",
    "validation_error",
]

log = logging.getLogger(__name__)

SYSTEM_SCHEMAS: Final = ("pg_catalog", "information_schema", "pg_toast")
PUBLICATION_DISABLED: Final = (
    "Publication autocreation is disabled, please create one and restart the connector."
)


_REPLICATION_GROUPS: Final = ("rds_superuser", "rdsadmin", "rdsrepladmin", "rds_replication")
"""Roles whose members may replicate without the REPLICATION attribute (Amazon RDS)."""
_PLAIN_NAME: Final = re.compile(r"[a-z_][a-z0-9_$]*")
ROLES_QUERY: Final = (
    "SELECT r.rolcanlogin AND (r.rolreplication OR r.rolsuper OR EXISTS (SELECT 1 FROM"
    " pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid"
    " AND g.rolname = ANY(%s))) FROM pg_roles r WHERE r.rolname = current_user"
)


def _open(host: str, port: int, user: str, password: str, dbname: str, **extra: Any) -> Any:
    return psycopg.connect(
        host=host, port=port, user=user, password=password or None, dbname=dbname,
        application_name="seaway-debezium", **extra,
    )  # fmt: skip


def connect(settings: Settings, replication: bool = False, autocommit: bool = True) -> Any:
    """A connection with the session settings the text parser relies on."""
    kwargs: dict[str, Any] = {}
    if replication:
        kwargs["replication"] = "database"
    try:
        connection = _open(settings.hostname, settings.port, settings.user, settings.password,
                           settings.dbname, autocommit=autocommit, **kwargs)  # fmt: skip
    except psycopg.OperationalError as error:
        raise ConnectError(
            f"Unable to connect to the database at {settings.hostname}:{settings.port} with "
            f"user '{settings.user}': {str(error).strip()}"
        ) from error
    if not replication:
        with connection.cursor() as cursor:
            for statement in SESSION_SETTINGS.split("; "):
                cursor.execute(statement)
        if not autocommit:
            connection.commit()
    return connection


def _wal_level_error(connection: Any) -> str | None:
    """Debezium's error for a ``wal_level`` other than ``logical``, with the fix."""
    wal_level = connection.execute("SHOW wal_level").fetchone()[0]
    if wal_level == "logical":
        return None
    return (
        f"Postgres server wal_level property must be 'logical' but is: '{wal_level}'. Set "
        "wal_level = logical (ALTER SYSTEM SET wal_level = logical, or in postgresql.conf) "
        "and restart the server, then the connector."
    )


def _may_replicate(connection: Any) -> bool:
    """Whether the user may LOGIN and replicate: the REPLICATION attribute, a superuser, or
    a member of an RDS replication role (Debezium's ``checkLoginReplicationRoles``)."""
    row = connection.execute(ROLES_QUERY, (list(_REPLICATION_GROUPS),)).fetchone()
    return row is None or bool(row[0])


def _no_replication(user: str) -> str:
    """Debezium's log line for a user without REPLICATION, with what fails and the fix."""
    role = user if _PLAIN_NAME.fullmatch(user) else '"{}"'.format(user.replace('"', '""'))
    return (
        f"Postgres roles LOGIN and REPLICATION are not assigned to user: {user}. The "
        "REPLICATION attribute is required to create and read the connector's replication "
        f"slot: run ALTER ROLE {role} REPLICATION (as a superuser) and restart the connector."
    )


def validation_error(host: str, port: int, user: str, password: str, dbname: str) -> str | None:
    """What Debezium's ``validateConnection`` reports: None when a connection opens (within
    10 s) and ``wal_level`` is ``logical``, else the error; a user without REPLICATION is
    only logged, as Debezium does."""
    try:
        with _open(host, port, user, password, dbname, autocommit=True,
                   connect_timeout=10) as connection:  # fmt: skip
            connection.execute("SELECT version()")
            error = _wal_level_error(connection)
            if error is None and not _may_replicate(connection):
                log.warning("Postgres roles LOGIN and REPLICATION are not assigned to user: %s",
                            user)  # fmt: skip
            return error
    except psycopg.Error as error:
        return str(error).strip()


def check_prerequisites(connection: Any, user: str) -> None:
    """Fail unless ``wal_level=logical`` (Debezium's error) and the user may replicate (where
    Debezium logs and then fails creating the slot). On failure *connection* is closed: the
    task that opened it fails to start and is never stopped."""
    error = _wal_level_error(connection)
    if error is None and not _may_replicate(connection):
        error = _no_replication(user)
    if error is not None:
        connection.close()
        raise ConnectError(error)


@dataclass(frozen=True)
class Filters(common.Filters):
    """The lists on ``schema``, ``schema.table`` and ``schema.table.column``; the system
    schemas are never captured."""

    @classmethod
    def of(cls, settings: Settings) -> Filters:
        """The filters *settings* configure."""
        return cls.compile(settings.schema_include, settings.schema_exclude, settings)

    def builtin(self, first: str) -> bool:
        return first in SYSTEM_SCHEMAS


def captured_tables(connection: Any, filters: Filters) -> list[tuple[str, str]]:
    """The (schema, table) of every ordinary or partitioned table the filters keep."""
    rows = connection.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition"
        " AND n.nspname NOT LIKE 'pg\\_temp\\_%' ORDER BY 1, 2"
    ).fetchall()
    return [(s, t) for s, t in rows if filters.table(s, t)]


@dataclass(frozen=True)
class TableInfo:
    """A table's columns (in order) and primary key from the catalog."""

    schema: str
    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = field(default=())


def read_table(connection: Any, schema: str, name: str) -> TableInfo | None:
    """The table's columns and primary key, or None when it does not exist."""
    rows = connection.execute(
        "SELECT a.attname, a.atttypid, a.atttypmod, NOT a.attnotnull, t.typname, t.typtype,"
        " (SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e"
        "   WHERE e.enumtypid = a.atttypid),"
        " COALESCE((SELECT true FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary"
        "   AND a.attnum = ANY(i.indkey)), false)"
        " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid"
        " WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped"
        " ORDER BY a.attnum",
        (schema, name),
    ).fetchall()
    if not rows:
        return None
    columns = []
    key_positions = connection.execute(
        "SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) ON true"
        " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
        " WHERE n.nspname = %s AND c.relname = %s AND i.indisprimary ORDER BY k.ord",
        (schema, name),
    ).fetchall()
    for attname, oid, typmod, nullable, typname, typtype, labels, in_key in rows:
        enum_values = tuple(labels) if typtype == "e" and labels is not None else None
        if typtype == "e" and enum_values is None:
            enum_values = ()
        columns.append(Column(attname, int(oid), int(typmod), bool(nullable) and not in_key,
                              typname, enum_values))  # fmt: skip
    return TableInfo(schema, name, tuple(columns), tuple(r[0] for r in key_positions))


def ensure_publication(connection: Any, settings: Settings, tables: list[tuple[str, str]]) -> None:
    """The publication per ``publication.autocreate.mode`` (Debezium's
    ``PostgresReplicationConnection.initPublication``)."""
    name = settings.publication_name
    mode = settings.publication_autocreate
    exists = connection.execute(
        "SELECT puballtables FROM pg_publication WHERE pubname = %s", (name,)
    ).fetchone()
    table_list = sql.SQL(", ").join(sql.Identifier(s, t) for s, t in tables)
    if exists is None:
        if mode == "disabled":
            raise ConnectError(PUBLICATION_DISABLED)
        log.info("Creating publication %s (%s)", name, mode)
        if mode == "all_tables":
            statement = sql.SQL("CREATE PUBLICATION {} FOR ALL TABLES").format(sql.Identifier(name))
        elif mode == "filtered":
            if not tables:
                raise ConnectError(f"No table filters found for filtered publication {name}")
            statement = sql.SQL("CREATE PUBLICATION {} FOR TABLE {}").format(
                sql.Identifier(name), table_list
            )
        else:
            statement = sql.SQL("CREATE PUBLICATION {}").format(sql.Identifier(name))
        _create_publication(connection, settings, statement)
    elif mode == "filtered" and tables:
        connection.execute(
            sql.SQL("ALTER PUBLICATION {} SET TABLE {}").format(sql.Identifier(name), table_list)
        )


def _create_publication(connection: Any, settings: Settings, statement: sql.Composed) -> None:
    """Run *statement*; a user not allowed to is told what a superuser should run."""
    try:
        connection.execute(statement)
    except psycopg.errors.InsufficientPrivilege as error:
        raise ConnectError(
            f"Unable to create publication '{settings.publication_name}' as user "
            f"'{settings.user}': {str(error).strip()}. Have a superuser run "
            f"{statement.as_string(connection)} and restart the connector."
        ) from error


def slot_flushed_lsn(connection: Any, settings: Settings) -> int | None:
    """The slot's ``confirmed_flush_lsn``, or None when the slot does not exist; a slot of
    another plugin or database is an error."""
    row = connection.execute(
        "SELECT plugin, database, confirmed_flush_lsn::text FROM pg_replication_slots"
        " WHERE slot_name = %s",
        (settings.slot_name,),
    ).fetchone()
    if row is None:
        return None
    plugin, database, flushed = row
    if plugin != "pgoutput" or database != settings.dbname:
        raise ConnectError(
            f"Replication slot '{settings.slot_name}' exists for plugin '{plugin}' on database "
            f"'{database}', not pgoutput on '{settings.dbname}': drop it or set slot.name"
        )
    return parse_lsn(flushed) if flushed else None


@dataclass
class CreatedSlot:
    """A slot just created, its exported snapshot alive while *connection* stays open."""

    consistent_point: int
    snapshot_name: str
    connection: Any

    def close(self) -> None:
        try:
            self.connection.close()
        except Exception:
            pass


def create_slot(settings: Settings) -> CreatedSlot:
    """``CREATE_REPLICATION_SLOT "<slot>" LOGICAL pgoutput EXPORT_SNAPSHOT`` on a
    replication connection (left open: it keeps the exported snapshot alive)."""
    connection = connect(settings, replication=True)
    name = settings.slot_name.replace('"', '""')
    command = f'CREATE_REPLICATION_SLOT "{name}" LOGICAL pgoutput EXPORT_SNAPSHOT'
    result = connection.pgconn.exec_(command.encode())
    if result.status != psycopg.pq.ExecStatus.TUPLES_OK:
        message = result.error_message.decode(errors="replace").strip()
        connection.close()
        raise ConnectError(f"Creation of replication slot failed: {message}")
    fields = {result.fname(i).decode(): i for i in range(result.nfields)}
    consistent = result.get_value(0, fields["consistent_point"]).decode()
    snapshot = result.get_value(0, fields["snapshot_name"]).decode()
    log.info("Created slot %s at %s, snapshot %s", settings.slot_name, consistent, snapshot)
    return CreatedSlot(parse_lsn(consistent), snapshot, connection)


def drop_slot(connection: Any, slot_name: str) -> None:
    """Drop the slot if it exists and is not in use."""
    connection.execute(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
        " WHERE slot_name = %s AND NOT active",
        (slot_name,),
    )
