"""Debezium's binlog connectors: ``io.debezium.connector.mariadb.MariaDbConnector`` and
``io.debezium.connector.mysql.MySqlConnector``, one implementation (Debezium's
``BinlogConnector``) that differs in ``source.connector``, its schema names and the GTIDs it
reads."""

from __future__ import annotations

from typing import ClassVar

from seaway.connectors.debezium.binlog import config as c
from seaway.connectors.debezium.binlog.task import CONNECTOR_KEY, BinlogSourceTask
from seaway.connectors.debezium.connector import DebeziumConnector

__all__ = ["MariaDbConnector", "MySqlConnector"]


class _BinlogConnector(DebeziumConnector):
    """Captures the changes of a MariaDB or MySQL server's tables."""

    configuration = c.CONFIG
    task_type = BinlogSourceTask
    connector_name: ClassVar[str]

    def task_config(self) -> dict[str, str]:
        return {**self.props, CONNECTOR_KEY: self.connector_name}


class MariaDbConnector(_BinlogConnector):
    """``io.debezium.connector.mariadb.MariaDbConnector``."""

    connector_name = "mariadb"


class MySqlConnector(_BinlogConnector):
    """``io.debezium.connector.mysql.MySqlConnector`` (tested on MariaDB for what the two
    servers share: MySQL proper is not installable here)."""

    connector_name = "mysql"
