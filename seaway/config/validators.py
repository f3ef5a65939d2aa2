"""Validators for config values, mirroring Kafka's ``ConfigDef.Validator`` family.

Each validator raises :class:`ConfigException` from ``ensure_valid`` and renders a
short description of the accepted values via ``str()`` for generated docs.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from seaway.config._text import java_str
from seaway.config.errors import ConfigException


class Validator(ABC):
    """Checks a parsed config value; raises :class:`ConfigException` if invalid."""

    @abstractmethod
    def ensure_valid(self, name: str, value: Any) -> None:
        """Raise :class:`ConfigException` unless *value* is acceptable for *name*."""

    def __str__(self) -> str:
        return ""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class Range(Validator):
    """A numeric range with optional inclusive bounds."""

    def __init__(self, min: float | None = None, max: float | None = None) -> None:
        self.min = min
        self.max = max

    @classmethod
    def at_least(cls, min: float) -> Range:
        """Values >= *min*."""
        return cls(min, None)

    @classmethod
    def at_most(cls, max: float) -> Range:
        """Values <= *max*."""
        return cls(None, max)

    @classmethod
    def between(cls, min: float, max: float) -> Range:
        """Values in ``[min, max]``."""
        return cls(min, max)

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            raise ConfigException(name, None, "Value must be non-null")
        if not _is_number(value):
            raise ConfigException(name, value, "Value must be a number")
        if self.min is not None and value < self.min:
            raise ConfigException(name, value, f"Value must be at least {java_str(self.min)}")
        if self.max is not None and value > self.max:
            raise ConfigException(name, value, f"Value must be no more than {java_str(self.max)}")

    def __str__(self) -> str:
        if self.min is None and self.max is None:
            return "[...]"
        if self.min is None:
            return f"[...,{java_str(self.max)}]"
        if self.max is None:
            return f"[{java_str(self.min)},...]"
        return f"[{java_str(self.min)},...,{java_str(self.max)}]"

    def __repr__(self) -> str:
        return f"Range(min={self.min!r}, max={self.max!r})"


class ValidString(Validator):
    """A string that must equal one of a fixed set of values (case-sensitive)."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings: tuple[str, ...] = tuple(dict.fromkeys(valid_strings))

    @classmethod
    def in_(cls, *valid_strings: str) -> ValidString:
        """Accept exactly the given strings."""
        return cls(valid_strings)

    def ensure_valid(self, name: str, value: Any) -> None:
        if not isinstance(value, str) or value not in self.valid_strings:
            raise ConfigException(
                name, value, "String must be one of: " + ", ".join(self.valid_strings)
            )

    def __str__(self) -> str:
        return "[" + ", ".join(self.valid_strings) + "]"

    def __repr__(self) -> str:
        return f"ValidString.in_({', '.join(map(repr, self.valid_strings))})"


class CaseInsensitiveValidString(Validator):
    """Like :class:`ValidString` but compares case-insensitively."""

    def __init__(self, valid_strings: Iterable[str]) -> None:
        self.valid_strings: tuple[str, ...] = tuple(dict.fromkeys(valid_strings))
        self._upper = frozenset(s.upper() for s in self.valid_strings)

    @classmethod
    def in_(cls, *valid_strings: str) -> CaseInsensitiveValidString:
        """Accept the given strings in any letter case."""
        return cls(valid_strings)

    def ensure_valid(self, name: str, value: Any) -> None:
        if not isinstance(value, str) or value.upper() not in self._upper:
            raise ConfigException(
                name,
                value,
                "String must be one of (case insensitive): " + ", ".join(self.valid_strings),
            )

    def __str__(self) -> str:
        return "(case insensitive) [" + ", ".join(self.valid_strings) + "]"

    def __repr__(self) -> str:
        return f"CaseInsensitiveValidString.in_({', '.join(map(repr, self.valid_strings))})"


