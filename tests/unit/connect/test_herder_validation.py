"""ConfigValidator alone: the real plugin registry and a worker config, no herder."""

from __future__ import annotations

from typing import Any

import pytest

from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder_validation import ConfigValidator, java_map
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.worker_config import WorkerConfig

SOURCE = {"name": "src", "connector.class": "FileStreamSource", "file": "in.txt", "topic": "t"}
DISTRIBUTED = {
    "group.id": "connect-cluster",
    "config.storage.topic": "configs",
    "offset.storage.topic": "offsets",
    "status.storage.topic": "statuses",
}


def _validator(
    plugins: Plugins, props: dict[str, str], distributed: bool = False
) -> ConfigValidator:
    return ConfigValidator(plugins, WorkerConfig(props, distributed=distributed))


def _errors(infos: dict[str, Any]) -> dict[str, list[str]]:
    return {
        c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]
    }


def test_a_valid_config(plugins: Plugins) -> None:
    infos = _validator(plugins, {}).validate_connector_config(SOURCE)
    assert infos["name"] == "FileStreamSource"  # the class as the config names it
    assert infos["error_count"] == 0


def test_the_connector_type(plugins: Plugins) -> None:
    validator = _validator(plugins, {})
    with pytest.raises(BadRequestError, match="contains no connector type"):
        validator.validate_connector_config({"name": "x"})
    with pytest.raises(BadRequestError, match="does not match request type FileStreamSink"):
        validator.validate_connector_config(SOURCE, "FileStreamSink")
    infos = validator.validate_connector_config({}, "FileStreamSource")  # the path names it
    assert infos["name"] == "FileStreamSource"


def test_what_the_worker_config_forbids(plugins: Plugins) -> None:
    policy = {"connector.client.config.override.policy": "None"}
    infos = _validator(plugins, policy).validate_connector_config(
        {**SOURCE, "producer.override.acks": "1"}
    )
    assert "'None' policy does not allow 'acks'" in _errors(infos)["producer.override.acks"][0]
    remote = _validator(plugins, {"spark.master": "spark://elsewhere:7077"})
    errors = _errors(remote.validate_connector_config(SOURCE))
    assert "cannot run on this worker" in errors["connector.class"][0]
    exactly_once = {**SOURCE, "exactly.once.support": "required"}
    errors = _errors(_validator(plugins, {}).validate_connector_config(exactly_once))
    assert errors["exactly.once.support"] == [
        "This worker does not have exactly-once source support enabled."
    ]


def test_a_sink_may_not_use_the_workers_group(plugins: Plugins) -> None:
    validator = _validator(plugins, DISTRIBUTED, distributed=True)
    sink = {"connector.class": "FileStreamSink", "topics": "t", "name": "cluster"}
    assert (
        "conflicts with Connect worker group"
        in _errors(validator.validate_connector_config(sink))["name"][0]
    )
    standalone = _validator(plugins, {})
    assert standalone.validate_connector_config(sink)["error_count"] == 0


def test_plugins_and_their_configs(plugins: Plugins) -> None:
    validator = _validator(plugins, {})
    classes = {p["class"] for p in validator.connector_plugins(True)}
    assert "org.apache.kafka.connect.file.FileStreamSourceConnector" in classes
    names = {k["name"] for k in validator.plugin_config("FileStreamSource")}
    assert {"file", "topic", "connector.class", "tasks.max"} <= names
    assert java_map({"a": 1, "b": "x"}) == "{a=1, b=x}"
