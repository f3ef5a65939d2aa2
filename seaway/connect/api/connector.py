"""The connector and task contract shared by sources and sinks (Kafka's ``connect.connector``).

A :class:`Connector` is configured once per connector. It declares its configuration
(:meth:`Connector.config`), splits the work into task configurations
(:meth:`Connector.task_configs`) and names the :class:`Task` class that does it. Configs
are plain ``dict[str, str]``, as in Kafka's REST API and config topic.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from seaway.config import ConfigDef, ConfigValue
from seaway.connect.api.catalog import TableCatalog
from seaway.connect.api.errors import ConnectError


def _module_version(obj: object) -> str:
    """The ``__version__`` of the module defining *obj*'s class, else ``"unknown"``."""
    module = sys.modules.get(type(obj).__module__)
    return str(getattr(module, "__version__", "unknown"))


class ConnectorContext(ABC):
    """Lets a connector talk to the runtime."""

    @abstractmethod
    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call ``task_configs`` again (e.g. the source changed)."""

    @abstractmethod
    def raise_error(self, error: Exception) -> None:
        """Fail the connector with *error* from a background thread of the connector."""

    def table_catalog(self) -> TableCatalog | None:
        """The engine's table catalog (Spark's Hive metastore), or None when there is none."""
        return None


@dataclass
class ConfigValidation:
    """Result of :meth:`Connector.validate`: one ``ConfigValue`` per defined key."""

    config_values: list[ConfigValue]

    @property
    def error_count(self) -> int:
        """The total number of error messages."""
        return sum(len(v.errors) for v in self.config_values)

    @property
    def is_valid(self) -> bool:
        """True when no key has an error."""
        return self.error_count == 0

    def errors(self) -> dict[str, list[str]]:
        """Error messages of the keys that have any."""
        return {v.name: list(v.errors) for v in self.config_values if v.errors}

    def __iter__(self) -> Iterator[ConfigValue]:
        return iter(self.config_values)


class Task(ABC):
    """A unit of work of a connector, started with one of its task configs."""

    def version(self) -> str:
        """The task's version; defaults to its module's ``__version__``."""
        return _module_version(self)

    @abstractmethod
    def start(self, props: dict[str, str]) -> None:
        """Start with a config produced by ``Connector.task_configs``."""

    @abstractmethod
    def stop(self) -> None:
        """Stop and release resources; may be called from another thread."""


class Connector(ABC):
    """Base of source and sink connectors.

    >>> class MyConnector(SourceConnector):  # doctest: +SKIP
    ...     def start(self, props): self.props = props
    ...     def task_class(self): return MyTask
    ...     def task_configs(self, max_tasks): return [dict(self.props)]
    ...     def stop(self): pass
    ...     def config(self): return CONFIG_DEF
    """

    context: ConnectorContext | None = None
    host_bound: ClassVar[str | None] = None
    """Why the connector's tasks must run on the worker's own host (files they read or
    write there), or None. A worker whose Spark master is a cluster refuses such a
    connector, naming this reason."""

    def version(self) -> str:
        """The connector's version; defaults to its module's ``__version__``."""
        return _module_version(self)

    def initialize(
        self, context: ConnectorContext, task_configs: list[dict[str, str]] | None = None
    ) -> None:
        """Called by the runtime before :meth:`start`; *task_configs* are the current ones."""
        self.context = context

    @abstractmethod
    def start(self, props: dict[str, str]) -> None:
        """Start with the connector's configuration."""

    def reconfigure(self, props: dict[str, str]) -> None:
        """Apply a new configuration; by default :meth:`stop` then :meth:`start`."""
        self.stop()
        self.start(props)

    @abstractmethod
    def task_class(self) -> type[Task]:
        """The :class:`Task` subclass that does the work."""

    @abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """At most *max_tasks* configs, one per task to run."""

    @abstractmethod
    def stop(self) -> None:
        """Stop the connector."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The definition of the connector's own configuration keys."""

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        """Validate *connector_configs* against :meth:`config`, collecting every error."""
        config_def = self.config()
        if config_def is None:
            raise ConnectError(
                f"{type(self).__qualname__}.config() must return a ConfigDef that is not null."
            )
        return ConfigValidation(config_def.validate(connector_configs))


__all__ = ["ConfigValidation", "Connector", "ConnectorContext", "Task"]
