"""The transformation chain built from a connector config, and its validation."""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any

import pytest

from seaway.config import ConfigDef, ConfigException, Importance, Range, Type
from seaway.connect.api import Headers, SinkRecord, SourceRecord
from seaway.connect.api.transforms import Predicate, Transformation
from seaway.connect.transforms import (
    ExtractFieldKey,
    Filter,
    TopicNameMatches,
    TransformationChain,
    TransformationStage,
    enrich,
    validate_transform_config_values,
    validate_transform_configs,
)

# The example from Kafka's documentation (anchor connect.md §5.3).
DOCS_EXAMPLE = {
    "transforms": "Filter,Extract",
    "transforms.Filter.type": "org.apache.kafka.connect.transforms.Filter",
    "transforms.Filter.predicate": "IsFoo",
    "transforms.Extract.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
    "transforms.Extract.field": "other_field",
    "transforms.Extract.predicate": "IsBar",
    "transforms.Extract.negate": "true",
    "predicates": "IsFoo,IsBar",
    "predicates.IsFoo.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    "predicates.IsFoo.pattern": "foo",
    "predicates.IsBar.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    "predicates.IsBar.pattern": "bar",
}


def sink(topic: str, key: Any = None, value: Any = "v") -> SinkRecord:
    return SinkRecord(topic=topic, kafka_partition=0, kafka_offset=0, key=key, value=value)


class MagicPartition(Transformation[Any]):
    """Sets the partition to ``magic.number`` (which must be at least 42)."""

    closed = 0

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.magic = int(configs["magic.number"])
        self.configs = dict(configs)

    def config(self) -> ConfigDef:
        return ConfigDef().define(
            "magic.number", Type.INT, validator=Range.at_least(42), importance=Importance.HIGH
        )

    def apply(self, record: Any) -> Any:
        return record.new_record(kafka_partition=self.magic)

    def close(self) -> None:
        MagicPartition.closed += 1


