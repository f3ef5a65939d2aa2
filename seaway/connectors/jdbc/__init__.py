"""The JDBC source connector, with Confluent's ``JdbcSourceConnector`` configuration."""

from seaway.connectors.jdbc.source import JdbcSourceConnector, JdbcSourceTask

__all__ = ["JdbcSourceConnector", "JdbcSourceTask"]
