"""Debezium's ExtractNewRecordState: rows out of change events, per delete mode."""

from __future__ import annotations

from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import SourceRecord
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.transforms.debezium import ExtractNewRecordState

ROW = (
    SchemaBuilder.struct().name("db.inv.users.Value").optional()
    .field("id", Schema.INT32_SCHEMA).field("email", Schema.OPTIONAL_STRING_SCHEMA).build()
)  # fmt: skip
SOURCE = (
    SchemaBuilder.struct().name("io.debezium.connector.mariadb.Source")
    .field("table", Schema.OPTIONAL_STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA).build()
)  # fmt: skip
ENVELOPE = (
    SchemaBuilder.struct().name("db.inv.users.Envelope").version(2)
    .field("before", ROW).field("after", ROW).field("source", SOURCE)
    .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build()
)  # fmt: skip
KEY = SchemaBuilder.struct().name("db.inv.users.Key").field("id", Schema.INT32_SCHEMA).build()


def _row(id_: int, email: str | None) -> Struct:
    return Struct(ROW).put("id", id_).put("email", email)


def _event(op: str, before: Struct | None, after: Struct | None) -> SourceRecord:
    source = Struct(SOURCE).put("table", "users").put("ts_ms", 1_700)
    value = Struct(ENVELOPE).put("before", before).put("after", after).put("source", source)
    value.put("op", op).put("ts_ms", 1_800)
    return SourceRecord(
        source_partition={"server": "db"}, source_offset={"pos": 1}, topic="db.inv.users",
        kafka_partition=None, key_schema=KEY, key=Struct(KEY).put("id", 1),
        value_schema=ENVELOPE, value=value,
    )  # fmt: skip


def _tombstone() -> SourceRecord:
    return _event("d", None, None).new_record(value_schema=None, value=None)


def _smt(**config: Any) -> ExtractNewRecordState:
    smt = ExtractNewRecordState()
    smt.configure(config)
    return smt


def _values(record: SourceRecord | None) -> dict[str, Any] | None:
    if record is None or record.value is None:
        return None
    return {f.name: record.value.get(f.name) for f in record.value_schema.fields}


def test_creates_and_updates_become_their_after_row() -> None:
    smt = _smt()
    out = smt.apply(_event("u", _row(1, "a@x"), _row(1, "b@x")))
    assert out is not None and out.value_schema is not None
    assert out.value_schema.name == "db.inv.users.Value"
    assert _values(out) == {"id": 1, "email": "b@x"}
    assert out.key == Struct(KEY).put("id", 1) and out.topic == "db.inv.users"
    assert _values(smt.apply(_event("r", None, _row(2, "c@x")))) == {"id": 2, "email": "c@x"}


@pytest.mark.parametrize(
    ("mode", "delete", "tombstone"),
    [
        ("drop", "dropped", "dropped"),
        ("tombstone", "null with schema", "dropped"),
        ("rewrite", {"id": 1, "email": "a@x", "__deleted": "true"}, "dropped"),
        ("rewrite-with-tombstone", {"id": 1, "email": "a@x", "__deleted": "true"}, "kept"),
        ("delete-to-tombstone", "null without schema", "dropped"),
    ],
)
def test_deletes_and_tombstones_per_mode(mode: str, delete: Any, tombstone: str) -> None:
    smt = _smt(**{"delete.tombstone.handling.mode": mode})

    def shape(record: SourceRecord | None) -> Any:
        if record is None:
            return "dropped"
        if record.value is None:
            return "null with schema" if record.value_schema is not None else "null without schema"
        return _values(record)

    assert shape(smt.apply(_event("d", _row(1, "a@x"), None))) == delete
    assert ("kept" if smt.apply(_tombstone()) is not None else "dropped") == tombstone
    if mode.startswith("rewrite"):
        created = _values(smt.apply(_event("c", None, _row(3, "d@x"))))
        assert created == {"id": 3, "email": "d@x", "__deleted": "false"}


def test_added_fields_and_headers_name_envelope_transaction_and_source_fields() -> None:
    smt = _smt(**{"add.fields": "op,table,source.ts_ms,ts_ms:event_ms",
                  "add.headers": "op", "add.headers.prefix": "dbz."})  # fmt: skip
    out = smt.apply(_event("c", None, _row(5, "e@x")))
    assert out is not None
    assert _values(out) == {"id": 5, "email": "e@x", "__op": "c", "__table": "users",
                            "__source_ts_ms": 1_700, "__event_ms": 1_800}  # fmt: skip
    assert out.value_schema is not None
    added = out.value_schema.field("__source_ts_ms")
    assert added is not None and added.schema.is_optional
    assert [(h.key, h.value) for h in out.headers] == [("dbz.op", "c")]


def test_truncates_are_dropped_and_other_records_pass() -> None:
    smt = _smt()
    assert smt.apply(_event("t", None, None)) is None
    heartbeat = _event("c", None, None).new_record(value_schema=Schema.STRING_SCHEMA, value="beat")
    assert smt.apply(heartbeat) is heartbeat


def test_route_by_field() -> None:
    out = _smt(**{"route.by.field": "email"}).apply(_event("c", None, _row(1, "routed")))
    assert out is not None and out.topic == "routed"


def test_the_settings_debezium_removed_are_translated_or_named() -> None:
    legacy = _smt(**{"delete.handling.mode": "rewrite", "drop.tombstones": "false"})
    assert legacy.mode == "rewrite-with-tombstone"
    assert _smt(**{"drop.tombstones": "true"}).mode == "drop"
    with pytest.raises(ConfigException, match=r"delete\.tombstone\.handling\.mode"):
        _smt(**{"delete.handling.mode": "none", "drop.tombstones": "false"})
    with pytest.raises(ConfigException):
        _smt(**{"delete.tombstone.handling.mode": "sometimes"})
