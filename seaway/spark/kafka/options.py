"""The Kafka source and sink options, with Spark's names, defaults and error messages.

:data:`SOURCE_CONFIG_DEF` and :data:`SINK_CONFIG_DEF` declare every option (type, default,
check, doc; docs/spark.md shows :func:`options_table` of each). Options arrive as a
case-insensitive mapping of strings (Spark lower-cases the keys); ``kafka.*`` ones go to the
Kafka client. Everything is validated up front on the driver, so a bad option fails the
query with a message naming the option instead of a task-side stack trace.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, LambdaValidator, Type, convert_to_string
from seaway.java.regex import compile_java_regex
from seaway.kafka.java_config import to_librdkafka
from seaway.spark.errors import SparkKafkaError

__all__ = [
    "EARLIEST",
    "LATEST",
    "SINK_CONFIG_DEF",
    "SOURCE_CONFIG_DEF",
    "KafkaOptionError",
    "SinkOptions",
    "SourceOptions",
    "StartSpec",
    "options_table",
    "parse_sink_options",
    "parse_source_options",
]

EARLIEST = -2
LATEST = -1


class KafkaOptionError(SparkKafkaError, ValueError):
    """A Kafka source or sink option is missing, unknown or malformed."""


def _must(text: str, ok: Callable[[Any], bool] = lambda value: True) -> LambdaValidator:
    """A check whose *text* ("a positive integer") is the docs' rule and the error's."""

    def check(name: str, value: Any) -> None:
        if value is not None and not ok(value):
            raise ConfigException(name, value, text)

    return LambdaValidator(check, text)


_BOOLEAN = _must("'true' or 'false'")
_POSITIVE = _must("a positive integer", lambda n: n > 0)
_NATURAL = _must("a non-negative integer", lambda n: n >= 0)
_TIMESTAMP = _must("a timestamp in milliseconds")
# Spark's time strings (JavaUtils.timeStringAsMs): a number, in ms unless a unit follows.
_DURATION = re.compile(r"([0-9]+)(us|ms|s|m|min|h|d)?")
_UNIT_MS: Final = dict(us=0.001, ms=1, s=1000, m=60_000, min=60_000, h=3_600_000, d=86_400_000)
_DURATION_RULE = _must(
    "a duration such as '15m', '30s' or '500ms'",
    lambda s: _DURATION.fullmatch(s.lower()) is not None,
)


def _duration_ms(text: str) -> int:
    number, unit = _DURATION.fullmatch(text.lower()).groups()  # type: ignore[union-attr]
    return int(int(number) * _UNIT_MS[unit or "ms"])


SOURCE_CONFIG_DEF: Final = (
    ConfigDef()
    .define("subscribe", Type.STRING, None, doc="Topics to read, comma-separated. Exactly one "
            "of `subscribe`, `subscribePattern` and `assign` is required.")
    .define("subscribePattern", Type.STRING, None, doc="A regular expression: every topic it "
            "matches is read, topics created later included.")
    .define("assign", Type.STRING, None, doc='The partitions to read: `{"topicA":[0,1]}`.')
    .define("startingOffsets", Type.STRING, None, doc="Where a query starts: `earliest`, "
            '`latest` (streams only) or `{"t":{"0":23,"1":-2}}` (-2 earliest, -1 latest). '
            "Default: `latest` for streams, `earliest` for batch queries.")
    .define("startingOffsetsByTimestamp", Type.STRING, None, doc="Start at each partition's "
            'first offset whose timestamp is >= the given one: `{"t":{"0":1700000000000}}`.')
    .define("startingTimestamp", Type.LONG, None, _TIMESTAMP, doc="One such timestamp for "
            "every partition. The timestamp options win over `startingOffsets`.")
    .define("startingOffsetsByTimestampStrategy", Type.STRING, "error",
            _must("'error' or 'latest'", lambda s: s.lower() in ("error", "latest")),
            doc="When no offset matches a starting timestamp: `error` fails the query, "
            "`latest` starts at the log end.")
    .define("endingOffsets", Type.STRING, "latest", doc="Batch queries only: `latest` or "
            "JSON as `startingOffsets` (-1 latest).")
    .define("endingOffsetsByTimestamp", Type.STRING, None, doc="Batch queries only: end "
            "before each partition's first offset at or after the given timestamp.")
    .define("endingTimestamp", Type.LONG, None, _TIMESTAMP, doc="Batch queries only: one "
            "such timestamp for every partition.")
    .define("failOnDataLoss", Type.BOOLEAN, True, _BOOLEAN, doc="`true`: fail when planned "
            "offsets are gone (retention, DeleteRecords, deleted topic); `false`: log and skip.")
    .define("kafkaConsumer.pollTimeoutMs", Type.LONG, 120_000, _POSITIVE, doc="How long a "
            "task waits for records in its range before failing, in milliseconds.")
    .define("fetchOffset.numRetries", Type.INT, 3, _NATURAL, doc="Accepted for "
            "compatibility, not used: each offset lookup waits up to "
            "`kafka.default.api.timeout.ms` (default 30 s), librdkafka retrying within that time.")
    .define("fetchOffset.retryIntervalMs", Type.LONG, 10, _NATURAL, doc="Accepted for "
            "compatibility, not used (as `fetchOffset.numRetries`).")
    .define("maxOffsetsPerTrigger", Type.LONG, None, _POSITIVE, doc="Streams: at most this "
            "many records per micro-batch, shared across partitions by backlog.")
    .define("minOffsetsPerTrigger", Type.LONG, None, _POSITIVE, doc="Streams: wait until "
            "this many new records are available, or `maxTriggerDelay` has passed since the "
            "last batch, before the next micro-batch (not with `Trigger.AvailableNow`, which "
            "reads what is there). Combines with `maxOffsetsPerTrigger`, which must not be "
            "smaller.")
    .define("maxTriggerDelay", Type.STRING, "15m", _DURATION_RULE, doc="Streams: the "
            "longest `minOffsetsPerTrigger` holds a micro-batch back.")
    .define("minPartitions", Type.INT, None, _POSITIVE, doc="Split offset ranges so that a "
            "batch has at least this many Spark tasks.")
    .define("maxRecordsPerPartition", Type.LONG, None, _POSITIVE, doc="Split offset ranges "
            "so that no Spark task reads more records than this.")
    .define("groupIdPrefix", Type.STRING, "spark-kafka-source", doc="Prefix of the random "
            "consumer group id used for fetching (`kafka.group.id` sets it whole); no offsets "
            "are ever committed.")
    .define("includeHeaders", Type.BOOLEAN, False, _BOOLEAN, doc="Add the `headers` column.")
)  # fmt: skip

SINK_CONFIG_DEF: Final = (
    ConfigDef()
    .define("topic", Type.STRING, None, doc="The topic of every record (wins over a `topic` "
            "column).")
    .define("includeHeaders", Type.BOOLEAN, False, _BOOLEAN, doc="Write the `headers` column.")
    .define("exactlyOnce", Type.BOOLEAN, False, _BOOLEAN, doc="`true`: every task writes its "
            "part of a micro-batch in one Kafka transaction; `false`: at-least-once, as "
            "Spark's sink.")
    .define("transactionalIdPrefix", Type.STRING, "seaway-spark", _must("non-empty", bool),
            doc="Prefix of the tasks' transactional ids and marker groups.")
    .define("transactionalIdPerQuery", Type.BOOLEAN, True, _BOOLEAN, doc="`true`: ids "
            "`<prefix>-<queryId>-<partition>`; `false`: `<prefix>-<partition>`, the same in "
            "every run, so a new run fences a crashed run's open transactions at once (Seaway "
            "Connect uses this).")
)  # fmt: skip

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


def options_table(definition: ConfigDef) -> str:
    """Markdown table rows of *definition*'s options, as docs/spark.md lists them."""
    rows = []
    for key in definition.config_keys.values():
        default = convert_to_string(key.default_value, key.type)
        rows.append(f"| `{key.name}` | {key.documentation}")
        rows[-1] += f" Default: `{default}`. |" if default is not None else " |"
    return "\n".join(rows)


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
    min_offsets_per_trigger: int | None = None
    max_trigger_delay_ms: int = 900_000
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
    group_id: str = ""
    include_headers: bool = False
    api_timeout_s: float = 30.0

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


