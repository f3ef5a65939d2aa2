"""Debezium's ExtractNewRecordState: rows out of change events, per delete mode."""

from __future__ import annotations

from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api import SourceRecord
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.errors import DataError
from seaway.connect.api.records import ConnectRecord
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


def _values(record: ConnectRecord | None) -> dict[str, Any] | None:
    if record is None or record.value is None or record.value_schema is None:
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

    def shape(record: ConnectRecord | None) -> Any:
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


# ------------------------------------------------------------------ drop.fields.*

NOTE = SchemaBuilder.string().optional().default_value("n/a").build()
WIDE = (
    SchemaBuilder.struct().name("db.inv.people.Value").optional()
    .field("id", Schema.INT32_SCHEMA).field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .field("name", Schema.STRING_SCHEMA).field("note", NOTE).build()
)  # fmt: skip
WIDE_ENVELOPE = (
    SchemaBuilder.struct().name("db.inv.people.Envelope").version(2)
    .field("before", WIDE).field("after", WIDE).field("source", SOURCE)
    .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build()
)  # fmt: skip
WIDE_KEY = (
    SchemaBuilder.struct().name("db.inv.people.Key")
    .field("id", Schema.INT32_SCHEMA).field("tenant", Schema.OPTIONAL_STRING_SCHEMA).build()
)  # fmt: skip
NAMES = SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build()
DROP = "drop.fields.header.name"


def _wide(op: str, *dropped: list[str] | None) -> SourceRecord:
    """A change event of ``people`` with one ``dropped`` header per list given."""
    row = Struct(WIDE).put("id", 7).put("email", "p@x").put("name", "Pat").put("note", None)
    source = Struct(SOURCE).put("table", "people").put("ts_ms", 1_700)
    value = Struct(WIDE_ENVELOPE).put("before", row if op == "d" else None)
    value.put("after", None if op == "d" else row).put("source", source).put("op", op)
    record = SourceRecord(
        source_partition={"server": "db"}, source_offset={"pos": 1}, topic="db.inv.people",
        key_schema=WIDE_KEY, key=Struct(WIDE_KEY).put("id", 7).put("tenant", "t1"),
        value_schema=WIDE_ENVELOPE, value=value,
    )  # fmt: skip
    for names in dropped:
        record.headers.add("dropped", names, NAMES)
    return record


def _key_values(record: ConnectRecord | None) -> dict[str, Any]:
    assert record is not None and record.key_schema is not None
    return {f.name: record.key.get(f.name) for f in record.key_schema.fields}


@pytest.mark.parametrize(
    ("from_key", "compatible", "value_fields", "key_fields"),
    [
        ("false", "true", ["id", "name", "note"], ["id", "tenant"]),
        ("true", "true", ["id", "name", "note"], ["id"]),
        ("false", "false", ["note"], ["id", "tenant"]),
        ("true", "false", ["note"], []),
    ],
)
def test_drop_fields_per_key_and_compatibility(
    from_key: str, compatible: str, value_fields: list[str], key_fields: list[str]
) -> None:
    """Compatible: only optional fields go (email, tenant), not id or name; else all listed."""
    smt = _smt(**{DROP: "dropped", "drop.fields.from.key": from_key,
                  "drop.fields.keep.schema.compatible": compatible,
                  "replace.null.with.default": "false"})  # fmt: skip
    out = smt.apply(_wide("c", ["email", "name", "id", "tenant", "missing"]))
    assert out is not None and out.value_schema is not None and out.key_schema is not None
    assert [f.name for f in out.value_schema.fields] == value_fields
    assert [f.name for f in out.key_schema.fields] == key_fields
    assert out.value_schema.name == "db.inv.people.Value"
    assert not out.value_schema.is_optional  # ReplaceField's copy is required, as in Kafka
    assert out.key_schema.name == "db.inv.people.Key"
    # dropping is ReplaceField's, whose replace.null.with.default is true whatever this
    # transform's: a null field with a default gets it
    assert out.value.get_without_default("note") == "n/a"
    listed = ["email", "name", "id", "tenant", "missing"]
    assert [(h.key, h.value) for h in out.headers] == [("dropped", listed)]


def test_without_the_header_or_with_an_empty_one_nothing_is_dropped() -> None:
    smt = _smt(**{DROP: "dropped", "drop.fields.from.key": "true",
                  "drop.fields.keep.schema.compatible": "false",
                  "replace.null.with.default": "false"})  # fmt: skip
    plain = _smt(**{"drop.fields.from.key": "true", "drop.fields.keep.schema.compatible": "false"})
    everything = ["id", "email", "name", "note"]
    for record in (_wide("c"), _wide("c", None), _wide("c", [])):
        out = smt.apply(record)
        assert out is not None and out.value_schema is not None
        assert [f.name for f in out.value_schema.fields] == everything
        assert out.value.get_without_default("note") is None
        assert _key_values(out) == {"id": 7, "tenant": "t1"}
    unconfigured = plain.apply(_wide("c", ["email"]))
    assert _values(unconfigured) == {"id": 7, "email": "p@x", "name": "Pat", "note": "n/a"}
    assert _smt(**{DROP: "  "}).dropper is None


def test_the_first_header_of_the_name_counts() -> None:
    out = _smt(**{DROP: "dropped"}).apply(_wide("u", ["email"], ["note"]))
    assert _values(out) == {"id": 7, "name": "Pat", "note": "n/a"}


def test_a_header_that_is_not_a_list_is_an_error() -> None:
    record = _wide("c")
    record.headers.add_string("dropped", "email")
    with pytest.raises(DataError, match="Header dropped must hold a list"):
        _smt(**{DROP: "dropped"}).apply(record)


def test_a_delete_loses_the_listed_fields_before_add_fields_are_added() -> None:
    """Debezium drops from a delete's row (and __deleted) first, then adds add.fields; a
    create's added fields are there when the drop happens."""
    smt = _smt(**{DROP: "dropped", "delete.tombstone.handling.mode": "rewrite",
                  "add.fields": "op,table"})  # fmt: skip
    listed = ["email", "__deleted", "__op"]
    deleted = smt.apply(_wide("d", listed))
    assert _values(deleted) == {"id": 7, "name": "Pat", "note": "n/a", "__op": "d",
                                "__table": "people"}  # fmt: skip
    created = smt.apply(_wide("c", listed))
    assert _values(created) == {"id": 7, "name": "Pat", "note": "n/a", "__table": "people"}


@pytest.mark.parametrize("mode", ["tombstone", "delete-to-tombstone"])
def test_a_delete_made_a_tombstone_loses_key_fields(mode: str) -> None:
    smt = _smt(**{DROP: "dropped", "delete.tombstone.handling.mode": mode,
                  "drop.fields.from.key": "true"})  # fmt: skip
    out = smt.apply(_wide("d", ["tenant", "email"]))
    assert out is not None and out.value is None
    assert _key_values(out) == {"id": 7}
    assert (out.value_schema is None) == (mode == "delete-to-tombstone")


def test_drop_fields_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigException, match=r"drop\.fields\.from\.key"):
        _smt(**{DROP: "dropped", "drop.fields.from.key": "sometimes"})
    with pytest.raises(ConfigException, match=r"drop\.fields\.keep\.schema\.compatible"):
        _smt(**{"drop.fields.keep.schema.compatible": "2"})
