"""Kafka-compatible converters: JSON (with or without schemas), strings and raw bytes.

Each is both a :class:`~seaway.connect.api.storage.Converter` and a
:class:`~seaway.connect.api.storage.HeaderConverter`, declares its settings in a
``ConfigDef`` (``config()``), and can be looked up by its Kafka class name or alias with
:func:`converter_class`. :class:`SimpleHeaderConverter`, the workers' default header
converter, is only a header converter (:func:`header_converter_class`).
"""

from seaway.connect.converters.byte_array_converter import ByteArrayConverter
from seaway.connect.converters.json_config import DecimalFormat, JsonConverterConfig
from seaway.connect.converters.json_converter import JsonConverter
from seaway.connect.converters.registry import (
    converter_class,
    header_converter_class,
    new_converter,
    new_header_converter,
)
from seaway.connect.converters.simple_header_converter import SimpleHeaderConverter
from seaway.connect.converters.string_converter import StringConverter

__all__ = [
    "ByteArrayConverter",
    "DecimalFormat",
    "JsonConverter",
    "JsonConverterConfig",
    "SimpleHeaderConverter",
    "StringConverter",
    "converter_class",
    "header_converter_class",
    "new_converter",
    "new_header_converter",
]
