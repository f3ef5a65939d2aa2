"""A connector named by ``format("connect")`` options: found, validated, its tasks configured.

The options are the connector's configuration, the keys of a Connect ``POST /connectors``
body (``connector.class``, ``tasks.max``, ``transforms``, ``key.converter`` ...), plus
``plugin.path`` (where to look for plugins besides the installed ones) and
``seaway.spark.master`` (the session's master, which :mod:`seaway.spark`'s ``format()``
adds, so that a connector bound to one host is refused on a cluster, as a worker refuses
it). Spark hands a Python data source its option names lowercased; Connect's own keys are
lowercase, and the aliases of ``transforms.<alias>.*`` and ``predicates.<alias>.*`` are
given back their case from the ``transforms`` and ``predicates`` lists.

Everything is checked before a query starts, as a Connect worker checks a new connector: the
class (known, and the right kind), then the connector's config (the framework's keys, the
connector's ``validate()``, the transformations), each error naming the option and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from seaway.connect.api import (
    Connector,
    ConnectorContext,
    RecordSchemas,
    SinkConnector,
    SourceConnector,
)
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.flow import FlowConnector
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.herder_validation import ConfigValidator
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.queries.conversion import (
    HEADER,
    KEY,
    VALUE,
    ConversionSpec,
    converter_spec,
)
from seaway.connect.runtime.queries.source import class_path
from seaway.connect.runtime.worker_config import SPARK_MASTER, WorkerConfig

__all__ = ["ConnectFormatError", "FormatConnector", "connector_config"]

PLUGIN_PATH: Final = "plugin.path"
# What Spark or this format adds to the options; never the connector's
MASTER: Final = "seaway.spark.master"  # the session's (seaway.spark's format() gives it)
_NOT_CONNECTOR: Final = frozenset(
    {PLUGIN_PATH, MASTER, "path", "checkpointlocation", "minpartitions", "plans.per.batch",
     "seaway.parallelism"}
)  # fmt: skip

Role = Literal["source", "sink"]


class ConnectFormatError(ConnectError, ValueError):
    """``format("connect")`` options that cannot run: the message names the option and the
    fix."""


@dataclass(frozen=True)
class FormatConnector:
    """What a ``format("connect")`` query runs: the connector's tasks and their conversion."""

    name: str
    connector_class: str
    config: dict[str, str]
    task_class: str
    task_configs: list[dict[str, str]]
    conversion: ConversionSpec
    schemas: RecordSchemas | None = None  # a source's, when it knows them before reading

    @classmethod
    def of(cls, options: Mapping[str, str], role: Role) -> FormatConnector:
        """The connector *options* describe, checked for use as a Spark *role*."""
        config = connector_config(options)
        plugins = Plugins(_paths(options.get(PLUGIN_PATH, "")))
        connector_type = _connector_type(plugins, config, role)
        _validate(plugins, config, options.get(MASTER) or "local[*]")
        connector = connector_type()
        connector.initialize(_Context())
        try:
            connector.start(dict(config))
            generated = connector.task_configs(int(config.get(cc.TASKS_MAX) or 1))
            task_class = class_path(connector.task_class())
            schemas = connector.record_schemas() if isinstance(connector, SourceConnector) else None
        finally:
            connector.stop()
        task_configs = []
        for generated_config in generated:
            task_config = dict(generated_config)
            if role == "sink":  # as the worker gives a sink's tasks their topics
                for key in (cc.TOPICS, cc.TOPICS_REGEX):
                    if config.get(key):
                        task_config[key] = config[key]
            task_configs.append(task_config)
        if not task_configs:
            raise ConnectFormatError(
                f"{config[cc.CONNECTOR_CLASS]} generated no task configurations from these "
                "options: check tasks.max and the connector's own options"
            )
        conversion = ConversionSpec(
            connector=config[cc.NAME],
            key=converter_spec(KEY, config, {}),
            value=converter_spec(VALUE, config, {}),
            header=converter_spec(HEADER, config, {}),
            connector_config=config,
            plugin_path=plugins.plugin_path,
        )
        return cls(config[cc.NAME], config[cc.CONNECTOR_CLASS], config, task_class,
                   task_configs, conversion, schemas)  # fmt: skip


