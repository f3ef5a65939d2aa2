"""Connector-level configuration (Kafka's ``ConnectorConfig``, ``SinkConnectorConfig``,
``SourceConnectorConfig``) and validation into the REST ``ConfigInfos`` entity.

Validation follows ``AbstractHerder.validateConnectorConfig``: the framework's keys (with
Connect's groups) are validated, then the connector's own ``validate()``; sink topic rules
and transformation configs add their errors; the result lists the framework groups first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from seaway.config import ConfigDef, ConfigValue, Importance, Type
from seaway.config.keys import ConfigKey
from seaway.config.types import NO_DEFAULT, Width, convert_to_string
from seaway.config.validators import (
    CaseInsensitiveValidString,
    NonEmptyStringWithoutControlChars,
    Range,
)
from seaway.connect.api import Connector, SinkConnector
from seaway.java.regex import compile_java_regex

NAME: Final = "name"
CONNECTOR_CLASS: Final = "connector.class"
TASKS_MAX: Final = "tasks.max"
TOPICS: Final = "topics"
TOPICS_REGEX: Final = "topics.regex"
DLQ_TOPIC: Final = "errors.deadletterqueue.topic.name"

COMMON_GROUP: Final = "Common"
TRANSFORMS_GROUP: Final = "Transforms"
PREDICATES_GROUP: Final = "Predicates"
ERROR_GROUP: Final = "Error Handling"
EXACTLY_ONCE_GROUP: Final = "Exactly Once Support"
OFFSETS_GROUP: Final = "offsets.topic"


def _common() -> ConfigDef:
    d = ConfigDef()
    g = COMMON_GROUP
    d.define(
        NAME,
        Type.STRING,
        NO_DEFAULT,
        NonEmptyStringWithoutControlChars(),
        Importance.HIGH,
        "Globally unique name to use for this connector.",
        group=g,
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="Connector name",
    )
    d.define(
        CONNECTOR_CLASS,
        Type.STRING,
        NO_DEFAULT,
        None,
        Importance.HIGH,
        "Name or alias of the class for this connector.",
        group=g,
        order_in_group=2,
        width=Width.LONG,
        display_name="Connector class",
    )
    d.define(
        TASKS_MAX,
        Type.INT,
        1,
        Range.at_least(1),
        Importance.HIGH,
        "Maximum number of tasks to use for this connector (Spark tasks).",
        group=g,
        order_in_group=3,
        width=Width.SHORT,
        display_name="Tasks max",
    )
    d.define(
        "tasks.max.enforce",
        Type.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "(Deprecated) Fail a connector that generates more than tasks.max tasks.",
        group=g,
        order_in_group=4,
        width=Width.SHORT,
        display_name="Enforce tasks max",
    )
    d.define(
        "key.converter",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "Converter for keys; overrides the worker's key.converter.",
        group=g,
        order_in_group=5,
        width=Width.SHORT,
        display_name="Key converter class",
    )
    d.define(
        "value.converter",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "Converter for values; overrides the worker's value.converter.",
        group=g,
        order_in_group=6,
        width=Width.SHORT,
        display_name="Value converter class",
    )
    d.define(
        "header.converter",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "HeaderConverter for headers; overrides the worker's header.converter.",
        group=g,
        order_in_group=7,
        width=Width.SHORT,
        display_name="Header converter class",
    )
    d.define(
        "config.action.reload",
        Type.STRING,
        "restart",
        CaseInsensitiveValidString(["none", "restart"]),
        Importance.LOW,
        "What to do when config-provider values change.",
        group=g,
        order_in_group=8,
        width=Width.MEDIUM,
        display_name="Reload Action",
    )
    d.define(
        "transforms",
        Type.LIST,
        "",
        None,
        Importance.LOW,
        "Aliases for the transformations to apply to records, in order.",
        group=TRANSFORMS_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="Transforms",
    )
    d.define(
        "predicates",
        Type.LIST,
        "",
        None,
        Importance.LOW,
        "Aliases for the predicates used by transformations.",
        group=PREDICATES_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="Predicates",
    )
    e = ERROR_GROUP
    d.define(
        "errors.retry.timeout",
        Type.LONG,
        0,
        None,
        Importance.MEDIUM,
        "Maximum ms a failed operation is retried; 0 means no retries, -1 infinite.",
        group=e,
        order_in_group=1,
        width=Width.MEDIUM,
        display_name="Retry Timeout for Errors",
    )
    d.define(
        "errors.retry.delay.max.ms",
        Type.LONG,
        60000,
        None,
        Importance.MEDIUM,
        "Maximum ms between retries.",
        group=e,
        order_in_group=2,
        width=Width.MEDIUM,
        display_name="Maximum Delay Between Retries for Errors",
    )
    d.define(
        "errors.tolerance",
        Type.STRING,
        "none",
        CaseInsensitiveValidString(["none", "all"]),
        Importance.MEDIUM,
        "Behavior for tolerating errors during connector operation. 'none' is the "
        "default value and signals that any error will result in an immediate connector "
        "task failure; 'all' changes the behavior to skip over problematic records.",
        group=e,
        order_in_group=3,
        width=Width.SHORT,
        display_name="Error Tolerance",
    )
    d.define(
        "errors.log.enable",
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Log each failed operation and problematic record.",
        group=e,
        order_in_group=4,
        width=Width.SHORT,
        display_name="Log Errors",
    )
    d.define(
        "errors.log.include.messages",
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Include the failed record in the log.",
        group=e,
        order_in_group=5,
        width=Width.SHORT,
        display_name="Log Error Details",
    )
    return d  # fmt: skip


def _sink() -> ConfigDef:
    d = _common()
    g = COMMON_GROUP
    d.define(
        TOPICS,
        Type.LIST,
        "",
        None,
        Importance.HIGH,
        "List of topics to consume, separated by commas.",
        group=g,
        order_in_group=4,
        width=Width.LONG,
        display_name="Topics",
    )
    d.define(
        TOPICS_REGEX,
        Type.STRING,
        "",
        None,
        Importance.HIGH,
        "Regular expression giving topics to consume.",
        group=g,
        order_in_group=4,
        width=Width.LONG,
        display_name="Topics regex",
    )
    d.define(
        DLQ_TOPIC,
        Type.STRING,
        "",
        None,
        Importance.MEDIUM,
        "Topic for records that fail conversion or transformation.",
        group=ERROR_GROUP,
        order_in_group=6,
        width=Width.MEDIUM,
        display_name="Dead Letter Queue Topic Name",
    )
    d.define(
        "errors.deadletterqueue.topic.replication.factor",
        Type.SHORT,
        3,
        None,
        Importance.MEDIUM,
        "Replication factor of the dead letter queue topic.",
        group=ERROR_GROUP,
        order_in_group=7,
        width=Width.MEDIUM,
        display_name="Dead Letter Queue Topic Replication Factor",
    )
    d.define(
        "errors.deadletterqueue.context.headers.enable",
        Type.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Add error context headers to dead letter queue records.",
        group=ERROR_GROUP,
        order_in_group=8,
        width=Width.MEDIUM,
        display_name="Enable Error Context Headers",
    )
    return d  # fmt: skip


def _source() -> ConfigDef:
    d = _common()
    d.define(
        "exactly.once.support",
        Type.STRING,
        "requested",
        CaseInsensitiveValidString(["requested", "required"]),
        Importance.MEDIUM,
        "'required' refuses to run unless the worker and connector support exactly-once.",
        group=EXACTLY_ONCE_GROUP,
        order_in_group=1,
        width=Width.SHORT,
        display_name="Exactly once support",
    )
    d.define(
        "transaction.boundary",
        Type.STRING,
        "poll",
        CaseInsensitiveValidString(["poll", "interval", "connector"]),
        Importance.MEDIUM,
        "Transaction boundaries; Seaway commits one transaction per task and batch.",
        group=EXACTLY_ONCE_GROUP,
        order_in_group=2,
        width=Width.SHORT,
        display_name="Transaction Boundary",
    )
    d.define(
        "transaction.boundary.interval.ms",
        Type.LONG,
        None,
        None,
        Importance.LOW,
        "Interval for transaction.boundary=interval.",
        group=EXACTLY_ONCE_GROUP,
        order_in_group=3,
        width=Width.SHORT,
        display_name="Transaction boundary interval",
    )
    d.define(
        "offsets.storage.topic",
        Type.STRING,
        None,
        None,
        Importance.LOW,
        "A separate offsets topic for this connector.",
        group=OFFSETS_GROUP,
        order_in_group=1,
        width=Width.LONG,
        display_name="Offsets topic",
    )
    return d  # fmt: skip


COMMON_CONFIG_DEF: Final = _common()
SINK_CONFIG_DEF: Final = _sink()
SOURCE_CONFIG_DEF: Final = _source()


def framework_config_def(connector: Connector | None) -> ConfigDef:
    if isinstance(connector, SinkConnector):
        return SINK_CONFIG_DEF
    from seaway.connect.api import SourceConnector

    if isinstance(connector, SourceConnector):
        return SOURCE_CONFIG_DEF
    return COMMON_CONFIG_DEF


def sink_topic_errors(config: Mapping[str, str]) -> dict[str, list[str]]:
    """Kafka's ``SinkConnectorConfig.validate`` rules for topics, topics.regex and the DLQ."""
    topics = [t.strip() for t in (config.get(TOPICS) or "").split(",") if t.strip()]
    regex = (config.get(TOPICS_REGEX) or "").strip()
    errors: dict[str, list[str]] = {}
    if topics and regex:
        message = "topics and topics.regex are mutually exclusive options, but both are set."
        errors = {TOPICS: [message], TOPICS_REGEX: [message]}
    elif not topics and not regex:
        message = "Must configure one of topics or topics.regex"
        errors = {TOPICS: [message], TOPICS_REGEX: [message]}
    if regex:
        try:
            compile_java_regex(regex)
        except re.error as error:
            errors.setdefault(TOPICS_REGEX, []).append(f"Invalid regex: {error}")
    dlq = (config.get(DLQ_TOPIC) or "").strip()
    if dlq and dlq in topics:
        errors.setdefault(TOPICS, []).append(
            f"The DLQ topic '{dlq}' may not be included in the list of topics "
            f"('{TOPICS}=[{', '.join(topics)}]') consumed by the connector"
        )
    if dlq and regex and _full_match(regex, dlq):
        errors.setdefault(TOPICS_REGEX, []).append(
            f"The DLQ topic '{dlq}' may not be matched by the regex for the topics "
            f"('{TOPICS_REGEX}={regex}') consumed by the connector"
        )
    return errors


