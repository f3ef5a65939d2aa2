"""How the config modules print values in Kafka's messages (private)."""

from __future__ import annotations

from typing import Any

from seaway.java.objects import to_string


def java_str(value: Any) -> str:
    """*value* as Java's ``String.valueOf`` prints it (:func:`seaway.java.objects.to_string`),
    a class by its name (as ``ConfigDef.convertToString`` prints a CLASS value)."""
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(java_str, value)) + "]"
    return to_string(value)


def type_name(value: Any) -> str:
    """Name of *value*'s type, used in "but it was a X" messages."""
    return type(value).__name__
