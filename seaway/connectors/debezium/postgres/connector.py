"""Debezium's PostgreSQL connector, ``io.debezium.connector.postgresql.PostgresConnector``."""

from __future__ import annotations

from seaway.connectors.debezium.connector import DebeziumConnector
from seaway.connectors.debezium.postgres import config as c
from seaway.connectors.debezium.postgres.task import PostgresSourceTask

__all__ = ["PostgresConnector"]


class PostgresConnector(DebeziumConnector):
    """Captures the changes of a PostgreSQL database's tables through pgoutput."""

    configuration = c.CONFIG
    task_type = PostgresSourceTask