def _parse(definition: ConfigDef, options: Mapping[str, str], what: str) -> dict[str, Any]:
    """*definition*'s values from lower-cased *options*; errors name the option as Spark does."""
    names = {name.lower(): name for name in definition.names()}
    for key in options:
        if key not in names and not key.startswith("kafka.") and key not in _SPARK_OPTIONS:
            raise KafkaOptionError(
                f"Unknown {what} option '{key}' (option names are case-insensitive). Known "
                f"options: {', '.join(names.values())}, and 'kafka.*' settings passed to the "
                "Kafka client."
            )
    props = {names[k]: v for k, v in options.items() if k in names}
    try:
        return definition.parse(props)
    except ConfigException as e:
        spec = definition.config_keys.get(e.name or "")
        if spec is None or spec.validator is None:
            raise KafkaOptionError(str(e)) from None
        raise KafkaOptionError(
            f"Option '{spec.name}' must be {spec.validator}, got '{props[spec.name]}'."
        ) from None


def _split_kafka(
    options: Mapping[str, str], unsupported: Mapping[str, str]
) -> tuple[str, dict[str, str]]:
    params = {k[len("kafka.") :]: v for k, v in options.items() if k.startswith("kafka.")}
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


def _api_timeout_s(params: dict[str, str]) -> float:
    """The Java consumer's ``default.api.timeout.ms`` (taken out of *params*: librdkafka has
    no such setting): how long metadata and offset lookups (the driver's, a task's) wait.
    30 s when not set (the Java client's default is 60 s)."""
    raw = params.pop("default.api.timeout.ms", "30000")
    try:
        timeout_ms = int(raw)
    except ValueError:
        timeout_ms = -1
    if timeout_ms <= 0:
        raise KafkaOptionError(
            f"Kafka option 'kafka.default.api.timeout.ms' must be a positive number of "
            f"milliseconds, got '{raw}'."
        )
    return timeout_ms / 1000


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


