"""Config: parsed, typed values plus the originals they came from (Kafka's AbstractConfig)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, TypeVar

from seaway.config.definition import ConfigDef
from seaway.config.errors import ConfigException
from seaway.config.types import Password

T = TypeVar("T")

logger = logging.getLogger(__name__)


class Config:
    """Typed view of a set of properties according to a :class:`ConfigDef`.

    Construction parses *props* with ``definition.parse`` and so raises
    :class:`ConfigException` on the first invalid or missing value. Subclasses may
    override :meth:`post_process_parsed_config` to derive values.
    """

    def __init__(
        self, definition: ConfigDef, props: Mapping[str, Any], *, log_values: bool = False
    ) -> None:
        for key, value in props.items():
            if not isinstance(key, str):
                raise ConfigException(str(key), value, "Key must be a string.")
        self._definition = definition
        self._originals: dict[str, Any] = dict(props)
        self._values: dict[str, Any] = definition.parse(self._originals)
        self._used: set[str] = set()
        updates = self.post_process_parsed_config(dict(self._values))
        if updates:
            self._values.update(updates)
            definition.parse(self._values)  # re-validate derived values
        if log_values:
            logger.info("%s values:\n%s", type(self).__name__, self._describe_values())
        else:
            logger.debug("%s values:\n%s", type(self).__name__, self._describe_values())

    def post_process_parsed_config(self, parsed: Mapping[str, Any]) -> Mapping[str, Any]:
        """Hook: return values to override after parsing. Default: none."""
        return {}

    def _describe_values(self) -> str:
        return "\n".join(f"\t{name} = {value!r}" for name, value in sorted(self._values.items()))

    # ----------------------------------------------------------------- access

    @property
    def definition(self) -> ConfigDef:
        """The definition these values were parsed with."""
        return self._definition

    @property
    def originals(self) -> dict[str, Any]:
        """A copy of the properties as supplied, including undefined keys."""
        return dict(self._originals)

    @property
    def values(self) -> dict[str, Any]:
        """A copy of the parsed values of every defined key."""
        return dict(self._values)

    def get(self, name: str) -> Any:
        """The parsed value of *name*; raises :class:`ConfigException` if undefined."""
        if name not in self._values:
            raise ConfigException(f"Unknown configuration '{name}'")
        self._used.add(name)
        return self._values[name]

    def _typed(self, name: str, expected: type[T], label: str) -> T | None:
        value = self.get(name)
        if value is None:
            return None
        # bool is an int subclass: only get_boolean may return one.
        if isinstance(value, expected) and (expected is bool or not isinstance(value, bool)):
            return value
        raise TypeError(f"Configuration {name} is a {type(value).__name__}, not {label}")

    def get_boolean(self, name: str) -> bool | None:
        """The value of a BOOLEAN config."""
        return self._typed(name, bool, "a boolean")

    def get_int(self, name: str) -> int | None:
        """The value of an INT config."""
        return self._typed(name, int, "an integer")

    def get_short(self, name: str) -> int | None:
        """The value of a SHORT config."""
        return self._typed(name, int, "an integer")

    def get_long(self, name: str) -> int | None:
        """The value of a LONG config."""
        return self._typed(name, int, "an integer")

    def get_double(self, name: str) -> float | None:
        """The value of a DOUBLE config."""
        return self._typed(name, float, "a double")

    def get_string(self, name: str) -> str | None:
        """The value of a STRING config."""
        return self._typed(name, str, "a string")

    def get_list(self, name: str) -> list[Any] | None:
        """The value of a LIST config."""
        return self._typed(name, list, "a list")

    def get_password(self, name: str) -> Password | None:
        """The value of a PASSWORD config."""
        return self._typed(name, Password, "a password")

    def get_class(self, name: str) -> type | None:
        """The value of a CLASS config."""
        return self._typed(name, type, "a class")

    # ----------------------------------------------------------------- prefixes

    def originals_with_prefix(self, prefix: str, strip: bool = True) -> dict[str, Any]:
        """Originals whose key starts with *prefix* (and is longer than it).

        With *strip*, the prefix is removed from the returned keys.
        """
        return {
            (key[len(prefix) :] if strip else key): value
            for key, value in self._originals.items()
            if key.startswith(prefix) and len(key) > len(prefix)
        }

    def values_with_prefix_override(self, prefix: str) -> dict[str, Any]:
        """Parsed values, overridden by ``prefix + name`` originals of defined keys.

        The overriding originals are parsed and validated like any other value.
        """
        result = dict(self._values)
        keys = self._definition.config_keys
        for key, value in self._originals.items():
            if key.startswith(prefix) and len(key) > len(prefix):
                config_key = keys.get(key[len(prefix) :])
                if config_key is not None:
                    result[config_key.name] = self._definition.parse_value(config_key, value, True)
        return result

    def originals_strings(self) -> dict[str, str]:
        """Originals, requiring every value to be a string."""
        for key, value in self._originals.items():
            if not isinstance(value, str):
                raise ConfigException(key, value, "Not a string")
        return dict(self._originals)

    # ----------------------------------------------------------------- usage

    def ignore(self, name: str) -> None:
        """Mark *name* as used without reading it."""
        self._used.add(name)

    def unused(self) -> set[str]:
        """Originals never read via :meth:`get` (or marked with :meth:`ignore`)."""
        return set(self._originals) - self._used

    def log_unused(self) -> None:
        """Warn about supplied configs that were never used."""
        unused = self.unused()
        if unused:
            logger.warning(
                "These configurations were supplied but are not used yet: %s",
                ", ".join(sorted(unused)),
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config) or type(other) is not type(self):
            return NotImplemented
        return other._originals == self._originals

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._values!r})"
