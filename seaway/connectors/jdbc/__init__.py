"""The JDBC connectors, with the configuration of Confluent's ``JdbcSourceConnector`` and
``JdbcSinkConnector``."""

from seaway.connectors.jdbc.sink import JdbcSinkConnector, JdbcSinkTask
from seaway.connectors.jdbc.source import JdbcSourceConnector, JdbcSourceTask

__all__ = ["JdbcSinkConnector", "JdbcSinkTask", "JdbcSourceConnector", "JdbcSourceTask"]
