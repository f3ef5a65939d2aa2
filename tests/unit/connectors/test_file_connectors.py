"""FileStream connectors: Kafka's configs, validation messages, task configs, offsets, plugins."""

from __future__ import annotations

import json
from typing import Any

import pytest

import seaway
import seaway.connectors
import seaway.connectors.file.config
from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.config.plugins import CONNECTORS, class_name, load_class
from seaway.connect.api import (
    ConnectError,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SinkConnector,
    SourceConnector,
    partition_key,
)
from seaway.connectors import VERSION
from seaway.connectors.file import (
    FileStreamSinkConnector,
    FileStreamSinkTask,
    FileStreamSourceConnector,
    FileStreamSourceTask,
    FileStreamStdinSourceTask,
)

FILENAME = "/somefilename"
SOURCE_PROPS = {"topic": "test", "file": FILENAME}


def source_connector() -> FileStreamSourceConnector:
    return FileStreamSourceConnector()


def errors(config: ConfigDef, props: dict[str, str]) -> dict[str, list[str]]:
    return {v.name: v.errors for v in config.validate(props) if v.errors}


# ---------------------------------------------------------------------------- plugins


def test_plugins_and_aliases() -> None:
    for name in (
        "FileStreamSource",
        "FileStreamSourceConnector",
        "org.apache.kafka.connect.file.FileStreamSourceConnector",
    ):
        assert load_class(name, CONNECTORS) is FileStreamSourceConnector
    for name in (
        "FileStreamSink",
        "FileStreamSinkConnector",
        "org.apache.kafka.connect.file.FileStreamSinkConnector",
    ):
        assert load_class(name, CONNECTORS) is FileStreamSinkConnector
    assert class_name(FileStreamSourceConnector, CONNECTORS) == (
        "org.apache.kafka.connect.file.FileStreamSourceConnector"
    )
    assert issubclass(FileStreamSourceConnector, SourceConnector)
    assert issubclass(FileStreamSinkConnector, SinkConnector)


def test_versions() -> None:
    assert VERSION == seaway.__version__ == seaway.connectors.__version__
    assert FileStreamSourceConnector().version() == VERSION
    assert FileStreamSinkConnector().version() == VERSION
    assert FileStreamSourceTask().version() == VERSION
    assert FileStreamStdinSourceTask().version() == VERSION
    assert FileStreamSinkTask().version() == VERSION


# ---------------------------------------------------------------------------- source config


def test_source_config_definition() -> None:
    config = source_connector().config()
    keys = config.config_keys
    assert list(keys) == ["file", "topic", "batch.size"]
    assert (keys["file"].type, keys["file"].default_value) == (Type.STRING, None)
    assert keys["file"].importance is Importance.HIGH
    assert keys["file"].documentation == (
        "Source filename. If not specified, the standard input will be used"
    )
    assert keys["topic"].type is Type.STRING and not keys["topic"].has_default
    assert keys["topic"].documentation == "The topic to publish data to"
    assert (keys["batch.size"].type, keys["batch.size"].default_value) == (Type.INT, 2000)
    assert keys["batch.size"].importance is Importance.LOW
    # config() hands out a copy: changing it does not change the connector's definition.
    config.define("extra", Type.STRING, "x")
    assert "extra" not in source_connector().config()


def test_source_config_valid_and_defaults() -> None:
    assert errors(source_connector().config(), SOURCE_PROPS) == {}
    parsed = source_connector().config().parse(SOURCE_PROPS)
    assert parsed == {"file": FILENAME, "topic": "test", "batch.size": 2000}
    assert source_connector().validate(SOURCE_PROPS).is_valid


