"""StringConverter, ByteArrayConverter and the converter registry."""

from __future__ import annotations

import pytest

from seaway.config import ConfigException
from seaway.config.plugins import CONVERTERS, aliases
from seaway.connect.api import ConnectError, Converter, DataError, Schema, SchemaAndValue
from seaway.connect.converters import (
    ByteArrayConverter,
    JsonConverter,
    StringConverter,
    converter_class,
    new_converter,
    new_header_converter,
)

# ---------------------------------------------------------------------------- StringConverter


def string_converter(
    configs: dict[str, str] | None = None, is_key: bool = False
) -> StringConverter:
    converter = StringConverter()
    converter.configure(configs or {}, is_key)
    return converter


def test_string_converter_defaults_to_utf8() -> None:
    converter = string_converter()
    assert converter.encoding == "UTF-8"
    assert converter.from_connect_data("t", Schema.STRING_SCHEMA, "héllo") == "héllo".encode()
    assert converter.to_connect_data("t", "héllo".encode()) == SchemaAndValue(
        Schema.OPTIONAL_STRING_SCHEMA, "héllo"
    )


def test_string_converter_null_stays_null() -> None:
    converter = string_converter()
    assert converter.from_connect_data("t", None, None) is None
    assert converter.to_connect_data("t", None) == SchemaAndValue(
        Schema.OPTIONAL_STRING_SCHEMA, None
    )


def test_string_converter_writes_java_to_string() -> None:
    converter = string_converter()
    assert converter.from_connect_data("t", None, True) == b"true"
    assert converter.from_connect_data("t", None, 12) == b"12"
    assert converter.from_connect_data("t", None, 1e10) == b"1.0E10"


def test_converter_encoding_like_java() -> None:
    utf16 = string_converter({"converter.encoding": "UTF-16"}, is_key=True)
    assert utf16.from_connect_data("t", None, "hi") == b"\xfe\xff\x00h\x00i"
    assert utf16.to_connect_data("t", b"\xfe\xff\x00h\x00i").value == "hi"
    assert utf16.to_connect_data("t", b"\xff\xfeh\x00i\x00").value == "hi"
    assert utf16.to_connect_data("t", b"\x00h\x00i").value == "hi"
    latin = string_converter({"converter.encoding": "ISO-8859-1"})
    assert latin.from_connect_data("t", None, "é€") == b"\xe9?"
    assert string_converter().to_connect_data("t", b"a\xffb").value == "a\ufffdb"


def test_serializer_encoding_overrides_for_keys_and_values() -> None:
    configs = {"key.serializer.encoding": "UTF-16BE", "converter.encoding": "ISO-8859-1"}
    assert string_converter(configs, is_key=True).encoding == "UTF-16BE"
    assert string_converter(configs, is_key=False).encoding == "ISO-8859-1"
    values = {"value.serializer.encoding": "UTF-16LE"}
    assert string_converter(values, is_key=False).from_connect_data("t", None, "a") == b"a\x00"
    assert string_converter(values, is_key=True).encoding == "UTF-8"


def test_unsupported_encoding() -> None:
    with pytest.raises(ConfigException) as info:
        string_converter({"converter.encoding": "no-such-charset"})
    assert str(info.value) == (
        "Invalid value no-such-charset for configuration converter.encoding: "
        "Unsupported encoding no-such-charset"
    )
    with pytest.raises(ConfigException, match="Unsupported encoding base64"):
        string_converter({"converter.encoding": "base64"})


def test_string_converter_config_and_headers() -> None:
    converter = StringConverter()
    assert list(converter.config().names()) == ["converter.type", "converter.encoding"]
    converter.configure({"converter.type": "header"})
    assert converter.from_connect_header("t", "h", Schema.STRING_SCHEMA, "v") == b"v"
    assert converter.to_connect_header("t", "h", b"v").value == "v"


# ---------------------------------------------------------------------------- ByteArrayConverter


def test_byte_array_converter() -> None:
    converter = ByteArrayConverter()
    converter.configure({}, False)
    assert converter.from_connect_data("t", Schema.BYTES_SCHEMA, b"\x00\x01") == b"\x00\x01"
    assert converter.from_connect_data("t", None, bytearray(b"x")) == b"x"
    assert converter.from_connect_data("t", None, memoryview(b"mv")) == b"mv"
    assert converter.from_connect_data("t", Schema.OPTIONAL_BYTES_SCHEMA, None) is None
    assert converter.to_connect_data("t", b"x") == SchemaAndValue(
        Schema.OPTIONAL_BYTES_SCHEMA, b"x"
    )
    assert converter.to_connect_data("t", None) == SchemaAndValue(
        Schema.OPTIONAL_BYTES_SCHEMA, None
    )
    assert list(converter.config().names()) == ["converter.type"]


def test_byte_array_converter_errors() -> None:
    converter = ByteArrayConverter()
    with pytest.raises(DataError) as info:
        converter.from_connect_data("t", Schema.STRING_SCHEMA, b"x")
    assert str(info.value) == "Invalid schema type for ByteArrayConverter: STRING"
    with pytest.raises(DataError) as info:
        converter.from_connect_data("t", None, "x")
    assert str(info.value) == "ByteArrayConverter is not compatible with objects of type class str"


# ---------------------------------------------------------------------------- registry


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.json.JsonConverter", JsonConverter),
        ("JsonConverter", JsonConverter),
        ("Json", JsonConverter),
        ("org.apache.kafka.connect.storage.StringConverter", StringConverter),
        ("StringConverter", StringConverter),
        ("String", StringConverter),
        ("org.apache.kafka.connect.converters.ByteArrayConverter", ByteArrayConverter),
        ("ByteArrayConverter", ByteArrayConverter),
        (" ByteArray ", ByteArrayConverter),
        ("seaway.connect.converters.JsonConverter", JsonConverter),
        ("seaway.connect.converters.string_converter:StringConverter", StringConverter),
    ],
)
def test_converter_names(name: str, cls: type[Converter]) -> None:
    assert converter_class(name) is cls


@pytest.mark.parametrize(
    "name",
    [
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        "Protobuf",
        "seaway.connect.api.Schema",
        "no.such.module.Converter",
        "",
    ],
)
def test_unknown_converter_lists_the_known_ones(name: str) -> None:
    with pytest.raises(ConnectError) as info:
        converter_class(name)
    message = str(info.value)
    assert message.startswith(
        "Failed to find any class that implements Converter and which name matches "
        f"{name}, available converters are: "
    )
    for known in aliases(CONVERTERS):
        assert known in message


def test_new_converter_and_header_converter() -> None:
    key = new_converter("JsonConverter", {"schemas.enable": "false"}, is_key=True)
    assert isinstance(key, JsonConverter) and not key.settings.schemas_enabled
    assert key.settings.type.value == "key"
    header = new_header_converter("StringConverter", {})
    assert isinstance(header, StringConverter)
    assert header.from_connect_header("t", "h", None, "v") == b"v"