class NonEmptyString(Validator):
    """A string that is not empty (``None`` is allowed)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, str):
            raise ConfigException(name, value, "Value must be a string")
        if not value:
            raise ConfigException(name, value, "String must be non-empty")

    def __str__(self) -> str:
        return "non-empty string"

    def __repr__(self) -> str:
        return "NonEmptyString()"


class NonEmptyStringWithoutControlChars(Validator):
    """A non-empty string without ISO control characters (``None`` is allowed)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, str):
            raise ConfigException(name, value, "Value must be a string")
        if not value:
            raise ConfigException(name, value, "String may not be empty")
        bad = [str(ord(c)) for c in value if unicodedata.category(c) == "Cc"]
        if bad:
            raise ConfigException(
                name,
                value,
                "String may not contain control sequences but had the following ASCII chars: "
                + ", ".join(bad),
            )

    def __str__(self) -> str:
        return "non-empty string without ISO control characters"

    def __repr__(self) -> str:
        return "NonEmptyStringWithoutControlChars()"


class ValidList(Validator):
    """A list whose every element is one of a fixed set of strings."""

    def __init__(
        self, valid_strings: Iterable[str], *, allow_empty: bool = True, allow_null: bool = False
    ) -> None:
        self._valid_string = ValidString(valid_strings)
        self.allow_empty = allow_empty
        self.allow_null = allow_null

    @classmethod
    def in_(
        cls, *valid_strings: str, allow_empty: bool = True, allow_null: bool = False
    ) -> ValidList:
        """Accept lists drawn from the given strings."""
        return cls(valid_strings, allow_empty=allow_empty, allow_null=allow_null)

    @property
    def valid_strings(self) -> tuple[str, ...]:
        """The accepted element values."""
        return self._valid_string.valid_strings

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            if self.allow_null:
                return
            raise ConfigException(f"Configuration '{name}' values must not be null.")
        if not isinstance(value, list | tuple):
            raise ConfigException(name, value, "Expected a list")
        if not value and not self.allow_empty:
            raise ConfigException(
                f"Configuration '{name}' must not be empty. "
                f"Valid values include: {self._valid_string}"
            )
        for element in value:
            self._valid_string.ensure_valid(name, element)

    def __str__(self) -> str:
        return str(self._valid_string)

    def __repr__(self) -> str:
        return (
            f"ValidList({list(self.valid_strings)!r}, allow_empty={self.allow_empty}, "
            f"allow_null={self.allow_null})"
        )


class NonNullValidator(Validator):
    """Rejects ``None``."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None:
            raise ConfigException(name, None, "entry must be non null")

    def __str__(self) -> str:
        return "non-null string"

    def __repr__(self) -> str:
        return "NonNullValidator()"


class LambdaValidator(Validator):
    """Adapts a function ``fn(name, value)`` that raises :class:`ConfigException`."""

    def __init__(
        self, fn: Callable[[str, Any], None], description: str | Callable[[], str] = ""
    ) -> None:
        self._fn = fn
        self._description = description

    def ensure_valid(self, name: str, value: Any) -> None:
        self._fn(name, value)

    def __str__(self) -> str:
        d = self._description
        return d if isinstance(d, str) else d()

    def __repr__(self) -> str:
        return f"LambdaValidator({self._fn!r}, {str(self)!r})"


class CompositeValidator(Validator):
    """Runs several validators in order; the first failure wins."""

    def __init__(self, validators: Iterable[Validator]) -> None:
        self.validators: tuple[Validator, ...] = tuple(validators)

    @classmethod
    def of(cls, *validators: Validator) -> CompositeValidator:
        """Combine *validators*."""
        return cls(validators)

    def ensure_valid(self, name: str, value: Any) -> None:
        for validator in self.validators:
            validator.ensure_valid(name, value)

    def __str__(self) -> str:
        return ", ".join(s for s in map(str, self.validators) if s)

    def __repr__(self) -> str:
        return f"CompositeValidator.of({', '.join(map(repr, self.validators))})"
