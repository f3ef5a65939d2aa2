"""Each validator's acceptance rules, Kafka-style error messages and doc strings."""

from __future__ import annotations

from typing import Any

import pytest

from seaway.config import (
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigException,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Range,
    Validator,
    ValidList,
    ValidString,
)


def _error(validator: Validator, value: Any, name: str = "k") -> str:
    with pytest.raises(ConfigException) as info:
        validator.ensure_valid(name, value)
    return str(info.value)


class TestRange:
    def test_at_least(self) -> None:
        v = Range.at_least(1)
        v.ensure_valid("tasks.max", 1)
        v.ensure_valid("tasks.max", 10**12)
        assert _error(v, -1, "tasks.max") == (
            "Invalid value -1 for configuration tasks.max: Value must be at least 1"
        )
        assert str(v) == "[1,...]"

    def test_between(self) -> None:
        v = Range.between(0, 10)
        v.ensure_valid("k", 0)
        v.ensure_valid("k", 10)
        assert (
            _error(v, 11) == "Invalid value 11 for configuration k: Value must be no more than 10"
        )
        assert _error(v, -1).endswith("Value must be at least 0")
        assert str(v) == "[0,...,10]"

    def test_at_most_and_doubles(self) -> None:
        v = Range.at_most(0.5)
        v.ensure_valid("k", 0.25)
        assert _error(v, 0.75).endswith("Value must be no more than 0.5")
        assert str(v) == "[...,0.5]"
        assert str(Range.between(0.0, 1.0)) == "[0.0,...,1.0]"

    def test_null_and_non_numbers(self) -> None:
        assert _error(Range.at_least(0), None) == (
            "Invalid value null for configuration k: Value must be non-null"
        )
        assert _error(Range.at_least(0), "5").endswith("Value must be a number")
        assert _error(Range.at_least(0), True).endswith("Value must be a number")


class TestValidString:
    def test_accepts_only_listed_case_sensitive(self) -> None:
        v = ValidString.in_("none", "all")
        v.ensure_valid("errors.tolerance", "all")
        assert _error(v, "ALL", "errors.tolerance") == (
            "Invalid value ALL for configuration errors.tolerance: String must be one of: none, all"
        )
        assert _error(v, None).endswith("String must be one of: none, all")
        assert str(v) == "[none, all]"

    def test_case_insensitive(self) -> None:
        v = CaseInsensitiveValidString.in_("none", "all")
        v.ensure_valid("k", "ALL")
        v.ensure_valid("k", "None")
        assert _error(v, "some") == (
            "Invalid value some for configuration k: "
            "String must be one of (case insensitive): none, all"
        )
        assert _error(v, None).endswith("(case insensitive): none, all")
        assert str(v) == "(case insensitive) [none, all]"


class TestNonEmptyString:
    def test_rules(self) -> None:
        v = NonEmptyString()
        v.ensure_valid("k", "x")
        v.ensure_valid("k", None)
        assert _error(v, "", "name") == (
            "Invalid value  for configuration name: String must be non-empty"
        )
        assert str(v) == "non-empty string"

    def test_without_control_chars(self) -> None:
        v = NonEmptyStringWithoutControlChars()
        v.ensure_valid("k", "my-connector ü")
        v.ensure_valid("k", None)
        assert _error(v, "").endswith("String may not be empty")
        assert _error(v, "a\tb\x7f").endswith(
            "String may not contain control sequences but had the following ASCII chars: 9, 127"
        )
        assert str(v) == "non-empty string without ISO control characters"


class TestValidList:
    def test_each_element_checked(self) -> None:
        v = ValidList.in_("a", "b")
        v.ensure_valid("k", ["a", "b", "a"])
        v.ensure_valid("k", [])
        assert _error(v, ["a", "c"], "mode") == (
            "Invalid value c for configuration mode: String must be one of: a, b"
        )
        assert str(v) == "[a, b]"

    def test_empty_and_null(self) -> None:
        assert _error(ValidList.in_("a", allow_empty=False), [], "mode") == (
            "Configuration 'mode' must not be empty. Valid values include: [a]"
        )
        assert _error(ValidList.in_("a"), None, "mode") == (
            "Configuration 'mode' values must not be null."
        )
        ValidList.in_("a", allow_null=True).ensure_valid("mode", None)

    def test_non_list(self) -> None:
        assert _error(ValidList.in_("a"), "a").endswith("Expected a list")


def test_non_null_validator() -> None:
    v = NonNullValidator()
    v.ensure_valid("k", "")
    assert _error(v, None) == "Invalid value null for configuration k: entry must be non null"
    assert str(v) == "non-null string"


class TestLambdaValidator:
    @staticmethod
    def _even(name: str, value: Any) -> None:
        if value % 2:
            raise ConfigException(name, value, "Value must be even")

    def test_delegates(self) -> None:
        v = LambdaValidator(self._even, "even integers")
        v.ensure_valid("k", 4)
        assert _error(v, 3) == "Invalid value 3 for configuration k: Value must be even"
        assert str(v) == "even integers"

    def test_callable_description(self) -> None:
        assert str(LambdaValidator(self._even, lambda: "computed")) == "computed"


def test_composite_validator() -> None:
    v = CompositeValidator.of(NonNullValidator(), Range.at_least(1))
    v.ensure_valid("k", 3)
    assert _error(v, None).endswith("entry must be non null")
    assert _error(v, 0).endswith("Value must be at least 1")
    assert str(v) == "non-null string, [1,...]"


def test_custom_validator_subclass_needs_ensure_valid() -> None:
    class Incomplete(Validator):
        pass

    with pytest.raises(TypeError):
        Incomplete()  # type: ignore[abstract]
