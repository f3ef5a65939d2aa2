"""What every Debezium connector class shares: like Debezium's, a connector runs one task
whatever ``tasks.max`` says, supports exactly-once (a batch's records and its offset commit
together), and its ``validate`` tries the connection once the keys it needs are valid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import ExactlyOnceSupport, SourceConnector, Task
from seaway.connect.api.connector import ConfigValidation
from seaway.connectors.debezium import config as common
from seaway.connectors.debezium.config import ConnectorConfig

__all__ = ["CONNECTION_KEYS", "DebeziumConnector"]

CONNECTION_KEYS: Final = (common.HOSTNAME, common.PORT, common.USER, common.PASSWORD)


class DebeziumConnector(SourceConnector):
    """A one-task CDC source connector. Subclasses set :attr:`configuration` and :attr:`task_type`;
    :meth:`task_config` may add to the task's configuration."""

    configuration: ClassVar[ConnectorConfig[Any]]
    task_type: ClassVar[type[Task]]
    checked_first: ClassVar[tuple[str, ...]] = CONNECTION_KEYS
    """The keys that must pass their checks before ``validate`` tries the connection."""

    def __init__(self) -> None:
        super().__init__()
        self.props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return self.configuration.config_def

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        """The keys' checks, then, when :attr:`checked_first` passed them, Debezium's
        ``validateConnection``: :meth:`connection_error` on ``database.hostname``."""
        validation = self.configuration.validate(connector_configs)
        values = {v.name: v for v in validation.config_values}
        if any(values[key].errors for key in self.checked_first) or any(
            "${" in str(connector_configs.get(key, "")) for key in self.checked_first
        ):  # a config provider's reference is resolved only when the connector starts
            return validation
        error = self.connection_error({name: v.value for name, v in values.items()})
        if error is not None:
            values[common.HOSTNAME].add_error_message(error)
        return validation

    def connection_error(self, values: Mapping[str, Any]) -> str | None:
        """What trying the connection with the parsed *values* found wrong, else None."""
        return None

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
