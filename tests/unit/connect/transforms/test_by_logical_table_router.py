"""Debezium's ByLogicalTableRouter on the records Debezium's MySQL connector writes."""

from __future__ import annotations

import pickle
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import SourceRecord
from seaway.connect.api.data import Schema, SchemaBuilder, SchemaType, Struct
from seaway.connect.api.errors import ConnectError, DataError
from seaway.connect.transforms.debezium_router import ByLogicalTableRouter
from seaway.connectors.debezium import heartbeat
from seaway.connectors.debezium.binlog.schemas import (
    schema_change_key_schema,
    schema_change_value_schema,
    source_schema,
)
from seaway.connectors.debezium.schemas import table_schemas

SOURCE = source_schema("mysql")
FLAG = SchemaBuilder.int16().optional().default_value(0).build()
IDENTIFIER = "__dbz__physicalTableIdentifier"
SHARDS = {"topic.regex": r"(.*)\.shard(\d+)\.(.*)", "topic.replacement": "$1.all.$3"}


def _schemas(topic: str, keyed: bool = True) -> tuple[Schema | None, Schema]:
    """The key schema and envelope of ``customers`` (id PK, email, flag) on *topic*."""
    row = [("id", Schema.INT32_SCHEMA), ("email", Schema.OPTIONAL_STRING_SCHEMA), ("flag", FLAG)]
    key = [("id", Schema.INT32_SCHEMA)] if keyed else []
    key_schema, _, envelope = table_schemas(topic, row, key, SOURCE)
    return key_schema, envelope


def _source() -> Struct:
    source = Struct(SOURCE)
    for field in SOURCE.fields:
        if not field.schema.is_optional:
            source.put(field, "x" if field.schema.type is SchemaType.STRING else 0)
    return source


def _event(topic: str, op: str = "c", *, keyed: bool = True, id_: int = 1) -> SourceRecord:
    key_schema, envelope = _schemas(topic, keyed)
    row_schema = envelope.field("after").schema  # type: ignore[union-attr]
    row = Struct(row_schema).put("id", id_).put("email", f"{id_}@x").put("flag", None)
    value = Struct(envelope).put("before", row if op == "d" else None)
    value.put("after", None if op == "d" else row).put("source", _source()).put("op", op)
    value.put("ts_ms", 1_767_346_200_250)
    key = Struct(key_schema).put("id", id_) if key_schema is not None else None
    record = SourceRecord(
        source_partition={"server": "dbserver1"}, source_offset={"pos": 2417}, topic=topic,
        key_schema=key_schema, key=key, value_schema=envelope, value=value,
    )  # fmt: skip
    record.headers.add_string("trace", "t1")
    return record


def _router(**config: Any) -> ByLogicalTableRouter[SourceRecord]:
    router: ByLogicalTableRouter[SourceRecord] = ByLogicalTableRouter()
    router.configure(config)
    return router


def _schema(schema: Schema | None) -> Schema:
    assert schema is not None
    return schema


def _fields(schema: Schema | None) -> list[tuple[str, Schema]]:
    return [(field.name, field.schema) for field in _schema(schema).fields]


def _row_name(envelope: Schema | None, name: str = "after") -> str | None:
    field = _schema(envelope).field(name)
    assert field is not None
    return field.schema.name


