"""What runs inside a Spark task: converters, transforms and error tolerance around a record.

The driver describes a connector's conversion in a :class:`ConversionSpec` (plain data, so it
pickles into Spark tasks). A Python worker builds the converters and the transformation chain
of a spec once (:func:`built_conversion`) and every Spark task of that connector task reuses
them, as Kafka's WorkerTask keeps its converters and chain for the task's life; a
:class:`RecordConverter` wraps them with one Spark task's metrics and error reporter.
Conversion and transformation failures follow Connect's ``errors.tolerance``: ``none`` fails
the task, ``all`` skips the record (logged when ``errors.log.enable=true``, with the record's
key, value and headers when ``errors.log.include.messages=true``). Every failure, retry and
skip is counted in the task's :class:`~seaway.connect.runtime.queries.task_metrics.TaskMetrics`.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeVar

from seaway.connect.api import ConnectRecord, Converter, HeaderConverter, Headers, SinkRecord
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.structs import TimestampType
from seaway.connect.runtime.queries.retry import RetryPolicy
from seaway.connect.runtime.queries.task_metrics import TaskMetrics
from seaway.java.lru_cache import LruCache

if TYPE_CHECKING:
    from seaway.connect.transforms.chain import TransformationChain

log = logging.getLogger(__name__)

KEY: Final = "key"
VALUE: Final = "value"
HEADER: Final = "header"

T = TypeVar("T")

Reporter = Callable[[tuple[Any, ...], str, str, BaseException], None]
"""``(consumed row, stage, executing class, error)``: where a skipped record is reported."""


@dataclass(frozen=True)
class ConverterSpec:
    """A converter class name and its configs (prefix removed)."""

    class_name: str
    configs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ConversionSpec:
    """Everything an executor needs to turn records into bytes and back."""

    connector: str
    key: ConverterSpec
    value: ConverterSpec
    header: ConverterSpec
    connector_config: dict[str, str]
    plugin_path: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> ConversionSpec:
        """The inverse of ``dataclasses.asdict``."""
        return cls(
            connector=raw["connector"],
            key=ConverterSpec(**raw["key"]),
            value=ConverterSpec(**raw["value"]),
            header=ConverterSpec(**raw["header"]),
            connector_config=dict(raw["connector_config"]),
            plugin_path=tuple(raw["plugin_path"]),
        )

    @property
    def tolerate_all(self) -> bool:
        return self.connector_config.get("errors.tolerance", "none").strip().lower() == "all"

    @property
    def log_errors(self) -> bool:
        return self.connector_config.get("errors.log.enable", "false").strip().lower() == "true"

    @property
    def log_messages(self) -> bool:
        value = self.connector_config.get("errors.log.include.messages", "false")
        return value.strip().lower() == "true"


def converter_spec(
    which: str, connector_config: Mapping[str, str], worker_props: Mapping[str, str]
) -> ConverterSpec:
    """The ``key``/``value``/``header`` converter: the connector's if it names one, else the
    worker's, with the ``<which>.converter.*`` settings of the level that named it."""
    name_key = f"{which}.converter"
    source = connector_config if connector_config.get(name_key) else worker_props
    from seaway.connect.runtime.worker_config import JSON_CONVERTER, SIMPLE_HEADER_CONVERTER

    default = SIMPLE_HEADER_CONVERTER if which == HEADER else JSON_CONVERTER
    class_name = str(source.get(name_key) or default).strip()
    prefix = name_key + "."
    configs = {k[len(prefix) :]: str(v) for k, v in source.items() if k.startswith(prefix)}
    return ConverterSpec(class_name, configs)


def add_plugin_path(paths: tuple[str, ...]) -> None:
    """Make ``plugin.path`` directories importable in this process."""
    for path in paths:
        if path and path not in sys.path:
            sys.path.append(path)


@dataclass(frozen=True)
class BuiltConversion:
    """The converters and transformation chain of one :class:`ConversionSpec`."""

    key: Converter
    value: Converter
    header: HeaderConverter
    chain: TransformationChain[Any]
    transform_classes: str


_BUILT: LruCache[str, BuiltConversion] = LruCache(32)
"""What this process built, by spec: the connectors' tasks it ran lately (a spec's tasks
share one entry: converters and transforms are configured by the connector, not the task)."""


