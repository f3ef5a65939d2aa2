"""The registries, field paths, literals and doctests."""

from __future__ import annotations

import doctest
import importlib
import pickle
import pkgutil
import re

import pytest

import seaway.connect.transforms
from seaway.config import Config, ConfigDef, ConfigException
from seaway.connect.api import Schema, SchemaBuilder, Struct
from seaway.connect.api.transforms import Predicate, Transformation
from seaway.connect.transforms import (
    HasHeaderKey,
    InsertField,
    InsertFieldValue,
    RegexRouter,
    load_class,
)
from seaway.connect.transforms.field_path import (
    FieldSyntaxVersion,
    SingleFieldPath,
    append_field_syntax_version,
)
from seaway.connect.transforms.registry import plugin_class_name, plugin_names

# ---------------------------------------------------------------------------- registries

KAFKA_TRANSFORMS = [
    "Cast$Key", "Cast$Value", "DropHeaders", "ExtractField$Key", "ExtractField$Value", "Filter",
    "Flatten$Key", "Flatten$Value", "HeaderFrom$Key", "HeaderFrom$Value", "HoistField$Key",
    "HoistField$Value", "InsertField$Key", "InsertField$Value", "InsertHeader", "MaskField$Key",
    "MaskField$Value", "RegexRouter", "ReplaceField$Key", "ReplaceField$Value",
    "SetSchemaMetadata$Key", "SetSchemaMetadata$Value", "TimestampConverter$Key",
    "TimestampConverter$Value", "TimestampRouter", "ValueToKey",
]  # fmt: skip


def test_registries_cover_kafkas_built_ins() -> None:
    for short in KAFKA_TRANSFORMS:
        full = "org.apache.kafka.connect.transforms." + short
        cls = load_class(full, "transformation")
        assert load_class(short, "transformation") is cls
        assert plugin_class_name(cls) == full
        assert issubclass(cls, Transformation)
        assert isinstance(cls().config(), ConfigDef)
    predicates = ("HasHeaderKey", "RecordIsTombstone", "TopicNameMatches")
    for short in predicates:
        full = "org.apache.kafka.connect.transforms.predicates." + short
        assert load_class(short, "predicate") is load_class(full, "predicate")
        assert plugin_class_name(load_class(full, "predicate")) == full
        assert issubclass(load_class(full, "predicate"), Predicate)
    debezium = [  # bundled beside Kafka's
        "io.debezium.transforms.ByLogicalTableRouter",
        "io.debezium.transforms.ExtractNewRecordState",
    ]
    assert len(plugin_names("transformation")) == len(KAFKA_TRANSFORMS) + len(debezium)
    assert len(plugin_names("predicate")) == len(predicates)


MINIMAL_CONFIGS: dict[str, dict[str, str]] = {
    "Cast": {"spec": "int32"},
    "DropHeaders": {"headers": "h"},
    "ExtractField": {"field": "f"},
    "Filter": {},
    "Flatten": {},
    "HeaderFrom": {"fields": "f", "headers": "h", "operation": "copy"},
    "HoistField": {"field": "f"},
    "InsertField": {"topic.field": "t"},
    "InsertHeader": {"header": "h", "value.literal": "v"},
    "MaskField": {"fields": "f"},
    "RegexRouter": {"regex": "a", "replacement": "b"},
    "ReplaceField": {},
    "SetSchemaMetadata": {"schema.name": "n"},
    "TimestampConverter": {"target.type": "unix"},
    "TimestampRouter": {},
    "ValueToKey": {"fields": "f"},
}


@pytest.mark.parametrize("short", KAFKA_TRANSFORMS)
def test_every_transform_configures_documents_and_pickles(short: str) -> None:
    cls = load_class(short, "transformation")
    transform = cls()
    transform.configure(MINIMAL_CONFIGS[short.partition("$")[0]])
    assert all(key.documentation for key in transform.config().config_keys.values())
    assert cls.OVERVIEW_DOC
    assert type(pickle.loads(pickle.dumps(transform))) is cls
    transform.close()


def test_key_and_value_variants_are_reachable_from_the_family() -> None:
    assert InsertField.Value is InsertFieldValue
    assert load_class("InsertField$Value", "transformation") is InsertField.Value


def test_load_class() -> None:
    assert load_class(" RegexRouter ", "transformation") is RegexRouter
    assert load_class("HasHeaderKey", "predicate") is HasHeaderKey
    path = "seaway.connect.transforms.routers.RegexRouter"
    assert load_class(path, "transformation") is RegexRouter
    colon = "seaway.connect.transforms.insert_field:InsertField.Value"
    assert load_class(colon, "transformation") is InsertFieldValue


def test_load_class_errors() -> None:
    expected = (
        "Class Nope could not be found. Available transformations: ByLogicalTableRouter, "
        "Cast$Key, Cast$Value, "
    )
    with pytest.raises(ConfigException, match=re.escape(expected)):
        load_class("Nope", "transformation")
    with pytest.raises(ConfigException, match="Available predicates: HasHeaderKey, "):
        load_class("RegexRouter", "predicate")
    with pytest.raises(ConfigException, match="does not implement the Predicate interface"):
        load_class("seaway.connect.transforms.routers.RegexRouter", "predicate")
    with pytest.raises(ConfigException, match=r"Did you mean .*InsertField\$Key"):
        load_class("seaway.connect.transforms.insert_field.InsertField", "transformation")
    with pytest.raises(ConfigException, match="could not be found"):
        load_class("no.such.module.Class", "transformation")


# ---------------------------------------------------------------------------- field paths


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("foo", ("foo",)),
        ("foo.bar", ("foo", "bar")),
        ("`foo.bar`.baz", ("foo.bar", "baz")),
        ("foo.`bar.baz`", ("foo", "bar.baz")),
        ("`foo\\`.bar`", ("foo`.bar",)),
        ("foo.", ("foo", "")),
        ("`a`b`.c", ("a`b", "c")),
    ],
)
def test_field_path_v2(path: str, steps: tuple[str, ...]) -> None:
    assert SingleFieldPath(path, FieldSyntaxVersion.V2).steps == steps


def test_field_path_errors_and_values() -> None:
    with pytest.raises(ConfigException, match="Incomplete backtick pair in path: \\[`foo\\]"):
        SingleFieldPath("`foo", FieldSyntaxVersion.V2)
    inner = SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).build()
    outer = SchemaBuilder.struct().field("a", inner).build()
    value = Struct(outer).put("a", Struct(inner).put("b", 3))
    path = SingleFieldPath("a.b", FieldSyntaxVersion.V2)
    assert path.field_from(outer).schema == Schema.INT32_SCHEMA
    assert path.value_from_struct(value) == 3
    assert SingleFieldPath("a.x", FieldSyntaxVersion.V2).value_from_struct(value) is None
    assert path.value_from_map({"a": {"b": 4}}) == 4
    assert path.value_from_map({"x": 1}) is None
    config = Config(append_field_syntax_version(ConfigDef()), {"field.syntax.version": "v2"})
    assert FieldSyntaxVersion.from_config(config) is FieldSyntaxVersion.V2


# ---------------------------------------------------------------------------- doctests

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(
        seaway.connect.transforms.__path__, prefix="seaway.connect.transforms."
    )
)


@pytest.mark.parametrize("name", ["seaway.connect.transforms", *MODULES])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