def test_shards_go_to_one_topic_with_the_physical_table_in_the_key() -> None:
    router = _router(**SHARDS)
    one = router.apply(_event("dbserver1.shard1.customers"))
    two = router.apply(_event("dbserver1.shard2.customers", "u"))

    assert one.topic == two.topic == "dbserver1.all.customers"
    assert (
        one.key_schema is not None and _schema(one.key_schema).name == "dbserver1.all.customers.Key"
    )
    assert _fields(one.key_schema) == [
        ("id", Schema.INT32_SCHEMA),
        (IDENTIFIER, Schema.STRING_SCHEMA),
    ]
    assert one.key.get(IDENTIFIER) == "dbserver1.shard1.customers"
    assert two.key.get(IDENTIFIER) == "dbserver1.shard2.customers"
    assert one.key_schema == two.key_schema and one.value_schema == two.value_schema

    envelope = one.value_schema
    assert envelope is not None and envelope.name == "dbserver1.all.customers.Envelope"
    assert envelope.version == 2 and not envelope.is_optional
    for name in ("before", "after"):
        row = envelope.field(name)
        assert row is not None and row.schema.name == "dbserver1.all.customers.Value"
        assert row.schema.is_optional and [f.name for f in row.schema.fields] == [
            "id", "email", "flag"
        ]  # fmt: skip
    assert [f.name for f in envelope.fields] == [
        "before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"
    ]  # fmt: skip
    assert envelope.field("source").schema is SOURCE  # type: ignore[union-attr]

    value = one.value
    assert value.get("before") is None and value.get("op") == "c"
    assert value.get("after").get("email") == "1@x" and value.get("ts_ms") == 1_767_346_200_250
    assert value.get("source") == _source()
    assert one.source_partition == {"server": "dbserver1"} and one.source_offset == {"pos": 2417}
    assert [(h.key, h.value) for h in one.headers] == [("trace", "t1")]


def test_rows_and_keys_keep_null_where_the_schema_has_a_default() -> None:
    """Debezium copies with getWithoutDefault: a null flag stays null, not its default 0."""
    out = _router(**SHARDS).apply(_event("dbserver1.shard1.customers", "d"))
    before = out.value.get("before")
    assert before.get_without_default("flag") is None
    assert out.value.get("after") is None


def test_key_field_regex_and_replacement_name_the_physical_table() -> None:
    router = _router(
        **{"topic.regex": "(.*)customers_shard(.*)", "topic.replacement": "$1customers_all_shards",
           "key.field.name": "shard_id", "key.field.regex": "(.*)customers_shard_(.*)",
           "key.field.replacement": "$2"},
    )  # fmt: skip
    out = router.apply(_event("mysql-server-1.inventory.customers_shard_1"))
    assert out.topic == "mysql-server-1.inventory.customers_all_shards"
    assert _schema(out.key_schema).name == "mysql-server-1.inventory.customers_all_shards.Key"
    assert [f.name for f in _schema(out.key_schema).fields] == ["id", "shard_id"]
    assert out.key == Struct(_schema(out.key_schema)).put("id", 1).put("shard_id", "1")
    # the topic regex matches but the key field regex does not: the old topic identifies it
    other = router.apply(_event("mysql-server-1.inventory.customers_shard2"))
    assert other.key.get("shard_id") == "mysql-server-1.inventory.customers_shard2"


def test_without_key_uniqueness_the_key_is_only_renamed() -> None:
    router = _router(**{"topic.regex": r"(.*).dbz_shard_\d+.(.*)",
                        "topic.replacement": "dbz_core.$2",
                        "key.enforce.uniqueness": "false"})  # fmt: skip
    out = router.apply(_event("dbserver1.dbz_shard_7.address"))
    assert out.topic == "dbz_core.address"
    assert _schema(out.key_schema).name == "dbz_core.address.Key"
    assert _fields(out.key_schema) == [("id", Schema.INT32_SCHEMA)]
    assert out.key.get("id") == 1


def test_tombstones_are_routed_with_their_key_rewritten() -> None:
    tombstone = _event("dbserver1.shard3.customers", "d").new_record(value_schema=None, value=None)
    out = _router(**SHARDS).apply(tombstone)
    assert out.topic == "dbserver1.all.customers"
    assert out.value is None and out.value_schema is None
    assert out.key.get(IDENTIFIER) == "dbserver1.shard3.customers"
    assert _schema(out.key_schema).name == "dbserver1.all.customers.Key"


def test_a_table_without_primary_key_has_no_key() -> None:
    out = _router(**SHARDS).apply(_event("dbserver1.shard1.logs", keyed=False))
    assert out.key is None and out.key_schema is None
    assert _schema(out.value_schema).name == "dbserver1.all.logs.Envelope"


def test_records_whose_topic_does_not_match_pass_unchanged() -> None:
    router = _router(**SHARDS)
    record = _event("dbserver1.inventory.customers")
    assert router.apply(record) is record


