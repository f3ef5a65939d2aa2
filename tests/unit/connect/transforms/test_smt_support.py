"""The registries, Java regex and date-format support, field paths, literals and doctests."""

from __future__ import annotations

import datetime as dt
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
    CLASS_NAMES,
    PREDICATES,
    TRANSFORMATIONS,
    HasHeaderKey,
    InsertField,
    InsertFieldValue,
    RegexRouter,
    load_class,
)
from seaway.connect.transforms.date_format import SimpleDateFormat
from seaway.connect.transforms.field_path import (
    FieldSyntaxVersion,
    SingleFieldPath,
    append_field_syntax_version,
)
from seaway.connect.transforms.java_regex import JavaReplacement, compile_java_regex

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
        cls = TRANSFORMATIONS[full]
        assert TRANSFORMATIONS[short] is cls
        assert CLASS_NAMES[cls] == full
        assert issubclass(cls, Transformation)
        assert isinstance(cls().config(), ConfigDef)
    for short in ("TopicNameMatches", "HasHeaderKey", "RecordIsTombstone"):
        full = "org.apache.kafka.connect.transforms.predicates." + short
        assert PREDICATES[short] is PREDICATES[full]
        assert CLASS_NAMES[PREDICATES[full]] == full
        assert issubclass(PREDICATES[full], Predicate)
    assert len(CLASS_NAMES) == len(KAFKA_TRANSFORMS) + 3


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
    cls = TRANSFORMATIONS[short]
    transform = cls()
    transform.configure(MINIMAL_CONFIGS[short.partition("$")[0]])
    assert all(key.documentation for key in transform.config().config_keys.values())
    assert cls.OVERVIEW_DOC
    assert type(pickle.loads(pickle.dumps(transform))) is cls
    transform.close()


def test_key_and_value_variants_are_reachable_from_the_family() -> None:
    assert InsertField.Value is InsertFieldValue
    assert TRANSFORMATIONS["InsertField$Value"] is InsertField.Value


def test_load_class() -> None:
    assert load_class(" RegexRouter ", "transformation") is RegexRouter
    assert load_class("HasHeaderKey", "predicate") is HasHeaderKey
    path = "seaway.connect.transforms.routers.RegexRouter"
    assert load_class(path, "transformation") is RegexRouter
    colon = "seaway.connect.transforms.insert_field:InsertField.Value"
    assert load_class(colon, "transformation") is InsertFieldValue


def test_load_class_errors() -> None:
    expected = "Class Nope could not be found. Available transformations: Cast$Key, Cast$Value, "
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


# ---------------------------------------------------------------------------- Java regexes


@pytest.mark.parametrize(
    ("java", "text", "matches"),
    [
        ("(?<name>a+)\\k<name>", "aaaa", True),
        ("\\Qa.b\\E", "a.b", True),
        ("\\Qa.b\\E", "axb", False),
        ("\\p{Alpha}+\\P{Digit}", "abc-", True),
        ("[\\p{Digit}x]+", "1x2", True),
        ("\\d+", "\u0661", False),  # ASCII digits only, as in Java
        ("a\\z", "a", True),
        ("[]a]+", "]a", True),
        ("\\x{41}\\h\\e", "A \x1b", True),
    ],
)
def test_java_regex(java: str, text: str, matches: bool) -> None:
    assert (compile_java_regex(java).fullmatch(text) is not None) is matches


@pytest.mark.parametrize("java", ["[a-z&&[^b]]", "[a[b]]", "\\G", "\\p{Nope}", "(", "[a"])
def test_unsupported_or_invalid_java_regex(java: str) -> None:
    with pytest.raises(re.error):
        compile_java_regex(java)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("$", "group index is missing"),
        ("$x", "Illegal group reference"),
        ("${nope}", "No group with name {nope}"),
        ("${a", "missing trailing '}'"),
        ("\\", "character to be escaped is missing"),
        ("$3", "No group 3"),
    ],
)
def test_java_replacement_errors(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        JavaReplacement(template, compile_java_regex("(?<a>x)(y)"))


# ---------------------------------------------------------------------------- date formats

MOMENT = dt.datetime(2001, 7, 4, 12, 8, 56, 235000, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyy.MM.dd G 'at' HH:mm:ss z", "2001.07.04 AD at 12:08:56 UTC"),
        ("EEE, MMM d, ''yy", "Wed, Jul 4, '01"),
        ("h:mm a", "12:08 PM"),
        ("K:mm a", "0:08 PM"),
        ("yyyyy.MMMMM.dd hh:mm aaa", "02001.July.04 12:08 PM"),
        ("EEE, d MMM yyyy HH:mm:ss Z", "Wed, 4 Jul 2001 12:08:56 +0000"),
        ("yyMMddHHmmssZ", "010704120856+0000"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2001-07-04T12:08:56.235Z"),
        ("D u k", "185 3 12"),
    ],
)
def test_simple_date_format(pattern: str, text: str) -> None:
    assert SimpleDateFormat(pattern).format(MOMENT) == text


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("yyyyMMddHHmmssSSS", "20010704120856235", MOMENT),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2001-07-04T14:08:56.235+02:00", MOMENT),
        ("dd MMM yyyy hh:mm:ss.SSS a", "04 jul 2001 12:08:56.235 PM", MOMENT),
        ("yyyy-MM-dd", "2001-13-01", dt.datetime(2002, 1, 1, tzinfo=dt.UTC)),  # lenient
        ("yyyy-MM-dd", "2001-07-04 and more", dt.datetime(2001, 7, 4, tzinfo=dt.UTC)),
    ],
)
def test_simple_date_format_parse(pattern: str, text: str, expected: dt.datetime) -> None:
    assert SimpleDateFormat(pattern).parse(text) == expected


def test_simple_date_format_errors() -> None:
    with pytest.raises(ValueError, match="Illegal pattern character 'q'"):
        SimpleDateFormat("yyyy-qq")
    with pytest.raises(ValueError, match="Unterminated quote"):
        SimpleDateFormat("yyyy 'at")
    with pytest.raises(ValueError, match='Unparseable date: "nope"'):
        SimpleDateFormat("yyyy").parse("nope")


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
