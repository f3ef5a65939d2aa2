"""The HDFS sink fed by Debezium through ``ExtractNewRecordState``: row schemas without
versions (a column added upstream rolls the file once, older rows are projected), Debezium's
temporal types as date and timestamp columns, and Hive table names from CDC topic names."""

from __future__ import annotations

import datetime as dt
import doctest
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import seaway.connectors.hdfs.hive
import seaway.connectors.hdfs.temporal
from seaway.connect.api import ConnectError, OffsetAndMetadata, Schema, SinkRecord, TableCatalog
from seaway.connect.api import TopicPartition as TP
from seaway.connect.api.data import SchemaBuilder, Struct
from seaway.connectors.hdfs import HdfsSinkConnector, HdfsSinkTask
from seaway.connectors.hdfs.hive import HiveSync

TOPIC = "cdc-1.shop.customers"
UTC = dt.UTC


def _time(name: str, builder: SchemaBuilder) -> Schema:
    return builder.name(f"io.debezium.time.{name}").optional().build()


ROW = (SchemaBuilder.struct().name(f"{TOPIC}.Value").field("id", Schema.INT32_SCHEMA)
       .field("name", Schema.STRING_SCHEMA).build())  # fmt: skip
WITH_COUNTRY = (SchemaBuilder.struct().name(f"{TOPIC}.Value").field("id", Schema.INT32_SCHEMA)
                .field("name", Schema.STRING_SCHEMA)
                .field("country", SchemaBuilder.string().optional().build()).build())  # fmt: skip
TIMES = (SchemaBuilder.struct().name(f"{TOPIC}.Value").field("id", Schema.INT32_SCHEMA)
         .field("ts", _time("Timestamp", SchemaBuilder.int64()))
         .field("micro", _time("MicroTimestamp", SchemaBuilder.int64()))
         .field("nano", _time("NanoTimestamp", SchemaBuilder.int64()))
         .field("zoned", _time("ZonedTimestamp", SchemaBuilder.string()))
         .field("day", _time("Date", SchemaBuilder.int32()))
         .field("at", _time("Time", SchemaBuilder.int32())).build())  # fmt: skip


def _row(offset: int, schema: Schema = ROW, **values: Any) -> SinkRecord:
    struct = Struct(schema).put("id", offset)
    for name, value in values.items():
        struct.put(name, value)
    if schema.field("name") is not None and "name" not in values:
        struct.put("name", f"user{offset}")
    return SinkRecord(topic=TOPIC, kafka_partition=0, kafka_offset=offset, value_schema=schema,
                      value=struct)  # fmt: skip


def _batch(tmp_path: Path, records: list[SinkRecord], **props: str) -> None:
    """One micro-batch of a new task under BACKWARD compatibility."""
    config = {"store.url": tmp_path.as_uri(), "flush.size": "100", "topics": TOPIC,
              "schema.compatibility": "BACKWARD", **props}  # fmt: skip
    connector = HdfsSinkConnector()
    connector.start(config)
    task = HdfsSinkTask()
    task.start(connector.task_configs(1)[0])
    task.open([TP(TOPIC, 0)])
    task.put(records)
    task.pre_commit({TP(TOPIC, 0): OffsetAndMetadata(records[-1].kafka_offset + 1)})


def _files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "topics" / TOPIC / "partition=0").glob("*.parquet"))


def test_a_column_added_upstream_without_schema_versions(tmp_path: Path) -> None:
    # Debezium's row schemas have no version: Confluent's sink fails ("Schema version
    # required for BACKWARD compatibility"); this one orders them by their fields.
    _batch(tmp_path, [_row(0), _row(1), _row(2, WITH_COUNTRY, country="NL"), _row(3),
                      _row(4, WITH_COUNTRY)])  # fmt: skip
    assert [f.name for f in _files(tmp_path)] == [
        f"{TOPIC}+0+0000000000+0000000001.parquet",
        f"{TOPIC}+0+0000000002+0000000004.parquet",  # a row of the older schema is projected
    ]
    rows = pq.read_table(_files(tmp_path)[1]).to_pylist()
    assert [(r["id"], r["country"]) for r in rows] == [(2, "NL"), (3, None), (4, None)]


def test_a_required_column_dropped_upstream_is_a_newer_schema(tmp_path: Path) -> None:
    without_name = SchemaBuilder.struct().name(f"{TOPIC}.Value").field(
        "id", Schema.INT32_SCHEMA).build()  # fmt: skip
    _batch(tmp_path, [_row(0), _row(1, without_name), _row(2, without_name)])
    assert [pq.read_table(f).column_names for f in _files(tmp_path)] == [["id", "name"], ["id"]]


