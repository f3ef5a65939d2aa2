"""Debezium's binlog connectors: ``io.debezium.connector.mariadb.MariaDbConnector`` and
``io.debezium.connector.mysql.MySqlConnector``, one implementation (Debezium's
``BinlogConnector``) that differs in ``source.connector``, its schema names and the GTIDs it
reads. Like Debezium's, a connector runs one task whatever ``tasks.max`` says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import ExactlyOnceSupport, SourceConnector, Task
from seaway.connect.api.connector import ConfigValidation
from seaway.connectors.debezium import config as c
from seaway.connectors.debezium.task import CONNECTOR_KEY, BinlogSourceTask

__all__ = ["MariaDbConnector", "MySqlConnector"]


class _BinlogConnector(SourceConnector):
    """Captures the changes of a MariaDB or MySQL server's tables."""

    connector_name: ClassVar[str]

    def __init__(self) -> None:
        super().__init__()
        self.props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return c.CONFIG_DEF

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        return c.validate(connector_configs)

    def start(self, props: dict[str, str]) -> None:
        c.settings(props)
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return BinlogSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.props, CONNECTOR_KEY: self.connector_name}]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Supported: a batch's records and its offset commit together."""
        return ExactlyOnceSupport.SUPPORTED


class MariaDbConnector(_BinlogConnector):
    """``io.debezium.connector.mariadb.MariaDbConnector``."""

    connector_name = "mariadb"


class MySqlConnector(_BinlogConnector):
    """``io.debezium.connector.mysql.MySqlConnector`` (tested on MariaDB for what the two
    servers share: MySQL proper is not installable here)."""

    connector_name = "mysql"
