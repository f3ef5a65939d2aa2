"""Find converter classes by Kafka class name, alias, or Python path.

Worker and connector configs name converters the Kafka way
(``value.converter=org.apache.kafka.connect.json.JsonConverter``); Kafka's aliases work too:
the simple class name (``JsonConverter``) and that name without ``Converter`` (``Json``).
A name that is none of these may be a Python path, ``package.module.Class`` or
``package.module:Class`` (:mod:`seaway.config.plugins`: the ``seaway.converters`` and
``seaway.header_converters`` entry points). Most classes here are both a
:class:`~seaway.connect.api.storage.Converter` and a
:class:`~seaway.connect.api.storage.HeaderConverter`; ``SimpleHeaderConverter`` is only a
header converter, so :func:`converter_class` and :func:`new_converter` refuse it.

>>> converter_class("org.apache.kafka.connect.storage.StringConverter").__name__
'StringConverter'
>>> header_converter_class("SimpleHeader").__name__
'SimpleHeaderConverter'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.config.plugins import CONVERTERS, HEADER_CONVERTERS, aliases, load_class
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.storage import Converter, ConverterType, HeaderConverter

ConverterClass = type[Converter] | type[HeaderConverter]
"""A converter class: a Converter, a HeaderConverter, or both."""


def _find(name: str, group: str, kind: type) -> type[Any] | None:
    """The plugin of *group* or Python class called *name* if it implements *kind*, else None."""
    try:
        return load_class(name, group, kind)
    except (LookupError, ImportError):
        return None


def converter_class(name: str) -> type[Converter]:
    """The :class:`Converter` class called *name*; raises :class:`ConnectError` otherwise.

    A class that is only a :class:`HeaderConverter` is refused like an unknown name.
    """
    cls = _find(name, CONVERTERS, Converter)
    if cls is None:
        raise ConnectError(
            "Failed to find any class that implements Converter and which name matches "
            f"{name}, available converters are: {', '.join(aliases(CONVERTERS))}"
        )
    return cls


def header_converter_class(name: str) -> type[HeaderConverter]:
    """The :class:`HeaderConverter` class called *name*; raises :class:`ConnectError` otherwise."""
    cls = _find(name, HEADER_CONVERTERS, HeaderConverter)
    if cls is None:
        raise ConnectError(
            "Failed to find any class that implements HeaderConverter and which name matches "
            f"{name}, available header converters are: {', '.join(aliases(HEADER_CONVERTERS))}"
        )
    return cls


def new_converter(name: str, configs: Mapping[str, Any], is_key: bool) -> Converter:
    """A configured converter (configs without the ``key.converter.`` prefix)."""
    converter = converter_class(name)()
    converter.configure(configs, is_key)
    return converter


def new_header_converter(name: str, configs: Mapping[str, Any]) -> HeaderConverter:
    """A configured header converter (configs without the ``header.converter.`` prefix)."""
    converter = header_converter_class(name)()
    converter.configure({**configs, "converter.type": ConverterType.HEADER.value})
    return converter


__all__ = [
    "ConverterClass",
    "converter_class",
    "header_converter_class",
    "new_converter",
    "new_header_converter",
]
