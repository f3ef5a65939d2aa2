"""The AvroConverter against Seaway's registry, and against Confluent's own serializer and
deserializer in both directions."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp
from seaway.connect.api.errors import DataError
from seaway.connect.converters.registry import new_converter
from seaway.registry.server import RegistryServer

pytestmark = pytest.mark.waits


def _converter(registry: RegistryServer, **extra: str) -> object:
    return new_converter(
        "io.confluent.connect.avro.AvroConverter",
        {"schema.registry.url": registry.url, **extra},
        False,
    )


ADDRESS = SchemaBuilder.struct().name("test.Address").field("city", Schema.STRING_SCHEMA).build()
LOGIN = (
    SchemaBuilder.struct()
    .name("test.Login")
    .field("id", Schema.INT64_SCHEMA)
    .field("small", Schema.INT8_SCHEMA)
    .field("medium", Schema.INT16_SCHEMA)
    .field("score", Schema.FLOAT64_SCHEMA)
    .field("ratio", Schema.FLOAT32_SCHEMA)
    .field("active", Schema.BOOLEAN_SCHEMA)
    .field("user", Schema.STRING_SCHEMA)
    .field("token", Schema.BYTES_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
    .field("counts", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
    .field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
    .field("address", ADDRESS)
    .field("amount", Decimal.schema(2))
    .field("day", Date.SCHEMA)
    .field("at", Time.SCHEMA)
    .field("login_time", Timestamp.SCHEMA)
    .build()
)


def _login() -> Struct:
    return (
        Struct(LOGIN)
        .put("id", 42).put("small", -3).put("medium", 300).put("score", 2.5).put("ratio", 0.5)
        .put("active", True).put("user", "ada").put("token", b"\x00\xff").put("email", None)
        .put("tags", ["a", "b"]).put("counts", {"x": 1}).put("by_id", {7: "seven"})
        .put("address", Struct(ADDRESS).put("city", "Turin"))
        .put("amount", decimal.Decimal("12.34")).put("day", dt.date(2026, 11, 25))
        .put("at", dt.time(10, 30, 0))
        .put("login_time", dt.datetime(2026, 11, 25, 10, 30, tzinfo=dt.UTC))
    )  # fmt: skip


def test_round_trip_through_the_registry(registry: RegistryServer) -> None:
    converter = _converter(registry)
    data = converter.from_connect_data("login", LOGIN, _login())
    assert data[0] == 0 and int.from_bytes(data[1:5], "big") >= 1
    schema, value = _converter(registry).to_connect_data("login", data)
    assert schema.name == "test.Login"
    assert schema.field("small").schema.type == Schema.INT8_SCHEMA.type
    amount = schema.field("amount").schema
    assert amount.name == Decimal.LOGICAL_NAME and amount.parameters["scale"] == "2"
    assert schema.field("email").schema.is_optional
    expected = _login()
    for field in LOGIN.fields:
        if field.name != "address":
            assert value.get(field.name) == expected.get(field.name), field.name
    assert value.get("address").schema.name == "test.Address"
    assert value.get("address").get("city") == "Turin"
    assert SchemaRegistryClient({"url": registry.url}).get_subjects() == ["login-value"]


def test_confluents_serializers_read_and_write_the_same_bytes(registry: RegistryServer) -> None:
    client = SchemaRegistryClient({"url": registry.url})
    context = SerializationContext("login", MessageField.VALUE)
    data = _converter(registry).from_connect_data("login", LOGIN, _login())
    read = AvroDeserializer(client)(data, context)
    assert read["user"] == "ada" and read["amount"] == decimal.Decimal("12.34")
    assert read["by_id"] == [{"key": 7, "value": "seven"}]  # Confluent's MapEntry array
    assert read["day"] == dt.date(2026, 11, 25)
    schema = client.get_latest_version("login-value").schema.schema_str
    written = AvroSerializer(client, schema)(read, context)
    _, value = _converter(registry).to_connect_data("login", written)
    assert value.get("by_id") == {7: "seven"} and value.get("user") == "ada"


def test_a_new_optional_field_evolves_and_an_incompatible_one_is_refused(
    registry: RegistryServer,
) -> None:
    converter = _converter(registry)
    v1 = SchemaBuilder.struct().name("test.User").field("id", Schema.INT32_SCHEMA).build()
    v2 = (
        SchemaBuilder.struct().name("test.User").field("id", Schema.INT32_SCHEMA)
        .field("email", Schema.OPTIONAL_STRING_SCHEMA).build()
    )  # fmt: skip
    broken = (
        SchemaBuilder.struct().name("test.User").field("id", Schema.INT32_SCHEMA)
        .field("phone", Schema.STRING_SCHEMA).build()
    )  # fmt: skip
    first = converter.from_connect_data("users", v1, Struct(v1).put("id", 1))
    second = converter.from_connect_data("users", v2, Struct(v2).put("id", 2).put("email", "e"))
    assert first[1:5] != second[1:5]
    assert SchemaRegistryClient({"url": registry.url}).get_versions("users-value") == [1, 2]
    with pytest.raises(DataError, match=r"409.*users-value.*phone"):
        converter.from_connect_data("users", broken, Struct(broken).put("id", 3).put("phone", "p"))
    # Old records still read with their own schema: email was not there.
    schema, value = converter.to_connect_data("users", first)
    assert schema.field("email") is None and value.get("id") == 1


def test_bad_input_gets_clear_errors(registry: RegistryServer) -> None:
    converter = _converter(registry)
    with pytest.raises(DataError, match="Unknown magic byte"):
        converter.to_connect_data("t", b"\x01\x00\x00\x00\x01abc")
    with pytest.raises(DataError, match=r"404.*Schema 999 not found"):
        converter.to_connect_data("t", b"\x00\x00\x00\x03\xe7\x02")
    good = converter.from_connect_data("t", Schema.STRING_SCHEMA, "hello")
    with pytest.raises(DataError, match="Failed to deserialize"):
        converter.to_connect_data("t", good[:5] + b"\xff\xff\xff")
    strict = _converter(registry, **{"auto.register.schemas": "false"})
    with pytest.raises(DataError, match=r"Subject .other-value. not found"):
        strict.from_connect_data("other", Schema.STRING_SCHEMA, "x")
    with pytest.raises(Exception, match=r"schema\.registry\.url"):
        new_converter("io.confluent.connect.avro.AvroConverter", {}, False)


ROW = (
    SchemaBuilder.struct().name("dbserver1.inventory.customers.Value").optional()
    .field("id", Schema.INT32_SCHEMA).field("email", Schema.OPTIONAL_STRING_SCHEMA).build()
)  # fmt: skip
ENVELOPE = (
    SchemaBuilder.struct().name("dbserver1.inventory.customers.Envelope").version(2)
    .field("before", ROW).field("after", ROW).field("op", Schema.STRING_SCHEMA).build()
)  # fmt: skip


def test_a_struct_schema_used_twice_is_defined_once(registry: RegistryServer) -> None:
    """Debezium's envelope: ``before`` and ``after`` share the row schema, which Avro allows
    one definition; the second is a reference by name (as Confluent's AvroData writes)."""
    update = (
        Struct(ENVELOPE).put("before", Struct(ROW).put("id", 1).put("email", "a@example.org"))
        .put("after", Struct(ROW).put("id", 1).put("email", "b@example.org")).put("op", "u")
    )  # fmt: skip
    data = _converter(registry).from_connect_data("customers", ENVELOPE, update)
    client = SchemaRegistryClient({"url": registry.url})
    registered = client.get_latest_version("customers-value").schema.schema_str
    assert registered.count('"name": "Value"') + registered.count('"name":"Value"') == 1
    assert '"dbserver1.inventory.customers.Value"' in registered  # the reference
    read = AvroDeserializer(client)(data, SerializationContext("customers", MessageField.VALUE))
    assert read["before"]["email"] == "a@example.org" and read["after"]["email"] == "b@example.org"
    schema, value = _converter(registry).to_connect_data("customers", data)
    assert schema.field("after").schema == schema.field("before").schema
    assert schema.field("after").schema.name == "dbserver1.inventory.customers.Value"
    assert value.get("after").get("email") == "b@example.org"
    other = SchemaBuilder.struct().name(ROW.name).field("x", Schema.INT8_SCHEMA).build()
    clash = SchemaBuilder.struct().name("e").field("a", ROW).field("b", other).build()
    with pytest.raises(DataError, match="Two different schemas are named dbserver1"):
        _converter(registry).from_connect_data("clash", clash, Struct(clash).put(
            "a", Struct(ROW).put("id", 1)).put("b", Struct(other).put("x", 1)))  # fmt: skip


PRECISION = "connect.decimal.precision"
FLAT = (
    SchemaBuilder.struct()
    .name("test.Row")
    .field("id", Schema.INT64_SCHEMA)
    .field("small", Schema.OPTIONAL_INT8_SCHEMA)
    .field("medium", Schema.INT16_SCHEMA)
    .field("n", Schema.OPTIONAL_INT32_SCHEMA)
    .field("score", Schema.FLOAT64_SCHEMA)
    .field("ratio", Schema.OPTIONAL_FLOAT32_SCHEMA)
    .field("active", Schema.BOOLEAN_SCHEMA)
    .field("user", Schema.OPTIONAL_STRING_SCHEMA)
    .field("token", Schema.OPTIONAL_BYTES_SCHEMA)
    .field(
        "amount", Decimal.builder(2).optional().parameter("connect.decimal.precision", "12").build()
    )
    .field("day", Date.builder().optional().build())
    .field("at", Time.SCHEMA)
    .field("seen", Timestamp.builder().optional().build())
    .build()
)


def _flat_rows(count: int) -> list[Struct]:
    import random

    rng = random.Random(32)
    base = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)

    def maybe(value: object) -> object:
        return None if rng.random() < 0.2 else value

    return [
        Struct(FLAT)
        .put("id", rng.randrange(-(2**63), 2**63)).put("small", maybe(rng.randrange(-128, 128)))
        .put("medium", rng.randrange(-(2**15), 2**15)).put("n", maybe(rng.randrange(2**31)))
        .put("score", rng.uniform(-1e9, 1e9)).put("ratio", maybe(0.25 * rng.randrange(100)))
        .put("active", rng.random() < 0.5)
        .put("user", maybe("".join(rng.choice("aé\"\\ z😀") for _ in range(rng.randrange(9)))))
        .put("token", maybe(rng.randbytes(rng.randrange(5))))
        .put("amount", maybe(decimal.Decimal(rng.randrange(-10**9, 10**9)).scaleb(-2)))
        .put("day", maybe(dt.date(2000, 1, 1) + dt.timedelta(days=rng.randrange(10_000))))
        .put("at", dt.time(rng.randrange(24), rng.randrange(60), 0, 1000 * rng.randrange(1000)))
        .put("seen", maybe(base + dt.timedelta(milliseconds=rng.randrange(10**10))))
        for _ in range(count)
    ]  # fmt: skip


