"""seaway.connect.api depends on nothing in Seaway but seaway.config, the leaf seaway.java and
the root of Seaway's errors (seaway.errors)."""

from __future__ import annotations

import ast
from pathlib import Path

import seaway.connect.api

API_ROOT = Path(seaway.connect.api.__file__).parent
ALLOWED_PREFIXES = ("seaway.config", "seaway.connect.api", "seaway.java", "seaway.errors")


def imported_modules(source: str, package: str) -> list[str]:
    """Absolute names of the modules *source* (a module of *package*) imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                found.append(".".join([*base, node.module] if node.module else base))
            else:
                found.append(node.module or "")
    return found


def forbidden(module: str) -> bool:
    return (module == "seaway" or module.startswith("seaway.")) and not module.startswith(
        ALLOWED_PREFIXES
    )


def test_api_imports_only_config_java_and_itself() -> None:
    offenders = []
    for path in sorted(API_ROOT.rglob("*.py")):
        package = ".".join(["seaway", "connect", "api", *path.relative_to(API_ROOT).parent.parts])
        offenders += [
            f"{path.relative_to(API_ROOT)}: {module}"
            for module in imported_modules(path.read_text(), package)
            if forbidden(module)
        ]
    assert offenders == []


def test_the_walk_covers_every_api_module() -> None:
    modules = {p.relative_to(API_ROOT).as_posix() for p in API_ROOT.rglob("*.py")}
    assert {"errors.py", "records.py", "connector.py", "replay.py", "data/schema.py"} <= modules


def test_the_check_catches_absolute_relative_and_lazy_imports() -> None:
    source = (
        "import seaway.spark\n"
        "from seaway.broker import x\n"
        "from ..converters import y\n"
        "from . import records\n"
        "def f():\n    import seaway.connect.runtime\n"
    )
    modules = imported_modules(source, "seaway.connect.api.data")
    assert modules == [
        "seaway.spark",
        "seaway.broker",
        "seaway.connect.api.converters",
        "seaway.connect.api.data",
        "seaway.connect.runtime",
    ]
    assert [forbidden(m) for m in modules] == [True, True, False, False, True]
    assert not forbidden("seaway.config.types")
    assert forbidden("seaway")
