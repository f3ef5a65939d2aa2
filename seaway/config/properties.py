"""Java ``.properties`` files read and written by ``javaproperties`` (``java.util.Properties``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import javaproperties


def parse_properties(text: str) -> dict[str, str]:
    """Parse ``.properties`` text into a dict, keys in the order they first appear; a repeated
    key keeps its last value. Raises ``ValueError`` on a malformed ``\\uXXXX`` escape.
    """
    return javaproperties.loads(text)


def load_properties(path: str | os.PathLike[str], encoding: str = "utf-8") -> dict[str, str]:
    """Read and parse a ``.properties`` file (UTF-8 by default, not Java's ISO-8859-1; no BOM)."""
    return parse_properties(Path(path).read_text(encoding=encoding).removeprefix("\ufeff"))


def dump_properties(props: Mapping[str, str]) -> str:
    """Render *props* (strings only) as ``.properties`` text, non-ASCII characters unescaped."""
    return javaproperties.dumps(props, timestamp=False, ensure_ascii=False)
