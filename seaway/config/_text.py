"""Java-compatible text helpers shared by the config modules (private)."""

from __future__ import annotations

from typing import Any

# Java's String.trim() strips every char <= U+0020, and nothing else.
_JAVA_TRIM_CHARS = "".join(chr(c) for c in range(0x21))


def java_trim(text: str) -> str:
    """Strip leading/trailing chars <= U+0020, like Java's ``String.trim()``."""
    return text.strip(_JAVA_TRIM_CHARS)


def java_str(value: Any) -> str:
    """Render *value* the way Kafka's messages print Java objects."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(java_str(v) for v in value) + "]"
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return str(value)


def type_name(value: Any) -> str:
    """Name of *value*'s type, used in "but it was a X" messages."""
    return type(value).__name__
