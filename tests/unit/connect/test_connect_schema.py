"""Schema, SchemaBuilder, Struct, SchemaAndValue and value validation."""

from __future__ import annotations

import datetime as dt
import decimal
import pickle

import pytest

from seaway.connect.api.data import (
    ConnectSchema,
    Date,
    Decimal,
    Field,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SchemaType,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.api.errors import DataError, SchemaBuilderError

USER = (
    SchemaBuilder.struct()
    .name("com.example.User")
    .field("id", Schema.INT32_SCHEMA)
    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
    .field("level", SchemaBuilder.int8().default_value(3).build())
    .build()
)


# ---------------------------------------------------------------------------- types, constants


def test_schema_types_match_kafka() -> None:
    assert [t.name for t in SchemaType] == [
        "INT8",
        "INT16",
        "INT32",
        "INT64",
        "FLOAT32",
        "FLOAT64",
        "BOOLEAN",
        "STRING",
        "BYTES",
        "ARRAY",
        "MAP",
        "STRUCT",
    ]
    assert str(SchemaType.INT32) == "INT32"
    assert Schema.Type is SchemaType
    assert SchemaType.BYTES.is_primitive and not SchemaType.MAP.is_primitive


@pytest.mark.parametrize("schema_type", [t for t in SchemaType if t.is_primitive])
def test_predefined_schemas(schema_type: SchemaType) -> None:
    required = getattr(Schema, f"{schema_type.name}_SCHEMA")
    optional = getattr(Schema, f"OPTIONAL_{schema_type.name}_SCHEMA")
    assert required == Schema(schema_type) == SchemaBuilder(schema_type).build()
    assert (required.type, required.is_optional) == (schema_type, False)
    assert (optional.type, optional.is_optional) == (schema_type, True)
    assert required != optional


def test_connect_schema_is_schema() -> None:
    assert ConnectSchema is Schema


def test_schema_str_like_kafka() -> None:
    assert str(Schema.STRING_SCHEMA) == "Schema{STRING}"
    assert str(USER) == "Schema{com.example.User:STRUCT}"


# ---------------------------------------------------------------------------- builder


def test_builder_sets_every_attribute() -> None:
    schema = (
        SchemaBuilder.int64()
        .optional()
        .name("n")
        .version(2)
        .doc("the doc")
        .parameter("a", "1")
        .parameters({"b": "2"})
        .default_value(5)
        .build()
    )
    assert schema.is_optional
    assert (schema.name, schema.version, schema.doc, schema.default_value) == ("n", 2, "the doc", 5)
    assert dict(schema.parameters or {}) == {"a": "1", "b": "2"}
    assert list(schema.parameters or {}) == ["a", "b"]


def test_builder_empty_parameters_stay_none() -> None:
    assert SchemaBuilder.string().parameters({}).build().parameters is None


def test_builder_struct_fields_are_ordered_and_indexed() -> None:
    assert [(f.name, f.index) for f in USER.fields] == [
        ("id", 0),
        ("name", 1),
        ("tags", 2),
        ("level", 3),
    ]
    assert USER.field("name") == Field("name", 1, Schema.OPTIONAL_STRING_SCHEMA)
    assert USER.field("missing") is None


def test_builder_array_and_map() -> None:
    array = SchemaBuilder.array(Schema.INT32_SCHEMA).build()
    assert array.value_schema == Schema.INT32_SCHEMA
    mapping = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build()
    assert (mapping.key_schema, mapping.value_schema) == (Schema.STRING_SCHEMA, Schema.INT64_SCHEMA)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: SchemaBuilder.string().name("a").name("b"), "name has already been set."),
        (lambda: SchemaBuilder.string().optional().required(), "optional has already been set."),
        (lambda: SchemaBuilder.string().version(1).version(2), "version has already been set."),
        (lambda: SchemaBuilder.string().doc("a").doc("b"), "doc has already been set."),
        (lambda: SchemaBuilder.int32().field("f", Schema.INT32_SCHEMA), "Cannot create fields"),
        (lambda: SchemaBuilder.struct().field("", Schema.INT32_SCHEMA), "fieldName cannot be null"),
        (
            lambda: (
                SchemaBuilder.struct().field("f", Schema.INT8_SCHEMA).field("f", Schema.INT8_SCHEMA)
            ),
            "field name duplication f",
        ),
        (lambda: SchemaBuilder.array(None), "valueSchema cannot be null."),  # type: ignore[arg-type]
        (lambda: SchemaBuilder.map(None, Schema.INT8_SCHEMA), "keySchema cannot be null."),  # type: ignore[arg-type]
        (lambda: SchemaBuilder.int8().default_value("x"), "Invalid default value"),
        (lambda: SchemaBuilder.int8().default_value(None), "Invalid default value"),
    ],
)
def test_builder_errors(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SchemaBuilderError, match=message):
        build()


def test_builder_allows_setting_the_same_value_again() -> None:
    assert SchemaBuilder.string().name("a").name("a").optional().optional().build().name == "a"


def test_schema_builder_error_is_a_data_error() -> None:
    assert issubclass(SchemaBuilderError, DataError)


