"""Configuration of the binlog connectors with the names, defaults and checks of Debezium 3.x
(``BinlogConnectorConfig``, ``MariaDbConnectorConfig``, ``MySqlConnectorConfig``), parsed into
:class:`Settings`. The keys every Debezium connector has come from
:mod:`seaway.connectors.debezium.config`.

A key's own check is its validator; a rule over two keys (an include list beside an exclude
list, the keys the chosen schema history needs) is checked after them and reported on the key
Debezium names (:func:`validate`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString, Range, Validator
from seaway.connectors.debezium import config as common

__all__ = [
    "CONFIG",
    "CONFIG_DEF",
    "FILE_HISTORY",
    "HISTORIES",
    "KAFKA_HISTORY",
    "Settings",
    "settings",
    "validate",
]

SERVER_ID: Final = "database.server.id"
DATABASE_INCLUDE: Final = "database.include.list"
DATABASE_EXCLUDE: Final = "database.exclude.list"
HISTORY: Final = "schema.history.internal"
HISTORY_SERVERS: Final = "schema.history.internal.kafka.bootstrap.servers"
HISTORY_TOPIC: Final = "schema.history.internal.kafka.topic"
HISTORY_FILE: Final = "schema.history.internal.file.filename"
INCLUDE_SCHEMA_CHANGES: Final = "include.schema.changes"
BIGINT_UNSIGNED_MODE: Final = "bigint.unsigned.handling.mode"

SNAPSHOT_MODES: Final = ("initial", "no_data", "when_needed", "never", "initial_only")
TIME_PRECISION_MODES: Final = ("adaptive_time_microseconds", "connect")
BIGINT_UNSIGNED_MODES: Final = ("long", "precise")
KAFKA_HISTORY: Final = "io.debezium.storage.kafka.history.KafkaSchemaHistory"
FILE_HISTORY: Final = "io.debezium.storage.file.history.FileSchemaHistory"
HISTORIES: Final = (KAFKA_HISTORY, FILE_HISTORY)
"""The schema history stores ``schema.history.internal`` may name (the Kafka one, the default)."""

_REMOVED_SNAPSHOT_MODES: Final = {"schema_only": "no_data", "schema_only_recovery": "recovery"}
_FIRST_LEVEL: Final = (DATABASE_INCLUDE, DATABASE_EXCLUDE)


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


class _HistoryClass(Validator):
    """One of :data:`HISTORIES`, by its class name."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if str(value).strip() not in HISTORIES:
            raise ConfigException(
                name,
                value,
                f"Unsupported schema history: use {KAFKA_HISTORY} (a Kafka topic: "
                f"{HISTORY_SERVERS} and {HISTORY_TOPIC}) or {FILE_HISTORY} (a file: "
                f"{HISTORY_FILE})",
            )

    def __str__(self) -> str:
        return "[" + ", ".join(HISTORIES) + "]"


def _history_keys(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, message) for each key the chosen schema history needs that is not set: the
    Kafka one's servers and topic, the file one's filename."""
    store = str(values.get(HISTORY) or "").strip()
    needed: tuple[tuple[str, str], ...]
    if store == KAFKA_HISTORY:
        needed = ((HISTORY_SERVERS, "the bootstrap servers of the history topic's cluster"),
                  (HISTORY_TOPIC, "the history topic's name"))  # fmt: skip
        other = f", or keep the history in a file: {HISTORY}={FILE_HISTORY} and {HISTORY_FILE}"
    elif store == FILE_HISTORY:
        needed, other = ((HISTORY_FILE, "the history file's path"),), ""
    else:  # an unknown store: its own error says which there are
        return []
    return [
        (key, f'Missing required configuration "{key}": {HISTORY} is {store}, which needs it; '
              f"set it to {what}{other}")
        for key, what in needed if not str(values.get(key) or "").strip()
    ]  # fmt: skip


def _config_def() -> ConfigDef:
    d = ConfigDef()
    common.define_string(d, common.HOSTNAME)
    common.define_port(d, 3306)
    common.define_string(d, common.USER)
    common.define_password(d)
    d.define(
        SERVER_ID,
        Type.LONG,
        validator=Range.at_least(1),
        importance=Importance.HIGH,
        doc="The numeric id of this client among the server's replicas: unique in the cluster.",
        group="Connection",
    )
    common.define_topic_prefix(d)
    common.define_filters(d, _FIRST_LEVEL, "databases", "db")
    common.define_snapshot_mode(
        d,
        common.SnapshotMode(SNAPSHOT_MODES, _REMOVED_SNAPSHOT_MODES),
        "initial: snapshot when there is no offset, then stream; initial_only: only the "
        "snapshot; no_data: only the schema, then stream; when_needed: also when the "
        "offset's position is no longer on the server; never: only stream.",
    )
    d.define(HISTORY, Type.STRING, KAFKA_HISTORY, _HistoryClass(), Importance.LOW,
             f"Where the schema history (each DDL with its binlog position) is kept: "
             f"{KAFKA_HISTORY} (a topic) or {FILE_HISTORY} (a file).",
             group="History Storage")  # fmt: skip
    for key, doc in (
        (HISTORY_SERVERS, f"The Kafka cluster of the schema history topic ({KAFKA_HISTORY})."),
        (HISTORY_TOPIC, f"The topic of the schema history ({KAFKA_HISTORY})."),
        (HISTORY_FILE, f"The file of the schema history, one JSON record a line "
                       f"({FILE_HISTORY})."),
    ):  # fmt: skip
        d.define(key, Type.STRING, None, importance=Importance.HIGH, doc=doc,
                 group="History Storage")  # fmt: skip
    d.define(
        INCLUDE_SCHEMA_CHANGES,
        Type.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        doc="Whether DDL goes to the schema change topic named topic.prefix.",
        group="Events",
    )
    common.define_row_modes(
        d,
        "DECIMAL",
        "adaptive_time_microseconds",
        _TimePrecisionMode(),
        "Temporal columns as Debezium's types at the column's precision "
        "(adaptive_time_microseconds) or Connect's Date/Time/Timestamp (connect).",
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
    common.define_batches(d)
    return d  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Settings(common.Settings):
    """A checked configuration."""

    server_id: int
    database_include: tuple[str, ...]
    database_exclude: tuple[str, ...]
    history_class: str
    history_servers: str | None
    history_topic: str | None
    history_file: str | None
    include_schema_changes: bool
    bigint_unsigned_mode: str


def _settings(values: Mapping[str, Any]) -> Settings:
    return Settings(
        **common.common_settings(values),
        server_id=values[SERVER_ID],
        database_include=tuple(common.split_patterns(values[DATABASE_INCLUDE])),
        database_exclude=tuple(common.split_patterns(values[DATABASE_EXCLUDE])),
        history_class=str(values[HISTORY]).strip(),
        history_servers=values[HISTORY_SERVERS],
        history_topic=values[HISTORY_TOPIC],
        history_file=values[HISTORY_FILE],
        include_schema_changes=values[INCLUDE_SCHEMA_CHANGES],
        bigint_unsigned_mode=str(values[BIGINT_UNSIGNED_MODE]).lower(),
    )


CONFIG: Final = common.ConnectorConfig(
    _config_def(), (DATABASE_INCLUDE, DATABASE_EXCLUDE), _settings, [_history_keys]
)
CONFIG_DEF: Final = CONFIG.config_def
validate: Final = CONFIG.validate
settings: Final = CONFIG.settings
