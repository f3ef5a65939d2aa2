"""Headers, source and sink records."""

from __future__ import annotations

import datetime as dt
import decimal
import pickle

import pytest

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
    Timestamp,
    TimestampType,
    TopicPartition,
)

# ---------------------------------------------------------------------------- headers


def test_headers_add_and_read() -> None:
    headers = Headers().add_string("a", "1").add_int("b", 2).add("a", "3", Schema.STRING_SCHEMA)
    assert len(headers) == 3 and not headers.is_empty()
    assert [h.key for h in headers] == ["a", "b", "a"]
    assert headers.last_with_name("a") == Header("a", Schema.STRING_SCHEMA, "3")
    assert [h.value for h in headers.all_with_name("a")] == ["1", "3"]
    assert headers.last_with_name("zzz") is None
    assert list(headers.all_with_name("zzz")) == []


def test_typed_adders_pick_kafkas_schemas() -> None:
    headers = (
        Headers()
        .add_boolean("bool", True)
        .add_byte("byte", 1)
        .add_short("short", 2)
        .add_long("long", 3)
        .add_float("float", 1.5)
        .add_double("double", 2.5)
        .add_bytes("bytes", b"x")
        .add_string("none", None)
        .add_decimal("decimal", decimal.Decimal("1.50"))
        .add_date("date", dt.date(2020, 1, 1))
        .add_timestamp("ts", dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
        .add_list("list", [1], SchemaBuilder.array(Schema.INT32_SCHEMA).build())
        .add_map(
            "map", {"a": 1}, SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build()
        )
    )
    schemas = {h.key: h.schema for h in headers}
    assert schemas["bool"] == Schema.BOOLEAN_SCHEMA
    assert schemas["byte"] == Schema.INT8_SCHEMA
    assert schemas["short"] == Schema.INT16_SCHEMA
    assert schemas["long"] == Schema.INT64_SCHEMA
    assert schemas["float"] == Schema.FLOAT32_SCHEMA
    assert schemas["double"] == Schema.FLOAT64_SCHEMA
    assert schemas["bytes"] == Schema.BYTES_SCHEMA
    assert schemas["none"] == Schema.OPTIONAL_STRING_SCHEMA
    assert schemas["decimal"] == Decimal.schema(2)
    assert schemas["date"] == Date.SCHEMA
    assert schemas["ts"] == Timestamp.SCHEMA


def test_header_values_are_checked() -> None:
    with pytest.raises(DataError, match=r"is not compatible with the schema Schema\{INT32\}"):
        Headers().add("a", "x", Schema.INT32_SCHEMA)
    with pytest.raises(DataError, match="A null value requires an optional schema"):
        Headers().add("a", None, Schema.INT32_SCHEMA)
    with pytest.raises(DataError, match="Expecting ARRAY but instead found INT32"):
        Headers().add_list("a", [1], Schema.INT32_SCHEMA)
    with pytest.raises(DataError, match="time fields"):
        Headers().add_date("a", dt.datetime(2020, 1, 1, 1))


def test_headers_remove_retain_apply() -> None:
    headers = Headers().add_int("a", 1).add_int("b", 2).add_int("a", 3).add_int("b", 4)
    assert [h.value for h in headers.duplicate().remove("a")] == [2, 4]
    assert [h.value for h in headers.duplicate().retain_latest("a")] == [2, 3, 4]
    assert [h.value for h in headers.duplicate().retain_latest()] == [3, 4]
    doubled = headers.duplicate().apply(lambda h: h.with_value(h.schema, h.value * 2), key="a")
    assert [h.value for h in doubled] == [2, 2, 6, 4]
    dropped = headers.duplicate().apply(lambda h: None if h.key == "b" else h.rename("c"))
    assert [(h.key, h.value) for h in dropped] == [("c", 1), ("c", 3)]
    assert len(headers) == 4  # duplicates were changed, not the original
    assert headers.duplicate().clear().is_empty()


def test_headers_equality_and_iteration_snapshot() -> None:
    a = Headers().add_string("k", "v")
    assert a == Headers([Header("k", Schema.STRING_SCHEMA, "v")])
    assert a != Headers()
    for header in a:  # mutating while iterating is safe
        a.add(header.rename("copy"))
    assert len(a) == 2


# ---------------------------------------------------------------------------- records


def source_record(**overrides: object) -> SourceRecord:
    fields: dict[str, object] = {
        "source_partition": {"filename": "in.txt"},
        "source_offset": {"position": 4},
        "topic": "lines",
        "value_schema": Schema.STRING_SCHEMA,
        "value": "foo",
    }
    fields.update(overrides)
    return SourceRecord(**fields)  # type: ignore[arg-type]


def test_source_record_defaults() -> None:
    record = source_record()
    assert record.kafka_partition is None and record.key is None and record.key_schema is None
    assert record.timestamp is None and record.headers.is_empty()
    assert record.source_partition == {"filename": "in.txt"}


def test_source_record_accepts_a_list_of_headers() -> None:
    record = source_record(headers=[Header("h", Schema.STRING_SCHEMA, "v")])
    assert isinstance(record.headers, Headers) and len(record.headers) == 1


def test_new_record_replaces_some_attributes_and_keeps_the_rest() -> None:
    record = source_record(headers=Headers().add_string("h", "v"), timestamp=5)
    copy = record.new_record(topic="copy", value=None, value_schema=Schema.OPTIONAL_STRING_SCHEMA)
    assert (copy.topic, copy.value, copy.timestamp) == ("copy", None, 5)
    assert copy.source_partition == record.source_partition
    assert copy.source_offset == record.source_offset
    assert copy.headers == record.headers and copy.headers is not record.headers
    copy.headers.add_string("x", "y")
    assert len(record.headers) == 1


def test_new_record_kafka_positional_form() -> None:
    record = source_record()
    copy = record.new_record("t", 1, Schema.STRING_SCHEMA, "k", Schema.INT32_SCHEMA, 5, 99)
    assert (copy.topic, copy.kafka_partition, copy.key, copy.value, copy.timestamp) == (
        "t",
        1,
        "k",
        5,
        99,
    )
    assert copy.new_record(headers=Headers()).headers.is_empty()


def test_records_are_immutable_comparable_and_picklable() -> None:
    record = source_record()
    with pytest.raises(AttributeError):
        record.topic = "x"  # type: ignore[misc]
    assert record == source_record() and hash(record) == hash(source_record())
    assert record != source_record(source_offset={"position": 5})
    assert pickle.loads(pickle.dumps(record)) == record
    assert len({record, source_record()}) == 1


def test_sink_record() -> None:
    schema = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    record = SinkRecord(
        topic="t",
        kafka_partition=2,
        key_schema=None,
        key=b"k",
        value_schema=schema,
        value=Struct(schema).put("id", 1),
        kafka_offset=42,
        timestamp=1000,
        timestamp_type=TimestampType.CREATE_TIME,
    )
    assert (
        record.original_topic,
        record.original_kafka_partition,
        record.original_kafka_offset,
    ) == (
        "t",
        2,
        42,
    )
    routed = record.new_record(topic="t-routed", kafka_partition=0)
    assert (routed.topic, routed.kafka_partition, routed.kafka_offset) == ("t-routed", 0, 42)
    assert (routed.original_topic, routed.original_kafka_partition) == ("t", 2)
    assert routed.timestamp_type is TimestampType.CREATE_TIME
    assert record != routed
    assert SinkRecord(topic="t", kafka_offset=1) != SourceRecord(
        topic="t", source_partition=None, source_offset=None
    )


def test_timestamp_type_and_topic_partition() -> None:
    assert str(TimestampType.LOG_APPEND_TIME) == "LogAppendTime"
    assert TimestampType.NO_TIMESTAMP_TYPE.id == -1
    assert str(TopicPartition("orders", 3)) == "orders-3"
