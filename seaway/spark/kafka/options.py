"""The Kafka source and sink options, with Spark's names, defaults and error messages.

Options arrive as a case-insensitive mapping of strings (Spark lower-cases the keys).
Everything is validated up front on the driver, so a bad option fails the query with a
message naming the option instead of a task-side stack trace.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from seaway.config import ConfigException
from seaway.kafka.java_config import to_librdkafka

__all__ = [
    "KafkaOptionError",
    "SinkOptions",
    "SourceOptions",
    "parse_sink_options",
    "parse_source_options",
]

# Spark lower-cases option keys; these are the lower-cased forms of Spark's option names.
_SOURCE_OPTION_NAMES = (
    "subscribe",
    "subscribePattern",
    "assign",
    "startingOffsets",
    "endingOffsets",
    "startingOffsetsByTimestamp",
    "endingOffsetsByTimestamp",
    "startingTimestamp",
    "endingTimestamp",
    "startingOffsetsByTimestampStrategy",
    "failOnDataLoss",
    "kafkaConsumer.pollTimeoutMs",
    "fetchOffset.numRetries",
    "fetchOffset.retryIntervalMs",
    "maxOffsetsPerTrigger",
    "minOffsetsPerTrigger",
    "maxTriggerDelay",
    "minPartitions",
    "maxRecordsPerPartition",
    "groupIdPrefix",
    "includeHeaders",
)
_SOURCE_OPTIONS = {name.lower(): name for name in _SOURCE_OPTION_NAMES}
_SINK_OPTIONS = {
    "topic": "topic",
    "includeheaders": "includeHeaders",
    "exactlyonce": "exactlyOnce",
    "transactionalidprefix": "transactionalIdPrefix",
    "transactionalidperquery": "transactionalIdPerQuery",
}
# Options Spark itself (not the source) may pass along.
_SPARK_OPTIONS = {"path", "checkpointlocation", "queryname", "__checkpointlocation"}

# Kafka client settings the source or sink owns (Spark rejects the same ones).
_UNSUPPORTED_CONSUMER = {
    "auto.offset.reset": "set the source option 'startingOffsets' to 'earliest' or 'latest'",
    "key.deserializer": "keys are always read as bytes",
    "value.deserializer": "values are always read as bytes",
    "enable.auto.commit": "the Kafka source does not commit any offset",
    "interceptor.classes": "interceptors are not supported",
}
_UNSUPPORTED_PRODUCER = {
    "key.serializer": "keys are written as bytes (string keys are encoded as UTF-8)",
    "value.serializer": "values are written as bytes (string values are encoded as UTF-8)",
    "interceptor.classes": "interceptors are not supported",
}

EARLIEST = -2
LATEST = -1


class KafkaOptionError(ValueError):
    """A Kafka source or sink option is missing, unknown or malformed."""


@dataclass(frozen=True)
class StartSpec:
    """Where to start (or end) reading: offsets, per-partition timestamps, or one timestamp."""

    kind: str  # "earliest" | "latest" | "offsets" | "timestamps" | "timestamp"
    offsets: dict[str, dict[int, int]] = field(default_factory=dict)
    timestamp: int = -1


@dataclass(frozen=True)
class SourceOptions:
    bootstrap_servers: str
    kafka_params: dict[str, str]
    subscribe: tuple[str, ...] = ()
    subscribe_pattern: str | None = None
    assign: dict[str, tuple[int, ...]] | None = None
    starting: StartSpec = StartSpec("latest")
    ending: StartSpec = StartSpec("latest")
    timestamp_strategy: str = "error"
    fail_on_data_loss: bool = True
    poll_timeout_ms: int = 120_000
    max_offsets_per_trigger: int | None = None
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
    group_id: str = ""
    include_headers: bool = False

    def consumer_config(self) -> dict[str, Any]:
        """librdkafka settings for reading: the user's ``kafka.*`` plus what the source owns."""
        return {
            # Ranges are read from data already in the log: don't pause once 100k records
            # are queued (librdkafka's default backoff is a second), and don't let the broker
            # hold a fetch at the log end for long. Both can be overridden with kafka.*.
            "fetch.queue.backoff.ms": 10,
            "fetch.wait.max.ms": 20,
            **self.kafka_params,
            "bootstrap.servers": self.bootstrap_servers,
            "group.id": self.group_id,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "error",
            "log.connection.close": False,
        }


