"""ConfigDef: defining, parsing, validate()/validate_all(), embed and doc rendering."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from seaway.config import (
    NO_DEFAULT,
    ConfigDef,
    ConfigException,
    ConfigKey,
    Importance,
    Password,
    Range,
    Type,
    ValidString,
    Width,
    nice_memory_units,
    nice_time_units,
)


def _connector_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("name", Type.STRING, NO_DEFAULT, None, Importance.HIGH, "Connector name.")
        .define("tasks.max", Type.INT, 1, Range.at_least(1), Importance.HIGH, "Max tasks.")
        .define("topics", Type.LIST, "", None, Importance.MEDIUM, "Topics.")
        .define("enabled", Type.BOOLEAN, True)
        .define("secret", Type.PASSWORD, None)
    )


class TestDefine:
    def test_fluent_and_ordered(self) -> None:
        d = _connector_def()
        assert list(d.names()) == ["name", "tasks.max", "topics", "enabled", "secret"]
        assert "tasks.max" in d.names() and "tasks.max" in d
        assert len(d) == 5
        key = d.config_keys["tasks.max"]
        assert isinstance(key, ConfigKey)
        assert (key.type, key.default_value, key.importance) == (Type.INT, 1, Importance.HIGH)
        assert key.display_name == "tasks.max" and key.width is Width.NONE
        assert key.has_default and not d.config_keys["name"].has_default

    def test_config_keys_is_read_only(self) -> None:
        with pytest.raises(TypeError):
            _connector_def().config_keys["x"] = None  # type: ignore[index]

    def test_duplicate_name_rejected(self) -> None:
        d = ConfigDef().define("a", Type.INT, 1)
        with pytest.raises(ConfigException, match=re.escape("Configuration a is defined twice.")):
            d.define("a", Type.STRING, "x")

    def test_default_parsed_to_type(self) -> None:
        d = ConfigDef().define("n", Type.INT, "10").define("l", Type.LIST, "a, b")
        assert d.config_keys["n"].default_value == 10
        assert d.config_keys["l"].default_value == ["a", "b"]

    def test_invalid_default_rejected_at_define_time(self) -> None:
        with pytest.raises(ConfigException) as info:
            ConfigDef().define("tasks.max", Type.INT, 0, Range.at_least(1))
        assert str(info.value) == (
            "Invalid value 0 for configuration tasks.max: Value must be at least 1"
        )
        with pytest.raises(ConfigException, match="Not a number of type INT"):
            ConfigDef().define("n", Type.INT, "ten")

    def test_required_key_default_not_validated(self) -> None:
        ConfigDef().define("n", Type.INT, NO_DEFAULT, Range.at_least(1))

    def test_groups_in_first_seen_order(self) -> None:
        d = (
            ConfigDef()
            .define("a", Type.INT, 1, group="Common", order_in_group=1)
            .define("b", Type.INT, 1, group="Transforms", order_in_group=1)
            .define("c", Type.INT, 1, group="Common", order_in_group=2)
        )
        assert d.groups == ("Common", "Transforms")

    def test_define_internal(self) -> None:
        d = ConfigDef().define_internal("x.internal", Type.STRING, "v")
        key = d.config_keys["x.internal"]
        assert key.internal and key.importance is Importance.LOW

    def test_bad_arguments(self) -> None:
        with pytest.raises(TypeError):
            ConfigDef().define("a", "int", 1)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            ConfigDef().define("a", Type.INT, 1, dependents="b")


class TestParse:
    def test_applies_defaults_and_converts(self) -> None:
        values = _connector_def().parse({"name": " sink ", "topics": "a, b", "extra": "ignored"})
        assert values == {
            "name": "sink",
            "tasks.max": 1,
            "topics": ["a", "b"],
            "enabled": True,
            "secret": None,
        }
        assert list(values) == ["name", "tasks.max", "topics", "enabled", "secret"]

    def test_all_types_from_strings(self) -> None:
        d = (
            ConfigDef()
            .define("b", Type.BOOLEAN)
            .define("s", Type.STRING)
            .define("i", Type.INT)
            .define("sh", Type.SHORT)
            .define("l", Type.LONG)
            .define("d", Type.DOUBLE)
            .define("li", Type.LIST)
            .define("c", Type.CLASS)
            .define("p", Type.PASSWORD)
        )
        values = d.parse(
            {
                "b": "TRUE",
                "s": "x",
                "i": "1",
                "sh": "2",
                "l": "3",
                "d": "0.5",
                "li": "x,y",
                "c": "collections.OrderedDict",
                "p": "pw",
            }
        )
        assert values["b"] is True and values["i"] == 1 and values["sh"] == 2
        assert values["l"] == 3 and values["d"] == 0.5 and values["li"] == ["x", "y"]
        assert values["c"].__name__ == "OrderedDict" and values["p"] == Password("pw")

    def test_missing_required(self) -> None:
        d = ConfigDef().define("file", Type.STRING, doc="File to read.")
        with pytest.raises(ConfigException) as info:
            d.parse({})
        assert (
            str(info.value) == 'Missing required configuration "file" which has no default value.'
        )

    def test_explicit_none_counts_as_set(self) -> None:
        assert ConfigDef().define("file", Type.STRING).parse({"file": None}) == {"file": None}

    def test_validator_runs_on_supplied_value(self) -> None:
        with pytest.raises(ConfigException) as info:
            _connector_def().parse({"name": "n", "tasks.max": "-1"})
        assert str(info.value) == (
            "Invalid value -1 for configuration tasks.max: Value must be at least 1"
        )

    def test_first_error_in_definition_order(self) -> None:
        with pytest.raises(ConfigException, match=re.escape("tasks.max")):
            _connector_def().parse({"name": "n", "tasks.max": "0", "enabled": "maybe"})

    def test_list_default_not_shared(self) -> None:
        d = ConfigDef().define("l", Type.LIST, ["a"])
        first = d.parse({})["l"]
        first.append("mutated")
        assert d.parse({})["l"] == ["a"]
        assert d.config_keys["l"].default_value == ["a"]

    def test_undefined_dependents_rejected(self) -> None:
        d = ConfigDef().define("a", Type.INT, 1, dependents=["ghost"])
        with pytest.raises(ConfigException, match="not defined: ghost"):
            d.parse({})

    def test_unexpected_validator_exception_is_wrapped(self) -> None:
        class Boom(Range):
            def ensure_valid(self, name: str, value: Any) -> None:
                raise RuntimeError("kaput")

        d = ConfigDef().define("a", Type.INT, NO_DEFAULT, Boom())
        with pytest.raises(ConfigException, match="Validator failed: kaput"):
            d.parse({"a": "1"})
        [result] = d.validate({"a": "1"})
        assert result.errors == ["Invalid value 1 for configuration a: Validator failed: kaput"]


class TestValidate:
    def test_collects_errors_without_raising(self) -> None:
        results = {
            r.name: r
            for r in _connector_def().validate({"tasks.max": "0", "enabled": "maybe", "x": "1"})
        }
        assert list(results) == ["name", "tasks.max", "topics", "enabled", "secret"]
        assert results["name"].errors == [
            'Missing required configuration "name" which has no default value.'
        ]
        assert results["tasks.max"].errors == [
            "Invalid value 0 for configuration tasks.max: Value must be at least 1"
        ]
        assert results["tasks.max"].value == 0
        assert results["enabled"].errors == [
            "Invalid value maybe for configuration enabled: "
            "Expected value to be either true or false"
        ]
        assert results["enabled"].value is None
        assert results["topics"].errors == [] and results["topics"].value == []
        assert all(r.visible for r in results.values())

    def test_valid_props_have_no_errors(self) -> None:
        results = _connector_def().validate({"name": "n", "secret": "pw"})
        assert [r.errors for r in results] == [[]] * 5
        assert {r.name: r.value for r in results}["secret"] == Password("pw")

    def test_recommender_sees_parsed_values_and_sets_visibility(self) -> None:
        seen: list[Mapping[str, Any]] = []

        class FormatRecommender:
            def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
                seen.append(dict(parsed))
                return ["json", "avro"] if parsed["converter.enabled"] else []

            def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
                return bool(parsed["converter.enabled"])

        d = (
            ConfigDef()
            .define("format", Type.STRING, "json", recommender=FormatRecommender())
            .define("converter.enabled", Type.BOOLEAN, False, dependents=["format"])
        )
        on = d.validate_all({"converter.enabled": "true"})
        assert on["format"].recommended_values == ["json", "avro"] and on["format"].visible
        assert seen[-1] == {"converter.enabled": True, "format": "json"}
        off = d.validate_all({})
        assert off["format"].recommended_values == [] and not off["format"].visible

    def test_recommender_failure_recorded(self) -> None:
        class Broken:
            def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
                raise ConfigException("cannot list values")

            def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
                return True

        d = ConfigDef().define("a", Type.STRING, "x", recommender=Broken())
        assert d.validate_all({})["a"].errors == ["cannot list values"]

    def test_undefined_dependent_reported(self) -> None:
        results = ConfigDef().define("a", Type.INT, 1, dependents=["ghost"]).validate_all({})
        assert results["ghost"].errors == ["ghost is referred in the dependents, but not defined."]
        assert not results["ghost"].visible
        assert results["a"].errors == []

    def test_dependency_cycles_and_shared_dependents_validated_once(self) -> None:
        d = (
            ConfigDef()
            .define("a", Type.INT, NO_DEFAULT, dependents=["b", "c"])
            .define("b", Type.INT, NO_DEFAULT, dependents=["a", "c"])
            .define("c", Type.INT, NO_DEFAULT)
        )
        results = d.validate_all({})
        assert [len(results[n].errors) for n in "abc"] == [1, 1, 1]


class TestEmbed:
    @staticmethod
    def _child() -> ConfigDef:
        class Rec:
            def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
                return [name, sorted(parsed)]

            def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
                return True

        return (
            ConfigDef()
            .define("type", Type.CLASS, NO_DEFAULT, None, Importance.HIGH, "Class.", group="T")
            .define(
                "count",
                Type.INT,
                1,
                Range.at_least(1),
                Importance.LOW,
                dependents=["mode"],
                recommender=Rec(),
            )
            .define("mode", Type.STRING, "a", ValidString.in_("a", "b"))
        )

    def test_prefixes_names_groups_and_orders(self) -> None:
        parent = (
            ConfigDef()
            .define("name", Type.STRING, "x")
            .embed("transforms.t.", "Xf", 5, self._child())
        )
        keys = parent.config_keys
        # Child keys are embedded in the child's doc order: ungrouped before group "T",
        # then by importance (MEDIUM "mode" before LOW "count").
        assert list(parent.names()) == [
            "name",
            "transforms.t.mode",
            "transforms.t.count",
            "transforms.t.type",
        ]
        assert keys["transforms.t.count"].group == "Xf"
        assert keys["transforms.t.type"].group == "Xf: T"
        assert [keys[f"transforms.t.{n}"].order_in_group for n in ("mode", "count", "type")] == [
            5,
            6,
            7,
        ]
        assert keys["transforms.t.count"].dependents == ("transforms.t.mode",)
        assert parent.groups == ("Xf", "Xf: T")

    def test_embedded_validation_uses_full_name(self) -> None:
        parent = ConfigDef().embed("t.", "G", 0, self._child())
        with pytest.raises(ConfigException) as info:
            parent.parse({"t.type": "collections.OrderedDict", "t.count": "0"})
        assert (
            str(info.value) == "Invalid value 0 for configuration t.count: Value must be at least 1"
        )
        assert str(parent.config_keys["t.count"].validator) == "[1,...]"

    def test_embedded_recommender_sees_unprefixed(self) -> None:
        parent = ConfigDef().define("other", Type.INT, 1).embed("t.", "G", 0, self._child())
        result = parent.validate_all({"t.type": "collections.OrderedDict"})["t.count"]
        assert result.recommended_values == ["count", ["count", "mode", "type"]]

    def test_clash_defines_nothing(self) -> None:
        parent = ConfigDef().define("t.mode", Type.STRING, "x")
        with pytest.raises(ConfigException, match="defined twice"):
            parent.embed("t.", "G", 0, self._child())
        assert list(parent.names()) == ["t.mode"]


class TestDerive:
    def test_copy_is_independent(self) -> None:
        base = ConfigDef().define("a", Type.INT, 1)
        child = base.copy().define("b", Type.INT, 2)
        assert list(base.names()) == ["a"] and list(child.names()) == ["a", "b"]
        assert list(ConfigDef(base).names()) == ["a"]

    def test_merge(self) -> None:
        a = ConfigDef().define("a", Type.INT, 1, group="G")
        b = ConfigDef().define("b", Type.INT, 2, group="H")
        merged = a.merge(b)
        assert list(merged.names()) == ["a", "b"] and merged.groups == ("G", "H")
        with pytest.raises(ConfigException, match="defined twice"):
            a.merge(a)

    def test_with_defaults(self) -> None:
        d = _connector_def()
        changed = d.with_defaults({"tasks.max": "4", "name": "fixed"})
        assert changed.parse({})["tasks.max"] == 4 and changed.parse({})["name"] == "fixed"
        assert not d.config_keys["name"].has_default  # original untouched
        with pytest.raises(ConfigException, match="at least 1"):
            d.with_defaults({"tasks.max": 0})
        with pytest.raises(ConfigException, match="undefined"):
            d.with_defaults({"nope": 1})

    def test_default_values(self) -> None:
        assert _connector_def().default_values() == {
            "tasks.max": 1,
            "topics": [],
            "enabled": True,
            "secret": None,
        }


class TestDocs:
    def test_to_rst_kafka_style(self) -> None:
        d = (
            ConfigDef()
            .define(
                "retry.backoff.ms", Type.LONG, 30000, Range.at_least(0), Importance.LOW, "Backoff."
            )
            .define(
                "tasks.max", Type.INT, 1, Range.at_least(1), Importance.HIGH, "Max tasks.\nSecond."
            )
            .define("file", Type.STRING, NO_DEFAULT, None, Importance.HIGH, "The file.")
            .define("prefix", Type.STRING, "", None, Importance.MEDIUM, "Prefix.")
            .define_internal("hidden.key", Type.STRING, "x", doc="Internal.")
        )
        assert d.to_rst() == (
            "``file``\n"
            "  The file.\n\n"
            "  * Type: string\n"
            "  * Importance: high\n\n"
            "``tasks.max``\n"
            "  Max tasks.\n\n"
            "  Second.\n\n"
            "  * Type: int\n"
            "  * Default: 1\n"
            "  * Valid Values: [1,...]\n"
            "  * Importance: high\n\n"
            "``prefix``\n"
            "  Prefix.\n\n"
            "  * Type: string\n"
            '  * Default: ""\n'
            "  * Importance: medium\n\n"
            "``retry.backoff.ms``\n"
            "  Backoff.\n\n"
            "  * Type: long\n"
            "  * Default: 30000 (30 seconds)\n"
            "  * Valid Values: [0,...]\n"
            "  * Importance: low\n\n"
        )

    def test_to_markdown(self) -> None:
        d = (
            ConfigDef()
            .define(
                "mode", Type.STRING, "none", ValidString.in_("none", "all"), Importance.HIGH, "How."
            )
            .define("pw", Type.PASSWORD, "s3cret")
            .define("opt", Type.STRING, None)
        )
        md = d.to_markdown()
        assert md.startswith(
            "### `mode`\n\nHow.\n\n- **Type:** string\n- **Default:** `none`\n"
            "- **Valid Values:** `[none, all]`\n- **Importance:** high\n\n"
        )
        assert "- **Default:** `[hidden]`" in md and "s3cret" not in md
        assert "- **Default:** `null`" in md
        assert d.to_markdown(heading_level=2).startswith("## `mode`")

    def test_group_order_drives_doc_order(self) -> None:
        d = (
            ConfigDef()
            .define("z", Type.INT, 1, group="First", order_in_group=2)
            .define("y", Type.INT, 1, group="Second", order_in_group=1)
            .define("x", Type.INT, 1, group="First", order_in_group=1)
            .define("w", Type.INT, 1)
        )
        assert [k.name for k in d.sorted_configs()] == ["w", "x", "z", "y"]

    @pytest.mark.parametrize(
        ("millis", "text"),
        [
            (0, ""),
            (999, ""),
            (1000, " (1 second)"),
            (30000, " (30 seconds)"),
            (60000, " (1 minute)"),
            (7200000, " (2 hours)"),
            (604800000, " (7 days)"),
        ],
    )
    def test_nice_time_units(self, millis: int, text: str) -> None:
        assert nice_time_units(millis) == text

    @pytest.mark.parametrize(
        ("size", "text"),
        [
            (1000, ""),
            (1024, " (1 kibibyte)"),
            (1048576, " (1 mebibyte)"),
            (3 * 2**30, " (3 gibibytes)"),
            (2**50, " (1024 tebibytes)"),
        ],
    )
    def test_nice_memory_units(self, size: int, text: str) -> None:
        assert nice_memory_units(size) == text
