"""The single exception type raised by the configuration layer."""

from __future__ import annotations

from typing import Any

from seaway.config._text import java_str
from seaway.errors import SeawayError

_UNSET: Any = object()


class ConfigException(SeawayError):
    """A configuration problem, formatted like Kafka's ``ConfigException``.

    ``ConfigException(message)`` carries a free-form message;
    ``ConfigException(name, value, message=None)`` renders
    ``Invalid value <value> for configuration <name>[: <message>]``.
    """

    name: str | None
    value: Any
    reason: str | None

    def __init__(self, name_or_message: str, value: Any = _UNSET, message: str | None = None):
        if value is _UNSET:
            if message is not None:
                raise TypeError("ConfigException(name, value, message) requires a value")
            self.name, self.value, self.reason = None, None, None
            text = name_or_message
        else:
            self.name, self.value, self.reason = name_or_message, value, message
            text = f"Invalid value {java_str(value)} for configuration {name_or_message}"
            if message is not None:
                text += f": {message}"
        self._init_args = (name_or_message, value, message)
        super().__init__(text)

    @property
    def message(self) -> str:
        """The full, human-readable message."""
        return str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        name_or_message, value, message = self._init_args
        if value is _UNSET:
            return (type(self), (name_or_message,))
        return (type(self), (name_or_message, value, message))