# ---------------------------------------------------------------------------- identity


def test_equality_and_hash() -> None:
    def build() -> Schema:
        return (
            SchemaBuilder.struct()
            .name("com.example.User")
            .field("id", Schema.INT32_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("level", SchemaBuilder.int8().default_value(3).build())
            .build()
        )

    assert build() == USER and hash(build()) == hash(USER)
    assert len({build(), USER, Schema.STRING_SCHEMA}) == 2
    assert (
        SchemaBuilder.int8().default_value(1).build()
        != SchemaBuilder.int8().default_value(2).build()
    )
    assert SchemaBuilder.string().doc("a").build() != SchemaBuilder.string().doc("b").build()
    assert Schema.BOOLEAN_SCHEMA != "boolean"


def test_default_values_of_different_types_differ() -> None:
    # 1 == True in Python, but a schema defaulting to True is not one defaulting to 1.
    a = Schema(SchemaType.INT32, default_value=1)
    b = Schema(SchemaType.INT32, default_value=True)
    assert a != b


def test_schemas_pickle() -> None:
    for schema in (USER, Decimal.schema(3), Schema.OPTIONAL_BYTES_SCHEMA, Timestamp.SCHEMA):
        copy = pickle.loads(pickle.dumps(schema))
        assert copy == schema and hash(copy) == hash(schema)
        assert copy.parameters == schema.parameters


def test_parameters_are_read_only() -> None:
    params = Decimal.schema(2).parameters
    assert params is not None
    with pytest.raises(TypeError):
        params["scale"] = "3"  # type: ignore[index]


@pytest.mark.parametrize(
    ("schema", "access", "message"),
    [
        (Schema.STRING_SCHEMA, lambda s: s.fields, "Cannot list fields on non-struct type"),
        (Schema.STRING_SCHEMA, lambda s: s.field("x"), "Cannot look up fields on non-struct type"),
        (Schema.STRING_SCHEMA, lambda s: s.key_schema, "Cannot look up key schema on non-map type"),
        (
            Schema.STRING_SCHEMA,
            lambda s: s.value_schema,
            "Cannot look up value schema on non-array and non-map type",
        ),
    ],
)
def test_type_specific_attributes_raise_elsewhere(schema, access, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DataError, match=message):
        access(schema)


# ---------------------------------------------------------------------------- validate_value

VALID = [
    (Schema.INT8_SCHEMA, 127),
    (Schema.INT8_SCHEMA, -128),
    (Schema.INT16_SCHEMA, 32767),
    (Schema.INT32_SCHEMA, -(2**31)),
    (Schema.INT64_SCHEMA, 2**63 - 1),
    (Schema.FLOAT32_SCHEMA, 1.5),
    (Schema.FLOAT64_SCHEMA, 1e300),
    (Schema.BOOLEAN_SCHEMA, False),
    (Schema.STRING_SCHEMA, ""),
    (Schema.BYTES_SCHEMA, b"\x00"),
    (Schema.BYTES_SCHEMA, bytearray(b"x")),
    (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2]),
    (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), (1, 2)),
    (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).build(), {"a": None}),
    (Decimal.schema(2), decimal.Decimal("1.23")),
    (Date.SCHEMA, dt.date(2024, 1, 1)),
    (Time.SCHEMA, dt.time(12, 0)),
    (Timestamp.SCHEMA, dt.datetime(2024, 1, 1, tzinfo=dt.UTC)),
    (Schema.OPTIONAL_STRING_SCHEMA, None),
]


@pytest.mark.parametrize(("schema", "value"), VALID)
def test_valid_values(schema: Schema, value: object) -> None:
    Schema.validate_value(schema, value)
    schema.validate(value)


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (
            Schema.INT32_SCHEMA,
            None,
            "Invalid value: null used for required value, schema type: INT32",
        ),
        (
            Schema.INT32_SCHEMA,
            "1",
            "Invalid Python object for schema with type INT32: class str for value",
        ),
        (
            Schema.INT32_SCHEMA,
            True,
            "Invalid Python object for schema with type INT32: class bool for value",
        ),
        (
            Schema.FLOAT64_SCHEMA,
            1,
            "Invalid Python object for schema with type FLOAT64: class int for value",
        ),
        (
            Schema.INT8_SCHEMA,
            128,
            "Invalid value 128 for schema with type INT8: out of range [-128, 127] for value",
        ),
        (
            Timestamp.SCHEMA,
            5,
            'Invalid Python object for schema "org.apache.kafka.connect.data.Timestamp" with '
            "type INT64: class int for value",
        ),
        (
            Decimal.schema(2),
            1.5,
            'Invalid Python object for schema "org.apache.kafka.connect.data.Decimal" with type '
            "BYTES: class float for value",
        ),
        (
            SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
            [1, "x"],
            "Invalid Python object for schema with type INT32: class str for element of array "
            "value",
        ),
        (
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
            {1: 1},
            "Invalid Python object for schema with type STRING: class int for key of map value",
        ),
        (
            SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(),
            {"a": None},
            "Invalid value: null used for required value of map value, schema type: INT32",
        ),
        (USER, Struct(SchemaBuilder.struct().build()), "Struct schemas do not match."),
    ],
)
def test_invalid_values(schema: Schema, value: object, message: str) -> None:
    with pytest.raises(DataError) as info:
        Schema.validate_value(schema, value)
    assert str(info.value) == message


