"""Worker configuration, with Kafka Connect's names and defaults (``WorkerConfig``,
``StandaloneConfig``, ``DistributedConfig``), plus Seaway's Spark settings.

Seaway keys (not in Kafka): ``spark.master`` (default ``local[*]``; any ``spark://``,
``k8s://`` or ``yarn`` master works), ``spark.app.name``, and every other ``spark.*``
property, handed to the SparkSession as is.

One difference from Kafka, on purpose: ``key.converter`` and ``value.converter`` default to
``JsonConverter`` (Kafka requires them, and every sample file sets JsonConverter).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from seaway.config import ConfigDef, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString, Range, ValidString
from seaway.connect.runtime.storage import settings

log = logging.getLogger(__name__)

JSON_CONVERTER: Final = "org.apache.kafka.connect.json.JsonConverter"
SIMPLE_HEADER_CONVERTER: Final = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

BOOTSTRAP_SERVERS: Final = settings.BOOTSTRAP_SERVERS_CONFIG
KEY_CONVERTER: Final = "key.converter"
VALUE_CONVERTER: Final = "value.converter"
HEADER_CONVERTER: Final = "header.converter"
OFFSET_FLUSH_INTERVAL_MS: Final = "offset.flush.interval.ms"
OFFSET_FLUSH_TIMEOUT_MS: Final = "offset.flush.timeout.ms"
LISTENERS: Final = "listeners"
REST_HOST_NAME: Final = "rest.host.name"
REST_PORT: Final = "rest.port"
REST_PORT_DEFAULT: Final = 8083
PLUGIN_PATH: Final = "plugin.path"
TOPIC_TRACKING_ENABLE: Final = "topic.tracking.enable"
TOPIC_TRACKING_ALLOW_RESET: Final = "topic.tracking.allow.reset"
EXACTLY_ONCE_SOURCE_SUPPORT: Final = "exactly.once.source.support"
GROUP_ID: Final = "group.id"
SPARK_MASTER: Final = "spark.master"
SPARK_APP_NAME: Final = "spark.app.name"

_COMMON: Final = "Common"
_REST: Final = "REST"
_SPARK: Final = "Spark"


def _common() -> ConfigDef:
    d = ConfigDef()
    d.define(
        BOOTSTRAP_SERVERS,
        Type.LIST,
        settings.BOOTSTRAP_SERVERS_DEFAULT,
        None,
        Importance.HIGH,
        "Kafka brokers to bootstrap from (host:port,...).",
        group=_COMMON,
    )
    d.define(
        KEY_CONVERTER,
        Type.STRING,
        JSON_CONVERTER,
        None,
        Importance.HIGH,
        "Converter class for record keys (class name, alias or Python path).",
        group=_COMMON,
    )
    d.define(
        VALUE_CONVERTER,
        Type.STRING,
        JSON_CONVERTER,
        None,
        Importance.HIGH,
        "Converter class for record values.",
        group=_COMMON,
    )
    d.define(
        HEADER_CONVERTER,
        Type.STRING,
        SIMPLE_HEADER_CONVERTER,
        None,
        Importance.LOW,
        "HeaderConverter class for record headers.",
        group=_COMMON,
    )
    d.define(
        OFFSET_FLUSH_INTERVAL_MS,
        Type.LONG,
        60000,
        Range.at_least(0),
        Importance.LOW,
        "How often source offsets are committed (at-least-once mode).",
        group=_COMMON,
    )
    d.define(
        OFFSET_FLUSH_TIMEOUT_MS,
        Type.LONG,
        5000,
        Range.at_least(0),
        Importance.LOW,
        "How long an offset flush may take before it is cancelled.",
        group=_COMMON,
    )
    d.define(
        "task.shutdown.graceful.timeout.ms",
        Type.LONG,
        5000,
        Range.at_least(0),
        Importance.LOW,
        "How long to wait for tasks to stop.",
        group=_COMMON,
    )
    d.define(
        PLUGIN_PATH,
        Type.LIST,
        "",
        None,
        Importance.LOW,
        "Directories added to the Python path; connector classes may then be named "
        "by Python path (package.module.Class).",
        group=_COMMON,
    )
    d.define(
        "client.id",
        Type.STRING,
        "",
        None,
        Importance.LOW,
        "Client id prefix for the worker's Kafka clients.",
        group=_COMMON,
    )
    d.define(
        TOPIC_TRACKING_ENABLE,
        Type.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Track the topics each connector uses (GET /connectors/{name}/topics).",
        group=_COMMON,
    )
    d.define(
        TOPIC_TRACKING_ALLOW_RESET,
        Type.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Allow PUT /connectors/{name}/topics/reset.",
        group=_COMMON,
    )
    d.define(
        "topic.creation.enable",
        Type.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Let source connectors' topics be created by the worker.",
        group=_COMMON,
    )
    d.define(
        "connector.client.config.override.policy",
        Type.STRING,
        "All",
        ValidString(["All", "None", "Principal"]),
        Importance.MEDIUM,
        "Which producer./consumer./admin.override.* connector settings are allowed.",
        group=_COMMON,
    )
    d.define(
        "config.providers",
        Type.LIST,
        "",
        None,
        Importance.LOW,
        "Names of ConfigProviders resolving ${provider:path:key} references.",
        group=_COMMON,
    )
    d.define(
        "rest.extension.classes",
        Type.LIST,
        "",
        None,
        Importance.LOW,
        "REST extensions: org.apache.kafka.connect.rest.basic.auth.extension."
        "BasicAuthSecurityRestExtension (HTTP basic authentication, users from the JAAS file "
        "of KAFKA_OPTS=-Djava.security.auth.login.config=...).",
        group=_REST,
    )
    d.define(
        LISTENERS,
        Type.LIST,
        "http://:8083",
        None,
        Importance.LOW,
        "REST listeners, e.g. http://:8083 (empty host: all interfaces).",
        group=_REST,
    )
    d.define(
        REST_HOST_NAME,
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "DEPRECATED (removed in Kafka 3.0; use listeners): host the REST API binds to, "
        "only when listeners is not set (unset: all interfaces).",
        group=_REST,
    )
    d.define(
        REST_PORT,
        Type.INT,
        None,
        None,
        Importance.LOW,
        "DEPRECATED (removed in Kafka 3.0; use listeners): port the REST API listens on, "
        f"only when listeners is not set (unset: {REST_PORT_DEFAULT}).",
        group=_REST,
    )
    d.define(
        "admin.listeners",
        Type.LIST,
        None,
        None,
        Importance.LOW,
        "Listeners of the admin endpoints (/admin/loggers), settings under "
        "admin.listeners.https.*; unset: on the main listeners; empty: disabled. REST "
        "extensions (basic authentication) do not guard them, as in Kafka.",
        group=_REST,
    )
    d.define(
        "rest.advertised.host.name",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "Host name other workers and the status API use for this worker.",
        group=_REST,
    )
    d.define(
        "rest.advertised.port",
        Type.INT,
        None,
        None,
        Importance.LOW,
        "Port other workers and the status API use for this worker.",
        group=_REST,
    )
    d.define(
        "rest.advertised.listener",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "Protocol advertised (http).",
        group=_REST,
    )
    d.define(
        SPARK_MASTER,
        Type.STRING,
        "local[*]",
        None,
        Importance.HIGH,
        "Spark master the connectors run on (local[*], spark://..., k8s://..., yarn).",
        group=_SPARK,
    )
    d.define(
        SPARK_APP_NAME,
        Type.STRING,
        "seaway-connect",
        None,
        Importance.LOW,
        "Spark application name.",
        group=_SPARK,
    )
    d.define(
        "spark.checkpoint.dir",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "Where each query run keeps its (temporary) Spark checkpoint; default: a "
        "temporary directory. Offsets always come from Connect's offset store.",
        group=_SPARK,
    )
    d.define(
        "spark.trigger.interval.ms",
        Type.LONG,
        500,
        Range.at_least(0),
        Importance.LOW,
        "Micro-batch trigger interval of connector queries.",
        group=_SPARK,
    )
    d.define(
        "spark.source.plans.per.batch",
        Type.INT,
        500,
        Range.at_least(1),
        Importance.LOW,
        "How many poll()-sized plans of each source task one micro-batch may chain. A task "
        "reads and produces its range as a stream, so a large micro-batch costs no memory, "
        "only the latency of Connect's offset commits.",
        group=_SPARK,
    )
    return d  # fmt: skip


def _standalone() -> ConfigDef:
    d = _common()
    d.define(
        settings.OFFSET_STORAGE_FILE_FILENAME_CONFIG,
        Type.STRING,
        None,
        None,
        Importance.HIGH,
        "File to store source connector offsets in.",
        group=_COMMON,
    )
    return d  # fmt: skip


def _distributed() -> ConfigDef:
    d = _common()
    d.define(
        GROUP_ID,
        Type.STRING,
        None,
        None,
        Importance.HIGH,
        "Unique string naming the Connect cluster this worker belongs to.",
        group=_COMMON,
    )
    for kind, topic_doc in (
        (settings.CONFIGS, "connector configurations"),
        (settings.OFFSETS, "source connector offsets"),
        (settings.STATUSES, "connector and task statuses"),
    ):
        d.define(
            kind.prefix + "topic",
            Type.STRING,
            None,
            None,
            Importance.HIGH,
            f"The compacted topic holding {topic_doc}.",
            group=_COMMON,
        )
        d.define(
            kind.prefix + "replication.factor",
            Type.SHORT,
            3,
            None,
            Importance.LOW,
            f"Replication factor of the {topic_doc} topic.",
            group=_COMMON,
        )
        if kind is not settings.CONFIGS:
            d.define(
                kind.prefix + "partitions",
                Type.INT,
                kind.partitions,
                Range.at_least(1),
                Importance.LOW,
                f"Partitions of the {topic_doc} topic.",
                group=_COMMON,
            )
    d.define(
        EXACTLY_ONCE_SOURCE_SUPPORT,
        Type.STRING,
        "disabled",
        CaseInsensitiveValidString(["disabled", "preparing", "enabled"]),
        Importance.HIGH,
        "Exactly-once source connectors (KIP-618): records and their offsets are "
        "written in one transaction per task and batch.",
        group=_COMMON,
    )
    d.define(
        "session.timeout.ms",
        Type.INT,
        10000,
        None,
        Importance.HIGH,
        "How long the group coordinator waits for a worker's heartbeat before it removes "
        "the worker from the group and rebalances.",
        group=_COMMON,
    )
    d.define(
        "heartbeat.interval.ms",
        Type.INT,
        3000,
        Range.at_least(1),
        Importance.HIGH,
        "How often a worker heartbeats to the group coordinator (well below session.timeout.ms).",
        group=_COMMON,
    )
    d.define(
        "rebalance.timeout.ms",
        Type.INT,
        60000,
        Range.at_least(1),
        Importance.HIGH,
        "How long the coordinator waits for every worker to join once a rebalance starts.",
        group=_COMMON,
    )
    d.define(
        "scheduled.rebalance.max.delay.ms",
        Type.INT,
        300000,
        Range.between(0, 2**31 - 1),
        Importance.LOW,
        "How long the leader keeps a departed worker's connectors unassigned, waiting for "
        "it to come back, before it gives them to the other workers (KIP-415); also the "
        "cap of the back-off between consecutive revoking rebalances.",
        group=_COMMON,
    )
    d.define(
        "worker.sync.timeout.ms",
        Type.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "How long a worker reads the config topic to catch up with an assignment before "
        "it gives up and rejoins.",
        group=_COMMON,
    )
    d.define(
        "connect.protocol",
        Type.STRING,
        "sessioned",
        CaseInsensitiveValidString(["compatible", "sessioned"]),
        Importance.LOW,
        "The group protocol: 'sessioned' (incremental cooperative rebalancing with signed "
        "internal requests, KIP-507) or 'compatible' (the same without signing). Kafka's "
        "'eager' protocol is not offered.",
        group=_COMMON,
    )
    d.define(
        "inter.worker.key.ttl.ms",
        Type.INT,
        3600000,
        Range.between(0, 2**31 - 1),
        Importance.LOW,
        "How long the leader's session key for signing internal requests stays valid "
        "before the leader writes a new one.",
        group=_COMMON,
    )
    return d  # fmt: skip


STANDALONE_CONFIG_DEF: Final = _standalone()
DISTRIBUTED_CONFIG_DEF: Final = _distributed()


class WorkerConfig:
    """A worker's parsed configuration; ``originals`` keeps every property as given."""

    def __init__(self, props: Mapping[str, Any], *, distributed: bool) -> None:
        self.distributed = distributed
        self.originals: dict[str, str] = {k: str(v) for k, v in props.items()}
        config_def = DISTRIBUTED_CONFIG_DEF if distributed else STANDALONE_CONFIG_DEF
        self.values: dict[str, Any] = config_def.parse(self.originals)

    def get(self, key: str) -> Any:
        """The parsed value of a defined key."""
        return self.values[key]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(self.values[BOOTSTRAP_SERVERS])

    @property
    def exactly_once_source(self) -> bool:
        """``exactly.once.source.support=enabled`` (distributed workers only, as in Kafka)."""
        return self.distributed and (
            str(self.values[EXACTLY_ONCE_SOURCE_SUPPORT]).lower() == "enabled"
        )

    def rest_listeners(self) -> list[str]:
        """The REST listeners, as Kafka 2.8's ``RestServer.parseListeners``: ``listeners``
        if set, else ``http://<rest.host.name>:<rest.port>``; warns once of either
        deprecated key."""
        legacy = [key for key in (REST_HOST_NAME, REST_PORT) if self.values[key] is not None]
        listeners: list[str] = self.values[LISTENERS]
        if not legacy:
            return listeners
        names = " and ".join(legacy)
        if LISTENERS in self.originals:
            log.warning("%s ignored: listeners is set (%s)", names, ",".join(listeners))
            return listeners
        port = self.values[REST_PORT]
        host = self.values[REST_HOST_NAME] or ""
        url = f"http://{host}:{REST_PORT_DEFAULT if port is None else port}"
        log.warning(
            "Deprecated %s (removed in Kafka 3.0): listening on %s; set listeners=%s instead",
            names,
            url,
            url,
        )
        return [url]

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """Original properties under *prefix*, prefix removed (``producer.``, ``consumer.``)."""
        return {k[len(prefix) :]: v for k, v in self.originals.items() if k.startswith(prefix)}

    def spark_config(self) -> dict[str, str]:
        """``spark.*`` properties for the SparkSession (minus Seaway's own)."""
        own = {
            SPARK_MASTER,
            SPARK_APP_NAME,
            "spark.checkpoint.dir",
            "spark.trigger.interval.ms",
            "spark.source.plans.per.batch",
        }
        return {k: v for k, v in self.originals.items() if k.startswith("spark.") and k not in own}


__all__ = [
    "DISTRIBUTED_CONFIG_DEF",
    "JSON_CONVERTER",
    "SIMPLE_HEADER_CONVERTER",
    "STANDALONE_CONFIG_DEF",
    "WorkerConfig",
]
