"""Configuration of the binlog connectors with the names, defaults and checks of Debezium 3.x
(``BinlogConnectorConfig``, ``MariaDbConnectorConfig``, ``MySqlConnectorConfig`` and the common
and relational configs they extend), parsed into :class:`Settings`.

A key's own check is its validator; a rule over two keys (an include list beside an exclude
list) is checked after them and reported on the key Debezium names (:func:`validate`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, Importance, Password, Type
from seaway.config.validators import CaseInsensitiveValidString, Range, Validator
from seaway.connect.api.connector import ConfigValidation

__all__ = [
    "CONFIG_DEF",
    "Operations",
    "Patterns",
    "Settings",
    "TopicPrefix",
    "settings",
    "split_patterns",
    "validate",
]

HOSTNAME: Final = "database.hostname"
PORT: Final = "database.port"
USER: Final = "database.user"
PASSWORD: Final = "database.password"
SERVER_ID: Final = "database.server.id"
TOPIC_PREFIX: Final = "topic.prefix"
DATABASE_INCLUDE: Final = "database.include.list"
DATABASE_EXCLUDE: Final = "database.exclude.list"
TABLE_INCLUDE: Final = "table.include.list"
TABLE_EXCLUDE: Final = "table.exclude.list"
COLUMN_INCLUDE: Final = "column.include.list"
COLUMN_EXCLUDE: Final = "column.exclude.list"
SNAPSHOT_MODE: Final = "snapshot.mode"
HISTORY_SERVERS: Final = "schema.history.internal.kafka.bootstrap.servers"
HISTORY_TOPIC: Final = "schema.history.internal.kafka.topic"
INCLUDE_SCHEMA_CHANGES: Final = "include.schema.changes"
TOMBSTONES_ON_DELETE: Final = "tombstones.on.delete"
DECIMAL_MODE: Final = "decimal.handling.mode"
TIME_PRECISION_MODE: Final = "time.precision.mode"
BIGINT_UNSIGNED_MODE: Final = "bigint.unsigned.handling.mode"
HEARTBEAT_INTERVAL: Final = "heartbeat.interval.ms"
MAX_BATCH_SIZE: Final = "max.batch.size"
POLL_INTERVAL: Final = "poll.interval.ms"
SKIPPED_OPERATIONS: Final = "skipped.operations"

SNAPSHOT_MODES: Final = ("initial", "no_data", "when_needed", "never", "initial_only")
DECIMAL_MODES: Final = ("precise", "double", "string")
TIME_PRECISION_MODES: Final = ("adaptive_time_microseconds", "connect")
BIGINT_UNSIGNED_MODES: Final = ("long", "precise")
OPERATIONS: Final = ("c", "u", "d", "t", "none")

_REMOVED_SNAPSHOT_MODES: Final = {"schema_only": "no_data", "schema_only_recovery": "recovery"}
_TOPIC_NAME: Final = re.compile(r"[A-Za-z0-9._-]+")


class _SnapshotMode(Validator):
    """One of :data:`SNAPSHOT_MODES`; the modes Debezium 3.3 removed name their successor."""

    def ensure_valid(self, name: str, value: Any) -> None:
        mode = str(value).lower()
        if mode in _REMOVED_SNAPSHOT_MODES:
            raise ConfigException(
                name,
                value,
                f"The '{mode}' snapshot mode was removed in Debezium 3.3: use "
                f"'{_REMOVED_SNAPSHOT_MODES[mode]}' instead",
            )
        if mode not in SNAPSHOT_MODES:
            raise ConfigException(name, value, f"Value must be one of {', '.join(SNAPSHOT_MODES)}")

    def __str__(self) -> str:
        return "[" + ", ".join(SNAPSHOT_MODES) + "]"


class _TimePrecisionMode(Validator):
    """``adaptive_time_microseconds`` or ``connect``; ``adaptive`` is refused as Debezium does."""

    def ensure_valid(self, name: str, value: Any) -> None:
        mode = str(value).lower()
        if mode == "adaptive":
            raise ConfigException(
                name, value, "The 'adaptive' time.precision.mode is no longer supported"
            )
        if mode not in TIME_PRECISION_MODES:
            raise ConfigException(
                name, value, f"Value must be one of {', '.join(TIME_PRECISION_MODES)}"
            )

    def __str__(self) -> str:
        return "[" + ", ".join(TIME_PRECISION_MODES) + "]"


class TopicPrefix(Validator):
    """A non-empty topic name of ``[A-Za-z0-9._-]`` (Debezium's ``validateTopicName``)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None or not str(value).strip():
            raise ConfigException(
                name, value, "The 'topic.prefix' value is invalid: A value is required"
            )
        if not _TOPIC_NAME.fullmatch(str(value)):
            raise ConfigException(
                name,
                value,
                f"{value} has invalid format (only the underscore, hyphen, dot and "
                "alphanumeric characters are allowed)",
            )


class Patterns(Validator):
    """Comma-separated regular expressions that must compile."""

    def ensure_valid(self, name: str, value: Any) -> None:
        for pattern in split_patterns(value):
            try:
                re.compile(pattern)
            except re.error as error:
                message = (
                    f"A comma-separated list of valid regular expressions is expected: {error}"
                )
                raise ConfigException(name, value, message) from None


class Operations(Validator):
    """``c``, ``u``, ``d``, ``t`` (any of them) or ``none``."""

    def ensure_valid(self, name: str, value: Any) -> None:
        for op in (v.strip().lower() for v in str(value or "").split(",") if v.strip()):
            if op not in OPERATIONS:
                raise ConfigException(
                    name, value, f"The 'skipped.operations' value is invalid: unknown '{op}'"
                )


def split_patterns(value: Any) -> list[str]:
    """The regular expressions of a comma-separated list (``\\,`` keeps a comma in one)."""
    if not value:
        return []
    parts = re.split(r"(?<!\\),", str(value))
    return [p.replace("\\,", ",").strip() for p in parts if p.strip()]


def _config_def() -> ConfigDef:
    d = ConfigDef()
    d.define(
        HOSTNAME,
        Type.STRING,
        importance=Importance.HIGH,
        doc="Resolvable hostname or IP address of the database server.",
        group="Connection",
    )
    d.define(
        PORT,
        Type.INT,
        3306,
        Range.between(1, 65535),
        Importance.HIGH,
        "Port of the database server.",
        group="Connection",
    )
    d.define(
        USER,
        Type.STRING,
        importance=Importance.HIGH,
        doc="Name of the database user to connect with.",
        group="Connection",
    )
    d.define(
        PASSWORD,
        Type.PASSWORD,
        None,
        importance=Importance.HIGH,
        doc="Password of the database user.",
        group="Connection",
    )
    d.define(
        SERVER_ID,
        Type.LONG,
        validator=Range.at_least(1),
        importance=Importance.HIGH,
        doc="The numeric id of this client among the server's replicas: unique in the cluster.",
        group="Connection",
    )
    d.define(
        TOPIC_PREFIX,
        Type.STRING,
        validator=TopicPrefix(),
        importance=Importance.HIGH,
        doc="The logical name of the server: the prefix of every topic, the source "
        "partition and the source's name field.",
        group="Connector",
    )
    for key, what in (
        (DATABASE_INCLUDE, "databases to capture"),
        (DATABASE_EXCLUDE, "databases not to capture"),
        (TABLE_INCLUDE, "tables (db.table) to capture"),
        (TABLE_EXCLUDE, "tables (db.table) not to capture"),
        (COLUMN_INCLUDE, "columns (db.table.column) to include in events"),
        (COLUMN_EXCLUDE, "columns (db.table.column) to leave out of events"),
    ):
        d.define(
            key,
            Type.STRING,
            "",
            Patterns(),
            Importance.MEDIUM,
            f"Comma-separated regular expressions, matched whole and ignoring case, of the {what}.",
            group="Filters",
        )
    d.define(
        SNAPSHOT_MODE,
        Type.STRING,
        "initial",
        _SnapshotMode(),
        Importance.LOW,
        "initial: snapshot when there is no offset, then stream; initial_only: only the "
        "snapshot; no_data: only the schema, then stream; when_needed: also when the "
        "offset's position is no longer on the server; never: only stream.",
        group="Connector",
    )
    d.define(
        HISTORY_SERVERS,
        Type.STRING,
        importance=Importance.HIGH,
        doc="The Kafka cluster of the schema history topic.",
        group="History Storage",
    )
    d.define(
        HISTORY_TOPIC,
        Type.STRING,
        importance=Importance.HIGH,
        doc="The topic of the schema history (DDL with its binlog position).",
        group="History Storage",
    )
    d.define(
        INCLUDE_SCHEMA_CHANGES,
        Type.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        doc="Whether DDL goes to the schema change topic named topic.prefix.",
        group="Events",
    )
    d.define(
        TOMBSTONES_ON_DELETE,
        Type.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        doc="Whether a delete is followed by a tombstone (the key with a null value).",
        group="Events",
    )
    d.define(
        DECIMAL_MODE,
        Type.STRING,
        "precise",
        CaseInsensitiveValidString(DECIMAL_MODES),
        Importance.MEDIUM,
        "DECIMAL columns as Connect's Decimal (precise), FLOAT64 (double) or text (string).",
        group="Events",
    )
    d.define(
        TIME_PRECISION_MODE,
        Type.STRING,
        "adaptive_time_microseconds",
        _TimePrecisionMode(),
        Importance.MEDIUM,
        "Temporal columns as Debezium's types at the column's precision "
        "(adaptive_time_microseconds) or Connect's Date/Time/Timestamp (connect).",
        group="Events",
    )
    d.define(
        BIGINT_UNSIGNED_MODE,
        Type.STRING,
        "long",
        CaseInsensitiveValidString(BIGINT_UNSIGNED_MODES),
        Importance.MEDIUM,
        "BIGINT UNSIGNED as INT64 (long; values over 2^63-1 wrap) or Decimal(20,0) (precise).",
        group="Events",
    )
    d.define(
        HEARTBEAT_INTERVAL,
        Type.INT,
        0,
        Range.at_least(0),
        Importance.MEDIUM,
        "How often to emit a heartbeat carrying the current position, in ms (0: never).",
        group="Connector",
    )
    d.define(
        MAX_BATCH_SIZE,
        Type.INT,
        2048,
        Range.at_least(1),
        Importance.MEDIUM,
        "The most events in one batch.",
        group="Connector",
    )
    d.define(
        POLL_INTERVAL,
        Type.LONG,
        500,
        Range.at_least(1),
        Importance.MEDIUM,
        "How long to wait for new events before returning a batch, in ms.",
        group="Connector",
    )
    d.define(
        SKIPPED_OPERATIONS,
        Type.STRING,
        "t",
        Operations(),
        Importance.LOW,
        "Operations not emitted: c (inserts), u (updates), d (deletes), t (truncates), or none.",
        group="Events",
    )
    return d  # fmt: skip


CONFIG_DEF: Final = _config_def()


def _both_lists(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, message) for each include list set beside its exclude list."""
    problems = []
    for include, exclude in ((DATABASE_INCLUDE, DATABASE_EXCLUDE),
                             (TABLE_INCLUDE, TABLE_EXCLUDE),
                             (COLUMN_INCLUDE, COLUMN_EXCLUDE)):  # fmt: skip
        if values.get(include) and values.get(exclude):
            problems.append(
                (exclude, f'"{include}" is already specified: set {include} or {exclude}, '
                 "not both")
            )  # fmt: skip
    return problems


def validate(props: Mapping[str, str]) -> ConfigValidation:
    """Every key's errors, each on its key; the include/exclude rule on the exclude key."""
    results = CONFIG_DEF.validate_all(props)
    values = {name: result.value for name, result in results.items()}
    for key, message in _both_lists(values):
        results[key].add_error_message(message)
    return ConfigValidation(list(results.values()))


@dataclass(frozen=True)
class Settings:
    """A checked configuration."""

    hostname: str
    port: int
    user: str
    password: str
    server_id: int
    topic_prefix: str
    database_include: tuple[str, ...]
    database_exclude: tuple[str, ...]
    table_include: tuple[str, ...]
    table_exclude: tuple[str, ...]
    column_include: tuple[str, ...]
    column_exclude: tuple[str, ...]
    snapshot_mode: str
    history_servers: str
    history_topic: str
    include_schema_changes: bool
    tombstones_on_delete: bool
    decimal_mode: str
    time_precision_mode: str
    bigint_unsigned_mode: str
    heartbeat_interval_ms: int
    max_batch_size: int
    poll_interval_ms: int
    skipped_operations: frozenset[str]


def settings(props: Mapping[str, str]) -> Settings:
    """The :class:`Settings` of *props*; raises ``ConfigException`` on the first problem."""
    values = CONFIG_DEF.parse({k: v for k, v in props.items() if k in CONFIG_DEF})
    for key, message in _both_lists(values):
        raise ConfigException(key, values[key], message)
    password = values[PASSWORD]
    skipped = {v.strip().lower() for v in str(values[SKIPPED_OPERATIONS]).split(",")}
    return Settings(
        hostname=values[HOSTNAME],
        port=values[PORT],
        user=values[USER],
        password=password.value if isinstance(password, Password) else (password or ""),
        server_id=values[SERVER_ID],
        topic_prefix=values[TOPIC_PREFIX],
        database_include=tuple(split_patterns(values[DATABASE_INCLUDE])),
        database_exclude=tuple(split_patterns(values[DATABASE_EXCLUDE])),
        table_include=tuple(split_patterns(values[TABLE_INCLUDE])),
        table_exclude=tuple(split_patterns(values[TABLE_EXCLUDE])),
        column_include=tuple(split_patterns(values[COLUMN_INCLUDE])),
        column_exclude=tuple(split_patterns(values[COLUMN_EXCLUDE])),
        snapshot_mode=str(values[SNAPSHOT_MODE]).lower(),
        history_servers=values[HISTORY_SERVERS],
        history_topic=values[HISTORY_TOPIC],
        include_schema_changes=values[INCLUDE_SCHEMA_CHANGES],
        tombstones_on_delete=values[TOMBSTONES_ON_DELETE],
        decimal_mode=str(values[DECIMAL_MODE]).lower(),
        time_precision_mode=str(values[TIME_PRECISION_MODE]).lower(),
        bigint_unsigned_mode=str(values[BIGINT_UNSIGNED_MODE]).lower(),
        heartbeat_interval_ms=values[HEARTBEAT_INTERVAL],
        max_batch_size=values[MAX_BATCH_SIZE],
        poll_interval_ms=values[POLL_INTERVAL],
        skipped_operations=frozenset(skipped - {"none", ""}),
    )
