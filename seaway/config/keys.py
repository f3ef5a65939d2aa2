"""Records describing one config: its definition (ConfigKey) and validation result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from seaway.config.types import NO_DEFAULT, Importance, Type, Width, parse_type
from seaway.config.validators import Validator


@runtime_checkable
class Recommender(Protocol):
    """Computes valid values and visibility of a config from the other parsed values."""

    def valid_values(self, name: str, parsed_config: Mapping[str, Any]) -> list[Any]:
        """Values the user may choose for *name* given *parsed_config*."""
        ...

    def visible(self, name: str, parsed_config: Mapping[str, Any]) -> bool:
        """Whether *name* is relevant given *parsed_config*."""
        ...


@dataclass(frozen=True)
class ConfigKey:
    """The definition of one config.

    On construction the default (unless ``NO_DEFAULT``) is parsed to *type* and
    checked by *validator*, raising :class:`ConfigException` if it is invalid.
    """

    name: str
    type: Type
    default_value: Any = NO_DEFAULT
    validator: Validator | None = None
    importance: Importance = Importance.MEDIUM
    documentation: str = ""
    group: str | None = None
    order_in_group: int = -1
    width: Width = Width.NONE
    display_name: str = ""
    dependents: tuple[str, ...] = ()
    recommender: Recommender | None = None
    internal: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"config name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.type, Type):
            raise TypeError(f"type of config {self.name} must be a Type, got {self.type!r}")
        if not isinstance(self.importance, Importance):
            raise TypeError(f"importance of config {self.name} must be an Importance")
        if isinstance(self.dependents, str):
            raise TypeError(f"dependents of config {self.name} must be a sequence of names")
        object.__setattr__(self, "dependents", tuple(self.dependents))
        if not self.display_name:
            object.__setattr__(self, "display_name", self.name)
        if self.default_value is not NO_DEFAULT:
            parsed = parse_type(self.name, self.default_value, self.type)
            object.__setattr__(self, "default_value", parsed)
            if self.validator is not None:
                self.validator.ensure_valid(self.name, parsed)

    @property
    def has_default(self) -> bool:
        """False when the config is required (its default is ``NO_DEFAULT``)."""
        return self.default_value is not NO_DEFAULT


@dataclass
class ConfigValue:
    """Result of validating one config: its value, errors and UI hints."""

    name: str
    value: Any = None
    recommended_values: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    visible: bool = True

    def add_error_message(self, message: str) -> None:
        """Record a validation error."""
        self.errors.append(message)
