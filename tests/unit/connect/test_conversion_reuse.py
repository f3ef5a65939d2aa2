"""A connector task's converters and transformation chain are built once per process, not
once per Spark task (Kafka's WorkerTask keeps them for the task's life)."""

from __future__ import annotations

from seaway.connect.runtime.queries.conversion import (
    ConversionSpec,
    ConverterSpec,
    RecordConverter,
)
from seaway.connect.runtime.queries.task_metrics import TaskMetrics

_STRING = ConverterSpec("org.apache.kafka.connect.storage.StringConverter", {})
_HEADER = ConverterSpec("org.apache.kafka.connect.storage.SimpleHeaderConverter", {})
_JSON = "org.apache.kafka.connect.json.JsonConverter"


def _spec(schemas: str, **connector: str) -> ConversionSpec:
    return ConversionSpec(
        connector="reuse",
        key=_STRING,
        value=ConverterSpec(_JSON, {"schemas.enable": schemas}),
        header=_HEADER,
        connector_config={
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)",
            "transforms.route.replacement": "copy-$1",
            **connector,
        },
    )


def test_the_same_spec_reuses_converters_and_chain() -> None:
    first = RecordConverter(_spec("false"), metrics=TaskMetrics(task=0))
    second = RecordConverter(_spec("false"), metrics=TaskMetrics(task=0))
    assert second.value is first.value
    assert second.key is first.key and second.header is first.header
    assert second.chain is first.chain
    assert second.metrics is not first.metrics  # each Spark task counts its own records


def test_another_config_builds_its_own() -> None:
    plain = RecordConverter(_spec("false"))
    enveloped = RecordConverter(_spec("true"))
    rerouted = RecordConverter(_spec("false", **{"transforms.route.replacement": "b-$1"}))
    assert enveloped.value is not plain.value
    assert rerouted.chain is not plain.chain
    # ...and each converts as configured
    assert plain.value.to_connect_data("t", b'{"a":1}').value == {"a": 1}
    envelope = b'{"schema":{"type":"string"},"payload":"x"}'
    assert enveloped.value.to_connect_data("t", envelope).value == "x"