def _start_spec(values: Mapping[str, Any], prefix: str, default: str) -> StartSpec:
    if values[f"{prefix}Timestamp"] is not None:
        return StartSpec("timestamp", timestamp=values[f"{prefix}Timestamp"])
    by_ts = values[f"{prefix}OffsetsByTimestamp"]
    if by_ts is not None:
        example = '{"topicA":{"0":1700000000000}}'
        return StartSpec(
            "timestamps",
            offsets=parse_partition_numbers(f"{prefix}OffsetsByTimestamp", by_ts, example),
        )
    raw = values[f"{prefix}Offsets"] or default
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


def _topics(values: Mapping[str, Any]) -> dict[str, Any]:
    """The one of ``subscribe``, ``subscribePattern`` and ``assign`` given, parsed."""
    chosen = [k for k in ("subscribe", "subscribePattern", "assign") if values[k] is not None]
    if len(chosen) != 1:
        raise KafkaOptionError(
            "Exactly one of the options 'subscribe', 'subscribePattern', 'assign' must be "
            f"specified for the Kafka source, got {chosen or 'none'}."
        )
    if chosen[0] == "subscribe":
        subscribe = tuple(t.strip() for t in values["subscribe"].split(",") if t.strip())
        if not subscribe:
            raise KafkaOptionError(
                "Option 'subscribe' must list at least one topic, e.g. 'orders,payments'."
            )
        return {"subscribe": subscribe}
    if chosen[0] == "subscribePattern":
        pattern = values["subscribePattern"]
        try:
            compile_java_regex(pattern)
        except re.error as e:
            raise KafkaOptionError(
                f"Option 'subscribePattern' is not a valid regular expression: {e}"
            ) from None
        if not pattern:
            raise KafkaOptionError("Option 'subscribePattern' must not be empty.")
        return {"subscribe_pattern": pattern}
    example = '{"topicA":[0,1],"topicB":[2,4]}'
    assign = {}
    for topic, partitions in _json_object("assign", values["assign"], example).items():
        if not isinstance(partitions, list) or not all(
            isinstance(p, int) and p >= 0 for p in partitions
        ):
            raise KafkaOptionError(
                f"Option 'assign': topic '{topic}' must map to a list of partition "
                f"numbers, e.g. {example}"
            )
        assign[topic] = tuple(partitions)
    if not assign:
        raise KafkaOptionError(f"Option 'assign' must name at least one partition, e.g. {example}")
    return {"assign": assign}


