"""Debezium's type mapping for MariaDB/MySQL columns, the offset format and topic naming."""

from __future__ import annotations

import datetime as dt
import decimal
import json

import pytest

from seaway.connectors.debezium.binlog.column_types import column_schema, converter
from seaway.connectors.debezium.binlog.ddl import tables_of
from seaway.connectors.debezium.binlog.position import Position, gtid_covers, merge_gtid
from seaway.connectors.debezium.binlog.tables import Column
from seaway.connectors.debezium.schemas import data_topic


def _map(column: Column, value: object, **modes: str) -> tuple[str, str | None, object]:
    schema = column_schema(column, modes.get("decimal", "precise"),
                           modes.get("time", "adaptive_time_microseconds"),
                           modes.get("bigint", "long"))  # fmt: skip
    return schema.type.name, schema.name, converter(column, schema)(value)


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        (Column("c", 1, "TINYINT", length=1), 1, ("INT16", None, 1)),
        (Column("c", 1, "SMALLINT", unsigned=True), 65535, ("INT32", None, 65535)),
        (Column("c", 1, "MEDIUMINT"), 5, ("INT32", None, 5)),
        (Column("c", 1, "INT"), -5, ("INT32", None, -5)),
        (Column("c", 1, "INT", unsigned=True), 4000000000, ("INT64", None, 4000000000)),
        (Column("c", 1, "BIGINT", unsigned=True), 2**64 - 1, ("INT64", None, -1)),
        (Column("c", 1, "FLOAT"), 1.5, ("FLOAT32", None, 1.5)),
        (Column("c", 1, "DOUBLE"), 1.5, ("FLOAT64", None, 1.5)),
        (Column("c", 1, "VARCHAR"), "x", ("STRING", None, "x")),
        (Column("c", 1, "BLOB"), b"\x01", ("BYTES", None, b"\x01")),
        (
            Column("c", 1, "ENUM", enum_values=("a", "b")),
            "b",
            ("STRING", "io.debezium.data.Enum", "b"),
        ),
        (
            Column("c", 1, "SET", enum_values=("x", "y")),
            {"y", "x"},
            ("STRING", "io.debezium.data.EnumSet", "x,y"),
        ),
        (Column("c", 1, "YEAR"), 2026, ("INT32", "io.debezium.time.Year", 2026)),
        (Column("c", 1, "DATE"), dt.date(1970, 1, 11), ("INT32", "io.debezium.time.Date", 10)),
        (
            Column("c", 1, "TIME"),
            dt.timedelta(hours=1, microseconds=5),
            ("INT64", "io.debezium.time.MicroTime", 3_600_000_005),
        ),
        (
            Column("c", 1, "DATETIME", length=3),
            dt.datetime(1970, 1, 1, 0, 0, 1, 500000),
            ("INT64", "io.debezium.time.Timestamp", 1500),
        ),
        (
            Column("c", 1, "DATETIME", length=6),
            dt.datetime(1970, 1, 1, 0, 0, 1, 500001),
            ("INT64", "io.debezium.time.MicroTimestamp", 1500001),
        ),
        (
            Column("c", 1, "TIMESTAMP", length=2),
            dt.datetime(2026, 1, 2, 3, 4, 5, 670000),
            ("STRING", "io.debezium.time.ZonedTimestamp", "2026-01-02T03:04:05.67Z"),
        ),
        (
            Column("c", 1, "DECIMAL", length=10, scale=2),
            decimal.Decimal("1.5"),
            ("BYTES", "org.apache.kafka.connect.data.Decimal", decimal.Decimal("1.50")),
        ),
    ],
)
def test_type_mapping(column: Column, value: object, expected: tuple[object, ...]) -> None:
    assert _map(column, value) == expected


def test_modes() -> None:
    number = Column("c", 1, "DECIMAL", length=10, scale=2)
    assert _map(number, decimal.Decimal("1.50"), decimal="double") == ("FLOAT64", None, 1.5)
    assert _map(number, decimal.Decimal("1.50"), decimal="string") == ("STRING", None, "1.50")
    big = Column("c", 1, "BIGINT", unsigned=True)
    assert _map(big, 2**64 - 1, bigint="precise") == (
        "BYTES",
        "org.apache.kafka.connect.data.Decimal",
        decimal.Decimal(2**64 - 1),
    )
    day = Column("c", 1, "DATE")
    assert _map(day, dt.date(1970, 1, 2), time="connect")[1] == "org.apache.kafka.connect.data.Date"
    stamp = Column("c", 1, "DATETIME", length=6)
    assert _map(stamp, dt.datetime(1970, 1, 1), time="connect")[1] == (
        "org.apache.kafka.connect.data.Timestamp"
    )
    assert _map(Column("c", 1, "TIMESTAMP"), dt.datetime(2026, 1, 1), time="connect")[2] == (
        "2026-01-01T00:00:00Z"
    )
    assert converter(day, column_schema(day))("0000-00-00") is None  # a zero date


def test_offsets_in_debeziums_format() -> None:
    position = Position("mysql-bin.000003", 2101, "0-1-57", 2, 1, 223344, 1767346200)
    offset = position.offset()
    assert offset == {"file": "mysql-bin.000003", "pos": 2101, "event": 2, "row": 1,
                      "gtids": "0-1-57", "server_id": 223344, "ts_sec": 1767346200}  # fmt: skip
    # Java's HashMap order, as Debezium's offset map is serialized
    assert list(offset) == ["ts_sec", "file", "pos", "gtids", "row", "event", "server_id"]
    assert Position.from_offset(json.loads(json.dumps(offset))) == position
    outside = Position("f", 4, None, 0, 0, 0, 9).offset()
    assert outside == {"ts_sec": 9, "file": "f", "pos": 4}  # zero counters and id left out
    snap = Position("f", 4, "0-1-2", ts_sec=1, snapshot=True).offset()
    assert snap["snapshot"] == "INITIAL"
    assert Position.from_offset({"file": "f", "pos": 4, "snapshot": True}).snapshot


def test_mariadb_gtids() -> None:
    assert merge_gtid("0-1-5,1-2-9", "0-1-6") == "0-1-6,1-2-9"
    assert merge_gtid(None, "0-1-1") == "0-1-1"
    assert gtid_covers("0-1-6,1-2-9", "0-1-5") and not gtid_covers("0-1-4", "0-1-5")
    assert not gtid_covers("0-1-9", "1-1-1")
    a = Position("f", 10, "0-1-5")
    assert a.at_or_after(Position("g", 99, "0-1-5")) and not a.at_or_after(
        Position("f", 1, "0-1-6")
    )


def test_topic_names() -> None:
    assert data_topic("dbserver1", "inventory", "customers") == "dbserver1.inventory.customers"
    assert data_topic("p", "my db", "t$1") == "p.my_db.t_1"


def test_ddl_tables() -> None:
    assert tables_of("ALTER TABLE t ADD COLUMN z INT", "inv") == [("ALTER", ("inv", "t"))]
    assert tables_of("/* x */ create table if not exists `a`.`b` (i int)", "inv") == [
        ("CREATE", ("a", "b"))
    ]
    assert tables_of("DROP TABLE IF EXISTS a, db.b", "inv") == [
        ("DROP", ("inv", "a")),
        ("DROP", ("db", "b")),
    ]
    assert tables_of("RENAME TABLE a TO b", "inv") == [
        ("DROP", ("inv", "a")),
        ("CREATE", ("inv", "b")),
    ]
    assert tables_of("CREATE DATABASE x", "inv") == []