def connector_config(options: Mapping[str, str]) -> dict[str, str]:
    """The connector's configuration in *options* (aliases given back their case, a
    ``name`` made from the class when none is given)."""
    config = {str(k): str(v) for k, v in options.items() if str(k).lower() not in _NOT_CONNECTOR}
    for listing in ("transforms", "predicates"):
        for alias in (a.strip() for a in config.get(listing, "").split(",")):
            lowered = f"{listing}.{alias.lower()}."
            if not alias or alias == alias.lower():
                continue
            for key in [k for k in config if k.startswith(lowered)]:
                config[f"{listing}.{alias}.{key[len(lowered) :]}"] = config.pop(key)
    class_name = config.get(cc.CONNECTOR_CLASS, "").strip()
    if class_name and not config.get(cc.NAME):
        short = class_name.rsplit(".", 1)[-1].removesuffix("Connector")
        config[cc.NAME] = f"spark-{short}"
    return config


def _paths(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def _connector_type(plugins: Plugins, config: Mapping[str, str], role: Role) -> type[Connector]:
    class_name = config.get(cc.CONNECTOR_CLASS, "").strip()
    if not class_name:
        raise ConnectFormatError(
            'format("connect") needs the option connector.class: the connector to run, as '
            'in a Connect config (e.g. .option("connector.class", "FileStreamSource"))'
        )
    try:
        found = plugins.connector_class(class_name)
    except ConnectError as error:
        raise ConnectFormatError(
            f"option connector.class={class_name}: {error}. Name one of them, or install the "
            f"connector's package (or give its directory as option {PLUGIN_PATH})"
        ) from None
    if issubclass(found, FlowConnector):
        raise ConnectFormatError(
            f"option connector.class={class_name}: {found.__name__} runs its own Spark flow "
            "and cannot be read or written as a DataFrame: run it with `seaway mirror-maker` "
            "or on a Connect worker"
        )
    other: Role = "sink" if role == "source" else "source"
    wrong = SinkConnector if role == "source" else SourceConnector
    if issubclass(found, wrong):
        use = (
            'df.writeStream.format("connect") (or df.write.format("connect"))'
            if other == "sink"
            else 'spark.readStream.format("connect") (or spark.read.format("connect"))'
        )
        raise ConnectFormatError(
            f"option connector.class={class_name}: {found.__name__} is a {other} connector, "
            f"which cannot be used as a {role}: use it with {use}, or name a {role} connector"
        )
    return found


def _validate(plugins: Plugins, config: Mapping[str, str], master: str) -> None:
    """Raise :class:`ConnectFormatError` for every error Connect's validation finds, as a
    worker on the session's *master* validates (a connector bound to the worker's host is
    refused where the master is not local)."""
    worker = WorkerConfig(
        {"bootstrap.servers": "localhost:9092", SPARK_MASTER: master}, distributed=False
    )
    infos = ConfigValidator(plugins, worker).validate_connector_config(config)
    if not infos["error_count"]:
        return
    problems = []
    for entry in infos["configs"]:
        value = entry["value"]
        for message in value["errors"]:
            given = "" if value["value"] is None else f"={value['value']}"
            problems.append(f"option {value['name']}{given}: {message}")
    raise ConnectFormatError(
        f"{config[cc.CONNECTOR_CLASS]} rejects its configuration ({infos['error_count']} "
        "error(s)); set these options as the messages say:\n  " + "\n  ".join(problems)
    )


class _Context(ConnectorContext):
    """A connector's runtime while it configures its tasks: a query's configuration is fixed
    when it starts, so a request to reconfigure waits for the next start."""

    def request_task_reconfiguration(self) -> None:
        pass

    def raise_error(self, error: Exception) -> None:
        raise error
