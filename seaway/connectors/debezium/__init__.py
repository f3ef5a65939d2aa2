"""Debezium-compatible change data capture from the binlog of MariaDB and MySQL: Debezium's
connector classes, configuration, topics, events, offsets and schema history
(docs/connect.md, "Change data capture")."""

from seaway.connectors.debezium.connector import MariaDbConnector, MySqlConnector

__all__ = ["MariaDbConnector", "MySqlConnector"]
