"""Find converter classes by Kafka class name, alias, or Python path.

Worker and connector configs name converters the Kafka way
(``value.converter=org.apache.kafka.connect.json.JsonConverter``); Kafka's aliases work too:
the simple class name (``JsonConverter``) and that name without ``Converter`` (``Json``).
A name that is none of these may be a Python path, ``package.module.Class`` or
``package.module:Class``. Most classes here are both a
:class:`~seaway.connect.api.storage.Converter` and a
:class:`~seaway.connect.api.storage.HeaderConverter`; ``SimpleHeaderConverter`` is only a
header converter, so :func:`converter_class` and :func:`new_converter` refuse it.

>>> converter_class("org.apache.kafka.connect.storage.StringConverter").__name__
'StringConverter'
>>> header_converter_class("SimpleHeader").__name__
'SimpleHeaderConverter'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from seaway.connect.api.errors import ConnectError
from seaway.connect.api.storage import Converter, ConverterType, HeaderConverter
from seaway.connect.converters.avro_converter import AvroConverter
from seaway.connect.converters.byte_array_converter import ByteArrayConverter
from seaway.connect.converters.json_converter import JsonConverter
from seaway.connect.converters.simple_header_converter import SimpleHeaderConverter
from seaway.connect.converters.string_converter import StringConverter

ConverterClass = type[Converter] | type[HeaderConverter]
"""A converter class: a Converter, a HeaderConverter, or both."""

_KAFKA_CLASSES: dict[str, ConverterClass] = {
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
    "org.apache.kafka.connect.storage.SimpleHeaderConverter": SimpleHeaderConverter,
    "io.confluent.connect.avro.AvroConverter": AvroConverter,
}


def _aliases() -> dict[str, ConverterClass]:
    names: dict[str, ConverterClass] = {}
    for full_name, cls in _KAFKA_CLASSES.items():
        simple = full_name.rsplit(".", 1)[1]
        names[full_name] = cls
        names[simple] = cls
        names[simple.removesuffix("Converter")] = cls
    return names


CONVERTERS: Mapping[str, ConverterClass] = MappingProxyType(_aliases())
"""Every known converter and header converter name (Kafka class names, aliases), its class."""


def _load_python_class(name: str) -> type | None:
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


_T = TypeVar("_T")


def _find(name: str, kind: type[_T]) -> type[_T] | None:
    """The known class or Python class called *name* if it implements *kind*, else None."""
    cls: type | None = CONVERTERS.get(name.strip()) or _load_python_class(name.strip())
    return cls if cls is not None and issubclass(cls, kind) else None


def converter_class(name: str) -> type[Converter]:
    """The :class:`Converter` class called *name*; raises :class:`ConnectError` otherwise.

    A class that is only a :class:`HeaderConverter` is refused like an unknown name.
    """
    cls = _find(name, Converter)
    if cls is None:
        raise ConnectError(
            "Failed to find any class that implements Converter and which name matches "
            f"{name}, available converters are: {', '.join(sorted(CONVERTERS))}"
        )
    return cls


def header_converter_class(name: str) -> type[HeaderConverter]:
    """The :class:`HeaderConverter` class called *name*; raises :class:`ConnectError` otherwise."""
    cls = _find(name, HeaderConverter)
    if cls is None:
        known = sorted(n for n, c in CONVERTERS.items() if issubclass(c, HeaderConverter))
        raise ConnectError(
            "Failed to find any class that implements HeaderConverter and which name matches "
            f"{name}, available header converters are: {', '.join(known)}"
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
    "CONVERTERS",
    "ConverterClass",
    "converter_class",
    "header_converter_class",
    "new_converter",
    "new_header_converter",
]