def test_an_empty_new_topic_keeps_the_record() -> None:
    router = _router(
        **{"topic.regex": r"dbserver1\.shard1\.customers(.*)", "topic.replacement": "$1"}
    )
    record = _event("dbserver1.shard1.customers")
    assert router.apply(record) is record


def test_heartbeats_keep_their_value_and_get_the_key_field() -> None:
    key = Struct(heartbeat.KEY_SCHEMA).put("serverName", "dbserver1")
    value = Struct(heartbeat.VALUE_SCHEMA).put("ts_ms", 1)
    record = SourceRecord(
        source_partition={"server": "dbserver1"}, source_offset={"pos": 1},
        topic="__debezium-heartbeat.dbserver1", key_schema=heartbeat.KEY_SCHEMA, key=key,
        value_schema=heartbeat.VALUE_SCHEMA, value=value,
    )  # fmt: skip
    out = _router(**{"topic.regex": "__debezium-heartbeat(.*)",
                     "topic.replacement": "debezium_heartbeat_central",
                     "key.field.name": "originalTopic"}).apply(record)  # fmt: skip
    assert out.topic == "debezium_heartbeat_central"
    assert _schema(out.key_schema).name == "debezium_heartbeat_central.Key"
    assert _schema(out.key_schema).version == 1
    assert out.key == Struct(_schema(out.key_schema)).put("serverName", "dbserver1").put(
        "originalTopic", "__debezium-heartbeat.dbserver1"
    )
    assert out.value is value and out.value_schema is heartbeat.VALUE_SCHEMA


def test_schema_change_events_keep_their_value() -> None:
    key_schema = schema_change_key_schema("mysql")
    value_schema = schema_change_value_schema("mysql", SOURCE)
    value = Struct(value_schema).put("databaseName", "inventory")
    record = SourceRecord(
        source_partition={"server": "dbserver1"}, source_offset={"pos": 1}, topic="dbserver1",
        key_schema=key_schema, key=Struct(key_schema).put("databaseName", "inventory"),
        value_schema=value_schema, value=value,
    )  # fmt: skip
    out = _router(**{"topic.regex": "(.*)", "topic.replacement": "$1_rerouted"}).apply(record)
    assert out.topic == "dbserver1_rerouted"
    assert out.value is value and out.value_schema is value_schema
    assert _schema(out.key_schema).name == "dbserver1_rerouted.Key"
    assert out.key.get(IDENTIFIER) == "dbserver1"


def test_shared_key_schemas_are_named_after_each_new_topic() -> None:
    """Heartbeat keys share one schema; each new topic still names its own key schema."""
    router = _router(**{"topic.regex": "__debezium-heartbeat\\.(.*)", "topic.replacement": "hb_$1"})
    names = []
    for server in ("a", "b"):
        key = Struct(heartbeat.KEY_SCHEMA).put("serverName", server)
        record = SourceRecord(
            source_partition=None, source_offset=None, topic=f"__debezium-heartbeat.{server}",
            key_schema=heartbeat.KEY_SCHEMA, key=key,
        )  # fmt: skip
        names.append(_schema(router.apply(record).key_schema).name)
    assert names == ["hb_a.Key", "hb_b.Key"]


@pytest.mark.parametrize(
    ("mode", "key", "row"),
    [
        ("none", "mysql-server-1.inventory.all.Key", "mysql-server-1.inventory.all.Value"),
        ("avro", "mysql_server_1.inventory.all.Key", "mysql_server_1.inventory.all.Value"),
        ("AVRO_UNICODE", "mysql_u002dserver_u002d1.inventory.all.Key",
         "mysql_u002dserver_u002d1.inventory.all.Value"),
    ],
)  # fmt: skip
def test_schema_name_adjustment_mode(mode: str, key: str, row: str) -> None:
    router = _router(**{"topic.regex": r"(.*)\.shard\d+", "topic.replacement": "$1.all",
                        "schema.name.adjustment.mode": mode})  # fmt: skip
    out = router.apply(_event("mysql-server-1.inventory.shard1"))
    assert out.topic == "mysql-server-1.inventory.all"  # topics are not adjusted
    assert _schema(out.key_schema).name == key
    assert _schema(out.value_schema).name == key.removesuffix(".Key") + ".Envelope"
    assert _row_name(out.value_schema) == row