def _full_match(regex: str, text: str) -> bool:
    try:
        return compile_java_regex(regex).fullmatch(text) is not None
    except re.error:
        return False


def config_key_info(key: ConfigKey) -> dict[str, Any]:
    """The REST ``ConfigKeyInfo`` of one key."""
    return {
        "name": key.name,
        "type": key.type.name,
        "required": not key.has_default,
        "default_value": convert_to_string(key.default_value, key.type)
        if key.has_default
        else None,
        "importance": key.importance.name,
        "documentation": key.documentation,
        "group": key.group,
        "order": key.order_in_group,
        "width": key.width.name,
        "display_name": key.display_name,
        "dependents": list(key.dependents),
    }


def config_value_info(value: ConfigValue, key: ConfigKey | None) -> dict[str, Any]:
    """The REST ``ConfigValueInfo`` of one validated value."""
    rendered = value.value
    if rendered is not None and not isinstance(rendered, str):
        rendered = convert_to_string(rendered, key.type if key else None)
    return {
        "name": value.name,
        "value": rendered,
        "recommended_values": [convert_to_string(v) for v in value.recommended_values],
        "errors": list(value.errors),
        "visible": value.visible,
    }


def config_infos(
    connector_class: str,
    definitions: list[tuple[ConfigDef, list[ConfigValue]]],
    extra_errors: Mapping[str, list[str]] | None = None,
    raw: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Merge validation results into the REST ``ConfigInfos``.

    *definitions* pairs each ConfigDef with its validated values (framework first);
    *extra_errors* adds messages for keys (defined or not, e.g. ``transforms.a.type``).
    """
    groups: list[str] = []
    configs: dict[str, dict[str, Any]] = {}
    for config_def, values in definitions:
        keys = config_def.config_keys
        for group in config_def.groups:
            if group not in groups:
                groups.append(group)
        for value in values:
            if value.name in configs:
                continue
            key = keys.get(value.name)
            configs[value.name] = {
                "definition": config_key_info(key) if key is not None else None,
                "value": config_value_info(value, key),
            }
    raw = raw or {}
    for name, messages in (extra_errors or {}).items():
        entry = configs.get(name)
        if entry is None:
            entry = configs[name] = {
                "definition": None,
                "value": config_value_info(ConfigValue(name, raw.get(name)), None),
            }
        for message in messages:
            if message not in entry["value"]["errors"]:
                entry["value"]["errors"].append(message)
    error_count = sum(len(c["value"]["errors"]) for c in configs.values())
    return {
        "name": connector_class,
        "error_count": error_count,
        "groups": groups,
        "configs": list(configs.values()),
    }


def invalid_config_message(infos: Mapping[str, Any]) -> str:
    """Kafka's ``maybeAddConfigErrors`` message for a create/update with errors."""
    errors = [message for c in infos["configs"] for message in c["value"]["errors"]]
    return (
        f"Connector configuration is invalid and contains the following {len(errors)} "
        "error(s):\n" + "".join(f"{e}\n" for e in errors) + "You can also find the above list "
        "of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`"
    )


__all__ = [
    "COMMON_CONFIG_DEF",
    "CONNECTOR_CLASS",
    "NAME",
    "SINK_CONFIG_DEF",
    "SOURCE_CONFIG_DEF",
    "TASKS_MAX",
    "config_infos",
    "config_key_info",
    "framework_config_def",
    "invalid_config_message",
    "sink_topic_errors",
]
