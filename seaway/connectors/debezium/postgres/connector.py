"""Debezium's PostgreSQL connector, ``io.debezium.connector.postgresql.PostgresConnector``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.connect.api import RecordSchemas
from seaway.connectors.debezium import config as common
from seaway.connectors.debezium.connector import CONNECTION_KEYS, DebeziumConnector
from seaway.connectors.debezium.postgres import config as c
from seaway.connectors.debezium.postgres import database
from seaway.connectors.debezium.postgres.events import TableSchema, source_schema
from seaway.connectors.debezium.postgres.task import PostgresSourceTask

__all__ = ["PostgresConnector"]


class PostgresConnector(DebeziumConnector):
    """Captures the changes of a PostgreSQL database's tables through pgoutput."""

    configuration = c.CONFIG
    task_type = PostgresSourceTask
    checked_first: ClassVar[tuple[str, ...]] = (*CONNECTION_KEYS, c.DBNAME, c.SLOT_NAME,
                                                 c.PLUGIN_NAME)  # fmt: skip

    def connection_error(self, values: Mapping[str, Any]) -> str | None:
        """A connection and ``wal_level=logical``; a user without REPLICATION is only logged
        here, as Debezium does, and the task fails on it."""
        error = database.validation_error(values[common.HOSTNAME], values[common.PORT],
                                          values[common.USER],
                                          common.password_text(values[common.PASSWORD]),
                                          values[c.DBNAME])  # fmt: skip
        return None if error is None else f"Error while validating connector config: {error}"

    def record_schemas(self) -> RecordSchemas | None:
        """One captured table's key and envelope schemas as they are now, when every record
        is a change event of it (no heartbeats); None for several tables, whose events have
        a schema each."""
        settings = c.settings(self.props)
        if settings.heartbeat_interval_ms > 0:
            return None
        filters = database.Filters.of(settings)
        connection = database.connect(settings)
        try:
            captured = database.captured_tables(connection, filters)
            schema = (
                TableSchema.read(connection, settings, filters, *captured[0], source_schema())
                if len(captured) == 1
                else None
            )
        finally:
            connection.close()
        if schema is None:
            return None
        return RecordSchemas(key=schema.key_schema, value=schema.envelope)
