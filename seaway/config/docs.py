"""Render config definitions as reStructuredText or Markdown reference docs."""

from __future__ import annotations

from collections.abc import Iterable

from seaway.config.keys import ConfigKey
from seaway.config.types import convert_to_string

_TIME_UNITS = ((1000, "second"), (60, "minute"), (60, "hour"), (24, "day"))
_MEMORY_UNITS = ("kibibyte", "mebibyte", "gibibyte", "tebibyte")


def nice_time_units(millis: int) -> str:
    """`` (30 seconds)``-style suffix for a millisecond default, or ``""``."""
    value, unit = millis, None
    for divisor, name in _TIME_UNITS:
        if value == 0 or value % divisor:
            break
        value //= divisor
        unit = name
    if unit is None:
        return ""
    return f" ({value} {unit}{'s' if value > 1 else ''})"


def nice_memory_units(num_bytes: int) -> str:
    """`` (1 mebibyte)``-style suffix for a byte-size default, or ``""``."""
    value, unit = num_bytes, None
    for name in _MEMORY_UNITS:
        if value == 0 or value % 1024:
            break
        value //= 1024
        unit = name
    if unit is None:
        return ""
    return f" ({value} {unit}{'' if value == 1 else 's'})"


def default_text(key: ConfigKey) -> str:
    """The "Default" cell for *key*: ``""`` if required, ``null``, ``""`` quoted, etc."""
    if not key.has_default:
        return ""
    text = convert_to_string(key.default_value, key.type)
    if text is None:
        return "null"
    if not text:
        return '""'
    value = key.default_value
    if isinstance(value, int) and not isinstance(value, bool):
        if key.name.endswith(".bytes"):
            return text + nice_memory_units(value)
        if key.name.endswith(".ms"):
            return text + nice_time_units(value)
    return text


def _doc_paragraphs(key: ConfigKey) -> list[str]:
    return [line for line in (key.documentation or "").split("\n") if line]


def render_rst(keys: Iterable[ConfigKey]) -> str:
    """Kafka ``toRst()`` style: one definition-list entry per non-internal key."""
    out: list[str] = []
    for key in keys:
        if key.internal:
            continue
        out.append(f"``{key.name}``\n")
        out.extend(f"  {line}\n\n" for line in _doc_paragraphs(key))
        out.append(f"  * Type: {key.type}\n")
        if key.has_default:
            out.append(f"  * Default: {default_text(key)}\n")
        valid = str(key.validator) if key.validator is not None else ""
        if valid:
            out.append(f"  * Valid Values: {valid}\n")
        out.append(f"  * Importance: {key.importance}\n")
        out.append("\n")
    return "".join(out)


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(keys: Iterable[ConfigKey], heading_level: int = 3) -> str:
    """Markdown reference: a heading per non-internal key, then doc and a bullet list."""
    hashes = "#" * heading_level
    out: list[str] = []
    for key in keys:
        if key.internal:
            continue
        out.append(f"{hashes} {_code(key.name)}\n\n")
        out.extend(f"{line}\n\n" for line in _doc_paragraphs(key))
        out.append(f"- **Type:** {key.type}\n")
        if key.has_default:
            out.append(f"- **Default:** {_code(default_text(key))}\n")
        valid = str(key.validator) if key.validator is not None else ""
        if valid:
            out.append(f"- **Valid Values:** {_code(valid)}\n")
        out.append(f"- **Importance:** {key.importance}\n")
        out.append("\n")
    return "".join(out)
