"""Find transformation and predicate classes by Kafka class name, alias or Python path.

Connector configs name transforms the Kafka way
(``transforms.a.type=org.apache.kafka.connect.transforms.InsertField$Value``). The Kafka name
without its package works too (``InsertField$Value``, ``RegexRouter``, ``TopicNameMatches``),
as does a Python path to any other :class:`Transformation` or :class:`Predicate`
(``package.module.Class`` or ``package.module:Class``): :mod:`seaway.config.plugins`, with the
``seaway.transforms`` and ``seaway.predicates`` entry points.

>>> load_class("RegexRouter", "transformation").__name__
'RegexRouter'
>>> plugin_class_name(load_class("InsertField$Value", "transformation"))
'org.apache.kafka.connect.transforms.InsertField$Value'
"""

from __future__ import annotations

import inspect
from typing import Any, Final, Literal

from seaway.config import ConfigException, plugins
from seaway.connect.api.transforms import Predicate, Transformation

PluginKind = Literal["transformation", "predicate"]

TRANSFORMS_PACKAGE: Final = "org.apache.kafka.connect.transforms."

_GROUPS: Final = {"transformation": plugins.TRANSFORMS, "predicate": plugins.PREDICATES}
_BASES: Final[dict[str, type]] = {"transformation": Transformation, "predicate": Predicate}


def plugin_names(kind: PluginKind) -> list[str]:
    """The Kafka names of the transformations or predicates, sorted."""
    return plugins.plugin_names(_GROUPS[kind])


def available_names(kind: PluginKind) -> list[str]:
    """The short names of the transformations or predicates, sorted."""
    return sorted(name.rpartition(".")[2] for name in plugin_names(kind))


def _family(name: str) -> type | None:
    """Kafka's abstract family of a ``$Key``/``$Value`` pair (``InsertField``), if *name* is
    one: naming it gets "Did you mean ...$Key, ...$Value?"."""
    try:
        key: type = plugins.load_class(name + "$Key", plugins.TRANSFORMS)
    except Exception:
        return None
    return next((c for c in key.__mro__[1:] if getattr(c, "Key", None) is key), None)


def find_class(name: str, kind: PluginKind) -> type | None:
    """The class called *name* (Kafka name, alias or Python path), or None if there is none.

    The class is not checked to be a (concrete) transformation or predicate; see
    :func:`check_plugin_class`.
    """
    try:
        return plugins.load_class(name, _GROUPS[kind])
    except LookupError:
        pass
    except Exception:  # not importable: as good as absent
        return None
    name = name.strip()
    if kind == "transformation" and name.startswith(TRANSFORMS_PACKAGE):
        return _family(name)
    return None


def plugin_class_name(cls: type) -> str:
    """The Kafka name of a built-in class, else its Python path ``module.Qualname``."""
    return plugins.class_name(cls, *_GROUPS.values())


def check_plugin_class(cls: type, kind: PluginKind) -> None:
    """Raise ConfigException, in Kafka's words, unless *cls* is a concrete *kind* class."""
    base = _BASES[kind]
    if not issubclass(cls, base):
        raise ConfigException(
            f"Class {plugin_class_name(cls)} does not implement the {base.__name__} interface"
        )
    if inspect.isabstract(cls):
        variants = [
            plugin_class_name(variant)
            for variant in (getattr(cls, "Key", None), getattr(cls, "Value", None))
            if isinstance(variant, type) and not inspect.isabstract(variant)
        ]
        message = "This class is abstract and cannot be created."
        if variants:
            message += " Did you mean " + ", ".join(variants) + "?"
        raise ConfigException(message)


def load_class(name: str, kind: PluginKind) -> type[Any]:
    """The concrete transformation or predicate class called *name*.

    *name* is a Kafka class name, a short alias or a Python path. Raises ConfigException when
    it names nothing (listing the built-in names) or a class of the wrong kind.
    """
    cls = find_class(name, kind)
    if cls is None:
        raise ConfigException(
            f"Class {name.strip()} could not be found. Available {kind}s: "
            + ", ".join(available_names(kind))
        )
    check_plugin_class(cls, kind)
    return cls


__all__ = [
    "PluginKind",
    "available_names",
    "check_plugin_class",
    "find_class",
    "load_class",
    "plugin_class_name",
    "plugin_names",
]
