"""Find converter classes by Kafka class name, alias, or Python path.

Worker and connector configs name converters the Kafka way
(``value.converter=org.apache.kafka.connect.json.JsonConverter``); Kafka's aliases work too:
the simple class name (``JsonConverter``) and that name without ``Converter`` (``Json``).
A name that is none of these may be a Python path, ``package.module.Class`` or
``package.module:Class``.

>>> converter_class("org.apache.kafka.connect.storage.StringConverter").__name__
'StringConverter'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from seaway.connect.api.errors import ConnectError
from seaway.connect.api.storage import Converter, ConverterType, HeaderConverter
from seaway.connect.converters.byte_array_converter import ByteArrayConverter
from seaway.connect.converters.json_converter import JsonConverter
from seaway.connect.converters.string_converter import StringConverter

_KAFKA_CLASSES: dict[str, type[Converter]] = {
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
}


def _aliases() -> dict[str, type[Converter]]:
    names: dict[str, type[Converter]] = {}
    for full_name, cls in _KAFKA_CLASSES.items():
        simple = full_name.rsplit(".", 1)[1]
        names[full_name] = cls
        names[simple] = cls
        names[simple.removesuffix("Converter")] = cls
    return names


CONVERTERS: Mapping[str, type[Converter]] = MappingProxyType(_aliases())
"""Every known converter name (Kafka class names and aliases) and its class."""


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


def converter_class(name: str) -> type[Converter]:
    """The converter class called *name*; raises :class:`ConnectError` listing known names."""
    cls = CONVERTERS.get(name.strip())
    if cls is None:
        loaded = _load_python_class(name.strip())
        if loaded is not None and issubclass(loaded, Converter):
            cls = loaded
    if cls is None:
        raise ConnectError(
            "Failed to find any class that implements Converter and which name matches "
            f"{name}, available converters are: {', '.join(sorted(CONVERTERS))}"
        )
    return cls


def new_converter(name: str, configs: Mapping[str, Any], is_key: bool) -> Converter:
    """A configured converter (configs without the ``key.converter.`` prefix)."""
    converter = converter_class(name)()
    converter.configure(configs, is_key)
    return converter


def new_header_converter(name: str, configs: Mapping[str, Any]) -> HeaderConverter:
    """A configured header converter (configs without the ``header.converter.`` prefix)."""
    cls: type = converter_class(name)
    if not issubclass(cls, HeaderConverter):
        raise ConnectError(f"{name} is not a HeaderConverter")
    converter = cls()
    converter.configure({**configs, "converter.type": ConverterType.HEADER.value})
    return converter


__all__ = ["CONVERTERS", "converter_class", "new_converter", "new_header_converter"]
