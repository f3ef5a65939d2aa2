"""Finding plugins: connectors, converters, transformations and predicates (Kafka's ``Plugins``).

A ``connector.class`` may be a bundled connector's Kafka class name or alias
(``FileStreamSource``; MirrorMaker 2's ``org.apache.kafka.connect.mirror.MirrorSourceConnector``,
``MirrorSourceConnector``, ``MirrorSource`` and the checkpoint and heartbeat ones too), a
connector registered under the ``seaway.connectors`` entry-point
group (by its entry-point name or class path), or a Python path ``package.module.Class`` —
importable from ``plugin.path`` directories, which the worker adds to ``sys.path``
(on executors too). Connector classes defined in top-level modules of those directories
are listed by ``GET /connector-plugins``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import pkgutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Final

from seaway.connect.api import Connector, SinkConnector, SourceConnector
from seaway.connect.api.errors import ConnectError, NotFoundError

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP: Final = "seaway.connectors"


@dataclass(frozen=True)
class PluginDesc:
    """One plugin: its canonical class name, kind and version."""

    class_name: str
    type: str  # source, sink, converter, header_converter, transformation, predicate
    version: str
    cls: type

    def to_rest(self) -> dict[str, str]:
        """``PluginInfo``; ``version`` left out when undefined, as Kafka does."""
        out = {"class": self.class_name, "type": self.type}
        if self.version and self.version != "undefined":
            out["version"] = self.version
        return out


def connector_type(cls: type) -> str:
    """``source``, ``sink`` or ``unknown`` (Kafka's ``ConnectorType``)."""
    if issubclass(cls, SourceConnector):
        return "source"
    if issubclass(cls, SinkConnector):
        return "sink"
    return "unknown"


@functools.cache
def _version(cls: type) -> str:
    """A plugin's version (one instance per class per process: a class's version is fixed
    once loaded, and constructing a third-party connector may be slow)."""
    try:
        return str(cls().version())
    except Exception:
        module = sys.modules.get(cls.__module__)
        return str(getattr(module, "__version__", "undefined"))


def _python_class(name: str) -> type | None:
    module_name, sep, attribute = name.partition(":")
    if not sep:
        module_name, _, attribute = name.rpartition(".")
    if not module_name or not attribute:
        return None
    try:
        found = getattr(importlib.import_module(module_name), attribute, None)
    except ImportError:
        return None
    return found if isinstance(found, type) else None


class Plugins:
    """The plugins a worker knows, by every name they may be given."""

    def __init__(self, plugin_path: Iterable[str] = ()) -> None:
        from seaway.connectors import CLASS_NAMES, PLUGINS
        from seaway.connectors.mirror import CLASS_NAMES as MIRROR_CLASS_NAMES
        from seaway.connectors.mirror import PLUGINS as MIRROR_PLUGINS

        self.plugin_path = tuple(p for p in plugin_path if p)
        for path in self.plugin_path:
            if path not in sys.path:
                sys.path.append(path)
        self._aliases: dict[str, type[Connector]] = {**PLUGINS, **MIRROR_PLUGINS}
        self._names: dict[type, str] = {**CLASS_NAMES, **MIRROR_CLASS_NAMES}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                cls = ep.load()
            except Exception:
                log.warning("Could not load connector plugin %s", ep.value, exc_info=True)
                continue
            self._add(cls, ep.name)
        for cls in self._scan_plugin_path():
            self._add(cls, cls.__name__)

    def _add(self, cls: Any, alias: str) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Connector)):
            return
        name = f"{cls.__module__}.{cls.__qualname__}"
        self._names.setdefault(cls, name)
        for a in (alias, name, cls.__name__, cls.__name__.removesuffix("Connector")):
            self._aliases.setdefault(a, cls)

    def _scan_plugin_path(self) -> Iterable[type]:
        for module_info in pkgutil.iter_modules(list(self.plugin_path)):
            try:
                module = importlib.import_module(module_info.name)
            except Exception:
                log.warning("Could not import plugin module %s", module_info.name, exc_info=True)
                continue
            for _, member in inspect.getmembers(module, inspect.isclass):
                if (
                    issubclass(member, Connector)
                    and not inspect.isabstract(member)
                    and member.__module__ == module.__name__
                ):
                    yield member

    # --- connectors -----------------------------------------------------------------------

    def connector_classes(self) -> list[type[Connector]]:
        return sorted(set(self._aliases.values()), key=lambda c: self._names[c])

    def class_name(self, cls: type) -> str:
        """The canonical name of a known connector class (Kafka's, for bundled ones)."""
        return self._names.get(cls) or f"{cls.__module__}.{cls.__qualname__}"

    def connector_class(self, name: str) -> type[Connector]:
        """The connector called *name*; a ConnectError (500, as in Kafka) listing the
        available ones."""
        cls = self._aliases.get(name.strip())
        if cls is None:
            loaded = _python_class(name.strip())
            if loaded is not None and issubclass(loaded, Connector):
                cls = loaded
        if cls is None:
            available = ", ".join(self.class_name(c) for c in self.connector_classes())
            raise ConnectError(
                "Failed to find any class that implements Connector and which name matches "
                f"{name.strip()}, available connectors are: {available}"
            )
        return cls

    def new_connector(self, name: str) -> Connector:
        return self.connector_class(name)()

    # --- listing --------------------------------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[PluginDesc]:
        """Sinks, sources, then transformations, predicates, converters, header converters."""
        descs = [
            PluginDesc(self.class_name(c), connector_type(c), _version(c), c)
            for c in self.connector_classes()
        ]
        order = {"sink": 0, "source": 1}
        plugins = sorted(descs, key=lambda d: (order.get(d.type, 2), d.class_name))
        if connectors_only:
            return plugins
        return plugins + self._other_plugins()

    def _other_plugins(self) -> list[PluginDesc]:
        from seaway import __version__
        from seaway.connect.api import HeaderConverter
        from seaway.connect.converters.registry import CONVERTERS
        from seaway.connect.transforms import CLASS_NAMES as TRANSFORM_NAMES
        from seaway.connect.transforms import PREDICATES

        out: list[PluginDesc] = []
        predicate_classes = set(PREDICATES.values())
        transforms = sorted(TRANSFORM_NAMES.items(), key=lambda kv: kv[1])
        for cls, name in transforms:
            if cls not in predicate_classes:
                out.append(PluginDesc(name, "transformation", __version__, cls))
        for cls, name in transforms:
            if cls in predicate_classes:
                out.append(PluginDesc(name, "predicate", __version__, cls))
        converters = _canonical(CONVERTERS)
        for name, cls in converters:
            if _is_converter(cls):
                out.append(PluginDesc(name, "converter", __version__, cls))
        for name, cls in converters:
            if issubclass(cls, HeaderConverter):
                out.append(PluginDesc(name, "header_converter", __version__, cls))
        return out

    def plugin(self, name: str) -> PluginDesc:
        """Any plugin by class name or alias; NotFoundError ``Unknown plugin X.``."""
        for desc in self.connector_plugins(connectors_only=False):
            cls = desc.cls
            aliases = {desc.class_name, cls.__name__, desc.class_name.rsplit(".", 1)[-1]}
            if name in aliases:
                return desc
        try:
            cls = self.connector_class(name)
        except ConnectError:
            raise NotFoundError(f"Unknown plugin {name}.") from None
        return PluginDesc(self.class_name(cls), connector_type(cls), _version(cls), cls)


def _canonical(names: Any) -> list[tuple[str, type]]:
    """(longest name, class) per distinct class: the Kafka class name."""
    best: dict[type, str] = {}
    for name, cls in names.items():
        if "." in name and len(name) > len(best.get(cls, "")):
            best[cls] = name
    return sorted(((n, c) for c, n in best.items()), key=lambda nc: nc[0])


def _is_converter(cls: type) -> bool:
    from seaway.connect.api import Converter

    return issubclass(cls, Converter)


__all__ = ["ENTRY_POINT_GROUP", "PluginDesc", "Plugins", "connector_type"]