@dataclass(frozen=True)
class SinkOptions:
    bootstrap_servers: str
    kafka_params: dict[str, str]
    topic: str | None = None
    include_headers: bool = False
    exactly_once: bool = False
    transactional_id_prefix: str = "seaway-spark"
    # False: ids are <prefix>-<partition>, the same in every run of the query, so a new
    # run fences the producers of a crashed one at once (Connect's per-task ids, KIP-618).
    transactional_id_per_query: bool = True

    def producer_config(self) -> dict[str, Any]:
        return {
            "linger.ms": 5,
            "batch.size": 1_000_000,
            **self.kafka_params,
            "bootstrap.servers": self.bootstrap_servers,
            "log.connection.close": False,
        }


def _split_kafka(
    options: Mapping[str, str], unsupported: Mapping[str, str]
) -> tuple[str, dict[str, str]]:
    params = {k[len("kafka.") :]: v for k, v in options.items() if k.lower().startswith("kafka.")}
    for key, advice in unsupported.items():
        if key in params:
            raise KafkaOptionError(f"Kafka option 'kafka.{key}' is not supported: {advice}.")
    try:  # Spark's options hold Java client settings: security ones in librdkafka's names
        params = to_librdkafka(params)
    except ConfigException as error:
        raise KafkaOptionError(f"Kafka options 'kafka.*': {error}") from None
    servers = params.pop("bootstrap.servers", "").strip()
    if not servers:
        raise KafkaOptionError(
            "Option 'kafka.bootstrap.servers' must be specified for configuring the Kafka "
            'client (e.g. .option("kafka.bootstrap.servers", "localhost:9092")).'
        )
    return servers, params


def _check_known(options: Mapping[str, str], known: Mapping[str, str], what: str) -> None:
    for key in options:
        low = key.lower()
        if low.startswith("kafka.") or low in known or low in _SPARK_OPTIONS:
            continue
        raise KafkaOptionError(
            f"Unknown {what} option '{key}' (option names are case-insensitive). Known "
            f"options: {', '.join(known.values())}, and 'kafka.*' settings passed to the "
            "Kafka client."
        )


def _name(key: str) -> str:
    """The option's name as Spark documents it (keys arrive lower-cased)."""
    return _SOURCE_OPTIONS.get(key, _SINK_OPTIONS.get(key, key))


def _bool(options: Mapping[str, str], key: str, default: bool) -> bool:
    raw = options.get(key)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise KafkaOptionError(f"Option '{_name(key)}' must be 'true' or 'false', got '{raw}'.")
    return value == "true"


def _positive_int(options: Mapping[str, str], key: str) -> int | None:
    raw = options.get(key)
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise KafkaOptionError(f"Option '{_name(key)}' must be a positive integer, got '{raw}'.")
    return value


