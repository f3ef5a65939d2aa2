"""The PostgreSQL connector's pieces without a worker: the pgoutput decoder on messages a real
server produced, the type mapping, the config checks and the offsets' format and skip rules."""

from __future__ import annotations

import decimal
from collections.abc import Iterator

import pytest

from seaway.config import ConfigException
from seaway.connectors.debezium.postgres import config as c
from seaway.connectors.debezium.postgres import pgoutput as pg
from seaway.connectors.debezium.postgres import types as t
from seaway.connectors.debezium.postgres.offsets import WalPosition
from tests.databases import PostgresServer


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with PostgresServer(logical=True) as db:
        yield db


def test_decoder_on_messages_of_a_real_server(server: PostgresServer) -> None:
    with server.connect() as connection:
        connection.execute("CREATE TABLE d (id INT PRIMARY KEY, name TEXT, big TEXT)")
        connection.execute("CREATE PUBLICATION p FOR TABLE d")
        connection.execute("SELECT pg_create_logical_replication_slot('u', 'pgoutput')")
        connection.execute("INSERT INTO d VALUES (1, 'a', NULL)")
        connection.execute("UPDATE d SET name = 'b' WHERE id = 1")
        connection.execute("UPDATE d SET id = 2 WHERE id = 1")
        connection.execute("DELETE FROM d WHERE id = 2")
        connection.execute("TRUNCATE d")
        rows = connection.execute(
            "SELECT lsn::text, xid::text, data FROM pg_logical_slot_peek_binary_changes('u', "
            "NULL, NULL, 'proto_version', '1', 'publication_names', 'p')"
        ).fetchall()
        flushed = connection.execute(
            "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'u'"
        ).fetchone()[0]
    messages = [pg.decode(bytes(data)) for _, _, data in rows]
    kinds = [type(m).__name__ for m in messages]
    assert kinds == ["Begin", "Relation", "Insert", "Commit", "Begin", "Update", "Commit",
                     "Begin", "Update", "Commit", "Begin", "Delete", "Commit",
                     "Begin", "Relation", "Truncate", "Commit"]  # fmt: skip
    relation = messages[1]
    assert isinstance(relation, pg.Relation)
    assert (relation.namespace, relation.name, relation.replica_identity) == ("public", "d", "d")
    assert [(col.name, col.key, col.type_oid) for col in relation.columns] == [
        ("id", True, 23),
        ("name", False, 25),
        ("big", False, 25),
    ]
    assert messages[2] == pg.Insert(relation.oid, ("1", "a", None))
    update = messages[5]
    assert isinstance(update, pg.Update) and update.old is None and update.new[1] == "b"
    key_change = messages[8]
    assert isinstance(key_change, pg.Update) and key_change.old_kind == "K"
    assert key_change.old == ("1", None, None) and key_change.new[0] == "2"
    delete = messages[11]
    assert isinstance(delete, pg.Delete) and delete.old_kind == "K" and delete.old[0] == "2"
    truncate = messages[15]
    assert isinstance(truncate, pg.Truncate) and truncate.relations == (relation.oid,)
    begin, commit = messages[0], messages[3]
    assert isinstance(begin, pg.Begin) and isinstance(commit, pg.Commit)
    assert begin.final_lsn == commit.commit_lsn and begin.xid == int(rows[0][1])
    assert commit.end_lsn == pg.parse_lsn(rows[3][0])  # a Commit row's lsn is the end LSN
    assert begin.commit_ts_us == commit.commit_ts_us > 1_700_000_000_000_000
    assert pg.parse_lsn(flushed) <= begin.final_lsn  # peeking consumed nothing


def test_lsn_text() -> None:
    assert pg.parse_lsn("0/15265C0") == 0x15265C0
    assert pg.parse_lsn("1/0") == 1 << 32
    assert pg.format_lsn(0x1_0000_15C0) == "1/15C0"


def _schema(
    oid: int,
    typmod: int = -1,
    decimal_mode: str = "precise",
    time_mode: str = "adaptive",
    **kw: object,
) -> tuple[t.Column, object]:
    column = t.Column("c", oid, typmod, **kw)  # type: ignore[arg-type]
    return column, t.column_schema(column, decimal_mode, time_mode)


