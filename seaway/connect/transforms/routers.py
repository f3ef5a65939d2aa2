"""Topic routers: RegexRouter and TimestampRouter rename the record's topic."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.connect.api.data import Timestamp
from seaway.connect.api.errors import DataError
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms._util import R, RegexValidator, simple_config
from seaway.java.dates import SimpleDateFormat
from seaway.java.regex import JavaReplacement, compile_java_regex

logger = logging.getLogger(__name__)

REGEX_CONFIG = "regex"
REPLACEMENT_CONFIG = "replacement"
TOPIC_FORMAT_CONFIG = "topic.format"
TIMESTAMP_FORMAT_CONFIG = "timestamp.format"

REGEX_ROUTER_CONFIG_DEF = (
    ConfigDef()
    .define(
        REGEX_CONFIG,
        Type.STRING,
        validator=RegexValidator(),
        importance=Importance.HIGH,
        doc="Regular expression to use for matching.",
    )
    .define(REPLACEMENT_CONFIG, Type.STRING, importance=Importance.HIGH, doc="Replacement string.")
)

TIMESTAMP_ROUTER_CONFIG_DEF = (
    ConfigDef()
    .define(
        TOPIC_FORMAT_CONFIG,
        Type.STRING,
        "${topic}-${timestamp}",
        importance=Importance.HIGH,
        doc="Format string which can contain <code>${topic}</code> and "
        "<code>${timestamp}</code> as placeholders for the topic and timestamp, respectively.",
    )
    .define(
        TIMESTAMP_FORMAT_CONFIG,
        Type.STRING,
        "yyyyMMdd",
        importance=Importance.HIGH,
        doc="Format string for the timestamp that is compatible with "
        "<code>java.text.SimpleDateFormat</code>.",
    )
)


class RegexRouter(Transformation[R]):
    """Rename the topic when ``regex`` matches all of it: ``replacement`` may use ``$1``.

    >>> from seaway.connect.api import SinkRecord
    >>> router = RegexRouter()
    >>> router.configure({"regex": "(.*)-raw", "replacement": "$1-clean"})
    >>> router.apply(SinkRecord(topic="orders-raw", kafka_offset=0)).topic
    'orders-clean'
    """

    OVERVIEW_DOC = (
        "Update the record topic using the configured regular expression and replacement "
        "string.<p/>Under the hood, the regex is compiled to a "
        "<code>java.util.regex.Pattern</code>. If the pattern matches the input topic, "
        "<code>java.util.regex.Matcher#replaceFirst()</code> is used with the replacement string "
        "to obtain the new topic."
    )
    CONFIG_DEF = REGEX_ROUTER_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(REGEX_ROUTER_CONFIG_DEF, configs)
        self._regex = compile_java_regex(config.get_string(REGEX_CONFIG) or "")
        replacement = config.get_string(REPLACEMENT_CONFIG) or ""
        try:
            self._replacement = JavaReplacement(replacement, self._regex)
        except ValueError as exc:
            raise ConfigException(REPLACEMENT_CONFIG, replacement, str(exc)) from exc

    def config(self) -> ConfigDef:
        return REGEX_ROUTER_CONFIG_DEF

    def apply(self, record: R) -> R:
        if self._regex.fullmatch(record.topic) is None:
            logger.debug(
                "Not rerouting topic '%s' as it does not match the configured regex", record.topic
            )
            return record
        # Like Java's Matcher.replaceFirst, the replaced match is the first one found, which
        # (for a lazy regex) need not span the whole topic.
        topic = self._replacement.replace_first(self._regex, record.topic)
        logger.debug("Rerouting from topic '%s' to new topic '%s'", record.topic, topic)
        return record.new_record(topic=topic)


class TimestampRouter(Transformation[R]):
    """Rename the topic from ``topic.format`` with ``${topic}`` and ``${timestamp}``
    (the record timestamp in ``timestamp.format``, in UTC)."""

    OVERVIEW_DOC = (
        "Update the record's topic field as a function of the original topic value and the "
        "record timestamp.<p/>This is mainly useful for sink connectors, since the topic field "
        "is often used to determine the equivalent entity name in the destination system"
        "(e.g. database table or search index name)."
    )
    CONFIG_DEF = TIMESTAMP_ROUTER_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(TIMESTAMP_ROUTER_CONFIG_DEF, configs)
        self._topic_format = config.get_string(TOPIC_FORMAT_CONFIG) or ""
        pattern = config.get_string(TIMESTAMP_FORMAT_CONFIG) or ""
        try:
            self._timestamp_format = SimpleDateFormat(pattern)
        except ValueError as exc:
            raise ConfigException(TIMESTAMP_FORMAT_CONFIG, pattern, str(exc)) from exc

    def config(self) -> ConfigDef:
        return TIMESTAMP_ROUTER_CONFIG_DEF

    def apply(self, record: R) -> R:
        if record.timestamp is None:
            raise DataError(f"Timestamp missing on record: {record}")
        instant = Timestamp.to_logical(Timestamp.SCHEMA, record.timestamp)
        formatted = self._timestamp_format.format(instant)
        topic = self._topic_format.replace("${topic}", record.topic)
        return record.new_record(topic=topic.replace("${timestamp}", formatted))


__all__ = ["RegexRouter", "TimestampRouter"]