def test_struct_columns_convert_in_one_pass_as_record_by_record(
    registry: RegistryServer,
) -> None:
    """The batch contract: a struct column of a flat schema gives the bytes each Struct
    gives, and a column of those bytes gives back the values each record would."""

    from seaway.connect.api.data.arrow import connect_values, structs_to_table

    rows = _flat_rows(2000)
    table = structs_to_table(FLAT, rows)
    column = table.to_struct_array().combine_chunks()
    writer = _converter(registry)
    encoded = writer.from_connect_column("rows", FLAT, column)
    assert encoded is not None, "a flat struct column goes in one pass"
    expected = [writer.from_connect_data("rows", FLAT, r) for r in connect_values(FLAT, column)]
    assert encoded.to_pylist() == expected

    reader = _converter(registry)
    decoded = reader.to_connect_column("rows", encoded)
    assert decoded is not None, "one schema's Avro values come back as a struct column"
    schema, values = decoded
    assert schema is not None and schema.name == "test.Row"
    records = [reader.to_connect_data("rows", v).value for v in expected]
    assert connect_values(schema, values) == records


def test_what_the_column_paths_leave_to_the_record_path(registry: RegistryServer) -> None:
    import pyarrow as pa

    from seaway.connect.api.data.arrow import structs_to_table

    converter = _converter(registry)
    # nested fields: record by record
    nested = structs_to_table(LOGIN, [_login()]).to_struct_array().combine_chunks()
    assert converter.from_connect_column("login", LOGIN, nested) is None
    data = converter.from_connect_data("login", LOGIN, _login())
    assert converter.to_connect_column("login", pa.array([data], pa.binary())) is None
    one, other = (converter.from_connect_data("rows", FLAT, r) for r in _flat_rows(2))
    assert converter.to_connect_column("rows", pa.array([one, other], pa.binary())) is not None
    address = converter.from_connect_data("a", ADDRESS, Struct(ADDRESS).put("city", "Turin"))
    mixed = pa.array([one, address], pa.binary())  # two schema ids
    assert converter.to_connect_column("rows", mixed) is None
    broken = pa.array([one, one[:7]], pa.binary())  # a value cut short
    assert converter.to_connect_column("rows", broken) is None
    assert converter.to_connect_column("rows", pa.array([b"\x01abcd"], pa.binary())) is None
