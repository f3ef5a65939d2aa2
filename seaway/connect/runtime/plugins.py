"""Finding plugins: connectors, converters, transformations and predicates (Kafka's ``Plugins``).

A ``connector.class`` names a plugin of the ``seaway.connectors`` entry-point group by its
name or an alias (:mod:`seaway.config.plugins`; Seaway's own under Kafka's and Confluent's
class names: ``org.apache.kafka.connect.file.FileStreamSourceConnector``,
``FileStreamSourceConnector``, ``FileStreamSource``), or a Python path
``package.module.Class``, importable from ``plugin.path`` directories too, which the worker
adds to ``sys.path`` (on executors too). Connector classes defined in top-level modules of
those directories are listed by ``GET /connector-plugins`` and found by their simple names.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import logging
import pkgutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from seaway import __version__
from seaway.config.plugins import (
    CONNECTORS,
    CONVERTERS,
    HEADER_CONVERTERS,
    PREDICATES,
    TRANSFORMS,
    load_class,
    plugin_classes,
)
from seaway.connect.api import Connector, SinkConnector, SourceConnector
from seaway.connect.api.errors import ConnectError, NotFoundError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PluginDesc:
    """One plugin: its canonical class name, kind and version."""

    class_name: str
    type: str  # source, sink, converter, header_converter, transformation, predicate
    version: str
    cls: builtins.type

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


class Plugins:
    """The plugins a worker knows, by every name they may be given."""

    def __init__(self, plugin_path: Iterable[str] = ()) -> None:
        self.plugin_path = tuple(p for p in plugin_path if p)
        for path in self.plugin_path:
            if path not in sys.path:
                sys.path.append(path)
        self._scanned: dict[str, type[Connector]] = {}
        for cls in self._scan_plugin_path():
            for alias in (cls.__name__, cls.__name__.removesuffix("Connector")):
                self._scanned.setdefault(alias, cls)

    def _scan_plugin_path(self) -> Iterable[type[Connector]]:
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

    def _connectors(self) -> dict[str, type[Connector]]:
        """Every known connector by canonical name (sorted): the entry points', then those
        found in ``plugin.path``."""
        found = {n: c for n, c in plugin_classes(CONNECTORS).items() if issubclass(c, Connector)}
        known = set(found.values())
        for cls in self._scanned.values():
            if cls not in known:
                found.setdefault(f"{cls.__module__}.{cls.__qualname__}", cls)
        return dict(sorted(found.items()))

    def class_name(self, cls: type) -> str:
        """The canonical name of a known connector class (Kafka's, for bundled ones)."""
        found = (name for name, c in self._connectors().items() if c is cls)
        return next(found, f"{cls.__module__}.{cls.__qualname__}")

    def connector_class(self, name: str) -> type[Connector]:
        """The connector called *name*; a ConnectError (500, as in Kafka) listing the
        available ones."""
        try:
            return load_class(name, CONNECTORS, Connector)
        except (LookupError, ImportError):
            cls = self._scanned.get(name.strip())
        if cls is None:
            available = ", ".join(self._connectors())
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
            PluginDesc(name, connector_type(c), _version(c), c)
            for name, c in self._connectors().items()
        ]
        order = {"sink": 0, "source": 1}
        plugins = sorted(descs, key=lambda d: (order.get(d.type, 2), d.class_name))
        if connectors_only:
            return plugins
        return plugins + [
            PluginDesc(name, kind, __version__, cls)
            for kind, group in _OTHER_KINDS
            for name, cls in plugin_classes(group).items()
        ]

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


_OTHER_KINDS = (
    ("transformation", TRANSFORMS),
    ("predicate", PREDICATES),
    ("converter", CONVERTERS),
    ("header_converter", HEADER_CONVERTERS),
)


__all__ = ["PluginDesc", "Plugins", "connector_type"]