@pytest.mark.parametrize(
    ("oid", "typmod", "name", "text", "value"),
    [
        (t.INT4, -1, None, "42", 42),
        (t.BOOL, -1, None, "t", True),
        (
            t.TIMESTAMP,
            3 + 0,
            "io.debezium.time.Timestamp",
            "2026-01-02 09:30:00.123",
            1767346200123,
        ),
        (
            t.TIMESTAMP,
            -1,
            "io.debezium.time.MicroTimestamp",
            "2026-01-02 09:30:00.123456",
            1767346200123456,
        ),
        (t.TIMESTAMP, -1, "io.debezium.time.MicroTimestamp", "infinity", 9223372036825200000),
        (
            t.TIMESTAMPTZ,
            -1,
            "io.debezium.time.ZonedTimestamp",
            "2026-01-02 10:30:00.5+01",
            "2026-01-02T09:30:00.500000Z",
        ),
        (
            t.TIMESTAMPTZ,
            0,
            "io.debezium.time.ZonedTimestamp",
            "2026-01-02 09:30:00+00",
            "2026-01-02T09:30:00Z",
        ),
        (t.TIME, 3, "io.debezium.time.Time", "01:00:00.25", 3600250),
        (t.TIME, -1, "io.debezium.time.MicroTime", "01:00:00.25", 3600250000),
        (t.TIMETZ, -1, "io.debezium.time.ZonedTime", "10:00:00+02", "08:00:00Z"),
        (t.DATE, -1, "io.debezium.time.Date", "1970-01-11", 10),
        (t.INTERVAL, -1, "io.debezium.time.MicroDuration", "P1DT2H", 93_600_000_000),
        (t.INTERVAL, -1, "io.debezium.time.MicroDuration", "P1M", 2_629_800_000_000),
        (t.JSONB, -1, "io.debezium.data.Json", '{"a": 1}', '{"a": 1}'),
        (
            t.UUID,
            -1,
            "io.debezium.data.Uuid",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        ),
        (t.BYTEA, -1, None, "\\x0102", b"\x01\x02"),
        (
            t.NUMERIC,
            ((10 << 16) | 2) + 4,
            "org.apache.kafka.connect.data.Decimal",
            "1234.5",
            decimal.Decimal("1234.50"),
        ),
        (t.BIT, 1, None, "1", True),
        (t.VARBIT, 10, "io.debezium.data.Bits", "1000000001", b"\x01\x02"),
    ],
)
def test_type_mapping(oid: int, typmod: int, name: str | None, text: str, value: object) -> None:
    column, schema = _schema(oid, typmod)
    assert schema.name == name  # type: ignore[attr-defined]
    assert t.converter(column, schema)(text) == value  # type: ignore[arg-type]


def test_numeric_modes_and_enums() -> None:
    column, schema = _schema(t.NUMERIC)
    assert schema.name == "io.debezium.data.VariableScaleDecimal"  # type: ignore[attr-defined]
    struct = t.converter(column, schema)("12.345")  # type: ignore[arg-type]
    assert (struct.get("scale"), struct.get("value")) == (3, (12345).to_bytes(2, "big"))
    column, schema = _schema(t.NUMERIC, decimal_mode="double")
    assert t.converter(column, schema)("1.5") == 1.5  # type: ignore[arg-type]
    column, schema = _schema(t.NUMERIC, decimal_mode="string")
    assert t.converter(column, schema)("1.50") == "1.50"  # type: ignore[arg-type]
    column, schema = _schema(99999, enum_values=("a", "b"))
    assert schema.name == "io.debezium.data.Enum"  # type: ignore[attr-defined]
    assert schema.parameters == {"allowed": "a,b"}  # type: ignore[attr-defined]
    column, schema = _schema(t.TIMESTAMP, time_mode="connect")
    assert schema.name == "org.apache.kafka.connect.data.Timestamp"  # type: ignore[attr-defined]


BASE = {"database.hostname": "h", "database.user": "u", "database.dbname": "d",
        "topic.prefix": "srv"}  # fmt: skip


def test_config_defaults_and_errors() -> None:
    s = c.settings(BASE)
    assert (s.port, s.slot_name, s.publication_name, s.publication_autocreate) == (
        5432,
        "debezium",
        "dbz_publication",
        "all_tables",
    )
    assert (s.snapshot_mode, s.time_precision_mode, s.decimal_mode) == (
        "initial",
        "adaptive",
        "precise",
    )
    assert s.skipped_operations == {"t"} and s.tombstones_on_delete and not s.slot_drop_on_stop
    with pytest.raises(ConfigException, match=r"decoderbufs.*pgoutput"):
        c.settings({**BASE, "plugin.name": "decoderbufs"})
    with pytest.raises(ConfigException, match=r"use 'no_data'"):
        c.settings({**BASE, "snapshot.mode": "never"})
    with pytest.raises(ConfigException, match=r"schema\.include\.list"):
        c.settings({**BASE, "schema.include.list": "a", "schema.exclude.list": "b"})
    with pytest.raises(ConfigException):
        c.settings({**BASE, "publication.autocreate.mode": "some"})
    errors = {v.name: v.errors for v in c.validate({**BASE, "slot.name": "A-B"}).config_values}
    assert errors["slot.name"] and not errors["database.hostname"]


def test_offsets_format_and_skip_rules() -> None:
    position = WalPosition(lsn=200, lsn_proc=200, lsn_commit=150, lsn_events_processed=1,
                           tx_id=7, ts_usec=5, message_type="INSERT")  # fmt: skip
    offset = position.offset()
    # Java HashMap iteration order of these keys, as Debezium's offsets hold them
    assert list(offset) == ["lsn_proc", "lsn_events_processed", "messageType", "lsn_commit",
                            "lsn", "txId", "ts_usec"]  # fmt: skip
    back = WalPosition.from_offset(offset)
    assert back == position
    assert back.transaction_done(100) and not back.transaction_done(150)
    assert back.change_done(7, 200, 1) and back.change_done(7, 190, 1)
    assert not back.change_done(7, 200, 2) and not back.change_done(8, 100, 1)
    snap = WalPosition(lsn=300, tx_id=9, ts_usec=1, snapshot=True).offset()
    assert snap["snapshot"] == "INITIAL" and snap["last_snapshot_record"] is False
    assert WalPosition.from_offset(snap).snapshot_running
    last = WalPosition(lsn=300, tx_id=9, ts_usec=1, snapshot=True, last_snapshot_record=True,
                       snapshot_completed=True).offset()  # fmt: skip
    done = WalPosition.from_offset(last)
    assert not done.snapshot_running and done.transaction_done(299)
    assert not done.transaction_done(300) and not done.change_done(9, 10, 1)
