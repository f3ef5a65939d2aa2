"""Classes found by name: the one way Seaway loads a plugin, or any class a config names.

Plugins are entry points, one group per kind (:data:`CONNECTORS`, :data:`CONVERTERS`, ...);
Seaway declares its own in ``pyproject.toml`` under Kafka's class names, and any installed
package may add more. :func:`load_class` resolves a name by

1. an entry point of the kind's group, by its name or an alias (as Kafka's ``PluginUtils``:
   the part after the last dot, and that without the kind's suffix: ``FileStreamSourceConnector``,
   ``FileStreamSource``);
2. a Python path, ``package.module.Class`` or ``package.module:Outer.Inner``.

>>> load_class("EnvVarConfigProvider", CONFIG_PROVIDERS).__name__
'EnvVarConfigProvider'
>>> load_class("seaway.config.errors:ConfigException").__name__
'ConfigException'
"""

from __future__ import annotations

import functools
import importlib
import logging
import sys
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Final

__all__ = [
    "CONFIG_PROVIDERS",
    "CONNECTORS",
    "CONVERTERS",
    "HEADER_CONVERTERS",
    "PREDICATES",
    "SPARK_FORMATS",
    "TRANSFORMS",
    "aliases",
    "class_name",
    "load_class",
    "plugin_classes",
    "plugin_names",
]

log = logging.getLogger(__name__)

CONNECTORS: Final = "seaway.connectors"
CONVERTERS: Final = "seaway.converters"
HEADER_CONVERTERS: Final = "seaway.header_converters"
TRANSFORMS: Final = "seaway.transforms"
PREDICATES: Final = "seaway.predicates"
CONFIG_PROVIDERS: Final = "seaway.config_providers"
SPARK_FORMATS: Final = "seaway.spark_formats"  # Python data sources: format(<name>)

# What an alias drops from a simple name (Kafka's; header converters keep "Header", as
# Seaway always has: "SimpleHeader").
_SUFFIXES: Final = {
    CONNECTORS: "Connector",
    CONVERTERS: "Converter",
    HEADER_CONVERTERS: "Converter",
    TRANSFORMS: "Transformation",
    PREDICATES: "Predicate",
    CONFIG_PROVIDERS: "ConfigProvider",
}

_Names = dict[str, EntryPoint]


@functools.lru_cache(maxsize=32)
def _index(group: str, path: tuple[str, ...]) -> tuple[_Names, _Names]:
    """*group*'s entry points by name, and by every accepted name (for this ``sys.path``)."""
    canonical: _Names = {}
    for ep in entry_points(group=group):
        canonical.setdefault(ep.name, ep)
    accepted = dict(canonical)
    for name, ep in sorted(canonical.items()):
        simple = name.rpartition(".")[2]
        for alias in (simple, simple.removesuffix(_SUFFIXES.get(group, ""))):
            if alias:
                accepted.setdefault(alias, ep)
    return canonical, accepted


def _entry_points(group: str, every_name: bool = False) -> _Names:
    return _index(group, tuple(sys.path))[every_name]


def plugin_names(group: str) -> list[str]:
    """The names of *group*'s plugins (Kafka's class names for Seaway's own), sorted."""
    return sorted(_entry_points(group))


def aliases(group: str) -> list[str]:
    """Every name that finds a plugin of *group*, sorted."""
    return sorted(_entry_points(group, every_name=True))


def plugin_classes(group: str) -> dict[str, type]:
    """Each plugin of *group* by name, sorted; one that cannot be loaded is logged and left out."""
    out: dict[str, type] = {}
    for name, ep in sorted(_entry_points(group).items()):
        try:
            cls = ep.load()
        except Exception:
            log.warning("Could not load plugin %s = %s", name, ep.value, exc_info=True)
            continue
        if isinstance(cls, type):
            out[name] = cls
    return out


def class_name(cls: type, *groups: str) -> str:
    """The name *cls* has in the first of *groups* that has it, else its Python path
    ``module.Qualname``."""
    found = (name for g in groups for name, c in plugin_classes(g).items() if c is cls)
    return next(found, f"{cls.__module__}.{cls.__qualname__}")


def _python_class(path: str) -> Any:
    if ":" in path:
        module_name, _, attributes = path.partition(":")
        candidates = [(module_name, attributes.split("."))]
    else:
        parts = path.split(".")
        candidates = [(".".join(parts[:i]), parts[i:]) for i in range(len(parts) - 1, 0, -1)]
    for module_name, attrs in candidates:
        try:
            obj: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing and (module_name == missing or module_name.startswith(missing + ".")):
                continue  # this prefix is not a module; try a shorter one
            raise
        for attr in attrs:
            obj = getattr(obj, attr, None)
        return obj
    return None


def load_class(name: str, group: str | None = None, kind: type | None = None) -> type[Any]:
    """The class *name* names: a plugin of *group* (by name or alias), else a Python path.

    Raises ``LookupError`` when there is none, or it is not a subclass of *kind*; other
    errors of importing its module propagate.
    """
    name = name.strip()
    ep = _entry_points(group, every_name=True).get(name) if group else None
    cls = ep.load() if ep is not None else _python_class(name)
    if not isinstance(cls, type):
        raise LookupError(name)
    if kind is not None and not issubclass(cls, kind):
        raise LookupError(f"{name} is not a {kind.__name__}")
    return cls
