"""What the three mirror connectors share: config, validation, version, refresh thread."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from seaway import __version__
from seaway.config import ConfigDef, ConfigValue
from seaway.connect.api import ConfigValidation, SourceConnector
from seaway.connect.api.flow import FlowConnector, FlowTask
from seaway.connectors.mirror.handles import Periodic
from seaway.mirror.config import MirrorConnectorConfig
from seaway.mirror.config.defs import BOOTSTRAP_SERVERS


class MirrorConnector(SourceConnector, FlowConnector):
    """Base of the MM2 connectors: a source connector whose tasks run as one mirror flow.

    Subclasses set :attr:`CONFIG` (the typed config class, whose ``DEFINITION`` is Kafka's
    ConfigDef for the connector) and :attr:`TASK`, and implement :meth:`_start`.
    """

    CONFIG: ClassVar[type[MirrorConnectorConfig]] = MirrorConnectorConfig
    TASK: ClassVar[type[FlowTask]] = FlowTask
    CLUSTERS: ClassVar[tuple[str, ...]] = ("source", "target")  # whose bootstrap is needed

    def __init__(self) -> None:
        self.props: dict[str, str] = {}
        self._config: Any = None
        self._refresher: Periodic | None = None

    @property
    def mirror_config(self) -> Any:
        """The typed config given to :meth:`start`."""
        if self._config is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return self._config

    def version(self) -> str:
        return __version__

    def config(self) -> ConfigDef:
        return self.CONFIG.DEFINITION

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        """The ConfigDef's checks plus the connector's own rules (Kafka's ``validate``)."""
        validation = super().validate(connector_configs)
        values = {v.name: v for v in validation.config_values}
        props = {k: str(v) for k, v in connector_configs.items()}
        for name, messages in self._extra_errors(props).items():
            value = values.get(name)
            if value is None:
                value = values[name] = ConfigValue(name, connector_configs.get(name))
                validation.config_values.append(value)
            for message in messages:
                value.add_error_message(message)
        return validation

    def _extra_errors(self, props: Mapping[str, str]) -> dict[str, list[str]]:
        """Errors beyond the ConfigDef's, by key: a cluster the connector talks to has no
        ``<side>.cluster.bootstrap.servers`` (nor a client-level one)."""
        errors: dict[str, list[str]] = {}
        for side in self.CLUSTERS:
            clients = ("consumer.", "producer.", "admin.")
            keys = [f"{side}.cluster.{BOOTSTRAP_SERVERS}"]
            keys += [
                f"{prefix}{BOOTSTRAP_SERVERS}" for c in clients for prefix in (c, side + "." + c)
            ]
            if not any(str(props.get(key) or "").strip() for key in keys):
                errors[keys[0]] = [
                    f'Missing required configuration "{keys[0]}" which has no default value.'
                ]
        return errors

    def task_class(self) -> type[FlowTask]:
        return self.TASK

    def start(self, props: dict[str, str]) -> None:
        self.props = {k: str(v) for k, v in props.items()}
        self._config = self.CONFIG(self.props)
        self._start()

    def _start(self) -> None:
        """Connect to the clusters as the connector needs to (after the config is parsed)."""

    def _refresh_every(self, what: str, interval_s: int | None, job: Any) -> None:
        """Run *job* every *interval_s* seconds (None or negative: never)."""
        if interval_s is not None and interval_s >= 0:
            name = f"{self.props.get('name', type(self).__name__)}-{what}"
            self._refresher = Periodic(name, max(interval_s, 1), job, first_delay_s=interval_s)

    def _reconfigure(self) -> None:
        if self.context is not None:
            self.context.request_task_reconfiguration()

    def stop(self) -> None:
        if self._refresher is not None:
            self._refresher.stop()
            self._refresher = None


def split_contiguous(items: list[Any], count: int) -> list[list[Any]]:
    """*items* in *count* contiguous chunks, the first ones one longer (Kafka's
    ``ConnectorUtils.groupPartitions``)."""
    size, extra = divmod(len(items), count)
    chunks, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        chunks.append(items[start:end])
        start = end
    return chunks


def split_round_robin(items: list[Any], count: int) -> list[list[Any]]:
    """*items* dealt to *count* lists in turn (MirrorSourceConnector's task assignment)."""
    return [items[index::count] for index in range(count)]


__all__ = ["MirrorConnector", "split_contiguous", "split_round_robin"]