def built_conversion(spec: ConversionSpec) -> BuiltConversion:
    """The converters and chain of *spec*, built on first use in this process.

    Kafka closes a task's transformations when the task stops; an entry here lives as long
    as the Python worker (or until 32 newer specs push it out), which for Spark is the task's
    life on that worker."""
    key = json.dumps(asdict(spec), sort_keys=True)
    return _BUILT.get_or_compute(key, lambda: _build(spec))


def _build(spec: ConversionSpec) -> BuiltConversion:
    from seaway.connect.converters.registry import new_converter, new_header_converter
    from seaway.connect.transforms.chain import TransformationChain

    add_plugin_path(spec.plugin_path)
    # One chain for source or sink records, as the connector is.
    chain: TransformationChain[Any] = TransformationChain.from_config(spec.connector_config)
    return BuiltConversion(
        key=new_converter(spec.key.class_name, spec.key.configs, True),
        value=new_converter(spec.value.class_name, spec.value.configs, False),
        header=new_header_converter(spec.header.class_name, spec.header.configs),
        chain=chain,
        transform_classes=", ".join(_class_name(s.transformation) for s in chain.stages),
    )


class RecordConverter:
    """A connector task's converters and transformation chain (:func:`built_conversion`)
    around the records of one Spark task: its metrics, its error reporter."""

    def __init__(
        self,
        spec: ConversionSpec,
        reporter: Reporter | None = None,
        metrics: TaskMetrics | None = None,
    ) -> None:
        built = built_conversion(spec)
        self.spec = spec
        self.key = built.key
        self.value = built.value
        self.header = built.header
        self.chain = built.chain
        self.transforms = len(self.chain) > 0
        self._transform_classes = built.transform_classes
        self.reporter = reporter
        self.retry = RetryPolicy.of(spec.connector_config)
        self.metrics = TaskMetrics() if metrics is None else metrics

    def guarded(
        self,
        stage: str,
        what: Callable[[], T],
        record: Any,
        executing_class: str = "",
        consumed: tuple[Any, ...] | None = None,
    ) -> T | None:
        """Run one stage; with ``errors.tolerance=all`` a failure skips the record (None),
        and a *consumed* record goes to the reporter (a sink's dead letter queue)."""
        try:
            return self.retry.call(what, on_retry=self._retrying)
        except Exception as error:
            self.metrics.failed()
            self.metrics.record_errors += 1
            if not self.spec.tolerate_all:
                raise
            self.metrics.records_skipped += 1
            if self.reporter is not None and consumed is not None:
                self.reporter(consumed, stage, executing_class, error)
            if self.spec.log_errors:
                self.metrics.errors_logged += 1
                log.error(
                    "Error encountered in connector %s. Executing stage '%s', where record is "
                    "%s: %s",
                    self.spec.connector, stage,
                    _describe(record, self.spec.log_messages), error,
                )  # fmt: skip
            return None

    def _retrying(self, attempt: int, error: Exception) -> None:
        self.metrics.failed()
        self.metrics.retries += 1

    # --- source side ----------------------------------------------------------------------

    def source_row(
        self, record: ConnectRecord
    ) -> tuple[str, int | None, bytes | None, bytes | None, list[dict[str, Any]], int | None]:
        """``(topic, partition, key, value, headers, timestamp_ms)`` of a transformed record."""
        topic = record.topic
        headers = self.source_headers(record)
        key = self.key.from_connect_data(topic, record.key_schema, record.key, record.headers)
        value = self.value.from_connect_data(
            topic, record.value_schema, record.value, record.headers
        )
        return topic, record.kafka_partition, key, value, headers, record.timestamp

    def source_headers(self, record: ConnectRecord) -> list[dict[str, Any]]:
        """A record's headers as Kafka rows have them, converted by the header converter."""
        to_bytes = self.header.from_connect_header
        return [
            {"key": h.key, "value": to_bytes(record.topic, h.key, h.schema, h.value)}
            for h in record.headers
        ]

    def source_rows(self, record: ConnectRecord) -> tuple[Any, ...] | None:
        """Transform and convert one source record; None when dropped or skipped."""
        transformed = (
            self.guarded("TRANSFORMATION", lambda: self.chain.apply(record), record)
            if self.transforms
            else record
        )
        if transformed is None:
            return None
        return self.guarded("VALUE_CONVERTER", lambda: self.source_row(transformed), transformed)

    # --- sink side ------------------------------------------------------------------------

    def _headers(self, topic: str, raw_headers: list[dict[str, Any]] | None) -> Headers:
        headers = Headers()
        for h in raw_headers or ():
            converted = self.header.to_connect_header(topic, h["key"], h["value"])
            headers.add(h["key"], converted.value, converted.schema)
        return headers

    def sink_record(self, *row: Any) -> SinkRecord | None:
        """Convert and transform one consumed row; None when dropped or skipped (Kafka's
        stages: header, key and value converters, then the transformations)."""
        topic, partition, offset, key, value, timestamp_ms, timestamp_type, raw_headers = row
        spec = self.spec

        def stage(name: str, run: Callable[[], T], converter: ConverterSpec) -> T | None:
            return self.guarded(name, run, row, converter.class_name, row)

        headers = stage("HEADER_CONVERTER", lambda: self._headers(topic, raw_headers), spec.header)
        if headers is None:
            return None
        k = stage("KEY_CONVERTER", lambda: self.key.to_connect_data(topic, key, headers), spec.key)
        if k is None:
            return None
        v = stage(
            "VALUE_CONVERTER", lambda: self.value.to_connect_data(topic, value, headers), spec.value
        )
        if v is None:
            return None
        record = SinkRecord(
            topic=topic,
            kafka_partition=partition,
            key_schema=k.schema,
            key=k.value,
            value_schema=v.schema,
            value=v.value,
            timestamp=timestamp_ms,
            headers=headers,
            kafka_offset=offset,
            timestamp_type=_TIMESTAMP_TYPES.get(timestamp_type, TimestampType.NO_TIMESTAMP_TYPE),
        )
        if not self.transforms:
            return record
        return self.guarded(
            "TRANSFORMATION", lambda: self.chain.apply(record), record, self._transform_classes, row
        )