def test_versions_decide_where_they_differ(tmp_path: Path) -> None:
    # version 2 lacks the column version 1 has: the newer one still wins
    v1 = SchemaBuilder.struct().name("v").version(1).field("id", Schema.INT32_SCHEMA).field(
        "country", SchemaBuilder.string().optional().build()).build()  # fmt: skip
    v2 = SchemaBuilder.struct().name("v").version(2).field("id", Schema.INT32_SCHEMA).build()
    _batch(tmp_path, [_row(0, v1), _row(1, v2), _row(2, v1, country="NL")])
    tables = [pq.read_table(f).to_pylist() for f in _files(tmp_path)]
    assert tables == [[{"id": 0, "country": None}], [{"id": 1}, {"id": 2}]]


def test_debezium_temporal_types_as_dates_and_timestamps(tmp_path: Path) -> None:
    ms = 1_767_346_200_123  # 2026-01-02 09:30:00.123
    _batch(tmp_path, [
        _row(0, TIMES, ts=ms, micro=ms * 1000 + 456, nano=ms * 1_000_000 + 456_789,
             zoned="2026-01-02T09:30:00.123456789Z", day=20_455, at=34_200_123),
        _row(1, TIMES, zoned="2026-01-02T11:30:00+02:00"),
    ])  # fmt: skip
    table = pq.read_table(_files(tmp_path)[0])
    assert {f.name: str(f.type) for f in table.schema} == {
        "id": "int32", "ts": "timestamp[ms, tz=UTC]", "micro": "timestamp[us, tz=UTC]",
        "nano": "timestamp[us, tz=UTC]", "zoned": "timestamp[us, tz=UTC]", "day": "date32[day]",
        "at": "int32",  # Spark SQL has no TIME type
    }  # fmt: skip
    assert table.schema.field("ts").nullable and not table.schema.field("id").nullable
    first, second = table.to_pylist()
    at = dt.datetime(2026, 1, 2, 9, 30, 0, 123_000, tzinfo=UTC)
    assert first == {"id": 0, "ts": at, "micro": at.replace(microsecond=123_456),
                     "nano": at.replace(microsecond=123_456),
                     "zoned": at.replace(microsecond=123_456), "day": dt.date(2026, 1, 2),
                     "at": 34_200_123}  # fmt: skip
    assert second["ts"] is None and second["zoned"] == at.replace(microsecond=0)


def test_a_bad_zoned_timestamp_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConnectError, match=r"Field zoned \(io\.debezium\.time\.ZonedTimestamp\)"
                       r" is not a valid ZonedTimestamp.*ReplaceField"):  # fmt: skip
        _batch(tmp_path, [_row(0, TIMES, zoned="yesterday")])


class _Catalog(TableCatalog):
    def __init__(self) -> None:
        self.tables: list[tuple[str, str, pa.Schema]] = []
        self.partitions: list[tuple[str, Sequence[Mapping[str, str]]]] = []

    def ensure_table(self, database: str, table: str, location: str, schema: pa.Schema,
                     partition_columns: Sequence[str]) -> None:  # fmt: skip
        self.tables.append((table, location, schema))

    def add_partitions(
        self, database: str, table: str, partitions: Sequence[Mapping[str, str]]
    ) -> None:
        self.partitions.append((table, partitions))


def test_hive_table_of_a_cdc_topic(tmp_path: Path) -> None:
    _batch(tmp_path, [_row(0, TIMES, ts=0)])
    values = {"store.url": tmp_path.as_uri(), "hdfs.url": None, "topics.dir": "topics",
              "hive.database": "cdc", "hive.table.name": "${topic}"}  # fmt: skip
    catalog = _Catalog()
    HiveSync(values, {"topics": TOPIC}, catalog, None).sync()
    [(table, location, schema)] = catalog.tables
    assert table == "cdc_1_shop_customers"  # Confluent's: . and - as _
    assert location == f"{tmp_path.as_uri()}/topics/{TOPIC}"
    assert pa.types.is_timestamp(schema.field("ts").type)
    assert catalog.partitions == [("cdc_1_shop_customers", [{"partition": "0"}])]


def test_docstring_examples() -> None:
    for module in (seaway.connectors.hdfs.hive, seaway.connectors.hdfs.temporal):
        assert doctest.testmod(module).failed == 0