class PartitionIs(Predicate[Any]):
    """True when the record's partition is ``int``."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.partition = int(configs.get("int", 80))

    def config(self) -> ConfigDef:
        return ConfigDef().define("int", Type.INT, 80, Range.at_least(80), Importance.MEDIUM)

    def test(self, record: Any) -> bool:
        return record.kafka_partition == self.partition


class Broken(Transformation[Any]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        raise ConfigException("mode", configs.get("mode"), "unsupported mode")

    def config(self) -> ConfigDef:
        return ConfigDef().define("mode", Type.STRING, "a")

    def apply(self, record: Any) -> Any:
        return record


MAGIC = f"{__name__}:MagicPartition"
PARTITION_IS = f"{__name__}.PartitionIs"


# ---------------------------------------------------------------------------- applying


def test_docs_example_chain() -> None:
    chain: TransformationChain[SinkRecord] = TransformationChain.from_config(DOCS_EXAMPLE)
    assert [stage.alias for stage in chain] == ["Filter", "Extract"]
    assert isinstance(chain.stages[0].transformation, Filter)
    assert isinstance(chain.stages[0].predicate, TopicNameMatches)
    assert not chain.stages[0].negate
    assert isinstance(chain.stages[1].transformation, ExtractFieldKey)
    assert chain.stages[1].negate
    # topic foo: Filter applies and drops the record
    assert chain.apply(sink("foo", key={"other_field": 1})) is None
    # topic bar: not filtered, and IsBar holds so the negated Extract does not apply
    assert chain.apply(sink("bar", key={"other_field": 1})).key == {"other_field": 1}
    # any other topic: Extract applies
    assert chain.apply(sink("baz", key={"other_field": 1})).key == 1
    assert validate_transform_configs(DOCS_EXAMPLE) == {}
    chain.close()


def test_empty_chain_passes_records_through() -> None:
    chain: TransformationChain[SinkRecord] = TransformationChain.from_config({"name": "c"})
    record = sink("t")
    assert len(chain) == 0
    assert chain.apply(record) is record


def test_stages_run_in_order_with_short_names_and_python_paths() -> None:
    config = {
        "transforms": "route, hoist, partition",
        "transforms.route.type": "RegexRouter",
        "transforms.route.regex": "(.*)",
        "transforms.route.replacement": "$1-out",
        "transforms.hoist.type": "HoistField$Value",
        "transforms.hoist.field": "wrapped",
        "transforms.partition.type": MAGIC,
        "transforms.partition.magic.number": "42",
    }
    chain: TransformationChain[SourceRecord] = TransformationChain.from_config(config)
    out = chain.apply(SourceRecord(topic="in", source_partition=None, source_offset=None, value=7))
    assert (out.topic, out.value, out.kafka_partition) == ("in-out", {"wrapped": 7}, 42)
    # the transform gets its own keys only, prefix removed
    assert chain.stages[2].transformation.configs == {"magic.number": "42"}
    before = MagicPartition.closed
    chain.close()
    assert MagicPartition.closed == before + 1


@pytest.mark.parametrize("negate", [True, False])
def test_predicate_negation(negate: bool) -> None:
    config = {
        "transforms": "a",
        "transforms.a.type": MAGIC,
        "transforms.a.magic.number": "42",
        "transforms.a.predicate": "my-pred",
        "predicates": "my-pred",
        "predicates.my-pred.type": PARTITION_IS,
        "predicates.my-pred.int": "84",
    }
    if negate:
        config["transforms.a.negate"] = "true"
    stage = TransformationChain.from_config(config).stages[0]
    assert stage.negate is negate
    assert stage.apply(sink("t")).kafka_partition == (42 if negate else 0)
    matching = sink("t").new_record(kafka_partition=84)
    assert stage.apply(matching).kafka_partition == (84 if negate else 42)


def test_stage_without_predicate_always_applies() -> None:
    stage: TransformationStage[SinkRecord] = TransformationStage(Filter())
    assert stage.apply(sink("t")) is None


def test_header_predicate_and_tombstone_filter() -> None:
    config = {
        "transforms": "dropTombstones,dropTraced",
        "transforms.dropTombstones.type": "Filter",
        "transforms.dropTombstones.predicate": "isTombstone",
        "transforms.dropTraced.type": "Filter",
        "transforms.dropTraced.predicate": "hasTrace",
        "transforms.dropTraced.negate": "false",
        "predicates": "isTombstone,hasTrace",
        "predicates.isTombstone.type": "RecordIsTombstone",
        "predicates.hasTrace.type": "HasHeaderKey",
        "predicates.hasTrace.name": "trace",
    }
    chain: TransformationChain[SinkRecord] = TransformationChain.from_config(config)
    assert chain.apply(sink("t", value=None)) is None
    traced = SinkRecord(
        topic="t", kafka_offset=0, value="v", headers=Headers().add_string("trace", "x")
    )
    assert chain.apply(traced) is None
    assert chain.apply(sink("t")).value == "v"


# ---------------------------------------------------------------------------- from_config errors


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"transforms": "dangler"}, "Not a Transformation"),
        (
            {"transforms": "a", "transforms.a.type": "uninstantiable"},
            "Class uninstantiable could not be found.",
        ),
        (
            {"transforms": "a", "transforms.a.type": MAGIC},
            'Missing required configuration "transforms.a.magic.number" which',
        ),
        (
            {"transforms": "a", "transforms.a.type": MAGIC, "transforms.a.magic.number": "40"},
            "Value must be at least 42",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": MAGIC,
                "transforms.a.magic.number": "42",
                "transforms.a.negate": "true",
            },
            "there is no config 'transforms.a.predicate' defining a predicate to be negated",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": MAGIC,
                "transforms.a.magic.number": "42",
                "transforms.a.predicate": "p",
                "predicates": "p",
            },
            "Not a Predicate",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": MAGIC,
                "transforms.a.magic.number": "42",
                "transforms.a.predicate": "p",
                "predicates": "p",
                "predicates.p.type": PARTITION_IS,
                "predicates.p.int": "79",
            },
            "Value must be at least 80",
        ),
        (
            {
                "transforms": "a",
                "transforms.a.type": MAGIC,
                "transforms.a.magic.number": "42",
                "transforms.a.predicate": "p",
                "predicates": "p",
                "predicates.p.type": MAGIC,
            },
            "does not implement the Predicate interface",
        ),
        (
            {"transforms": "a", "transforms.a.type": "org.apache.kafka.connect.transforms.Cast"},
            "This class is abstract and cannot be created. Did you mean "
            "org.apache.kafka.connect.transforms.Cast$Key, "
            "org.apache.kafka.connect.transforms.Cast$Value?",
        ),
    ],
)
def test_from_config_errors(config: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as excinfo:
        TransformationChain.from_config(config)
    assert message in str(excinfo.value)


# ---------------------------------------------------------------------------- validation


def test_validate_reports_each_problem_by_key() -> None:
    config = {
        "transforms": "missing,unknown,router,insert,dup,broken",
        "transforms.unknown.type": "com.example.Nope",
        "transforms.router.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.router.regex": "(",
        "transforms.insert.type": "InsertField$Value",
        "transforms.insert.predicate": "undefined",
        "transforms.dup.type": "InsertField$Key",
        "transforms.broken.type": f"{__name__}.Broken",
        "transforms.broken.mode": "z",
        "predicates": "p,p",
    }
    errors = validate_transform_configs(config)
    [regex_error] = errors.pop("transforms.router.regex")
    assert regex_error.startswith(
        "Invalid value ( for configuration transforms.router.regex: Invalid regex: "
    )
    assert errors == {
        "transforms.missing.type": [
            'Missing required configuration "transforms.missing.type" which has no default value.'
        ],
        "transforms.unknown.type": [
            "Invalid value com.example.Nope for configuration transforms.unknown.type: "
            "Class com.example.Nope could not be found."
        ],
        "transforms.router.replacement": [
            'Missing required configuration "transforms.router.replacement" which has no '
            "default value."
        ],
        "transforms.insert.predicate": [
            "Invalid value undefined for configuration transforms.insert.predicate: "
            "Predicate alias undefined is not listed in 'predicates'"
        ],
        "transforms.dup.type": ["No field insertion configured"],
        "transforms.broken.mode": [
            "Invalid value z for configuration transforms.broken.mode: unsupported mode"
        ],
        "predicates": [
            "Invalid value [p, p] for configuration predicates: Duplicate alias provided."
        ],
        "predicates.p.type": [
            'Missing required configuration "predicates.p.type" which has no default value.'
        ],
    }


def test_enrich_defines_per_alias_keys() -> None:
    definition = enrich(DOCS_EXAMPLE)
    keys = definition.config_keys
    assert {"transforms", "predicates"} <= set(keys)
    extract = [name for name in keys if name.startswith("transforms.Extract.")]
    # the type, then the embedded keys in Kafka's doc order (required, importance, name)
    assert extract == [
        "transforms.Extract.type",
        "transforms.Extract.field",
        "transforms.Extract.field.syntax.version",
        "transforms.Extract.negate",
        "transforms.Extract.predicate",
        "transforms.Extract.replace.null.with.default",
    ]
    type_key = keys["transforms.Extract.type"]
    assert (type_key.type, type_key.group, type_key.display_name) == (
        Type.CLASS,
        "Transforms: Extract",
        "Transformation type for Extract",
    )
    assert keys["predicates.IsFoo.pattern"].group == "Predicates: IsFoo"
    assert "transforms.Filter.type" in keys and "transforms.Filter.negate" in keys
    values = validate_transform_config_values(DOCS_EXAMPLE)
    assert values["transforms.Extract.negate"].value is True
    assert "org.apache.kafka.connect.transforms.ExtractField$Key" in (
        values["transforms.Extract.type"].recommended_values
    )


def test_enrich_extends_a_base_definition() -> None:
    base = ConfigDef().define("name", Type.STRING)
    base.define("transforms", Type.LIST, []).define("predicates", Type.LIST, [])
    config = {"name": "c", "transforms": "a", "transforms.a.type": "Filter"}
    assert set(enrich(config, base).names()) == {
        "name",
        "transforms",
        "predicates",
        "transforms.a.type",
        "transforms.a.predicate",
        "transforms.a.negate",
    }
    assert validate_transform_configs({"transforms": "a"}, base) == {
        "name": ['Missing required configuration "name" which has no default value.'],
        "transforms.a.type": [
            'Missing required configuration "transforms.a.type" which has no default value.'
        ],
    }


def test_chain_pickles_for_spark_executors() -> None:
    config = {
        **DOCS_EXAMPLE,
        "transforms": "Filter,Extract,insert,route",
        "transforms.insert.type": "InsertField$Key",
        "transforms.insert.topic.field": "topic",
        "transforms.route.type": "TimestampRouter",
    }
    chain: TransformationChain[SinkRecord] = TransformationChain.from_config(config)
    record = SinkRecord(topic="foo2", kafka_offset=0, key={"other_field": {"a": 1}}, timestamp=0)
    expected = chain.apply(record)
    copy = pickle.loads(pickle.dumps(chain))
    assert copy.apply(record) == expected
    assert expected.key == {"a": 1, "topic": "foo2"}
    assert expected.topic == "foo2-19700101"
