"""What several bundled connectors share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway import __version__
from seaway.config import ConfigDef
from seaway.connect.api import SinkConnector, Task

__all__ = ["UniformSinkConnector"]


class UniformSinkConnector(SinkConnector):
    """A sink connector whose every task takes the connector's own configuration (the
    topics' partitions are what the tasks share out). Subclasses set :attr:`config_def`,
    :attr:`settings` (parses and checks a configuration, raising ConfigException) and
    :meth:`task_class`."""

    config_def: ClassVar[ConfigDef]
    settings: ClassVar[staticmethod[[Mapping[str, str]], Any]]

    def __init__(self) -> None:
        super().__init__()
        self.props: dict[str, str] = {}

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return self.config_def

    def start(self, props: dict[str, str]) -> None:
        type(self).settings(props)
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        raise NotImplementedError

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props) for _ in range(max_tasks)]

    def stop(self) -> None:
        pass
