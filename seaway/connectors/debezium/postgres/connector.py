"""Debezium's PostgreSQL connector, ``io.debezium.connector.postgresql.PostgresConnector``:
one task whatever ``tasks.max`` says, like Debezium's."""

from __future__ import annotations

from collections.abc import Mapping

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import ExactlyOnceSupport, SourceConnector, Task
from seaway.connect.api.connector import ConfigValidation
from seaway.connectors.debezium.postgres import config as c
from seaway.connectors.debezium.postgres.task import PostgresSourceTask

__all__ = ["PostgresConnector"]


class PostgresConnector(SourceConnector):
    """Captures the changes of a PostgreSQL database's tables through pgoutput."""

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
        return PostgresSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Supported: a batch's records and its offset commit together."""
        return ExactlyOnceSupport.SUPPORTED
