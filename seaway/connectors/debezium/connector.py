"""What every Debezium connector class shares: like Debezium's, a connector runs one task
whatever ``tasks.max`` says, and supports exactly-once (a batch's records and its offset
commit together)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import ExactlyOnceSupport, SourceConnector, Task
from seaway.connect.api.connector import ConfigValidation
from seaway.connectors.debezium.config import ConnectorConfig

__all__ = ["DebeziumConnector"]


class DebeziumConnector(SourceConnector):
    """A one-task CDC source connector. Subclasses set :attr:`configuration` and :attr:`task_type`;
    :meth:`task_config` may add to the task's configuration."""

    configuration: ClassVar[ConnectorConfig[Any]]
    task_type: ClassVar[type[Task]]

    def __init__(self) -> None:
        super().__init__()
        self.props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return self.configuration.config_def

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        return self.configuration.validate(connector_configs)

    def start(self, props: dict[str, str]) -> None:
        self.configuration.settings(props)
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return self.task_type

    def task_config(self) -> dict[str, str]:
        """The one task's configuration: the connector's."""
        return dict(self.props)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.task_config()]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Supported: a batch's records and its offset commit together."""
        return ExactlyOnceSupport.SUPPORTED
