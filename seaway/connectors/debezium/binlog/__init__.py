"""Debezium-compatible change data capture from the binlog of MariaDB and MySQL: Debezium's
connector classes, configuration, topics, events, offsets and schema history."""

from seaway.connectors.debezium.binlog.connector import MariaDbConnector, MySqlConnector

__all__ = ["MariaDbConnector", "MySqlConnector"]