def test_validate_value_names_the_field() -> None:
    with pytest.raises(DataError) as info:
        Schema.validate_value(Schema.STRING_SCHEMA, 1, "name")
    assert str(info.value) == (
        'Invalid Python object for schema with type STRING: class int for field: "name"'
    )


def test_schema_type_for_schemaless_values() -> None:
    assert SchemaType.for_value(True) is SchemaType.BOOLEAN
    assert SchemaType.for_value(3) is SchemaType.INT64
    assert SchemaType.for_value(3.0) is SchemaType.FLOAT64
    assert SchemaType.for_value("s") is SchemaType.STRING
    assert SchemaType.for_value(b"s") is SchemaType.BYTES
    assert SchemaType.for_value([1]) is SchemaType.ARRAY
    assert SchemaType.for_value({"a": 1}) is SchemaType.MAP
    assert SchemaType.for_value(Struct(USER)) is SchemaType.STRUCT
    assert SchemaType.for_value(decimal.Decimal(1)) is None


# ---------------------------------------------------------------------------- Struct


def test_struct_put_get_and_defaults() -> None:
    user = Struct(USER).put("id", 7).put("name", "ann")
    assert user.get("id") == 7 and user["name"] == "ann"
    assert user.get("level") == 3  # the field's default
    assert user.get_without_default("level") is None
    assert user.get(USER.fields[0]) == 7
    user["tags"] = ["a"]
    assert user.get("tags") == ["a"]
    user.validate()


def test_struct_put_validates() -> None:
    with pytest.raises(DataError) as info:
        Struct(USER).put("id", "seven")
    assert str(info.value) == (
        'Invalid Python object for schema with type INT32: class str for field: "id"'
    )
    with pytest.raises(DataError, match=r'null used for required field: "id"'):
        Struct(USER).put("id", None)
    with pytest.raises(DataError, match="element of array field"):
        Struct(USER).put("tags", [1])


def test_struct_unknown_field() -> None:
    with pytest.raises(DataError) as info:
        Struct(USER).get("nope")
    assert str(info.value) == "nope is not a valid field name"
    with pytest.raises(DataError, match="nope is not a valid field name"):
        Struct(USER).put("nope", 1)


def test_struct_validate_reports_missing_required_field() -> None:
    with pytest.raises(DataError) as info:
        Struct(USER).put("name", "x").validate()
    assert str(info.value) == (
        'Invalid value: null used for required field: "id", schema type: INT32'
    )


def test_struct_needs_a_struct_schema() -> None:
    with pytest.raises(DataError, match=r"Not a struct schema: Schema\{INT32\}"):
        Struct(Schema.INT32_SCHEMA)


def test_nested_struct_schema_must_match() -> None:
    outer = SchemaBuilder.struct().field("user", USER).build()
    other = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataError, match=r"Struct schemas do not match\."):
        Struct(outer).put("user", Struct(other).put("id", 1))
    Struct(outer).put("user", Struct(USER).put("id", 1)).validate()


def test_struct_equality_str_and_pickle() -> None:
    a = Struct(USER).put("id", 1).put("name", "x")
    b = Struct(USER).put("id", 1).put("name", "x")
    assert a == b and a != Struct(USER).put("id", 2)
    assert str(a) == "Struct{id=1,name=x}"
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        hash(a)


# ---------------------------------------------------------------------------- SchemaAndValue


def test_schema_and_value() -> None:
    pair = SchemaAndValue(Schema.STRING_SCHEMA, "x")
    schema, value = pair
    assert (schema, value) == (Schema.STRING_SCHEMA, "x")
    assert pair == SchemaAndValue(Schema.STRING_SCHEMA, "x")
    assert SchemaAndValue(None, None) == SchemaAndValue.NULL


def test_a_struct_pickles_as_its_schema_and_values() -> None:
    import pickle

    from pyspark import cloudpickle

    inner = SchemaBuilder.struct().name("in").field("x", Schema.INT8_SCHEMA).build()
    outer = (
        SchemaBuilder.struct().name("out").field("a", Schema.OPTIONAL_STRING_SCHEMA)
        .field("b", inner).field("c", SchemaBuilder.int32().default_value(7).build()).build()
    )  # fmt: skip
    value = Struct(outer).put("b", Struct(inner).put("x", 1))
    for dumps in (pickle.dumps, cloudpickle.dumps):
        back = pickle.loads(dumps([value, value]))
        assert back[0] == value and back[0] is back[1]  # one object, as pickled
        assert back[0].schema == outer and back[0].get("c") == 7  # the default, not a value
        assert back[0].get_without_default("c") is None and back[0].get("b").get("x") == 1
        back[0].put("a", "set after the round trip")  # still a working Struct