def test_source_config_errors_use_kafkas_messages() -> None:
    config = source_connector().config()
    assert errors(config, {"file": FILENAME}) == {
        "topic": ['Missing required configuration "topic" which has no default value.']
    }
    assert errors(config, {"topic": "   "}) == {
        "topic": ["Invalid value  for configuration topic: String must be non-empty"]
    }
    assert errors(config, {"topic": "t", "batch.size": "abcd"}) == {
        "batch.size": ["Invalid value abcd for configuration batch.size: Not a number of type INT"]
    }
    validation = source_connector().validate({"batch.size": "x"})
    assert validation.error_count == 2
    assert set(validation.errors()) == {"topic", "batch.size"}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"file": FILENAME}, 'Missing required configuration "topic" which has no default value.'),
        ({"topic": ""}, "Invalid value  for configuration topic: String must be non-empty"),
        (
            {"topic": "t", "batch.size": "abcd"},
            "Invalid value abcd for configuration batch.size: Not a number of type INT",
        ),
    ],
)
def test_source_start_rejects_invalid_configs(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as connector_error:
        source_connector().start(props)
    assert str(connector_error.value) == message
    with pytest.raises(ConfigException) as task_error:
        FileStreamSourceTask().start(props)
    assert str(task_error.value) == message


def test_source_task_configs_are_one_copy_of_the_props() -> None:
    connector = source_connector()
    props = {**SOURCE_PROPS, "transforms": "insert", "tasks.max": "5"}
    connector.start(props)
    for max_tasks in (1, 2, 5):
        configs = connector.task_configs(max_tasks)
        assert configs == [props]
    configs[0]["topic"] = "changed"
    assert connector.task_configs(1) == [props]


def test_source_task_class() -> None:
    connector = source_connector()
    assert connector.task_class() is FileStreamSourceTask
    connector.start(SOURCE_PROPS)
    assert connector.task_class() is FileStreamSourceTask
    connector.start({"topic": "test"})
    assert connector.task_class() is FileStreamStdinSourceTask
    assert connector.task_configs(3) == [{"topic": "test"}]
    assert "file" not in connector.task_configs(1)[0]


def test_exactly_once_support_iff_file_is_set() -> None:
    connector = source_connector()
    assert connector.exactly_once_support(SOURCE_PROPS) is ExactlyOnceSupport.SUPPORTED
    assert connector.exactly_once_support({**SOURCE_PROPS, "file": " "}) is (
        ExactlyOnceSupport.UNSUPPORTED
    )
    assert connector.exactly_once_support({"topic": "test"}) is ExactlyOnceSupport.UNSUPPORTED
    assert connector.can_define_transaction_boundaries(SOURCE_PROPS) is (
        ConnectorTransactionBoundaries.UNSUPPORTED
    )


# ---------------------------------------------------------------------------- alter_offsets


def offsets_of(partition: Any, offset: Any) -> dict[str, Any]:
    partition_text = json.dumps(partition) if partition is None else partition_key(partition)
    return {partition_text: offset}


def test_alter_offsets_stdin() -> None:
    with pytest.raises(ConnectError) as error:
        source_connector().alter_offsets(
            {"topic": "test"}, offsets_of({"filename": FILENAME}, {"position": 0})
        )
    assert str(error.value) == (
        "Offsets cannot be modified if the 'file' configuration is unspecified. This is "
        "because stdin is used for input and offsets are not tracked."
    )


def test_alter_offsets_incorrect_partition_key() -> None:
    connector = source_connector()
    with pytest.raises(ConnectError) as error:
        connector.alter_offsets(
            SOURCE_PROPS, offsets_of({"other_partition_key": FILENAME}, {"position": 0})
        )
    assert str(error.value) == "Partition objects should contain the key 'filename'"
    with pytest.raises(ConnectError) as error:
        connector.alter_offsets(SOURCE_PROPS, offsets_of(None, {"position": 0}))
    assert str(error.value) == "Partition objects cannot be null"


def test_alter_offsets_multiple_partitions() -> None:
    offsets = {
        partition_key({"filename": FILENAME}): {"position": 0},
        partition_key({"filename": "/someotherfilename"}): None,
    }
    assert source_connector().alter_offsets(SOURCE_PROPS, offsets) is True


def test_alter_offsets_incorrect_offset_key() -> None:
    with pytest.raises(ConnectError) as error:
        source_connector().alter_offsets(
            SOURCE_PROPS, offsets_of({"filename": FILENAME}, {"other_offset_key": 0})
        )
    assert str(error.value) == "Offset objects should either be null or contain the key 'position'"


@pytest.mark.parametrize("position", ["nan", None, object(), 3.14, 10.0, "10", "-420", True])
def test_alter_offsets_position_must_be_a_long(position: Any) -> None:
    with pytest.raises(ConnectError) as error:
        source_connector().alter_offsets(
            SOURCE_PROPS, offsets_of({"filename": FILENAME}, {"position": position})
        )
    assert str(error.value) == (
        "The value for the 'position' key in the offset is expected to be a Long value"
    )


def test_alter_offsets_position_must_be_non_negative() -> None:
    connector = source_connector()
    with pytest.raises(ConnectError) as error:
        connector.alter_offsets(SOURCE_PROPS, offsets_of({"filename": FILENAME}, {"position": -10}))
    assert str(error.value) == (
        "The value for the 'position' key in the offset should be a non-negative value"
    )
    assert connector.alter_offsets(
        SOURCE_PROPS, offsets_of({"filename": FILENAME}, {"position": 10})
    )


def test_alter_offsets_success_and_empty() -> None:
    connector = source_connector()
    assert connector.alter_offsets(
        SOURCE_PROPS, offsets_of({"filename": FILENAME}, {"position": 0})
    )
    assert connector.alter_offsets(SOURCE_PROPS, {}) is True


@pytest.mark.parametrize(
    "partition",
    [None, {}, {"filename": FILENAME}, {"filename": "/someotherfilename"}, {"garbage": "value"}],
)
def test_alter_offsets_tombstones_are_always_allowed(partition: Any) -> None:
    assert source_connector().alter_offsets(SOURCE_PROPS, offsets_of(partition, None)) is True


# ---------------------------------------------------------------------------- sink connector


def test_sink_config_definition_and_validation() -> None:
    connector = FileStreamSinkConnector()
    config = connector.config()
    assert list(config.config_keys) == ["file"]
    key = config.config_keys["file"]
    assert (key.type, key.default_value, key.importance) == (Type.STRING, None, Importance.HIGH)
    assert key.documentation == (
        "Destination filename. If not specified, the standard output will be used"
    )
    # topics / topics.regex are framework keys, validated by the runtime.
    assert connector.validate({"topics": "connect-test", "file": "out.txt"}).is_valid
    assert connector.validate({}).is_valid


def test_sink_task_configs_are_tasks_max_identical_copies() -> None:
    connector = FileStreamSinkConnector()
    props = {"file": "test.sink.txt", "topics": "connect-test"}
    connector.start(props)
    assert connector.task_class() is FileStreamSinkTask
    assert connector.task_configs(1) == [props]
    configs = connector.task_configs(3)
    assert configs == [props, props, props]
    assert configs[0] is not configs[1]


def test_sink_alter_offsets_is_acknowledged() -> None:
    assert FileStreamSinkConnector().alter_offsets({"topics": "t"}, {}) is True


def test_docstring_examples() -> None:
    import doctest

    for module in (seaway.connectors, seaway.connectors.file.config):
        assert doctest.testmod(module).failed == 0
