"""Debezium's binlog connectors: ``io.debezium.connector.mariadb.MariaDbConnector`` and
``io.debezium.connector.mysql.MySqlConnector``, one implementation (Debezium's
``BinlogConnector``) that differs in ``source.connector``, its schema names and the GTIDs it
reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.connect.api import RecordSchemas
from seaway.connectors.debezium import config as common
from seaway.connectors.debezium.binlog import config as c
from seaway.connectors.debezium.binlog import database
from seaway.connectors.debezium.binlog.schemas import TableSchema, source_schema
from seaway.connectors.debezium.binlog.task import CONNECTOR_KEY, BinlogSourceTask
from seaway.connectors.debezium.connector import DebeziumConnector

__all__ = ["MariaDbConnector", "MySqlConnector"]


class _BinlogConnector(DebeziumConnector):
    """Captures the changes of a MariaDB or MySQL server's tables."""

    configuration = c.CONFIG
    task_type = BinlogSourceTask
    connector_name: ClassVar[str]

    def connection_error(self, values: Mapping[str, Any]) -> str | None:
        """A connection and ``SELECT version()``; the binlog settings and grants are checked
        when the task starts, as Debezium does."""
        password = common.password_text(values[common.PASSWORD])
        error = database.connection_error(values[common.HOSTNAME], values[common.PORT],
                                          values[common.USER], password)  # fmt: skip
        return None if error is None else f"Unable to connect: {error}"

    def task_config(self) -> dict[str, str]:
        return {**self.props, CONNECTOR_KEY: self.connector_name}

    def record_schemas(self) -> RecordSchemas | None:
        """One captured table's key and envelope schemas as they are now, when every record
        is a change event of it (``include.schema.changes=false``, no heartbeats); None for
        several tables, whose events have a schema each."""
        settings = c.settings(self.props)
        if settings.include_schema_changes or settings.heartbeat_interval_ms > 0:
            return None
        filters = database.Filters.of(settings)
        connection = database.connect(settings)
        try:
            captured = database.captured_tables(connection, filters)
            table = database.read_table(connection, captured[0]) if len(captured) == 1 else None
        finally:
            connection.close()
        if table is None:
            return None
        schema = TableSchema.of(table, settings, filters, source_schema(self.connector_name))
        return RecordSchemas(key=schema.key_schema, value=schema.envelope)


class MariaDbConnector(_BinlogConnector):
    """``io.debezium.connector.mariadb.MariaDbConnector``."""

    connector_name = "mariadb"


class MySqlConnector(_BinlogConnector):
    """``io.debezium.connector.mysql.MySqlConnector`` (tested on MariaDB for what the two
    servers share: MySQL proper is not installable here)."""

    connector_name = "mysql"
