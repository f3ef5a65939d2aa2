"""Debezium's ``io.debezium.transforms.ExtractNewRecordState``: a change event's row state.

CDC topics carry Debezium's envelope (``before``, ``after``, ``source``, ``op``, ...); sinks
that want rows (the JDBC sink upserting by key, the HDFS/Hive sink) get ``after`` instead:

* ``c``/``u``/``r`` events become their ``after`` struct;
* ``d`` events and Debezium's tombstones follow ``delete.tombstone.handling.mode``:

  ==========================  ===============================  ===================
  mode                        ``op=d`` becomes                 Debezium tombstone
  ==========================  ===============================  ===================
  ``drop``                    dropped                          dropped
  ``tombstone`` (default)     null value, value schema kept    dropped
  ``rewrite``                 ``before`` + ``__deleted=true``  dropped
  ``rewrite-with-tombstone``  ``before`` + ``__deleted=true``  kept
  ``delete-to-tombstone``     null value and schema            dropped
  ==========================  ===============================  ===================

  (the rewrite modes add ``__deleted="false"`` to the other events);
* truncate events (``op=t``) are dropped; records that are not change events (heartbeats,
  schema changes, transactions) pass unchanged;
* ``add.fields`` / ``add.headers`` copy envelope fields into the row or the headers, named
  ``add.fields.prefix`` / ``add.headers.prefix`` (``__``) + the name with ``.`` as ``_``:
  ``op``, ``ts_ms``, ``ts_us``, ``ts_ns`` from the envelope, ``id``, ``total_order``,
  ``data_collection_order`` from ``transaction``, ``source.<f>`` or any other name from
  ``source``; ``<name>:<alias>`` names the result ``<prefix><alias>``;
* ``route.by.field`` routes to the topic named by a field of the row;
* ``drop.fields.header.name``, ``drop.fields.from.key`` and
  ``drop.fields.keep.schema.compatible`` drop the fields a header lists from the row (and the
  key): see :mod:`~seaway.connect.transforms.debezium_drop_fields`. As in Debezium, a delete's
  row loses them before ``add.fields`` are added, a create's or update's after.

``drop.tombstones`` and ``delete.handling.mode`` (removed in Debezium 3.2) are translated to
``delete.tombstone.handling.mode`` where an equivalent exists.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, Importance, Type, ValidString
from seaway.connect.api.data import Schema, SchemaType, Struct
from seaway.connect.api.records import ConnectRecord
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms._util import (
    copy_schema_basics,
    define_replace_null_with_default,
    field_value,
    simple_config,
)
from seaway.connect.transforms.debezium_drop_fields import FieldDropper, define_drop_fields
from seaway.connect.transforms.debezium_names import is_envelope

__all__ = ["ExtractNewRecordState"]

MODE: Final = "delete.tombstone.handling.mode"
MODES: Final = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
DELETED_FIELD: Final = "__deleted"
_SCHEMAS_KEPT: Final = 64
_ENVELOPE_FIELDS: Final = frozenset({"op", "ts_ms", "ts_us", "ts_ns"})
_TRANSACTION_FIELDS: Final = frozenset({"id", "total_order", "data_collection_order"})
# Debezium 3.2 removed these; (delete.handling.mode, drop.tombstones) -> the mode
_LEGACY: Final = {
    ("drop", True): "drop",
    ("none", True): "tombstone",
    ("rewrite", True): "rewrite",
    ("rewrite", False): "rewrite-with-tombstone",
}

CONFIG_DEF = define_drop_fields(define_replace_null_with_default(
    ConfigDef()
    .define(MODE, Type.STRING, "tombstone", ValidString.in_(*MODES), Importance.MEDIUM,
            "What delete events and Debezium's tombstones become.")
    .define("add.fields", Type.LIST, "", importance=Importance.LOW,
            doc="Envelope, transaction or source fields to add to the row.")
    .define("add.fields.prefix", Type.STRING, "__", importance=Importance.LOW,
            doc="Prefix of the added fields' names.")
    .define("add.headers", Type.LIST, "", importance=Importance.LOW,
            doc="Envelope, transaction or source fields to add as headers.")
    .define("add.headers.prefix", Type.STRING, "__", importance=Importance.LOW,
            doc="Prefix of the added headers' names.")
    .define("route.by.field", Type.STRING, "", importance=Importance.LOW,
            doc="A row field whose value names the record's topic.")
    .define("drop.tombstones", Type.BOOLEAN, None, importance=Importance.LOW,
            doc="Removed in Debezium 3.2: use delete.tombstone.handling.mode.")
    .define("delete.handling.mode", Type.STRING, None, importance=Importance.LOW,
            doc="Removed in Debezium 3.2: use delete.tombstone.handling.mode.")
))  # fmt: skip


@dataclass(frozen=True)
class _Addition:
    """One ``add.fields``/``add.headers`` entry: where its value is, and its name."""

    struct: str | None  # None: the envelope; else "transaction" or "source"
    field: str
    name: str

    @staticmethod
    def parse(entry: str, prefix: str) -> _Addition:
        reference, _, alias = entry.strip().partition(":")
        if reference in _ENVELOPE_FIELDS:
            struct, field = None, reference
        elif reference in _TRANSACTION_FIELDS:
            struct, field = "transaction", reference
        else:
            struct, field = "source", reference.removeprefix("source.")
        return _Addition(struct, field, prefix + (alias or reference).replace(".", "_"))

    def schema_in(self, envelope: Schema) -> Schema | None:
        holder = envelope if self.struct is None else _field_schema(envelope, self.struct)
        return None if holder is None else _field_schema(holder, self.field)

    def value_in(self, envelope: Struct) -> Any:
        holder = envelope if self.struct is None else envelope.get(self.struct)
        if holder is None or holder.schema.field(self.field) is None:
            return None
        return holder.get(self.field)


def _field_schema(schema: Schema, name: str) -> Schema | None:
    field = schema.field(name) if schema.type is SchemaType.STRUCT else None
    return None if field is None else field.schema


def _optional(schema: Schema) -> Schema:
    if schema.is_optional:
        return schema
    builder = copy_schema_basics(schema)
    if schema.type is SchemaType.STRUCT:
        for field in schema.fields:
            builder.field(field.name, field.schema)
    return builder.optional().build()


class ExtractNewRecordState(Transformation[ConnectRecord]):
    """See the module docstring."""

    OVERVIEW_DOC = (
        "Replace a Debezium change event by the row state it carries (after, or before for "
        "deletes as delete.tombstone.handling.mode says), optionally with envelope fields."
    )
    CONFIG_DEF = CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        config = simple_config(CONFIG_DEF, configs)
        self.mode = self._mode(configs, str(config.get_string(MODE)))
        self.replace_null_with_default = bool(config.get_boolean("replace.null.with.default"))
        fields_prefix = str(config.get_string("add.fields.prefix"))
        headers_prefix = str(config.get_string("add.headers.prefix"))
        self.fields = [
            _Addition.parse(e, fields_prefix) for e in config.get_list("add.fields") or []
        ]
        self.headers = [
            _Addition.parse(e, headers_prefix) for e in config.get_list("add.headers") or []
        ]
        self.route_by = str(config.get_string("route.by.field") or "")
        self.dropper = FieldDropper.from_config(config)
        self._schemas: dict[tuple[Schema, Schema], Schema] = {}  # (envelope, row) -> new row

    @staticmethod
    def _mode(configs: Mapping[str, Any], mode: str) -> str:
        """The mode, translated from the removed settings when only they are given."""
        legacy, drop = configs.get("delete.handling.mode"), configs.get("drop.tombstones")
        if MODE in configs or (legacy is None and drop is None):
            return mode
        key = (str(legacy or "drop").strip().lower(), str(drop).strip().lower() != "false")
        if key not in _LEGACY:
            raise ConfigException(
                "delete.handling.mode", legacy,
                "delete.handling.mode and drop.tombstones were removed in Debezium 3.2 and this "
                f"combination has no equivalent: set {MODE} to one of {', '.join(MODES)}",
            )  # fmt: skip
        return _LEGACY[key]

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = record.value_schema
        if record.value is None:  # Debezium's tombstone (or any null value)
            if schema is not None and not is_envelope(schema):
                return record
            return record if self.mode == "rewrite-with-tombstone" else None
        if not is_envelope(schema):
            return record
        envelope: Struct = record.value
        op = envelope.get("op")
        if op == "t":
            return None
        deleted = op == "d"
        if deleted and self.mode == "drop":
            return None
        row_struct_schema = _field_schema(schema, "after" if not deleted else "before")
        assert row_struct_schema is not None
        headers = record.headers.duplicate()
        for addition in self.headers:
            headers.add(addition.name, addition.value_in(envelope),
                        _optional_or_string(addition.schema_in(schema)))  # fmt: skip
        if deleted and self.mode == "tombstone":
            return self._drop(record.new_record(value=None, headers=headers))
        if deleted and self.mode == "delete-to-tombstone":
            return self._drop(record.new_record(value_schema=None, value=None, headers=headers))
        row = envelope.get("before" if deleted else "after")
        if row is None:  # an update without a before image can't be a delete; keep it
            return record.new_record(value_schema=row_struct_schema, value=None, headers=headers)
        new_schema = self._row_schema(schema, row.schema)
        value = Struct(new_schema)
        for field in row.schema.fields:
            value.put(field.name, field_value(row, field, self.replace_null_with_default))
        for addition in self.fields:
            if new_schema.field(addition.name) is not None:
                value.put(addition.name, addition.value_in(envelope))
        if self.mode.startswith("rewrite"):
            value.put(DELETED_FIELD, "true" if deleted else "false")
        topic = record.topic
        if self.route_by:
            routed = value.get(self.route_by) if new_schema.field(self.route_by) else None
            topic = str(routed) if routed is not None else topic
        unwrapped = record.new_record(topic=topic, value_schema=new_schema, value=value,
                                      headers=headers)  # fmt: skip
        # Debezium adds a delete's add.fields after dropping fields: those are never dropped
        return self._drop(unwrapped, {a.name for a in self.fields} if deleted else ())

    def _drop(self, record: ConnectRecord, spared: Collection[str] = ()) -> ConnectRecord:
        """*record* without the fields its drop.fields header lists (if configured)."""
        return record if self.dropper is None else self.dropper.apply(record, spared)

    def _row_schema(self, envelope: Schema, row: Schema) -> Schema:
        """The row's schema with the added fields (and ``__deleted``), built once per pair."""
        cached = self._schemas.get((envelope, row))
        if cached is not None:
            return cached
        builder = copy_schema_basics(row)
        for field in row.fields:
            builder.field(field.name, field.schema)
        for addition in self.fields:
            field_schema = addition.schema_in(envelope)
            if field_schema is not None:
                builder.field(addition.name, _optional(field_schema))
        if self.mode.startswith("rewrite"):
            builder.field(DELETED_FIELD, Schema.OPTIONAL_STRING_SCHEMA)
        if row.is_optional:
            builder.optional()
        if len(self._schemas) >= _SCHEMAS_KEPT:
            self._schemas.clear()
        built = self._schemas[(envelope, row)] = builder.build()
        return built

    def close(self) -> None:
        pass


def _optional_or_string(schema: Schema | None) -> Schema:
    return Schema.OPTIONAL_STRING_SCHEMA if schema is None else _optional(schema)