def _json_object(key: str, raw: str, example: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as e:
        raise KafkaOptionError(
            f"Option '{key}' is not valid JSON ({e.msg} at position {e.pos}): '{raw}'. "
            f"Expected e.g. {example}"
        ) from None
    if not isinstance(value, dict):
        raise KafkaOptionError(
            f"Option '{key}' must be a JSON object such as {example}, got '{raw}'."
        )
    return value


def parse_partition_numbers(key: str, raw: str, example: str) -> dict[str, dict[int, int]]:
    """Parse ``{"topic": {"0": 23, "1": -1}}`` (offsets or timestamps per partition)."""
    parsed: dict[str, dict[int, int]] = {}
    for topic, partitions in _json_object(key, raw, example).items():
        if not isinstance(partitions, dict):
            raise KafkaOptionError(
                f"Option '{key}': topic '{topic}' must map partitions to numbers, e.g. {example}"
            )
        out: dict[int, int] = {}
        for partition, number in partitions.items():
            try:
                p = int(partition)
            except ValueError:
                raise KafkaOptionError(
                    f"Option '{key}': '{partition}' is not a partition number."
                ) from None
            if isinstance(number, bool) or not isinstance(number, int):
                raise KafkaOptionError(
                    f"Option '{key}': {topic}[{partition}] must be an integer, got {number!r}."
                )
            out[p] = number
        parsed[topic] = out
    return parsed


def _start_spec(
    options: Mapping[str, str], prefix: str, default: str, *, streaming_end: bool = False
) -> StartSpec:
    timestamp = options.get(f"{prefix}timestamp")
    if timestamp is not None:
        try:
            return StartSpec("timestamp", timestamp=int(timestamp))
        except ValueError:
            raise KafkaOptionError(
                f"Option '{prefix}Timestamp' must be a timestamp in milliseconds, "
                f"got '{timestamp}'."
            ) from None
    by_ts = options.get(f"{prefix}offsetsbytimestamp")
    if by_ts is not None:
        example = '{"topicA":{"0":1700000000000}}'
        return StartSpec(
            "timestamps",
            offsets=parse_partition_numbers(f"{prefix}OffsetsByTimestamp", by_ts, example),
        )
    raw = options.get(f"{prefix}offsets", default).strip()
    if raw.lower() in ("earliest", "latest"):
        return StartSpec(raw.lower())
    example = '{"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}'
    offsets = parse_partition_numbers(f"{prefix}Offsets", raw, example)
    for topic, partitions in offsets.items():
        for p, offset in partitions.items():
            if offset < EARLIEST:
                raise KafkaOptionError(
                    f"Option '{prefix}Offsets': {topic}[{p}] = {offset} is not an offset "
                    "(use an offset >= 0, -2 for earliest or -1 for latest)."
                )
    return StartSpec("offsets", offsets=offsets)


def parse_source_options(options: Mapping[str, str], *, streaming: bool) -> SourceOptions:
    """Validate the source options as Spark's KafkaSourceProvider does, with clear errors."""
    options = {k.lower(): v for k, v in options.items()}
    _check_known(options, _SOURCE_OPTIONS, "Kafka source")
    servers, params = _split_kafka(options, _UNSUPPORTED_CONSUMER)
    chosen = [k for k in ("subscribe", "subscribepattern", "assign") if k in options]
    names = {"subscribe": "subscribe", "subscribepattern": "subscribePattern", "assign": "assign"}
    if len(chosen) != 1:
        raise KafkaOptionError(
            "Exactly one of the options 'subscribe', 'subscribePattern', 'assign' must be "
            f"specified for the Kafka source, got {[names[c] for c in chosen] or 'none'}."
        )
    subscribe: tuple[str, ...] = ()
    pattern = None
    assign = None
    if chosen[0] == "subscribe":
        subscribe = tuple(t.strip() for t in options["subscribe"].split(",") if t.strip())
        if not subscribe:
            raise KafkaOptionError(
                "Option 'subscribe' must list at least one topic, e.g. 'orders,payments'."
            )
    elif chosen[0] == "subscribepattern":
        pattern = options["subscribepattern"].strip()
        try:
            re.compile(pattern)
        except re.error as e:
            raise KafkaOptionError(
                f"Option 'subscribePattern' is not a valid regular expression: {e}"
            ) from None
        if not pattern:
            raise KafkaOptionError("Option 'subscribePattern' must not be empty.")
    else:
        example = '{"topicA":[0,1],"topicB":[2,4]}'
        raw = _json_object("assign", options["assign"], example)
        assign = {}
        for topic, partitions in raw.items():
            if not isinstance(partitions, list) or not all(
                isinstance(p, int) and p >= 0 for p in partitions
            ):
                raise KafkaOptionError(
                    f"Option 'assign': topic '{topic}' must map to a list of partition "
                    f"numbers, e.g. {example}"
                )
            assign[topic] = tuple(partitions)
        if not assign:
            raise KafkaOptionError(
                f"Option 'assign' must name at least one partition, e.g. {example}"
            )
    starting = _start_spec(options, "starting", "latest" if streaming else "earliest")
    if not streaming and starting.kind == "latest":
        raise KafkaOptionError("Option 'startingOffsets' cannot be 'latest' for a batch query.")
    if (
        not streaming
        and starting.kind == "offsets"
        and any(o == LATEST for parts in starting.offsets.values() for o in parts.values())
    ):
        raise KafkaOptionError("Option 'startingOffsets' cannot use -1 (latest) for a batch query.")
    ending = StartSpec("latest")
    if not streaming:
        ending = _start_spec(options, "ending", "latest")
        if ending.kind == "earliest" or any(
            o == EARLIEST for p in ending.offsets.values() for o in p.values()
        ):
            raise KafkaOptionError(
                "Option 'endingOffsets' cannot be 'earliest' (-2) for a batch query."
            )
    elif any(k.startswith("ending") for k in options):
        key = next(k for k in options if k.startswith("ending"))
        raise KafkaOptionError(
            f"Option '{_name(key)}' is for batch queries only: a stream has no end."
        )
    strategy = options.get("startingoffsetsbytimestampstrategy", "error").strip().lower()
    if strategy not in ("error", "latest"):
        raise KafkaOptionError(
            "Option 'startingOffsetsByTimestampStrategy' must be 'error' or 'latest', "
            f"got '{strategy}'."
        )
    group_id = (
        params.pop("group.id", None)
        or f"{options.get('groupidprefix', 'spark-kafka-source')}-{uuid.uuid4()}"
    )
    poll = _positive_int(options, "kafkaconsumer.polltimeoutms")
    return SourceOptions(
        bootstrap_servers=servers,
        kafka_params=params,
        subscribe=subscribe,
        subscribe_pattern=pattern,
        assign=assign,
        starting=starting,
        ending=ending,
        timestamp_strategy=strategy,
        fail_on_data_loss=_bool(options, "failondataloss", True),
        poll_timeout_ms=poll or 120_000,
        max_offsets_per_trigger=_positive_int(options, "maxoffsetspertrigger"),
        min_partitions=_positive_int(options, "minpartitions"),
        max_records_per_partition=_positive_int(options, "maxrecordsperpartition"),
        group_id=group_id,
        include_headers=_bool(options, "includeheaders", False),
    )


def parse_sink_options(options: Mapping[str, str]) -> SinkOptions:
    options = {k.lower(): v for k, v in options.items()}
    _check_known(options, _SINK_OPTIONS, "Kafka sink")
    servers, params = _split_kafka(options, _UNSUPPORTED_PRODUCER)
    topic = options.get("topic")
    exactly_once = _bool(options, "exactlyonce", False)
    if "transactional.id" in params:
        raise KafkaOptionError(
            "Kafka option 'kafka.transactional.id' is not supported: set 'exactlyOnce' to "
            "'true' (and optionally 'transactionalIdPrefix'); each task derives its own id."
        )
    prefix = options.get("transactionalidprefix", "seaway-spark").strip()
    if not prefix:
        raise KafkaOptionError("Option 'transactionalIdPrefix' must not be empty.")
    return SinkOptions(
        bootstrap_servers=servers,
        kafka_params=params,
        topic=topic.strip() if topic and topic.strip() else None,
        include_headers=_bool(options, "includeheaders", False),
        exactly_once=exactly_once,
        transactional_id_prefix=prefix,
        transactional_id_per_query=_bool(options, "transactionalidperquery", True),
    )
