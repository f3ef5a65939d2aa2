"""Debezium's PostgreSQL connector, ``io.debezium.connector.postgresql.PostgresConnector``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway.connectors.debezium import config as common
from seaway.connectors.debezium.connector import CONNECTION_KEYS, DebeziumConnector
from seaway.connectors.debezium.postgres import config as c
from seaway.connectors.debezium.postgres import database
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
