"""Connect data and Avro, as Confluent's ``AvroData`` maps them.

Schemas: STRUCT is an Avro record (its Connect name split into Avro name and namespace;
unnamed ones are ``io.confluent.connect.avro.ConnectDefault``), an optional schema a union
``["null", T]`` defaulting to null, INT8/INT16 an ``int`` marked ``"connect.type"``, a MAP
with string keys an Avro map and any other MAP an array of ``MapEntry`` records; Connect's
logical types are Avro's (``decimal`` with ``scale``/``precision``, ``date``,
``time-millis``, ``timestamp-millis``), and names, versions, docs and parameters travel as
``connect.name``, ``connect.version``, ``connect.doc`` and ``connect.parameters``.

Values: a Struct is a dict, logical values stay Python's (``decimal.Decimal``,
``datetime.date``/``time``/``datetime``), which fastavro encodes by the schema's logical
types; reading back builds the Connect schema from the writer's Avro schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast

from seaway.connect.api.data.builder import SchemaBuilder
from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp
from seaway.connect.api.data.schema import Schema, SchemaType
from seaway.connect.api.data.struct import Struct
from seaway.connect.api.errors import DataError

__all__ = [
    "from_connect_schema",
    "from_connect_value",
    "is_flat",
    "to_connect_schema",
    "to_connect_value",
]

NAMESPACE: Final = "io.confluent.connect.avro"
DEFAULT_NAME: Final = f"{NAMESPACE}.ConnectDefault"
_PRECISION: Final = "connect.decimal.precision"
_PRIMITIVES: Final = {
    SchemaType.INT32: "int", SchemaType.INT64: "long", SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double", SchemaType.BOOLEAN: "boolean", SchemaType.STRING: "string",
    SchemaType.BYTES: "bytes", SchemaType.INT8: "int", SchemaType.INT16: "int",
}  # fmt: skip
_AVRO_PRIMITIVES: Final = frozenset(
    {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
)
_AVRO_TYPES: Final = _AVRO_PRIMITIVES | {"record", "enum", "array", "map", "fixed"}
_NESTED: Final = frozenset({SchemaType.STRUCT, SchemaType.ARRAY, SchemaType.MAP})
_LOGICAL: Final = {
    Date.LOGICAL_NAME: "date",
    Time.LOGICAL_NAME: "time-millis",
    Timestamp.LOGICAL_NAME: "timestamp-millis",
}


def _element(schema: Schema | None) -> Schema:
    """An ARRAY's or MAP's element schema: SchemaBuilder requires them (not checked here)."""
    return cast(Schema, schema)


def _split(name: str) -> tuple[str, str | None]:
    namespace, _, simple = name.rpartition(".")
    return simple, namespace or None


def from_connect_schema(schema: Schema) -> Any:
    """The Avro schema (JSON) of a Connect schema."""
    return _AvroSchemas().convert(schema)


class _AvroSchemas:
    """One conversion: unnamed structs get ConnectDefault, ConnectDefault2, ...; a named
    struct met again (Debezium's ``before`` and ``after`` share ``<topic>.Value``) is referred
    to by its full name, as Avro allows a name one definition."""

    def __init__(self) -> None:
        self.unnamed = 0
        self.defined: dict[str, Schema] = {}

    def convert(self, schema: Schema, optional_wrap: bool = True) -> Any:
        base = self._base(schema)
        if schema.is_optional and optional_wrap:
            if schema.default_value is None:
                return ["null", base]
            return [base, "null"]
        return base

    def _base(self, schema: Schema) -> Any:
        kind = schema.type
        props: dict[str, Any] = {}
        if schema.version is not None:
            props["connect.version"] = schema.version
        if schema.doc is not None:
            props["connect.doc"] = schema.doc
        params = dict(schema.parameters or {})
        if schema.name == Decimal.LOGICAL_NAME:
            scale = int(params.get(Decimal.SCALE_FIELD, "0"))
            precision = int(params.get(_PRECISION, "64"))
            return {"type": "bytes", "scale": scale, "precision": precision, **props,
                    "connect.parameters": params, "connect.name": schema.name,
                    "logicalType": "decimal"}  # fmt: skip
        if schema.name in _LOGICAL:
            return {"type": _PRIMITIVES[kind], **props, "connect.name": schema.name,
                    "logicalType": _LOGICAL[schema.name]}  # fmt: skip
        if params:
            props["connect.parameters"] = params
        if kind in _PRIMITIVES:
            if kind in (SchemaType.INT8, SchemaType.INT16):
                props["connect.type"] = kind.value
            if schema.name is not None:
                props["connect.name"] = schema.name
            return {"type": _PRIMITIVES[kind], **props} if props else _PRIMITIVES[kind]
        if kind is SchemaType.ARRAY:
            return {"type": "array", "items": self.convert(_element(schema.value_schema)), **props}
        if kind is SchemaType.MAP:
            key, value = _element(schema.key_schema), _element(schema.value_schema)
            if key.type is SchemaType.STRING and not key.is_optional:
                return {"type": "map", "values": self.convert(value), **props}
            entry = {"type": "record", "name": "MapEntry", "namespace": NAMESPACE, "fields": [
                {"name": "key", "type": self.convert(key)},
                {"name": "value", "type": self.convert(value)}]}  # fmt: skip
            return {"type": "array", "items": entry, **props}
        if kind is SchemaType.STRUCT:
            if schema.name and schema.name in self.defined:
                if self.defined[schema.name] != schema:
                    raise DataError(
                        f"Two different schemas are named {schema.name} in one Avro schema, "
                        "which allows one definition per name: rename one of the structs"
                    )
                return schema.name
            if schema.name:
                self.defined[schema.name] = schema
                name, namespace = _split(schema.name)
            else:
                self.unnamed += 1
                suffix = "" if self.unnamed == 1 else str(self.unnamed)
                name, namespace = f"ConnectDefault{suffix}", NAMESPACE
            fields = []
            for field in schema.fields:
                avro_field: dict[str, Any] = {"name": field.name,
                                              "type": self.convert(field.schema)}  # fmt: skip
                if field.schema.is_optional and field.schema.default_value is None:
                    avro_field["default"] = None
                elif field.schema.default_value is not None:
                    avro_field["default"] = _default(field.schema, field.schema.default_value)
                fields.append(avro_field)
            record: dict[str, Any] = {"type": "record", "name": name}
            if namespace:
                record["namespace"] = namespace
            record["fields"] = fields
            record.update(props)
            if schema.name:
                record["connect.name"] = schema.name
            return record
        raise DataError(f"Unknown schema type: {kind}")


def _default(schema: Schema, value: Any) -> Any:
    """A field default in Avro's JSON encoding (bytes as ISO-8859-1 text)."""
    if schema.name in _LOGICAL or schema.name == Decimal.LOGICAL_NAME:
        value = _physical(schema, value)
    if isinstance(value, bytes):
        return value.decode("iso-8859-1")
    if isinstance(value, Struct):
        return {f.name: _default(f.schema, value.get(f.name)) for f in value.schema.fields}
    return value


def _physical(schema: Schema, value: Any) -> Any:
    for logical in (Decimal, Date, Time, Timestamp):
        if schema.name == logical.LOGICAL_NAME:
            return logical.from_logical(schema, value)
    return value


def from_connect_value(schema: Schema, value: Any) -> Any:
    """A Connect value as the Avro datum fastavro writes for :func:`from_connect_schema`."""
    if value is None:
        return None
    kind = schema.type
    if kind is SchemaType.STRUCT:
        if not isinstance(value, Struct):
            raise DataError(f"Expected a Struct for schema {schema.name}, got {type(value)}")
        out = {}
        for field in schema.fields:  # the Field itself: no lookup by name per value
            item = value.get(field)
            nested = item is not None and field.schema.type in _NESTED
            out[field.name] = from_connect_value(field.schema, item) if nested else item
        return out
    if kind is SchemaType.ARRAY:
        element = _element(schema.value_schema)
        return [from_connect_value(element, v) for v in value]
    if kind is SchemaType.MAP:
        key_schema, value_schema = _element(schema.key_schema), _element(schema.value_schema)
        if key_schema.type is SchemaType.STRING and not key_schema.is_optional:
            return {k: from_connect_value(value_schema, v) for k, v in value.items()}
        return [
            {"key": from_connect_value(key_schema, k), "value": from_connect_value(value_schema, v)}
            for k, v in value.items()
        ]
    return value


def is_flat(schema: Schema) -> bool:
    """Whether *schema* is a STRUCT of primitive and logical fields without defaults, whose
    values are the same Python objects as a struct column's rows (``to_pylist``) and as
    the Avro datums fastavro reads and writes: the converter's column paths."""
    return schema.type is SchemaType.STRUCT and all(
        f.schema.type not in _NESTED and f.schema.default_value is None for f in schema.fields
    )


def to_connect_schema(avro: Any) -> Schema:
    """The Connect schema of an Avro schema (as :func:`from_connect_schema` writes them;
    other Avro schemas map to the nearest Connect types)."""
    return _connect(avro, optional=False, names={}).build()


def _connect(avro: Any, optional: bool, names: dict[str, Any]) -> SchemaBuilder:
    """*avro* as a Connect schema builder; *names*: the records defined so far, by full name
    (a later use of a name refers to its definition)."""
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        if len(branches) != 1:
            raise DataError(f"Avro union {avro} has no Connect equivalent (only [null, T] has)")
        builder = _connect(branches[0], optional=False, names=names)
        return builder.optional() if len(branches) < len(avro) else builder
    if isinstance(avro, str) and avro not in _AVRO_PRIMITIVES:
        return _connect(_defined(avro, names), optional, names)
    node: Mapping[str, Any] = avro if isinstance(avro, dict) else {"type": avro}
    kind, logical, name = node["type"], node.get("logicalType"), node.get("connect.name")
    if isinstance(kind, (dict, list)) or kind not in _AVRO_TYPES:  # {"type": <schema>}
        builder = _connect(kind, optional=False, names=names)
        return builder.optional() if optional else builder
    params = dict(node.get("connect.parameters") or {})
    if logical == "decimal" or name == Decimal.LOGICAL_NAME:
        scale = int(node.get("scale", params.get(Decimal.SCALE_FIELD, 0)))
        builder = Decimal.builder(scale)
        precision = node.get("precision")
        if precision is not None:
            builder.parameter(_PRECISION, str(precision))
    elif logical == "date":
        builder = Date.builder()
    elif logical == "time-millis":
        builder = Time.builder()
    elif logical == "timestamp-millis":
        builder = Timestamp.builder()
    elif kind == "record":
        builder = SchemaBuilder.struct()
        full = name or (f"{node['namespace']}.{node['name']}" if node.get("namespace")
                        else node["name"])  # fmt: skip
        names[full] = node
        if not full.startswith(f"{NAMESPACE}.ConnectDefault"):
            builder.name(full)
        for item in node["fields"]:
            field = _connect(item["type"], optional=False, names=names)
            if "default" in item and item["default"] is not None:
                field.default_value(_from_default(field.build(), item["default"]))
            builder.field(item["name"], field.build())
    elif kind == "array":
        items = node["items"]
        entry = items if isinstance(items, dict) else {}
        if entry.get("type") == "record" and entry.get("name") == "MapEntry":
            fields = {f["name"]: f["type"] for f in entry["fields"]}
            key = _connect(fields["key"], optional=False, names=names).build()
            value = _connect(fields["value"], optional=False, names=names).build()
            builder = SchemaBuilder.map(key, value)
        else:
            builder = SchemaBuilder.array(_connect(items, optional=False, names=names).build())
    elif kind == "map":
        value = _connect(node["values"], optional=False, names=names).build()
        builder = SchemaBuilder.map(Schema.STRING_SCHEMA, value)
    elif kind in ("int", "long", "float", "double", "boolean", "string", "bytes"):
        connect_type = node.get("connect.type")
        types: dict[str | None, SchemaType] = {"int8": SchemaType.INT8, "int16": SchemaType.INT16}
        physical = {"int": SchemaType.INT32, "long": SchemaType.INT64,
                    "float": SchemaType.FLOAT32, "double": SchemaType.FLOAT64,
                    "boolean": SchemaType.BOOLEAN, "string": SchemaType.STRING,
                    "bytes": SchemaType.BYTES}[kind]  # fmt: skip
        builder = SchemaBuilder.of_type(types.get(connect_type, physical))
        if name:
            builder.name(name)
    elif kind in ("enum",):
        builder = SchemaBuilder.string()
    elif kind == "fixed":
        builder = SchemaBuilder.bytes()
    else:
        raise DataError(f"Avro type {kind} has no Connect equivalent")
    if node.get("connect.version") is not None:
        builder.version(int(node["connect.version"]))
    if node.get("connect.doc") is not None:
        builder.doc(str(node["connect.doc"]))
    if params and logical != "decimal" and name != Decimal.LOGICAL_NAME:
        builder.parameters(params)
    return builder.optional() if optional else builder


def _defined(reference: str, names: Mapping[str, Any]) -> Any:
    """The record a name refers to: by its full name, else by its name alone."""
    if reference in names:
        return names[reference]
    matches = [node for full, node in names.items() if full.rsplit(".", 1)[-1] == reference]
    if len(matches) != 1:
        raise DataError(f"Avro schema refers to {reference}, which it does not define")
    return matches[0]


def _from_default(schema: Schema, value: Any) -> Any:
    if isinstance(value, str) and schema.type is SchemaType.BYTES:
        raw = value.encode("iso-8859-1")
        return Decimal.to_logical(schema, raw) if schema.name == Decimal.LOGICAL_NAME else raw
    return value


def to_connect_value(schema: Schema, datum: Any) -> Any:
    """An Avro datum (as fastavro reads it) as the Connect value of *schema*."""
    if datum is None:
        return None
    kind = schema.type
    if kind is SchemaType.STRUCT:
        # fastavro read the datum with its types: each value fits its field's schema.
        return Struct.of_values(
            schema, [to_connect_value(f.schema, datum.get(f.name)) for f in schema.fields]
        )
    if kind is SchemaType.ARRAY:
        element = _element(schema.value_schema)
        return [to_connect_value(element, v) for v in datum]
    if kind is SchemaType.MAP:
        key_schema, value_schema = _element(schema.key_schema), _element(schema.value_schema)
        if isinstance(datum, list):
            return {to_connect_value(key_schema, e["key"]):
                    to_connect_value(value_schema, e["value"]) for e in datum}  # fmt: skip
        return {k: to_connect_value(value_schema, v) for k, v in datum.items()}
    if schema.name == Timestamp.LOGICAL_NAME and not hasattr(datum, "tzinfo"):
        return Timestamp.to_logical(schema, datum)
    return datum
