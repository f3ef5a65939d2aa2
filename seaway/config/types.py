"""Config value types and their Kafka-compatible parsing rules."""

from __future__ import annotations

import enum
from typing import Any, Final, Literal

from seaway.config._text import java_str, type_name
from seaway.config.errors import ConfigException
from seaway.config.plugins import load_class
from seaway.java.numbers import narrow, parse_boolean, parse_double, parse_int
from seaway.java.regex import compile_java_regex
from seaway.java.strings import trim

HIDDEN: Final = "[hidden]"

_COMMA_WITH_WHITESPACE: Final = compile_java_regex(r"\s*,\s*")
_INT_BITS: Final = {"SHORT": 16, "INT": 32, "LONG": 64}


class Type(enum.Enum):
    """The type of a config value; governs how raw (string) values are parsed."""

    BOOLEAN = "boolean"
    STRING = "string"
    INT = "int"
    SHORT = "short"
    LONG = "long"
    DOUBLE = "double"
    LIST = "list"
    CLASS = "class"
    PASSWORD = "password"

    def __str__(self) -> str:
        return self.value

    @property
    def is_sensitive(self) -> bool:
        """Whether values of this type must never be logged or displayed."""
        return self is Type.PASSWORD

    def parse(self, name: str, value: Any) -> Any:
        """Parse *value* for the config *name*; see :func:`parse_type`."""
        return parse_type(name, value, self)


class Importance(enum.Enum):
    """How important a config is to users; HIGH sorts first in docs."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        """Sort rank: 0 for HIGH, 1 for MEDIUM, 2 for LOW."""
        return _IMPORTANCE_RANK[self]


_IMPORTANCE_RANK: Final = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}


class Width(enum.Enum):
    """Display-width hint for UIs rendering a config value."""

    NONE = "none"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"

    def __str__(self) -> str:
        return self.value


class _NoDefault(enum.Enum):
    NO_DEFAULT = "NO_DEFAULT"

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Final = _NoDefault.NO_DEFAULT
"""Sentinel default meaning "this config is required". ``None`` is a real default."""

NoDefaultType = Literal[_NoDefault.NO_DEFAULT]


class Password:
    """A secret config value; renders as ``[hidden]`` everywhere except ``.value``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    @property
    def value(self) -> str:
        """The actual secret."""
        return self._value

    def __str__(self) -> str:
        return HIDDEN

    def __repr__(self) -> str:
        return HIDDEN

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def _parse_int(name: str, value: Any, type_: Type, trimmed: str | None) -> int:
    bits = _INT_BITS[type_.name]
    if trimmed is not None:
        try:
            return parse_int(trimmed, bits)
        except ValueError:
            raise ConfigException(name, value, f"Not a number of type {type_.name}") from None
    if isinstance(value, int) and not isinstance(value, bool):
        if narrow(value, bits) != value:
            raise ConfigException(name, value, f"Value is out of range for a {bits}-bit integer")
        return value
    raise ConfigException(
        name, value, f"Expected value to be a {bits}-bit integer, but it was a {type_name(value)}"
    )


def _parse_double(name: str, value: Any, trimmed: str | None) -> float:
    if trimmed is not None:
        try:
            return parse_double(trimmed)
        except ValueError:
            raise ConfigException(name, value, "Not a number of type DOUBLE") from None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ConfigException(
        name, value, f"Expected value to be a double, but it was a {type_name(value)}"
    )


def _parse_list(name: str, value: Any, trimmed: str | None) -> list[Any]:
    if trimmed is not None:
        return [] if not trimmed else _COMMA_WITH_WHITESPACE.split(trimmed)
    if isinstance(value, list | tuple):
        return list(value)
    raise ConfigException(name, value, "Expected a comma separated list.")


def _parse_class(name: str, value: Any, trimmed: str | None) -> type:
    if trimmed is not None:
        try:
            return load_class(trimmed)
        except LookupError:
            raise ConfigException(name, value, f"Class {trimmed} could not be found.") from None
        except Exception as exc:
            raise ConfigException(
                name, value, f"Class {trimmed} could not be loaded: {exc}"
            ) from exc
    if isinstance(value, type):
        return value
    raise ConfigException(name, value, "Expected a Class instance or class name.")


def parse_type(name: str, value: Any, type_: Type) -> Any:
    """Convert *value* (usually a string) to the Python value for *type_*.

    ``None`` stays ``None``. Strings are trimmed like Java's ``String.trim()``.
    Raises :class:`ConfigException` describing the problem.
    """
    if value is None:
        return None
    trimmed = trim(value) if isinstance(value, str) else None
    match type_:
        case Type.BOOLEAN:
            if isinstance(value, bool):
                return value
            if trimmed is not None and trimmed.lower() in ("true", "false"):
                return parse_boolean(trimmed)
            raise ConfigException(name, value, "Expected value to be either true or false")
        case Type.STRING:
            if trimmed is not None:
                return trimmed
            raise ConfigException(
                name, value, f"Expected value to be a string, but it was a {type_name(value)}"
            )
        case Type.PASSWORD:
            if isinstance(value, Password):
                return value
            if trimmed is not None:
                return Password(trimmed)
            # Never echo a would-be secret into an error message.
            raise ConfigException(
                name, HIDDEN, f"Expected value to be a string, but it was a {type_name(value)}"
            )
        case Type.INT | Type.SHORT | Type.LONG:
            return _parse_int(name, value, type_, trimmed)
        case Type.DOUBLE:
            return _parse_double(name, value, trimmed)
        case Type.LIST:
            return _parse_list(name, value, trimmed)
        case Type.CLASS:
            return _parse_class(name, value, trimmed)
    raise ConfigException(name, value, f"Unknown type {type_!r}")


def convert_to_string(value: Any, type_: Type | None = None) -> str | None:
    """Render a parsed value back to its config-string form (Kafka's convertToString).

    Passwords render as ``[hidden]``; use ``Password.value`` to get the secret.
    """
    if value is None:
        return None
    if type_ is Type.LIST and isinstance(value, list | tuple):
        return ",".join(convert_to_string(v) or "" for v in value)
    return java_str(value)
