"""seaway.java is a leaf (it imports nothing else of Seaway) and its docstring examples run."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import seaway.java

ROOT = Path(seaway.java.__file__).parent
MODULES = sorted(
    ["seaway.java"]
    + [info.name for info in pkgutil.walk_packages(seaway.java.__path__, prefix="seaway.java.")]
)


def _imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append("seaway.java" if node.level else node.module or "")
    return found


def test_imports_nothing_else_of_seaway() -> None:
    offenders = [
        f"{path.name}: {module}"
        for path in sorted(ROOT.rglob("*.py"))
        for module in _imports(path)
        if (module == "seaway" or module.startswith("seaway."))
        and module != "seaway.java"
        and not module.startswith("seaway.java.")
    ]
    assert offenders == []
    assert len(MODULES) >= 8


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
