"""Debezium's change events as JsonConverter (schemas.enable=true) writes them: the anchor's
update of ``inventory.customers`` byte for byte, and the tombstone after a delete."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

from seaway.connect.converters.json_converter import JsonConverter
from seaway.connectors.debezium.binlog.config import settings
from seaway.connectors.debezium.binlog.database import Filters
from seaway.connectors.debezium.binlog.events import EventMaker, SourceInfo
from seaway.connectors.debezium.binlog.schemas import TableSchema
from seaway.connectors.debezium.binlog.tables import Column, Table

PROPS = {
    "database.hostname": "db", "database.user": "u", "database.server.id": "223344",
    "topic.prefix": "dbserver1", "schema.history.internal.kafka.bootstrap.servers": "k:9092",
    "schema.history.internal.kafka.topic": "history",
}  # fmt: skip

CUSTOMERS = Table(
    ("inventory", "customers"),
    (
        Column("id", 1, "INT", optional=False),
        Column("email", 2, "VARCHAR", length=255, optional=False),
        Column("balance", 3, "DECIMAL", length=10, scale=2),
        Column("updated_at", 4, "DATETIME", length=3),
    ),
    ("id",),
)

ROW = """{"field":"id","type":"int32","optional":false},{"field":"email","type":"string",\
"optional":false},{"field":"balance","type":"bytes","optional":true,\
"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2",\
"connect.decimal.precision":"10"}},{"field":"updated_at","type":"int64","optional":true,\
"name":"io.debezium.time.Timestamp","version":1}"""

ANCHOR_SCHEMA = f"""{{"type":"struct","optional":false,\
"name":"dbserver1.inventory.customers.Envelope","version":2,"fields":[
 {{"field":"before","type":"struct","optional":true,"name":"dbserver1.inventory.customers.Value","fields":[{ROW}]}},
 {{"field":"after","type":"struct","optional":true,"name":"dbserver1.inventory.customers.Value","fields":[{ROW}]}},
 {{"field":"source","type":"struct","optional":false,"name":"io.debezium.connector.mysql.Source","version":1,"fields":[
  {{"field":"version","type":"string","optional":false}},{{"field":"connector","type":"string","optional":false}},
  {{"field":"name","type":"string","optional":false}},{{"field":"ts_ms","type":"int64","optional":false}},
  {{"field":"snapshot","type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"default":"false",
   "parameters":{{"allowed":"true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"}}}},
  {{"field":"db","type":"string","optional":false}},{{"field":"sequence","type":"string","optional":true}},
  {{"field":"ts_us","type":"int64","optional":true}},{{"field":"ts_ns","type":"int64","optional":true}},
  {{"field":"table","type":"string","optional":true}},{{"field":"server_id","type":"int64","optional":false}},
  {{"field":"gtid","type":"string","optional":true}},{{"field":"file","type":"string","optional":false}},
  {{"field":"pos","type":"int64","optional":false}},{{"field":"row","type":"int32","optional":false}},
  {{"field":"thread","type":"int64","optional":true}},{{"field":"query","type":"string","optional":true}}]}},
 {{"field":"transaction","type":"struct","optional":true,"name":"event.block","version":1,"fields":[
  {{"field":"id","type":"string","optional":false}},{{"field":"total_order","type":"int64","optional":false}},
  {{"field":"data_collection_order","type":"int64","optional":false}}]}},
 {{"field":"op","type":"string","optional":false}},{{"field":"ts_ms","type":"int64","optional":true}},
 {{"field":"ts_us","type":"int64","optional":true}},{{"field":"ts_ns","type":"int64","optional":true}}]}}"""

ANCHOR_PAYLOAD = """{
 "before":{"id":1004,"email":"anne@example.org","balance":"AYag","updated_at":1767225600000},
 "after":{"id":1004,"email":"anne@example.org","balance":"AeI6","updated_at":1767346200123},
 "source":{"version":"3.6.1.Final","connector":"mysql","name":"dbserver1","ts_ms":1767346200123,"snapshot":"false",
  "db":"inventory","sequence":null,"ts_us":1767346200123456,"ts_ns":1767346200123456000,"table":"customers",
  "server_id":223344,"gtid":null,"file":"mysql-bin.000003","pos":2417,"row":0,"thread":12,"query":null},
 "transaction":null,"op":"u","ts_ms":1767346200250,"ts_us":1767346200250311,"ts_ns":1767346200250311842}"""


def _json(converter: JsonConverter, record: Any) -> Any:
    return json.loads(converter.from_connect_data(record.topic, record.value_schema, record.value))


def _converter() -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, False)
    return converter


def _update() -> Any:
    config = settings(PROPS)
    maker = EventMaker(config, "mysql")
    schema = TableSchema.of(CUSTOMERS, config, Filters.of(config), maker.source_schema)
    before = schema.row({"id": 1004, "email": "anne@example.org",
                         "balance": decimal.Decimal("1000"),
                         "updated_at": dt.datetime(2026, 1, 1)})  # fmt: skip
    after = schema.row({"id": 1004, "email": "anne@example.org",
                        "balance": decimal.Decimal("1234.5"),
                        "updated_at": dt.datetime(2026, 1, 2, 9, 30, 0, 123000)})  # fmt: skip
    info = SourceInfo(db="inventory", table="customers", ts_ms=1767346200123,
                      file="mysql-bin.000003", pos=2417, server_id=223344, thread=12)  # fmt: skip
    return maker, schema, before, after, info


def test_the_anchor_update_is_written_as_debezium_writes_it() -> None:
    maker, schema, before, after, info = _update()
    [record] = maker.change(schema, "u", before, after, info, {"file": "mysql-bin.000003"})
    envelope = record.value
    source = envelope.get("source")
    source.put("ts_us", 1767346200123456).put("ts_ns", 1767346200123456000)  # µs of MySQL 8
    envelope.put("ts_ms", 1767346200250).put("ts_us", 1767346200250311)
    envelope.put("ts_ns", 1767346200250311842)
    converter = _converter()
    written = converter.from_connect_data(record.topic, record.value_schema, envelope)
    expected = {"schema": json.loads(ANCHOR_SCHEMA), "payload": json.loads(ANCHOR_PAYLOAD)}
    # the same JSON, fields in the same order (the keys of each object are in the order Kafka's
    # JsonConverter writes them, "field" last, which the anchor's hand-built text does not follow)
    assert json.loads(written) == expected
    names = [f["field"] for f in json.loads(written)["schema"]["fields"][2]["fields"]]
    assert names == [f["field"] for f in expected["schema"]["fields"][2]["fields"]]
    key = converter.from_connect_data(record.topic, record.key_schema, record.key)
    assert json.loads(key) == {
        "schema": {"type": "struct", "optional": False,
                   "name": "dbserver1.inventory.customers.Key",
                   "fields": [{"field": "id", "type": "int32", "optional": False}]},
        "payload": {"id": 1004}}  # fmt: skip
    assert record.topic == "dbserver1.inventory.customers"
    assert record.source_partition == {"server": "dbserver1"}


def test_a_delete_is_followed_by_a_tombstone_unless_disabled() -> None:
    maker, schema, before, _, info = _update()
    delete, tombstone = maker.change(schema, "d", before, None, info, {"pos": 4})
    assert delete.value.get("op") == "d" and delete.value.get("after") is None
    assert (tombstone.value, tombstone.value_schema) == (None, None)
    assert tombstone.key == delete.key and tombstone.source_offset == {"pos": 4}
    quiet = EventMaker(settings({**PROPS, "tombstones.on.delete": "false"}), "mysql")
    assert len(quiet.change(schema, "d", before, None, info, {})) == 1


def test_a_mariadb_event_names_its_connector_and_gtid() -> None:
    config = settings(PROPS)
    maker = EventMaker(config, "mariadb")
    assert maker.source_schema.name == "io.debezium.connector.mariadb.Source"
    source = maker.source(SourceInfo(db="d", table="t", ts_ms=1000, file="f", pos=4,
                                     gtid="0-1-42"))  # fmt: skip
    assert (source.get("connector"), source.get("gtid"), source.get("ts_us")) == (
        "mariadb",
        "0-1-42",
        1_000_000,
    )
    assert maker.change_key_schema.name == "io.debezium.connector.mariadb.SchemaChangeKey"