def parse_source_options(options: Mapping[str, str], *, streaming: bool) -> SourceOptions:
    """Validate the source options as Spark's KafkaSourceProvider does, with clear errors."""
    options = {k.lower(): v for k, v in options.items()}
    values = _parse(SOURCE_CONFIG_DEF, options, "Kafka source")
    servers, params = _split_kafka(options, _UNSUPPORTED_CONSUMER)
    topics = _topics(values)
    starting = _start_spec(values, "starting", "latest" if streaming else "earliest")
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
        ending = _start_spec(values, "ending", "latest")
        if ending.kind == "earliest" or any(
            o == EARLIEST for p in ending.offsets.values() for o in p.values()
        ):
            raise KafkaOptionError(
                "Option 'endingOffsets' cannot be 'earliest' (-2) for a batch query."
            )
    elif ending_key := next((k for k in options if k.startswith("ending")), None):
        name = next(n for n in SOURCE_CONFIG_DEF.names() if n.lower() == ending_key)
        raise KafkaOptionError(f"Option '{name}' is for batch queries only: a stream has no end.")
    low, high = values["minOffsetsPerTrigger"], values["maxOffsetsPerTrigger"]
    if low is not None and high is not None and low > high:
        raise KafkaOptionError(
            f"The value of minOffsetsPerTrigger ({low}) is higher than the "
            f"maxOffsetsPerTrigger ({high})."
        )
    group_id = params.pop("group.id", None) or f"{values['groupIdPrefix']}-{uuid.uuid4()}"
    return SourceOptions(
        api_timeout_s=_api_timeout_s(params),
        bootstrap_servers=servers,
        kafka_params=params,
        **topics,
        starting=starting,
        ending=ending,
        timestamp_strategy=values["startingOffsetsByTimestampStrategy"].lower(),
        fail_on_data_loss=values["failOnDataLoss"],
        poll_timeout_ms=values["kafkaConsumer.pollTimeoutMs"],
        max_offsets_per_trigger=high,
        min_offsets_per_trigger=low,
        max_trigger_delay_ms=_duration_ms(values["maxTriggerDelay"]),
        min_partitions=values["minPartitions"],
        max_records_per_partition=values["maxRecordsPerPartition"],
        group_id=group_id,
        include_headers=values["includeHeaders"],
    )


def parse_sink_options(options: Mapping[str, str]) -> SinkOptions:
    """Validate the sink options; ``kafka.transactional.id`` is refused (ids are per task)."""
    options = {k.lower(): v for k, v in options.items()}
    values = _parse(SINK_CONFIG_DEF, options, "Kafka sink")
    servers, params = _split_kafka(options, _UNSUPPORTED_PRODUCER)
    if "transactional.id" in params:
        raise KafkaOptionError(
            "Kafka option 'kafka.transactional.id' is not supported: set 'exactlyOnce' to "
            "'true' (and optionally 'transactionalIdPrefix'); each task derives its own id."
        )
    return SinkOptions(
        bootstrap_servers=servers,
        kafka_params=params,
        topic=values["topic"] or None,
        include_headers=values["includeHeaders"],
        exactly_once=values["exactlyOnce"],
        transactional_id_prefix=values["transactionalIdPrefix"],
        transactional_id_per_query=values["transactionalIdPerQuery"],
    )
