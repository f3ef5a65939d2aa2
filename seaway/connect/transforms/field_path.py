"""Field paths into structs and maps (KIP-821's ``SingleFieldPath`` and syntax versions).

With ``field.syntax.version=V1`` (the default) a path is one top-level field name. With
``V2`` dots separate nested steps and backticks quote a name that contains dots
(`` `a.b`.c ``); a backslash before a backtick keeps it in the name.

>>> SingleFieldPath("a.`b.c`.d", FieldSyntaxVersion.V2).steps
('a', 'b.c', 'd')
>>> SingleFieldPath("a.b", FieldSyntaxVersion.V1).value_from_map({"a.b": 1})
1
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Final

from seaway.config import (
    CaseInsensitiveValidString,
    Config,
    ConfigDef,
    ConfigException,
    Importance,
    Type,
)
from seaway.connect.api.data import Field, Schema, Struct
from seaway.connect.transforms._util import require_map_or_none, require_struct_or_none


class FieldSyntaxVersion(enum.Enum):
    """How field paths are written: V1 top-level names only, V2 dotted nested paths."""

    V1 = "V1"
    V2 = "V2"

    @staticmethod
    def from_config(config: Config) -> FieldSyntaxVersion:
        """The version set in *config*'s ``field.syntax.version``."""
        text = config.get_string(FIELD_SYNTAX_VERSION_CONFIG) or ""
        try:
            return FieldSyntaxVersion(text.upper())
        except ValueError:
            raise ConfigException(
                FIELD_SYNTAX_VERSION_CONFIG, text, "Unrecognized field syntax version"
            ) from None


FIELD_SYNTAX_VERSION_CONFIG: Final = "field.syntax.version"
FIELD_SYNTAX_VERSION_DOC: Final = (
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths "
    "are limited to access the elements at the root level of the struct or map. If set to `V2`, "
    "the syntax will support accessing nested elements. To access nested elements, dotted "
    "notation is used. If dots are already included in the field name, then backtick pairs can "
    "be used to wrap field names containing dots. E.g. to access the subfield `baz` from a field "
    'named "foo.bar" in a struct/map the following format can be used to access its elements: '
    '"`foo.bar`.baz".'
)


def append_field_syntax_version(config_def: ConfigDef) -> ConfigDef:
    """Add ``field.syntax.version`` (``V1``/``V2``, case-insensitive, default ``V1``)."""
    return config_def.define(
        FIELD_SYNTAX_VERSION_CONFIG,
        Type.STRING,
        FieldSyntaxVersion.V1.value,
        CaseInsensitiveValidString.in_(*(v.value for v in FieldSyntaxVersion)),
        Importance.HIGH,
        FIELD_SYNTAX_VERSION_DOC,
    )


def _incomplete_backtick(path: str, at: int) -> ConfigException:
    return ConfigException(
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before "
        f"backtick at position {at} to escape it"
    )


def _parse_v2(path: str) -> list[str]:
    steps: list[str] = []
    idx = 0
    while 0 <= idx < len(path):
        if path[idx] != "`":
            start = idx
            idx = path.find(".", idx)
            if idx >= 0:
                steps.append(path[start:idx])
                idx += 1
            else:
                steps.append(path[start:])
            continue
        backtick_at = idx
        idx += 1
        start = idx
        name: list[str] = []
        while True:
            idx = path.find("`", idx)
            if idx == -1:
                raise _incomplete_backtick(path, backtick_at)
            escaped = path[idx - 1] == "\\"
            if idx >= len(path) - 1:  # the closing backtick ends the path
                if escaped:
                    raise _incomplete_backtick(path, backtick_at)
                name.append(path[start:idx])
                steps.append("".join(name))
                idx += 1
                break
            if path[idx + 1] != ".":  # a backtick inside the name
                idx += 1
                continue
            if escaped:
                name.append(path[start : idx - 1] + "`")
                idx += 1
                start = idx
                continue
            name.append(path[start:idx])
            steps.append("".join(name))
            idx += 2
            break
    if path.endswith("."):
        steps.append("")
    return steps


class SingleFieldPath:
    """A path of one or more field names into a Struct or a map."""

    __slots__ = ("steps", "version")

    def __init__(self, path: str, version: FieldSyntaxVersion) -> None:
        self.version = version
        self.steps: tuple[str, ...] = (
            (path,) if version is FieldSyntaxVersion.V1 else tuple(_parse_v2(path))
        )

    def field_from(self, schema: Schema | None) -> Field | None:
        """The field of STRUCT *schema* at this path, or None."""
        if schema is None:
            return None
        current = schema
        for step in self.steps[:-1]:
            field = current.field(step)
            if field is None:
                return None
            current = field.schema
        return current.field(self.steps[-1])

    def value_from_struct(self, struct: Struct | None, with_default: bool = True) -> Any:
        """The value at this path in *struct*, or None when a step is missing."""
        current = struct
        if current is None:
            return None
        for step in self.steps[:-1]:
            if current.schema.field(step) is None:
                return None
            current = require_struct_or_none(current.get(step), "nested field access")
            if current is None:
                return None
        last = self.steps[-1]
        if current.schema.field(last) is None:
            return None
        return current.get(last) if with_default else current.get_without_default(last)

    def value_from_map(self, value: Mapping[str, Any] | None) -> Any:
        """The value at this path in a schemaless map, or None when a step is missing."""
        current = value
        if current is None:
            return None
        for step in self.steps[:-1]:
            current = require_map_or_none(current.get(step), "nested field access")
            if current is None:
                return None
        return current.get(self.steps[-1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleFieldPath) and other.steps == self.steps

    def __hash__(self) -> int:
        return hash(self.steps)

    def __repr__(self) -> str:
        return f"SingleFieldPath{{version={self.version.value}, path={'.'.join(self.steps)}}}"


__all__ = [
    "FIELD_SYNTAX_VERSION_CONFIG",
    "FieldSyntaxVersion",
    "SingleFieldPath",
    "append_field_syntax_version",
]
