"""Routers, header transforms, Filter and the predicates."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import (
    DataError,
    Date,
    Decimal,
    Header,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.api.transforms import Predicate, Transformation
from seaway.connect.transforms import (
    DropHeaders,
    Filter,
    HasHeaderKey,
    HeaderFrom,
    InsertHeader,
    RecordIsTombstone,
    RegexRouter,
    TimestampRouter,
    TopicNameMatches,
)


def configured(cls: type[Any], **configs: str) -> Any:
    plugin: Transformation[Any] | Predicate[Any] = cls()
    plugin.configure({k.replace("_", "."): v for k, v in configs.items()})
    return plugin


def sink(**kwargs: Any) -> SinkRecord:
    kwargs.setdefault("topic", "test")
    return SinkRecord(kafka_partition=0, kafka_offset=0, **kwargs)


# ---------------------------------------------------------------------------- RegexRouter


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        ("foo", "bar", "foo", "bar"),
        ("foo", "bar", "foo-bar", "foo-bar"),  # the whole topic must match
        ("(.*)-raw", "$1-clean", "orders-raw", "orders-clean"),
        ("(?<db>\\w+)\\.(?<table>\\w+)", "${table}", "shop.orders", "orders"),
        ("(foo)(bar)?", "[$2]$1", "foo", "[]foo"),  # a group that did not match adds nothing
        ("a(.*)", "\\$1", "abc", "$1"),  # a backslash quotes
        ("(.*?)", "x", "abc", "xabc"),  # replaceFirst: the first (empty) match
        ("(\\d)(\\d)", "$12", "34", "32"),  # no group 12: group 1, then a literal 2
    ],
)
def test_regex_router(regex: str, replacement: str, topic: str, expected: str) -> None:
    router = configured(RegexRouter, regex=regex, replacement=replacement)
    record = sink(topic=topic, key="k", value="v")
    out = router.apply(record)
    assert out.topic == expected
    assert (out.key, out.value, out.kafka_offset) == ("k", "v", 0)


def test_regex_router_config_errors() -> None:
    with pytest.raises(ConfigException, match="Invalid value \\( for configuration regex"):
        configured(RegexRouter, regex="(", replacement="x")
    with pytest.raises(ConfigException, match="No group 2"):
        configured(RegexRouter, regex="(a)", replacement="$2")
    with pytest.raises(ConfigException, match='Missing required configuration "replacement"'):
        configured(RegexRouter, regex="a")


# ---------------------------------------------------------------------------- TimestampRouter


def test_timestamp_router_defaults() -> None:
    router = configured(TimestampRouter)
    out = router.apply(sink(topic="test", timestamp=1_483_425_001_864))
    assert out.topic == "test-20170103"


def test_timestamp_router_formats() -> None:
    router = configured(
        TimestampRouter, topic_format="${timestamp}/${topic}/x", timestamp_format="yyyy-MM-dd_HH"
    )
    assert router.apply(sink(topic="t", timestamp=0)).topic == "1970-01-01_00/t/x"
    with pytest.raises(DataError, match="Timestamp missing on record"):
        router.apply(sink(topic="t"))
    with pytest.raises(ConfigException, match="Illegal pattern character 'q'"):
        configured(TimestampRouter, timestamp_format="yyyyq")


# ---------------------------------------------------------------------------- InsertHeader


@pytest.mark.parametrize(
    ("literal", "schema", "value"),
    [
        ("hello world", Schema.STRING_SCHEMA, "hello world"),
        ("", Schema.STRING_SCHEMA, ""),
        ("true", Schema.BOOLEAN_SCHEMA, True),
        ("42", Schema.INT8_SCHEMA, 42),
        ("1000", Schema.INT16_SCHEMA, 1000),
        ("-100000", Schema.INT32_SCHEMA, -100000),
        ("10000000000", Schema.INT64_SCHEMA, 10_000_000_000),
        ("1.5", Schema.FLOAT32_SCHEMA, 1.5),
        ("12345678901234567890", Decimal.schema(0), decimal.Decimal("12345678901234567890")),
        ("2024-03-05", Date.SCHEMA, dt.date(2024, 3, 5)),
        ("12:30:00.000Z", Time.SCHEMA, dt.time(12, 30)),
        (
            "2024-03-05T12:30:00.000Z",
            Timestamp.SCHEMA,
            dt.datetime(2024, 3, 5, 12, 30, tzinfo=dt.UTC),
        ),
        ("null", None, None),
        ("[1,2]", SchemaBuilder.array(Schema.INT8_SCHEMA).build(), [1, 2]),
    ],
)
def test_insert_header_literals(literal: str, schema: Schema | None, value: Any) -> None:
    xform = configured(InsertHeader, header="h", value_literal=literal)
    original = Headers().add_string("existing", "x")
    out = xform.apply(sink(headers=original))
    assert [h.key for h in out.headers] == ["existing", "h"]
    assert out.headers.last_with_name("h") == Header("h", schema, value)
    assert len(original) == 1  # the input record's headers are untouched


def test_insert_header_requires_both_keys() -> None:
    with pytest.raises(ConfigException, match=r'Missing required configuration "value\.literal"'):
        configured(InsertHeader, header="h")


# ---------------------------------------------------------------------------- DropHeaders


def test_drop_headers() -> None:
    headers = Headers().add_string("a", "1").add_string("b", "2").add_string("a", "3")
    headers.add_string("c", "4")
    out = configured(DropHeaders, headers="a,c").apply(sink(headers=headers))
    assert [h.key for h in out.headers] == ["b"]
    assert len(headers) == 4
    with pytest.raises(ConfigException, match="Empty list"):
        configured(DropHeaders, headers="")


# ---------------------------------------------------------------------------- HeaderFrom

HF_SCHEMA = (
    SchemaBuilder.struct()
    .name("hf")
    .field("field1", Schema.STRING_SCHEMA)
    .field("field2", Schema.INT32_SCHEMA)
    .field("field3", Schema.OPTIONAL_STRING_SCHEMA)
    .build()
)


@pytest.mark.parametrize("operation", ["move", "copy"])
def test_header_from_with_schema(operation: str) -> None:
    xform = configured(
        HeaderFrom.Value, fields="field1,field2", headers="h1,h2", operation=operation
    )
    value = Struct(HF_SCHEMA).put("field1", "a").put("field2", 2)
    out = xform.apply(sink(value_schema=HF_SCHEMA, value=value, headers=Headers().add_int("x", 0)))
    assert [(h.key, h.schema, h.value) for h in out.headers] == [
        ("x", Schema.INT32_SCHEMA, 0),
        ("h1", Schema.STRING_SCHEMA, "a"),
        ("h2", Schema.INT32_SCHEMA, 2),
    ]
    remaining = [f.name for f in out.value_schema.fields]
    if operation == "move":
        assert remaining == ["field3"]
        assert out.value_schema.name == "hf"
    else:
        assert remaining == ["field1", "field2", "field3"]
        assert out.value is value


@pytest.mark.parametrize("operation", ["move", "copy"])
def test_header_from_schemaless_key(operation: str) -> None:
    xform = configured(HeaderFrom.Key, fields="a,missing", headers="ha,hm", operation=operation)
    out = xform.apply(sink(key={"a": 1, "b": 2}, value="v"))
    assert [(h.key, h.schema, h.value) for h in out.headers] == [
        ("ha", None, 1),
        ("hm", None, None),
    ]
    assert out.key == ({"b": 2} if operation == "move" else {"a": 1, "b": 2})
    assert out.value == "v"


def test_header_from_errors() -> None:
    with pytest.raises(ConfigException, match="'fields' config must have the same number"):
        configured(HeaderFrom.Value, fields="a,b", headers="h", operation="copy")
    with pytest.raises(ConfigException, match="String must be one of: move, copy"):
        configured(HeaderFrom.Value, fields="a", headers="h", operation="cut")
    xform = configured(HeaderFrom.Value, fields="a", headers="h", operation="copy")
    with pytest.raises(DataError, match=r"\[header copy\]"):
        xform.apply(sink(value="not a map"))


# ---------------------------------------------------------------------------- Filter


def test_filter_drops_everything() -> None:
    assert configured(Filter).apply(sink(value="v")) is None
    assert len(Filter().config()) == 0


# ---------------------------------------------------------------------------- predicates


def test_topic_name_matches() -> None:
    predicate = configured(TopicNameMatches, pattern="my-.*")
    assert predicate.test(sink(topic="my-topic"))
    assert not predicate.test(sink(topic="your-topic"))
    assert not predicate.test(sink(topic="xmy-topic"))  # the whole name must match
    assert repr(predicate) == "TopicNameMatches{pattern=my-.*}"
    with pytest.raises(ConfigException, match="Invalid regex"):
        configured(TopicNameMatches, pattern="[")
    with pytest.raises(ConfigException, match="String must be non-empty"):
        configured(TopicNameMatches, pattern="")


def test_has_header_key() -> None:
    predicate = configured(HasHeaderKey, name="trace")
    assert predicate.test(sink(headers=Headers().add_string("trace", "1")))
    assert predicate.test(
        sink(headers=Headers().add_string("other", "1").add_string("trace", None))
    )
    assert not predicate.test(sink(headers=Headers().add_string("other", "1")))
    assert not predicate.test(sink())
    with pytest.raises(ConfigException, match='Missing required configuration "name"'):
        configured(HasHeaderKey)


def test_record_is_tombstone() -> None:
    predicate = configured(RecordIsTombstone)
    assert predicate.test(SourceRecord(topic="t", source_partition=None, source_offset=None))
    assert not predicate.test(sink(value="v"))
    assert not predicate.test(sink(value={}))