def test_adjusted_names_that_collide_are_refused() -> None:
    router = _router(**{"topic.regex": r"(.*)", "topic.replacement": "$1",
                        "schema.name.adjustment.mode": "avro"})  # fmt: skip
    assert _schema(router.apply(_event("a-b.t")).key_schema).name == "a_b.t.Key"
    with pytest.raises(
        ConnectError, match=r"conflicts with another different schema 'a-b\.t\.Key'"
    ):
        router.apply(_event("a+b.t"))


@pytest.mark.parametrize("size", ["1", "0", "-1"])
def test_any_cache_size_routes_the_same(size: str) -> None:
    router = _router(**SHARDS, **{"logical.table.cache.size": size})
    big = _router(**SHARDS)
    for topic in ["dbserver1.shard1.customers", "dbserver1.shard2.customers"] * 2:
        out, expected = router.apply(_event(topic)), big.apply(_event(topic))
        assert (out.topic, out.key, out.value_schema) == (
            expected.topic, expected.key, expected.value_schema
        )  # fmt: skip


def test_keys_must_be_structs() -> None:
    record = _event("dbserver1.shard1.customers").new_record(
        key_schema=Schema.STRING_SCHEMA, key="1"
    )
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[Updating schema\]"):
        _router(**SHARDS).apply(record)


@pytest.mark.parametrize(
    ("config", "key", "message"),
    [
        ({"topic.replacement": "$1"}, "topic.regex", "Missing required configuration"),
        ({"topic.regex": "(.*)"}, "topic.replacement", "Missing required configuration"),
        ({"topic.regex": " ", "topic.replacement": "x"}, "topic.regex", "A value is required"),
        ({"topic.regex": "(.*)", "topic.replacement": ""}, "topic.replacement",
         "A value is required"),
        ({"topic.regex": "(", "topic.replacement": "x"}, "topic.regex", "regular expression"),
        ({"topic.regex": "(.*)", "topic.replacement": "$2"}, "topic.replacement", "No group 2"),
        ({**SHARDS, "key.field.regex": "(.*)"}, "key.field.replacement",
         "key.field.replacement must be non-empty if key.field.regex is set"),
        ({**SHARDS, "key.field.regex": "(.*)", "key.field.replacement": "  "},
         "key.field.replacement", "must be non-empty"),
        ({**SHARDS, "key.field.regex": "[", "key.field.replacement": "$1"}, "key.field.regex",
         "regular expression"),
        ({**SHARDS, "schema.name.adjustment.mode": "avro2"}, "schema.name.adjustment.mode",
         "avro_unicode"),
        ({**SHARDS, "key.enforce.uniqueness": "maybe"}, "key.enforce.uniqueness", ""),
        ({**SHARDS, "logical.table.cache.size": "many"}, "logical.table.cache.size", ""),
    ],
)  # fmt: skip
def test_bad_configs_name_the_key(config: dict[str, str], key: str, message: str) -> None:
    with pytest.raises(ConfigException) as raised:
        _router(**config)
    assert key in str(raised.value) and message in str(raised.value)


def test_a_blank_key_field_regex_needs_no_replacement() -> None:
    out = _router(**SHARDS, **{"key.field.regex": " "}).apply(_event("db.shard1.t"))
    assert out.key.get(IDENTIFIER) == "db.shard1.t"


def test_documented_picklable_and_registered_by_debeziums_class_name() -> None:
    router = _router(**SHARDS)
    router.apply(_event("dbserver1.shard1.customers"))
    copy = pickle.loads(pickle.dumps(router))
    assert copy.apply(_event("dbserver1.shard2.customers")).topic == "dbserver1.all.customers"
    assert all(key.documentation for key in router.config().config_keys.values())
    assert ByLogicalTableRouter.OVERVIEW_DOC
    pyproject = Path(__file__).parents[4] / "pyproject.toml"
    entry_points = tomllib.loads(pyproject.read_text())["project"]["entry-points"]
    name = "io.debezium.transforms.ByLogicalTableRouter"
    target = entry_points["seaway.transforms"][name]
    assert EntryPoint(name, target, "seaway.transforms").load() is ByLogicalTableRouter
