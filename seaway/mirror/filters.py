"""Which topics, consumer groups and topic config properties MirrorMaker 2 replicates.

The defaults follow Kafka's ``DefaultTopicFilter``, ``DefaultGroupFilter`` and
``DefaultConfigPropertyFilter`` (4.0): each setting is a comma-separated list of Java-style
regexes that must match the *whole* name (``Pattern.matcher(name).matches()``), so ``foo``
matches only ``foo`` and ``foo.*`` matches ``foo-1``. An empty list matches nothing.

Kafka joins the list with ``|`` into one pattern; here each entry is compiled on its own
(the result is the same for every well-formed list, and a bad entry is named in the error).
Regexes are Java's, as Kafka compiles them (:mod:`seaway.java.regex`).

The 3.x names ``topics.blacklist``, ``groups.blacklist`` and ``config.properties.blacklist``
were removed in Kafka 4.0; they are still honoured here, with a warning, so that older
configs keep their exclusions (the current name wins when both are set, as in 3.x).
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, Importance, Type, ValidString, load_class
from seaway.java.regex import compile_java_regex

logger = logging.getLogger(__name__)

TOPICS: Final = "topics"
TOPICS_DEFAULT: Final = ".*"
TOPICS_EXCLUDE: Final = "topics.exclude"
TOPICS_EXCLUDE_DEFAULT: Final = r".*[\-\.]internal, .*\.replica, __.*"
GROUPS: Final = "groups"
GROUPS_DEFAULT: Final = ".*"
GROUPS_EXCLUDE: Final = "groups.exclude"
GROUPS_EXCLUDE_DEFAULT: Final = "console-consumer-.*, connect-.*, __.*"
CONFIG_PROPERTIES_EXCLUDE: Final = "config.properties.exclude"
CONFIG_PROPERTIES_EXCLUDE_DEFAULT: Final = (
    r"follower\.replication\.throttled\.replicas, "
    r"leader\.replication\.throttled\.replicas, "
    r"message\.timestamp\.difference\.max\.ms, "
    r"message\.timestamp\.type, "
    r"unclean\.leader\.election\.enable, "
    r"min\.insync\.replicas"
)
USE_DEFAULTS_FROM: Final = "use.defaults.from"
USE_DEFAULTS_FROM_DEFAULT: Final = "target"

TOPIC_FILTER_CLASS: Final = "topic.filter.class"
GROUP_FILTER_CLASS: Final = "group.filter.class"
CONFIG_PROPERTY_FILTER_CLASS: Final = "config.property.filter.class"

_KAFKA_PACKAGE: Final = "org.apache.kafka.connect.mirror."
DEFAULT_TOPIC_FILTER_CLASS: Final = _KAFKA_PACKAGE + "DefaultTopicFilter"
DEFAULT_GROUP_FILTER_CLASS: Final = _KAFKA_PACKAGE + "DefaultGroupFilter"
DEFAULT_CONFIG_PROPERTY_FILTER_CLASS: Final = _KAFKA_PACKAGE + "DefaultConfigPropertyFilter"

DEPRECATED_ALIASES: Final[Mapping[str, str]] = {
    "topics.blacklist": TOPICS_EXCLUDE,
    "groups.blacklist": GROUPS_EXCLUDE,
    "config.properties.blacklist": CONFIG_PROPERTIES_EXCLUDE,
}
"""Kafka 3.x deprecated names (removed in 4.0) and the setting each stands for."""


class PatternList:
    """A list of regexes; a name matches if any of them matches it entirely.

    Raises :class:`ConfigException` naming *config_name* if an entry is not a valid regex.
    """

    def __init__(self, patterns: Iterable[str], config_name: str = "pattern list") -> None:
        self.patterns: tuple[str, ...] = tuple(patterns)
        self._compiled: list[re.Pattern[str]] = []
        for pattern in self.patterns:
            try:
                self._compiled.append(compile_java_regex(pattern))
            except re.error as exc:
                raise ConfigException(
                    config_name, list(self.patterns), f"Invalid regex '{pattern}': {exc}"
                ) from None

    def matches(self, name: str) -> bool:
        """Whether some pattern matches all of *name* (never, for an empty list)."""
        return any(p.fullmatch(name) for p in self._compiled)

    def __repr__(self) -> str:
        return f"PatternList({list(self.patterns)!r})"


def translate_deprecated(props: Mapping[str, Any]) -> dict[str, Any]:
    """*props* with the 3.x ``*.blacklist`` names moved to their current names.

    Like Kafka 3.x's ``ConfigUtils.translateDeprecatedConfigs``: a current name that is set
    wins over its deprecated alias; either way a warning is logged.
    """
    result = dict(props)
    for alias, current in DEPRECATED_ALIASES.items():
        if alias not in result:
            continue
        value = result.pop(alias)
        if current in result:
            logger.warning("%s was configured, as well as the deprecated alias %s. Using %s.",
                           current, alias, current)  # fmt: skip
        else:
            logger.warning("Configuration %s was removed in Kafka 4.0; use %s instead.",
                           alias, current)  # fmt: skip
            result[current] = value
    return result


def _source_name(props: Mapping[str, Any], name: str) -> str:
    """The key that supplied *name* after translation (the alias if only it was set)."""
    if name in props:
        return name
    for alias, current in DEPRECATED_ALIASES.items():
        if current == name and alias in props:
            return alias
    return name


TOPIC_FILTER_CONFIG_DEF: Final = (
    ConfigDef()
    .define(TOPICS, Type.LIST, TOPICS_DEFAULT, None, Importance.HIGH,
            "List of topics and/or regexes to replicate.")
    .define(TOPICS_EXCLUDE, Type.LIST, TOPICS_EXCLUDE_DEFAULT, None, Importance.HIGH,
            "List of topics and/or regexes that should not be replicated.")
)  # fmt: skip
GROUP_FILTER_CONFIG_DEF: Final = (
    ConfigDef()
    .define(GROUPS, Type.LIST, GROUPS_DEFAULT, None, Importance.HIGH,
            "List of consumer group names and/or regexes to replicate.")
    .define(GROUPS_EXCLUDE, Type.LIST, GROUPS_EXCLUDE_DEFAULT, None, Importance.HIGH,
            "List of consumer group names and/or regexes that should not be replicated.")
)  # fmt: skip
CONFIG_PROPERTY_FILTER_CONFIG_DEF: Final = (
    ConfigDef()
    .define(CONFIG_PROPERTIES_EXCLUDE, Type.LIST, CONFIG_PROPERTIES_EXCLUDE_DEFAULT, None,
            Importance.HIGH,
            "List of topic configuration properties and/or regexes that should not be "
            "replicated.")
    .define(USE_DEFAULTS_FROM, Type.STRING, USE_DEFAULTS_FROM_DEFAULT,
            ValidString.in_("source", "target"), Importance.MEDIUM,
            "Which cluster's defaults (source or target) to use when syncing topic "
            "configurations that have default values.")
)  # fmt: skip


def _parse(definition: ConfigDef, props: Mapping[str, Any]) -> dict[str, Any]:
    """Parse *props* (deprecated names translated); errors name the key the user set."""
    try:
        return definition.parse(translate_deprecated(props))
    except ConfigException as exc:
        if exc.name is not None and exc.name in definition:
            raise ConfigException(_source_name(props, exc.name), exc.value, exc.reason) from None
        raise


def _pattern_list(values: Mapping[str, Any], props: Mapping[str, Any], name: str) -> PatternList:
    return PatternList(values[name], _source_name(props, name))


# ----------------------------------------------------------------------------- interfaces


class TopicFilter(ABC):
    """Decides which source topics are replicated (Kafka's ``TopicFilter``)."""

    def configure(self, props: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Configure from the connector's properties. Default: nothing."""

    @abstractmethod
    def should_replicate_topic(self, topic: str) -> bool:
        """Whether *topic* should be replicated."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources. Default: nothing."""


class GroupFilter(ABC):
    """Decides which consumer groups get checkpoints (Kafka's ``GroupFilter``)."""

    def configure(self, props: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Configure from the connector's properties. Default: nothing."""

    @abstractmethod
    def should_replicate_group(self, group: str) -> bool:
        """Whether offsets of *group* should be replicated."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources. Default: nothing."""


class ConfigPropertyFilter(ABC):
    """Decides which topic config properties are synced (Kafka's ``ConfigPropertyFilter``)."""

    def configure(self, props: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Configure from the connector's properties. Default: nothing."""

    @abstractmethod
    def should_replicate_config_property(self, prop: str) -> bool:
        """Whether topic config *prop* should be replicated."""

    def should_replicate_source_default(self, prop: str) -> bool:
        """For a *prop* at its default on the source: copy the source default (True) or
        leave the target's default in place (False, the default)."""
        return False

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources. Default: nothing."""


# ----------------------------------------------------------------------------- defaults


class DefaultTopicFilter(TopicFilter):
    """``topics`` minus ``topics.exclude``; configured with Kafka's defaults when created."""

    def __init__(self, props: Mapping[str, Any] | None = None) -> None:
        self.configure(props or {})

    def configure(self, props: Mapping[str, Any]) -> None:
        values = _parse(TOPIC_FILTER_CONFIG_DEF, props)
        self.include = _pattern_list(values, props, TOPICS)
        self.exclude = _pattern_list(values, props, TOPICS_EXCLUDE)

    def should_replicate_topic(self, topic: str) -> bool:
        return self.include.matches(topic) and not self.exclude.matches(topic)


class DefaultGroupFilter(GroupFilter):
    """``groups`` minus ``groups.exclude``; configured with Kafka's defaults when created."""

    def __init__(self, props: Mapping[str, Any] | None = None) -> None:
        self.configure(props or {})

    def configure(self, props: Mapping[str, Any]) -> None:
        values = _parse(GROUP_FILTER_CONFIG_DEF, props)
        self.include = _pattern_list(values, props, GROUPS)
        self.exclude = _pattern_list(values, props, GROUPS_EXCLUDE)

    def should_replicate_group(self, group: str) -> bool:
        return self.include.matches(group) and not self.exclude.matches(group)


class DefaultConfigPropertyFilter(ConfigPropertyFilter):
    """Everything except ``config.properties.exclude``; ``use.defaults.from`` picks whose
    defaults apply to properties at their default on the source."""

    def __init__(self, props: Mapping[str, Any] | None = None) -> None:
        self.configure(props or {})

    def configure(self, props: Mapping[str, Any]) -> None:
        values = _parse(CONFIG_PROPERTY_FILTER_CONFIG_DEF, props)
        self.exclude = _pattern_list(values, props, CONFIG_PROPERTIES_EXCLUDE)
        self.use_defaults_from: str = values[USE_DEFAULTS_FROM]

    def should_replicate_config_property(self, prop: str) -> bool:
        return not self.exclude.matches(prop)

    def should_replicate_source_default(self, prop: str) -> bool:
        return self.use_defaults_from == "source"


# ----------------------------------------------------------------------------- loading

_BUILTIN: Final[Mapping[str, type]] = {
    DEFAULT_TOPIC_FILTER_CLASS: DefaultTopicFilter,
    DEFAULT_GROUP_FILTER_CLASS: DefaultGroupFilter,
    DEFAULT_CONFIG_PROPERTY_FILTER_CLASS: DefaultConfigPropertyFilter,
}


# base is a plain type: mypy takes no abstract class for a type[T] (python/mypy#4717), so
# the callers type the instance (a subclass of base, checked here).
def _load(props: Mapping[str, Any], key: str, default: str, base: type[Any]) -> Any:
    spec = props.get(key, default)
    if isinstance(spec, str):
        spec = spec.strip()
        try:
            cls = _BUILTIN.get(spec) or load_class(spec)
        except Exception as exc:
            raise ConfigException(key, spec, f"Class {spec} could not be loaded: {exc}") from None
    else:
        cls = spec
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise ConfigException(key, spec, f"Must name a subclass of {base.__name__}")
    instance = cls()
    instance.configure(props)
    return instance


def topic_filter(props: Mapping[str, Any]) -> TopicFilter:
    """The configured ``topic.filter.class`` (default :class:`DefaultTopicFilter`).

    The class may be given by its Kafka name, a Python path or as a class; it is
    instantiated without arguments and then configured with *props*.
    """
    loaded: TopicFilter = _load(props, TOPIC_FILTER_CLASS, DEFAULT_TOPIC_FILTER_CLASS, TopicFilter)
    return loaded


def group_filter(props: Mapping[str, Any]) -> GroupFilter:
    """The configured ``group.filter.class`` (default :class:`DefaultGroupFilter`)."""
    loaded: GroupFilter = _load(props, GROUP_FILTER_CLASS, DEFAULT_GROUP_FILTER_CLASS, GroupFilter)
    return loaded


def config_property_filter(props: Mapping[str, Any]) -> ConfigPropertyFilter:
    """The configured ``config.property.filter.class`` (default
    :class:`DefaultConfigPropertyFilter`)."""
    loaded: ConfigPropertyFilter = _load(
        props, CONFIG_PROPERTY_FILTER_CLASS, DEFAULT_CONFIG_PROPERTY_FILTER_CLASS,
        ConfigPropertyFilter,
    )  # fmt: skip
    return loaded


def is_default_filter_class(value: Any, default: str) -> bool:
    """Whether a ``*.filter.class`` value names the given built-in default (or is unset)."""
    if value is None:
        return True
    if isinstance(value, type):
        return value is _BUILTIN[default]
    return str(value).strip() in (default, _qualname(_BUILTIN[default]))


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


__all__ = [
    "CONFIG_PROPERTIES_EXCLUDE",
    "CONFIG_PROPERTIES_EXCLUDE_DEFAULT",
    "CONFIG_PROPERTY_FILTER_CLASS",
    "CONFIG_PROPERTY_FILTER_CONFIG_DEF",
    "DEFAULT_CONFIG_PROPERTY_FILTER_CLASS",
    "DEFAULT_GROUP_FILTER_CLASS",
    "DEFAULT_TOPIC_FILTER_CLASS",
    "DEPRECATED_ALIASES",
    "GROUPS",
    "GROUPS_DEFAULT",
    "GROUPS_EXCLUDE",
    "GROUPS_EXCLUDE_DEFAULT",
    "GROUP_FILTER_CLASS",
    "GROUP_FILTER_CONFIG_DEF",
    "TOPICS",
    "TOPICS_DEFAULT",
    "TOPICS_EXCLUDE",
    "TOPICS_EXCLUDE_DEFAULT",
    "TOPIC_FILTER_CLASS",
    "TOPIC_FILTER_CONFIG_DEF",
    "USE_DEFAULTS_FROM",
    "USE_DEFAULTS_FROM_DEFAULT",
    "ConfigPropertyFilter",
    "DefaultConfigPropertyFilter",
    "DefaultGroupFilter",
    "DefaultTopicFilter",
    "GroupFilter",
    "PatternList",
    "TopicFilter",
    "config_property_filter",
    "group_filter",
    "is_default_filter_class",
    "topic_filter",
    "translate_deprecated",
]