_TIMESTAMP_TYPES: Final = {
    0: TimestampType.CREATE_TIME,
    1: TimestampType.LOG_APPEND_TIME,
}


def _class_name(obj: object) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def _describe(record: Any, with_contents: bool = False) -> str:
    """The record as Kafka's error log names it; with *with_contents* (Kafka's
    ``errors.log.include.messages``) its key, value and headers too."""
    if isinstance(record, ConnectRecord):
        if with_contents:
            return (
                f"{type(record).__name__}{{topic='{record.topic}', "
                f"kafkaPartition={record.kafka_partition}, key={record.key!r}, "
                f"value={record.value!r}, timestamp={record.timestamp}, "
                f"headers={list(record.headers)!r}}}"
            )
        return f"{type(record).__name__}{{topic='{record.topic}'}}"
    if isinstance(record, tuple) and len(record) >= 8 and with_contents:
        topic, partition, offset, key, value, timestamp, _kind, headers = record[:8]
        return (
            f"{{topic='{topic}', partition={partition}, offset={offset}, "
            f"timestamp={timestamp}, key={key!r}, value={value!r}, headers={headers!r}}}"
        )
    if isinstance(record, tuple) and len(record) >= 3:
        return f"{{topic='{record[0]}', partition={record[1]}, offset={record[2]}}}"
    return type(record).__name__


class TaskFailure(ConnectError):
    """A connector task raised; the message names the task so the worker can report it, and
    its first line says what was raised."""

    MARKER: Final = "[seaway-task "

    def __init__(self, connector: str, task: int, trace: str, headline: str = "") -> None:
        super().__init__(
            f"{self.MARKER}{task}] Task {connector}-{task} failed: {headline}\n{trace}"
        )

    @classmethod
    def of(cls, connector: str, task: int, error: BaseException) -> TaskFailure:
        """The failure of *task* raising *error*: its exception line, then its traceback."""
        lines = "".join(traceback.format_exception_only(error)).strip().splitlines()
        return cls(connector, task, "".join(traceback.format_exception(error)),
                   lines[0] if lines else type(error).__name__)  # fmt: skip

    @classmethod
    def trace_of(cls, failure: str) -> str:
        """A query's failure text for a task's ``trace``: from the task's failure on (what
        the task raised first, as Kafka's traces start with the exception), then the text
        Spark wrapped around it."""
        at = failure.find(cls.MARKER)
        if at <= 0:
            return failure
        return f"{failure[at:]}\n\n{failure[:at].strip()}"

    @classmethod
    def task_of(cls, message: str) -> int | None:
        """The task number a failure message names, if any."""
        at = message.find(cls.MARKER)
        if at < 0:
            return None
        digits = message[at + len(cls.MARKER) :].split("]", 1)[0]
        return int(digits) if digits.isdigit() else None


__all__ = [
    "ConversionSpec",
    "ConverterSpec",
    "RecordConverter",
    "TaskFailure",
    "add_plugin_path",
    "converter_spec",
]
