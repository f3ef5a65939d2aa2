"""Parsing of each config Type from raw values, and Password masking."""

from __future__ import annotations

import collections
import pickle

import pytest

from seaway.config import (
    HIDDEN,
    NO_DEFAULT,
    ConfigException,
    Password,
    Type,
    convert_to_string,
    load_class,
    parse_type,
)


def _error(value: object, type_: Type, name: str = "k") -> str:
    with pytest.raises(ConfigException) as info:
        parse_type(name, value, type_)
    return str(info.value)


class TestBoolean:
    @pytest.mark.parametrize(
        ("raw", "expected"),
        [("true", True), ("false", False), ("TRUE", True), ("False", False), (" true\t", True)],
    )
    def test_strings_case_insensitive_and_trimmed(self, raw: str, expected: bool) -> None:
        assert parse_type("k", raw, Type.BOOLEAN) is expected

    def test_bool_passes_through(self) -> None:
        assert parse_type("k", False, Type.BOOLEAN) is False

    @pytest.mark.parametrize("raw", ["yes", "1", "", "t", 1, 0])
    def test_rejects_everything_else(self, raw: object) -> None:
        msg = _error(raw, Type.BOOLEAN, "enable")
        assert msg == f"Invalid value {raw} for configuration enable: " + (
            "Expected value to be either true or false"
        )


class TestIntegers:
    def test_int_from_string(self) -> None:
        assert parse_type("k", " 42 ", Type.INT) == 42
        assert parse_type("k", "+7", Type.INT) == 7
        assert parse_type("k", "-2147483648", Type.INT) == -(2**31)

    def test_int_range_checked_from_string(self) -> None:
        assert _error("2147483648", Type.INT) == (
            "Invalid value 2147483648 for configuration k: Not a number of type INT"
        )

    def test_int_range_checked_from_int(self) -> None:
        assert "out of range for a 32-bit integer" in _error(2**31, Type.INT)

    @pytest.mark.parametrize("raw", ["abc", "1.5", "1_000", "", "0x10", "1e3"])
    def test_int_rejects_non_integers(self, raw: str) -> None:
        assert _error(raw, Type.INT).endswith("Not a number of type INT")

    @pytest.mark.parametrize("raw", [1.0, True, [1]])
    def test_int_rejects_other_python_types(self, raw: object) -> None:
        msg = _error(raw, Type.INT)
        assert f"Expected value to be a 32-bit integer, but it was a {type(raw).__name__}" in msg

    def test_short_bounds(self) -> None:
        assert parse_type("k", "32767", Type.SHORT) == 32767
        assert _error("32768", Type.SHORT).endswith("Not a number of type SHORT")
        assert "16-bit" in _error(-32769, Type.SHORT)

    def test_long_bounds(self) -> None:
        assert parse_type("k", "9223372036854775807", Type.LONG) == 2**63 - 1
        assert parse_type("k", 5, Type.LONG) == 5
        assert _error("9223372036854775808", Type.LONG).endswith("Not a number of type LONG")


class TestDouble:
    @pytest.mark.parametrize(
        ("raw", "expected"),
        [("1.5", 1.5), ("-2", -2.0), (".5", 0.5), ("1e3", 1000.0), ("2.5d", 2.5), (3, 3.0)],
    )
    def test_parses(self, raw: object, expected: float) -> None:
        value = parse_type("k", raw, Type.DOUBLE)
        assert value == expected
        assert isinstance(value, float)

    def test_special_values_java_spelling(self) -> None:
        assert parse_type("k", "Infinity", Type.DOUBLE) == float("inf")
        assert parse_type("k", "NaN", Type.DOUBLE) != parse_type("k", "NaN", Type.DOUBLE)
        assert _error("inf", Type.DOUBLE).endswith("Not a number of type DOUBLE")

    def test_rejects(self) -> None:
        assert _error("abc", Type.DOUBLE).endswith("Not a number of type DOUBLE")
        assert _error(True, Type.DOUBLE).endswith(
            "Expected value to be a double, but it was a bool"
        )


class TestString:
    def test_trims_java_whitespace(self) -> None:
        assert parse_type("k", "  hello world \n", Type.STRING) == "hello world"

    def test_does_not_trim_non_ascii_space(self) -> None:
        assert parse_type("k", "\u00a0x\u00a0", Type.STRING) == "\u00a0x\u00a0"

    def test_rejects_non_strings(self) -> None:
        assert _error(5, Type.STRING) == (
            "Invalid value 5 for configuration k: Expected value to be a string, but it was a int"
        )


