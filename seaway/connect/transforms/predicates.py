"""The built-in predicates (KIP-585): TopicNameMatches, HasHeaderKey, RecordIsTombstone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.config import (
    CompositeValidator,
    ConfigDef,
    ConfigException,
    Importance,
    NonEmptyString,
    Type,
)
from seaway.connect.api.transforms import Predicate
from seaway.connect.transforms._util import R, RegexValidator, simple_config
from seaway.java.regex import compile_java_regex

PATTERN_CONFIG = "pattern"
NAME_CONFIG = "name"

TOPIC_NAME_MATCHES_CONFIG_DEF = ConfigDef().define(
    PATTERN_CONFIG,
    Type.STRING,
    validator=CompositeValidator.of(NonEmptyString(), RegexValidator()),
    importance=Importance.MEDIUM,
    doc="A Java regular expression for matching against the name of a record's topic.",
)

HAS_HEADER_KEY_CONFIG_DEF = ConfigDef().define(
    NAME_CONFIG,
    Type.STRING,
    validator=NonEmptyString(),
    importance=Importance.MEDIUM,
    doc="The header name.",
)

RECORD_IS_TOMBSTONE_CONFIG_DEF = ConfigDef()


class TopicNameMatches(Predicate[R]):
    """True for records whose whole topic name matches ``pattern`` (a Java regex)."""

    OVERVIEW_DOC = (
        "A predicate which is true for records with a topic name that matches the configured "
        "regular expression."
    )
    CONFIG_DEF = TOPIC_NAME_MATCHES_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        value = simple_config(TOPIC_NAME_MATCHES_CONFIG_DEF, configs).get_string(PATTERN_CONFIG)
        try:
            self._pattern = compile_java_regex(value or "")
        except Exception as exc:
            raise ConfigException(
                PATTERN_CONFIG, value, f"entry must be a Java-compatible regular expression: {exc}"
            ) from exc

    def config(self) -> ConfigDef:
        return TOPIC_NAME_MATCHES_CONFIG_DEF

    def test(self, record: R) -> bool:
        return record.topic is not None and self._pattern.fullmatch(record.topic) is not None

    def __repr__(self) -> str:
        pattern = getattr(self, "_pattern", None)
        return f"TopicNameMatches{{pattern={pattern.pattern if pattern else None}}}"


class HasHeaderKey(Predicate[R]):
    """True for records with at least one header called ``name``."""

    OVERVIEW_DOC = (
        "A predicate which is true for records with at least one header with the configured name."
    )
    CONFIG_DEF = HAS_HEADER_KEY_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._name = simple_config(HAS_HEADER_KEY_CONFIG_DEF, configs).get_string(NAME_CONFIG)

    def config(self) -> ConfigDef:
        return HAS_HEADER_KEY_CONFIG_DEF

    def test(self, record: R) -> bool:
        return any(True for _ in record.headers.all_with_name(self._name or ""))

    def __repr__(self) -> str:
        return f"HasHeaderKey{{name='{getattr(self, '_name', None)}'}}"


class RecordIsTombstone(Predicate[R]):
    """True for tombstones: records whose value is None."""

    OVERVIEW_DOC = (
        "A predicate which is true for records which are tombstones (i.e. have null value)."
    )
    CONFIG_DEF = RECORD_IS_TOMBSTONE_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def config(self) -> ConfigDef:
        return RECORD_IS_TOMBSTONE_CONFIG_DEF

    def test(self, record: R) -> bool:
        return record.value is None

    def __repr__(self) -> str:
        return "RecordIsTombstone{}"


__all__ = ["HasHeaderKey", "RecordIsTombstone", "TopicNameMatches"]
