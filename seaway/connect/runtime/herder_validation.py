"""Connector plugins and config validation, as Kafka's ``AbstractHerder`` answers them.

:class:`ConfigValidator` needs only the plugins and the worker config: it stands alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.connect.api import Connector, SinkConnector, SourceConnector
from seaway.connect.api.source import ExactlyOnceSupport
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import JsonDict
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.worker_config import GROUP_ID, SPARK_MASTER, WorkerConfig
from seaway.spark.shipping import is_local_master


def java_map(config: Mapping[str, Any]) -> str:
    """A map the way Java's ``AbstractMap.toString`` prints it: ``{k=v, k2=v2}``."""
    return "{" + ", ".join(f"{k}={v}" for k, v in config.items()) + "}"


class ConfigValidator:
    """Lists plugins and their configs; validates connector configs for a worker."""

    def __init__(self, plugins: Plugins, config: WorkerConfig) -> None:
        self.plugins = plugins
        self.config = config

    def connector_plugins(self, connectors_only: bool) -> list[JsonDict]:
        """``[PluginInfo]`` (see :meth:`Herder.connector_plugins`)."""
        return [p.to_rest() for p in self.plugins.connector_plugins(connectors_only)]

    def plugin_config(self, plugin: str) -> list[JsonDict]:
        """``[ConfigKeyInfo]`` of a plugin's config, then a connector's framework keys."""
        desc = self.plugins.plugin(plugin)
        instance = desc.cls()
        keys = list(instance.config().config_keys.values())
        if isinstance(instance, Connector):  # then the framework's keys, as Kafka lists them
            framework = cc.framework_config_def(instance).config_keys
            keys += [k for name, k in framework.items() if name not in instance.config()]
        return [cc.config_key_info(k) for k in keys]

    def validate_connector_config(
        self, config: Mapping[str, str], plugin: str | None = None
    ) -> JsonDict:
        """``ConfigInfos`` for *config* (see :meth:`Herder.validate_connector_config`)."""
        config = {k: ("" if v is None else str(v)) for k, v in config.items()}
        class_name = (config.get(cc.CONNECTOR_CLASS) or "").strip()
        # The one check of the connector type, for create, PUT config and validate alike (as
        # Kafka's AbstractHerder.validateConnectorConfig; the REST layer does not repeat it).
        if plugin is not None and class_name and not _short(class_name).endswith(_short(plugin)):
            raise BadRequestError(
                f"Included connector type {class_name} does not match request type {plugin}"
            )
        if not class_name and plugin:
            # The seeds' session validates ``{}`` against /connector-plugins/<plugin>/: the
            # plugin in the path is the connector type (Kafka 0.10 did so; Kafka 2+ answers 400).
            class_name = plugin
            config = {cc.CONNECTOR_CLASS: plugin, **config}
        if not class_name:
            raise BadRequestError(f"Connector config {java_map(config)} contains no connector type")
        connector = self.plugins.new_connector(class_name)
        framework = cc.framework_config_def(connector)
        definitions = [(framework, framework.validate(config))]
        own = connector.config()
        definitions.append((own, connector.validate(config).config_values))
        extra: dict[str, list[str]] = {}
        if isinstance(connector, SinkConnector):
            extra.update(cc.sink_topic_errors(config))
            for key, messages in self._sink_group_errors(config).items():
                extra.setdefault(key, []).extend(messages)
        from seaway.config import ConfigDef
        from seaway.connect.transforms.chain import enrich, validate_transform_config_values

        aliases = enrich(config, ConfigDef())  # transforms.<alias>.* keys, groups per alias
        definitions.append(
            (aliases, list(validate_transform_config_values(config, ConfigDef()).values()))
        )
        if isinstance(connector, SourceConnector):
            for key, messages in self._exactly_once_errors(connector, config).items():
                extra.setdefault(key, []).extend(messages)
        for key, messages in self._override_errors(config).items():
            extra.setdefault(key, []).extend(messages)
        for key, messages in self._host_errors(connector).items():
            extra.setdefault(key, []).extend(messages)
        return cc.config_infos(class_name, definitions, extra, config)

    def _sink_group_errors(self, config: Mapping[str, str]) -> dict[str, list[str]]:
        """A sink's consumer group may not be the distributed workers' own group (Kafka's
        DistributedHerder.validateSinkConnectorGroupId): the two would fight over it."""
        if not self.config.distributed:
            return {}
        worker_group = str(self.config.get(GROUP_ID))
        override = "consumer.override.group.id"
        if override in config:
            if config[override] == worker_group:
                return {override: [f"Consumer group {worker_group} conflicts with Connect "
                                   f"worker group {worker_group}"]}  # fmt: skip
            return {}
        name = config.get(cc.NAME, "")
        if f"connect-{name}" == worker_group:
            return {cc.NAME: [f"Consumer group for sink connector named {name} conflicts "
                              f"with Connect worker group {worker_group}"]}  # fmt: skip
        return {}

    def _host_errors(self, connector: Connector) -> dict[str, list[str]]:
        """A connector bound to the worker's host cannot run where Spark puts its tasks on
        other hosts (Kafka's docs: the FileStream connectors are for standalone use)."""
        master = self.config.get(SPARK_MASTER)
        if connector.host_bound is None or is_local_master(master):
            return {}
        return {cc.CONNECTOR_CLASS: [
            f"{type(connector).__name__} cannot run on this worker: {connector.host_bound}, "
            f"and with spark.master={master} its tasks run on Spark executors on any host. "
            "Run it on a worker whose spark.master is local (e.g. local[*])."]}  # fmt: skip

    def _exactly_once_errors(
        self, connector: SourceConnector, config: Mapping[str, str]
    ) -> dict[str, list[str]]:
        if (config.get("exactly.once.support") or "").strip().lower() != "required":
            return {}
        if not self.config.exactly_once_source:
            return {"exactly.once.support": [
                "This worker does not have exactly-once source support enabled."]}  # fmt: skip
        support = connector.exactly_once_support(config)
        if support is not ExactlyOnceSupport.SUPPORTED:
            return {"exactly.once.support": [
                "The connector does not implement the API required for preflight validation "
                "of exactly-once source support. Please consult the documentation for the "
                "connector to determine whether it supports exactly-once semantics, and then "
                "consider reconfiguring the connector to use the value 'requested' for this "
                "property (which will disable this preflight check and allow the connector to "
                "be created)." if support is None else
                "The connector does not support exactly-once semantics with the provided "
                "configuration."]}  # fmt: skip
        return {}

    def _override_errors(self, config: Mapping[str, str]) -> dict[str, list[str]]:
        policy = str(self.config.get("connector.client.config.override.policy"))
        allowed = {"None": set(), "Principal": {"sasl.jaas.config", "sasl.mechanism",
                                                "security.protocol"}}.get(policy)  # fmt: skip
        if allowed is None:
            return {}
        errors: dict[str, list[str]] = {}
        for key in config:
            for prefix in ("producer.override.", "consumer.override.", "admin.override."):
                if key.startswith(prefix) and key[len(prefix) :] not in allowed:
                    errors[key] = [
                        f"The '{policy}' policy does not allow '{key[len(prefix) :]}' to be "
                        "overridden in the connector configuration."
                    ]
        return errors


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].removesuffix("Connector")


__all__ = ["ConfigValidator", "java_map"]