class TestList:
    def test_comma_separated_trimmed(self) -> None:
        assert parse_type("k", " a , b,c ", Type.LIST) == ["a", "b", "c"]

    def test_empty_string_is_empty_list(self) -> None:
        assert parse_type("k", "", Type.LIST) == []
        assert parse_type("k", "   ", Type.LIST) == []

    def test_keeps_empty_elements_like_java_split(self) -> None:
        assert parse_type("k", "a,,b,", Type.LIST) == ["a", "", "b", ""]

    def test_sequence_passes_through_as_list(self) -> None:
        assert parse_type("k", ("x", "y"), Type.LIST) == ["x", "y"]

    def test_rejects_other_types(self) -> None:
        assert _error(5, Type.LIST).endswith("Expected a comma separated list.")


class TestClass:
    def test_dotted_name(self) -> None:
        assert parse_type("k", "collections.OrderedDict", Type.CLASS) is collections.OrderedDict

    def test_colon_name_and_nested(self) -> None:
        assert load_class("collections:OrderedDict") is collections.OrderedDict
        assert load_class("seaway.config.types.Type") is Type

    def test_class_passes_through(self) -> None:
        assert parse_type("k", dict, Type.CLASS) is dict

    @pytest.mark.parametrize("raw", ["no.such.module.Cls", "collections.NoSuchThing", "json"])
    def test_not_found(self, raw: str) -> None:
        assert _error(raw, Type.CLASS, "c") == (
            f"Invalid value {raw} for configuration c: Class {raw} could not be found."
        )

    def test_non_class_attribute_is_not_found(self) -> None:
        assert _error("json.dumps", Type.CLASS).endswith("Class json.dumps could not be found.")

    def test_rejects_other_types(self) -> None:
        assert _error(5, Type.CLASS).endswith("Expected a Class instance or class name.")


class TestPassword:
    def test_wraps_and_masks(self) -> None:
        pw = parse_type("k", " s3cret ", Type.PASSWORD)
        assert isinstance(pw, Password)
        assert pw.value == "s3cret"
        assert str(pw) == repr(pw) == HIDDEN == "[hidden]"
        assert "s3cret" not in f"{pw} {[pw]} {dict(p=pw)}"

    def test_equality_by_value(self) -> None:
        assert Password("a") == Password("a")
        assert Password("a") != Password("b")
        assert Password("a") != "a"
        assert len({Password("a"), Password("a")}) == 1

    def test_password_passes_through(self) -> None:
        pw = Password("x")
        assert parse_type("k", pw, Type.PASSWORD) is pw

    def test_error_does_not_echo_value(self) -> None:
        msg = _error(123456, Type.PASSWORD, "db.password")
        assert "123456" not in msg
        assert msg.startswith("Invalid value [hidden] for configuration db.password:")

    def test_is_sensitive(self) -> None:
        assert Type.PASSWORD.is_sensitive
        assert not Type.STRING.is_sensitive


@pytest.mark.parametrize("type_", list(Type))
def test_none_stays_none(type_: Type) -> None:
    assert parse_type("k", None, type_) is None


def test_type_parse_method_and_str() -> None:
    assert Type.INT.parse("k", "3") == 3
    assert str(Type.LIST) == "list"


def test_convert_to_string() -> None:
    assert convert_to_string(None, Type.STRING) is None
    assert convert_to_string(["a", "b"], Type.LIST) == "a,b"
    assert convert_to_string(True, Type.BOOLEAN) == "true"
    assert convert_to_string(collections.OrderedDict, Type.CLASS) == "collections.OrderedDict"
    assert convert_to_string(Password("x"), Type.PASSWORD) == "[hidden]"
    assert convert_to_string(1.5, Type.DOUBLE) == "1.5"


def test_no_default_sentinel() -> None:
    assert repr(NO_DEFAULT) == "NO_DEFAULT"
    assert NO_DEFAULT is not None
    assert pickle.loads(pickle.dumps(NO_DEFAULT)) is NO_DEFAULT


class TestConfigException:
    def test_formats(self) -> None:
        exc = ConfigException("tasks.max", -1, "Value must be at least 1")
        assert str(exc) == "Invalid value -1 for configuration tasks.max: Value must be at least 1"
        assert (exc.name, exc.value, exc.reason) == ("tasks.max", -1, "Value must be at least 1")
        assert str(ConfigException("x", None)) == "Invalid value null for configuration x"
        assert str(ConfigException("x", ["a", "b"], "m")).startswith("Invalid value [a, b] ")

    def test_plain_message(self) -> None:
        exc = ConfigException("something broke")
        assert str(exc) == exc.message == "something broke"
        assert exc.name is None

    def test_pickles(self) -> None:
        exc = pickle.loads(pickle.dumps(ConfigException("n", 5, "bad")))
        assert (str(exc), exc.name, exc.value) == (
            "Invalid value 5 for configuration n: bad",
            "n",
            5,
        )
        assert str(pickle.loads(pickle.dumps(ConfigException("plain")))) == "plain"
